// The memory budget: what this process may allocate (MemAvailable, the cgroup limit), sizes
// such as "8G", and a tool's plan of what it will hold, checked before it allocates.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace mm {

// Bytes this process can still allocate: the least of /proc/meminfo's MemAvailable and, for
// each cgroup (v2 memory.max, v1 memory.limit_in_bytes) from this process's up to its
// hierarchy's root, the limit minus the usage not reclaimable (usage less inactive file
// cache), and an address-space limit (ulimit -v) less what is mapped. "max" and the huge v1
// "no limit" value mean no limit. Where MemAvailable cannot be read, sysconf's available
// pages; failing that, INT64_MAX (no limit known).
std::int64_t available_memory();

// "8G", "512M", "1.5G", "100K", "4096" (bytes); K, M, G, T are powers of 1024, either case,
// optionally followed by "B" or "iB" ("8GiB"). Throws UsageError naming OPTION for anything
// else, zero, or more than INT64_MAX bytes.
std::int64_t parse_size(std::string_view text, std::string_view option = "--max-memory");

// Decimal units with one decimal: "24.0 GB", "512.3 MB", "1.2 kB"; under 1 kB "900 bytes".
std::string format_bytes(double bytes);

// Saturating int64 arithmetic for sizes: clamped to INT64_MAX (operands >= 0), never wraps.
std::int64_t add_sat(std::int64_t a, std::int64_t b);
std::int64_t mul_sat(std::int64_t a, std::int64_t b);

// Bytes of the usual storage shapes, as doubles (exact to 2^53, never wrapping: a
// 3e9 x 3e9 dense matrix is 7.2e19 bytes, not a negative number).
double dense_bytes(std::int64_t rows, std::int64_t cols, double value);
double coo_bytes(double entries, double index, double value);
double csr_bytes(std::int64_t rows, double entries, double index, double value);

// What a tool will hold at its peak, item by item ("A as CSR", "y", ...), host or device.
class MemoryPlan {
 public:
  struct Item {
    std::string name;
    double bytes;
  };
  // WHERE names the memory in messages: empty for the host's, "device memory" for a GPU's.
  MemoryPlan() = default;
  explicit MemoryPlan(std::string where) : where_(std::move(where)) {}

  MemoryPlan& add(std::string name, double bytes);
  double total() const;
  const std::vector<Item>& items() const { return items_; }
  const std::string& where() const { return where_; }
  bool empty() const { return items_.empty(); }

 private:
  std::string where_;
  std::vector<Item> items_;
};

// Throws DeviceError (exit 4) when PLAN needs more than BUDGET bytes:
//   "needs 24.0 GB, 21.3 GB available (--max-memory to change)"
// ("needs 3.1 GB of device memory, ..." for a device plan); with VERBOSE the items follow
// (": A.mtx as read 48 bytes, y 24.0 GB, ..."). Remembers the need and budget checked for
// out_of_memory_message().
void check_memory(const MemoryPlan& plan, std::int64_t budget, bool verbose = false);

// What a tool says when an allocation fails all the same (std::bad_alloc): "out of memory:
// an allocation failed (... --max-memory to change)", naming the last plan checked.
std::string out_of_memory_message();

}  // namespace mm
