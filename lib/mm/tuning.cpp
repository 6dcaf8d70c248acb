// The --tune list, the typed parsers of tuning values, and the `--tune help` text.
#include "mm/tuning.hpp"

#include <algorithm>
#include <charconv>
#include <iostream>
#include <sstream>
#include <stdexcept>

#include "mm/error.hpp"

namespace mm {

namespace {

[[noreturn]] void bad_value(const TuneKey& key, const std::string& value) {
  throw UsageError("--tune " + key.name + "=" + value + ": " + key.name + " takes " + key.allowed);
}

// TEXT in lines of at most WIDTH characters (longer words alone), each after INDENT.
std::string wrap(const std::string& text, const std::string& indent, std::size_t width) {
  std::istringstream words(text);
  std::string out, line, w;
  while (words >> w) {
    if (!line.empty() && indent.size() + line.size() + 1 + w.size() > width) {
      out += indent + line + "\n";
      line.clear();
    }
    line += (line.empty() ? "" : " ") + w;
  }
  if (!line.empty()) out += indent + line + "\n";
  return out;
}

std::string key_names(const std::vector<TuneKeys>& ops) {
  std::string s;
  for (const auto& op : ops)
    for (const auto& k : op.keys) s += (s.empty() ? "" : ", ") + k.name;
  return s;
}

}  // namespace

const TuneKey& TuneKeys::key(const std::string& name) const {
  for (const auto& k : keys)
    if (k.name == name) return k;
  throw std::logic_error("tuning of " + op + " declares no key '" + name + "'");
}

TuneArgs::TuneArgs(const std::vector<std::string>& items) {
  for (const auto& item : items) {
    if (item == "help") {
      help_ = true;
      continue;
    }
    const auto eq = item.find('=');
    if (eq == std::string::npos || eq == 0)
      throw UsageError("--tune takes KEY=VALUE (or help), not '" + item + "'");
    std::string key = item.substr(0, eq);
    for (const auto& [k, v] : items_)
      if (k == key) throw UsageError("--tune " + key + " given twice");
    items_.emplace_back(std::move(key), item.substr(eq + 1));
  }
}

std::optional<std::string> TuneArgs::get(const TuneKey& key) const {
  for (const auto& [k, v] : items_)
    if (k == key.name) return v;
  return std::nullopt;
}

void TuneArgs::check_known(const std::string& tool, const std::vector<TuneKeys>& ops) const {
  for (const auto& [k, v] : items_) {
    bool known = false;
    for (const auto& op : ops)
      for (const auto& key : op.keys) known |= key.name == k;
    if (known) continue;
    const std::string names = key_names(ops);
    if (names.empty())
      throw UsageError("unknown --tune key '" + k + "': " + tool + " has no tuning keys");
    throw UsageError("unknown --tune key '" + k + "' for " + tool + "; keys: " + names + " (see " +
                     tool + " --tune help)");
  }
}

int tune_int(const TuneKey& key, const std::string& value, int lo, int hi) {
  int x = 0;
  const char* end = value.data() + value.size();
  const auto [p, ec] = std::from_chars(value.data(), end, x);
  if (value.empty() || ec != std::errc() || p != end || x < lo || x > hi) bad_value(key, value);
  return x;
}

int tune_int_of(const TuneKey& key, const std::string& value, const std::vector<int>& choices) {
  int x = 0;
  const char* end = value.data() + value.size();
  const auto [p, ec] = std::from_chars(value.data(), end, x);
  if (value.empty() || ec != std::errc() || p != end ||
      std::find(choices.begin(), choices.end(), x) == choices.end())
    bad_value(key, value);
  return x;
}

std::size_t tune_choice(const TuneKey& key, const std::string& value,
                        const std::vector<std::string>& words) {
  const auto it = std::find(words.begin(), words.end(), value);
  if (it == words.end()) bad_value(key, value);
  return static_cast<std::size_t>(it - words.begin());
}

bool tune_on_off(const TuneKey& key, const std::string& value) {
  return tune_choice(key, value, {"off", "on"}) == 1;
}

std::string tune_help(const std::string& tool, const std::vector<TuneKeys>& ops) {
  std::ostringstream s;
  if (key_names(ops).empty()) {
    s << tool << " has no tuning keys.\n";
    return s.str();
  }
  s << "Tuning keys of " << tool
    << ": --tune KEY=VALUE, repeatable. Defaults are chosen by the code;\n"
       "the values a run used go into its timing record as \"tuning\".\n";
  for (const auto& op : ops) {
    if (op.keys.empty()) continue;
    s << "\n" << op.op << (op.scope.empty() ? "" : ": " + op.scope) << "\n";
    for (const auto& k : op.keys) {
      std::string head = "  " + k.name + "=" + k.allowed;
      head.resize(std::max<std::size_t>(head.size() + 2, 22), ' ');
      s << head << "default " << k.fallback << (k.experimental ? "  [experimental]" : "") << "\n"
        << wrap(k.meaning, "      ", 92);
    }
  }
  return s.str();
}

void warn_unused_tuning(const std::string& tool, const TuneArgs& args, const nlohmann::json& used,
                        const std::string& impl) {
  for (const auto& [k, v] : args.items())
    if (!used.is_object() || !used.contains(k))
      std::cerr << tool << ": warning: --tune " << k << "=" << v << " not used by " << impl << "\n";
}

}  // namespace mm
