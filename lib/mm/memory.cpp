// The memory budget: available memory (meminfo and cgroups), sizes, plans and their check.
#include "mm/memory.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <sstream>

#include "mm/error.hpp"

namespace mm {

namespace {

constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
// A cgroup v1 "limit" at or above this is the kernel's "no limit" (9223372036854771712, the
// largest page count times the page size), as is v2's "max".
constexpr std::int64_t kNoLimit = std::int64_t{1} << 62;

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string cur;
  std::istringstream in(s);
  while (std::getline(in, cur, sep)) out.push_back(cur);
  return out;
}

bool to_int64(std::string_view s, std::int64_t& v) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.remove_suffix(1);
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  return ec == std::errc() && p == s.data() + s.size() && !s.empty();
}

// The first line of PATH; false when it cannot be read.
bool read_line(const std::string& path, std::string& line) {
  std::ifstream in(path);
  return static_cast<bool>(std::getline(in, line));
}

// The value of KEY in a "key value" file (memory.stat); -1 when absent.
std::int64_t stat_value(const std::string& path, const std::string& key) {
  std::ifstream in(path);
  std::string k;
  std::int64_t v = 0;
  while (in >> k >> v)
    if (k == key) return v;
  return -1;
}

// MemAvailable from /proc/meminfo in bytes; -1 when absent (kernels before 3.14).
std::int64_t mem_available() {
  std::ifstream in("/proc/meminfo");
  std::string key, unit;
  std::int64_t kb = 0;
  while (in >> key >> kb) {
    std::getline(in, unit);
    if (key == "MemAvailable:") return mul_sat(kb, 1024);
  }
  return -1;
}

struct Hierarchy {
  std::string mount, root;  // mount point and the hierarchy's path mounted there
};

// The cgroup v2 mount and the v1 mount holding the memory controller (empty: none).
void find_mounts(Hierarchy& v2, Hierarchy& v1) {
  std::ifstream in("/proc/self/mountinfo");
  for (std::string line; std::getline(in, line);) {
    const auto f = split(line, ' ');
    const auto dash = std::find(f.begin(), f.end(), "-");
    // "ID PARENT MAJ:MIN ROOT MOUNT OPTIONS ... - TYPE SOURCE SUPER_OPTIONS"
    if (f.size() < 5 || dash == f.end() || f.end() - dash < 4) continue;
    const std::string &type = dash[1], &super = dash[3];
    if (type == "cgroup2" && v2.mount.empty()) v2 = {f[4], f[3]};
    if (type == "cgroup" && v1.mount.empty()) {
      for (const auto& o : split(super, ','))
        if (o == "memory") v1 = {f[4], f[3]};
    }
  }
}

// Bytes left under the cgroup limits from DIR up to the mount point: the least over the
// levels of limit - (usage - inactive file cache). kMax when no level sets a limit.
std::int64_t cgroup_left(const Hierarchy& h, std::string path, bool v2) {
  if (path.rfind(h.root, 0) == 0 && h.root != "/") path = path.substr(h.root.size());
  std::int64_t best = kMax;
  for (;;) {
    const std::string dir = h.mount + (path == "/" ? "" : path);
    std::string line;
    std::int64_t limit = 0, usage = 0;
    if (read_line(dir + (v2 ? "/memory.max" : "/memory.limit_in_bytes"), line) &&
        to_int64(line, limit) && limit < kNoLimit &&
        read_line(dir + (v2 ? "/memory.current" : "/memory.usage_in_bytes"), line) &&
        to_int64(line, usage)) {
      std::int64_t cache =
          stat_value(dir + "/memory.stat", v2 ? "inactive_file" : "total_inactive_file");
      if (cache < 0 && !v2) cache = stat_value(dir + "/memory.stat", "inactive_file");
      const std::int64_t used = std::max<std::int64_t>(0, usage - std::max<std::int64_t>(cache, 0));
      best = std::min(best, std::max<std::int64_t>(0, limit - used));
    }
    if (path.empty() || path == "/") break;
    const auto slash = path.find_last_of('/');
    path = slash == 0 || slash == std::string::npos ? "/" : path.substr(0, slash);
  }
  return best;
}

// The least cgroup headroom of this process over v2 and v1 (memory controller).
std::int64_t cgroup_available() {
  Hierarchy v2, v1;
  find_mounts(v2, v1);
  std::ifstream in("/proc/self/cgroup");
  std::int64_t best = kMax;
  for (std::string line; std::getline(in, line);) {
    const auto a = line.find(':'), b = line.find(':', a + 1);
    if (a == std::string::npos || b == std::string::npos) continue;
    const std::string id = line.substr(0, a), ctl = line.substr(a + 1, b - a - 1),
                      path = line.substr(b + 1);
    if (id == "0" && ctl.empty() && !v2.mount.empty())
      best = std::min(best, cgroup_left(v2, path, true));
    for (const auto& c : split(ctl, ','))
      if (c == "memory" && !v1.mount.empty()) best = std::min(best, cgroup_left(v1, path, false));
  }
  return best;
}

// What an address-space limit (ulimit -v) leaves: the limit less the mapped size now.
std::int64_t rlimit_available() {
  rlimit r{};
  if (getrlimit(RLIMIT_AS, &r) != 0 || r.rlim_cur == RLIM_INFINITY) return kMax;
  std::ifstream in("/proc/self/statm");
  std::int64_t pages = 0;
  const long page = sysconf(_SC_PAGE_SIZE);
  if (!(in >> pages) || page <= 0) return kMax;
  const auto limit = static_cast<std::int64_t>(std::min<rlim_t>(r.rlim_cur, kMax));
  return std::max<std::int64_t>(0, limit - mul_sat(pages, page));
}

struct LastCheck {
  double need = -1, budget = 0;
  std::string where;
};
LastCheck g_last;

}  // namespace

std::int64_t available_memory() {
  std::int64_t avail = mem_available();
  if (avail < 0) {
    const long pages = sysconf(_SC_AVPHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
    avail = pages > 0 && page > 0 ? mul_sat(pages, page) : kMax;
  }
  return std::min({avail, cgroup_available(), rlimit_available()});
}

std::int64_t parse_size(std::string_view text, std::string_view option) {
  const std::string opt(option), shown(text);
  auto bad = [&](const std::string& why) {
    return UsageError(opt + " '" + shown + "': " + why +
                      " (a size in bytes, or with K, M, G or T: e.g. 8G, 512M, 1.5G)");
  };
  std::string_view s = text;
  std::size_t digits = 0;
  while (digits < s.size() && ((s[digits] >= '0' && s[digits] <= '9') || s[digits] == '.'))
    ++digits;
  const std::string number(s.substr(0, digits));
  std::string_view unit = s.substr(digits);
  if (number.empty() || number == "." || std::count(number.begin(), number.end(), '.') > 1)
    throw bad("not a size");
  double scale = 1;
  if (!unit.empty()) {
    const char u = static_cast<char>(unit[0] & ~0x20);  // upper case
    const int power = u == 'K' ? 1 : u == 'M' ? 2 : u == 'G' ? 3 : u == 'T' ? 4 : 0;
    if (power == 0) throw bad("unknown unit");
    scale = std::ldexp(1.0, 10 * power);
    unit.remove_prefix(1);
    if (unit == "B" || unit == "b" || unit == "iB" || unit == "ib") unit = {};
    if (!unit.empty()) throw bad("unknown unit");
  }
  double v = 0;
  const auto [p, ec] = std::from_chars(number.data(), number.data() + number.size(), v);
  if (ec != std::errc() || p != number.data() + number.size()) throw bad("not a size");
  const double bytes = std::floor(v * scale);
  if (!(bytes >= 1)) throw bad("must be at least 1 byte");
  if (bytes >= 0x1p63) throw bad("too large");
  return static_cast<std::int64_t>(bytes);
}

std::string format_bytes(double bytes) {
  char buf[64];
  if (!(bytes >= 1000)) {
    std::snprintf(buf, sizeof buf, "%.0f bytes", std::max(bytes, 0.0));
    return buf;
  }
  const char* units[] = {"kB", "MB", "GB"};
  double v = bytes / 1e3;
  int u = 0;
  // GB is the largest unit: "72000000000.0 GB" says "far too much" plainly enough.
  while (u < 2 && v >= 999.95) {
    v /= 1e3;
    ++u;
  }
  std::snprintf(buf, sizeof buf, "%.1f %s", v, units[u]);
  return buf;
}

std::int64_t add_sat(std::int64_t a, std::int64_t b) {
  std::int64_t r = 0;
  return __builtin_add_overflow(a, b, &r) ? kMax : r;
}

std::int64_t mul_sat(std::int64_t a, std::int64_t b) {
  std::int64_t r = 0;
  return __builtin_mul_overflow(a, b, &r) ? kMax : r;
}

double dense_bytes(std::int64_t rows, std::int64_t cols, double value) {
  return static_cast<double>(rows) * static_cast<double>(cols) * value;
}

double coo_bytes(double entries, double index, double value) {
  return entries * (2 * index + value);
}

double csr_bytes(std::int64_t rows, double entries, double index, double value) {
  return (static_cast<double>(rows) + 1) * index + entries * (index + value);
}

MemoryPlan& MemoryPlan::add(std::string name, double bytes) {
  if (bytes > 0) items_.push_back({std::move(name), bytes});
  return *this;
}

double MemoryPlan::total() const {
  double t = 0;
  for (const auto& i : items_) t += i.bytes;
  return t;
}

void check_memory(const MemoryPlan& plan, std::int64_t budget, bool verbose) {
  const double need = plan.total();
  g_last = {need, static_cast<double>(budget), plan.where()};
  if (need <= static_cast<double>(budget)) return;
  std::string msg =
      "needs " + format_bytes(need) + (plan.where().empty() ? "" : " of " + plan.where()) + ", " +
      format_bytes(static_cast<double>(budget)) + " available (--max-memory to change)";
  if (verbose) {
    msg += ":";
    for (std::size_t k = 0; k < plan.items().size(); ++k)
      msg += (k ? ", " : " ") + plan.items()[k].name + " " + format_bytes(plan.items()[k].bytes);
  }
  throw DeviceError(msg);
}

std::string out_of_memory_message() {
  std::string s = "out of memory: an allocation failed";
  if (g_last.need >= 0)
    s += " (the plan checked needs " + format_bytes(g_last.need) +
         (g_last.where.empty() ? "" : " of " + g_last.where) + ", " + format_bytes(g_last.budget) +
         " available; --max-memory to change)";
  else
    s += " (--max-memory to change)";
  return s;
}

}  // namespace mm
