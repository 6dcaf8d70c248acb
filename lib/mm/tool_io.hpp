// The read and write steps every compute tool shares: timed, with -v lines and the
// timing record's inputs.
#pragma once

#include <functional>
#include <string>

#include "mm/cli.hpp"
#include "mm/memory.hpp"
#include "mm/mtx.hpp"
#include "mm/timing.hpp"

namespace mm {

// A tool's memory plan, host and device, grown as its inputs' headers are read and checked
// each time against the budget: --max-memory (default: the memory available) for the host,
// DEVICE_BUDGET for the device (set with kernels' device_budget(); -1: no device check).
struct ToolPlan {
  MemoryPlan host;
  MemoryPlan device{"device memory"};
  std::int64_t device_budget = -1;
};

// One input as its header describes it, for the tool's plan (a copy: kept for a later input's).
struct PlanInput {
  MtxHeader h;       // without its comments
  std::string name;  // the path, naming the plan's items
  double entries;    // stored entries: the size line's, at most what the file's size can hold
  double expanded;   // entries once symmetric kinds are expanded (array: rows*cols)
};

// Adds what the tool will hold for one input (conversions, results, workspace) to the plan;
// the reader's own storage is added by load_input.
using PlanFn = std::function<void(const PlanInput&, ToolPlan&)>;

struct Input {
  std::string path;
  MtxMatrix m;
  double seconds = 0;
  std::int64_t bytes = -1;  // file size; -1 for standard input
};

// Reads PATH with --threads; prints the reader's warnings; says what was read with -v.
// Once the header is read and before the body is, the reader's storage for it and what
// PLAN_FN adds go into PLAN, which is checked against the budget (exit 4 when over), so a
// file too large is refused before anything is allocated for it. The overload without a
// plan checks the reader's storage alone.
Input load_input(const std::string& path, const CommonOptions& c, const char* tool, ToolPlan& plan,
                 const PlanFn& plan_fn = {});
Input load_input(const std::string& path, const CommonOptions& c, const char* tool);

// The reader's storage for an input's header (indices and values of the entries it can hold,
// the read window): added to PLAN under NAME. Returns the PlanInput for the tool's own items.
PlanInput plan_read(MemoryPlan& plan, const MtxHeader& h, const std::string& name, long long bytes,
                    const ReadOptions& opt);
// Checks PLAN's host part against C's budget and its device part against its device budget.
void check_plan(const ToolPlan& plan, const CommonOptions& c);

// Sizes for plans: the kernel's value type (--precision, twice for complex) and the index
// type with_index_type picks for the shape (4 or 8 bytes).
double value_size(const std::string& precision, bool complex);
double index_size(std::int64_t rows, std::int64_t cols, double entries);
// The input as CSR (to_coo then coo_to_csr: the COO, the CSR and the sort's temporaries);
// as a dense matrix (to_dense: the symmetric expansion and the rows x cols values).
void plan_csr(MemoryPlan& plan, const PlanInput& in, double index, double value);
void plan_dense(MemoryPlan& plan, const PlanInput& in, double value);
// A result of ENTRIES values written by save_output: the MtxMatrix (COO when COORDINATE)
// and the writer's buffers.
void plan_output(MemoryPlan& plan, const std::string& name, double entries, bool coordinate,
                 bool complex, int threads);

// Prints the reader's warnings about M, read from PATH, once each to standard error:
// "TOOL: warning: FILE:LINE: message" (LINE: the first line concerned).
void warn_read(const char* tool, const std::string& path, const MtxMatrix& m);

// Adds the input to the record and its read time to the "read" phase.
void record_input(TimingRecord& rec, const Input& in);

// Writes M to -o unless -q; returns the seconds it took.
double save_output(const MtxMatrix& m, const CommonOptions& c);

// A x = B's shapes, from the headers: InputError (exit 3) naming A_PATH when A is not square,
// B_PATH when B's rows are not A's.
void check_system_shapes(const std::string& a_path, const MtxHeader& a, const std::string& b_path,
                         const MtxHeader& b);

// A vector argument as an n x 1 array's values (integer and pattern promoted); throws
// InputError naming the file when it is not one column of length N (N < 0: any).
template <class T>
std::vector<T> vector_values(const Input& in, std::int64_t n, const std::string& what);

}  // namespace mm
