// The LU implementations by name, best first for each device.
#include <algorithm>
#include <string>
#include <type_traits>
#include <vector>

#include "device.hpp"
#include "instantiate.hpp"
#include "lu.hpp"

#ifdef MM_HAVE_CUDA
#include "cuda/lu/lu_cuda.hpp"
#endif

namespace mm {

namespace {

// Every runner factors a fresh copy of A, so repeated runs time the same work.
template <class T, void (*Factor)(Dense<T>&, std::int64_t*)>
class LuRunner final : public Runner {
 public:
  explicit LuRunner(const LuProblem<T>& p) : p_(p) {}
  void run() override {
    std::copy(p_.a->data.begin(), p_.a->data.end(), p_.lu->data.begin());
    Factor(*p_.lu, p_.ipiv->data());
  }

 private:
  LuProblem<T> p_;
};

// Block width of cpu-blocked: 128. Measured at n = 2048 on a 2-core Xeon (2026-11-21), 128 and
// 64 swapped places between two runs (0.72 / 0.60x LAPACK dgetrf against 0.20 / 0.65x), and 192
// and 256 trailed (0.44-0.49x).
template <class T>
void blocked(Dense<T>& a, std::int64_t* ipiv) {
  lu_cpu_blocked(a, ipiv, 128);
}

template <class T, void (*Factor)(Dense<T>&, std::int64_t*)>
LuMake<T> make() {
  return [](const LuProblem<T>& p) -> std::unique_ptr<Runner> {
    return std::make_unique<LuRunner<T, Factor>>(p);
  };
}

#ifdef MM_HAVE_CUDA
// The GPU ones: cuSOLVER first, the default where lu_cuda_choice (below) does not take
// cuda-blocked; cuda-blocked; and the per-column kernels (slow by design: 0.08-0.19x cuSOLVER).
template <class T>
void add_cuda_impls(ImplList<LuMake<T>>& l) {
  l.push_back({"cusolver", Device::cuda,
               "cuSOLVER Xgetrf between device transposes (row-major <-> column-major)",
               [](const LuProblem<T>& p) { return make_lu_cusolver(p); }});
  l.push_back({"cuda-blocked", Device::cuda,
               "panel leaves on a thread-block cluster (grid for tall ones), small triangular "
               "solves a warp per column, cuBLAS GEMM (and TRSM for wide blocks), look-ahead",
               [](const LuProblem<T>& p) { return make_lu_cuda_blocked(p); }});
  l.push_back({"cuda-hybrid", Device::cuda,
               "a kernel per column step: pivot search, swap, scale, rank-1 update",
               [](const LuProblem<T>& p) { return make_lu_cuda_hybrid(p); }});
}
#endif

}  // namespace

// ---- cuda-blocked's tuning keys (LuTuning, lu.hpp) ------------------------------------------

namespace {

// The words of LuTuning's enums, in their order.
const std::vector<std::string> kLeafWords{"cluster", "grid"};
const std::vector<std::string> kExchangeWords{"push", "sync"};
const std::vector<std::string> kGraphWords{"auto", "on", "off"};
const std::vector<std::string> kTrsmWords{"warp", "cublas", "inverse", "split"};
constexpr int kMostRows = 1 << 20;  // rows and bytes: beyond any leaf cuda-blocked factors

}  // namespace

const TuneKeys& LuTuning::keys() {
  static const TuneKeys k{
      "lu",
      "cuda-blocked's panels and leaves (mmlu; mmsolve --method lu)",
      {{"nb", "0.." + std::to_string(kMaxNb),
        "panel width: the columns factored per step, the rank of each trailing GEMM update",
        "0: 1024 from n = 24576, 512 from 12288, 256 from 8192, 128 from 2048, else 64"},
       {"leaf", "cluster|grid",
        "where the panel leaves run: cluster: on one thread-block cluster wherever its shared "
        "memory (tall leaves: its registers) holds the rows, else on the cooperative grid; "
        "grid: always on the cooperative grid, a grid barrier per column",
        "cluster"},
       {"cluster", "1|2|4|8|16",
        "most blocks of a cluster leaf; the record holds the most found on this device (0: no "
        "clusters)",
        "16, fewer where the device schedules no such cluster"},
       {"leaf_smem", "0.." + std::to_string(kMostRows),
        "shared memory a cluster leaf's block may use, in bytes; less forces narrower leaves "
        "and the grid leaf at small n",
        "0: the device's opt-in limit"},
       {"cluster_rows", "0.." + std::to_string(kMostRows),
        "rows a cluster leaf's block aims at: a leaf takes the fewest blocks (a power of two) "
        "that hold its rows at about this many each",
        "0: " + std::to_string(kClusterRows)},
       {"cluster_max_rows", "0.." + std::to_string(kMostRows),
        "rows a cluster leaf's block takes at most; taller leaves run on the grid leaf, whose "
        "many blocks update faster than a cluster's 16",
        "0: " + std::to_string(kClusterMaxRows)},
       {"reg_rows", "auto|0.." + std::to_string(kMostRows),
        "leaves of at least this many rows hold them in registers (real types, where a cluster "
        "can); 0: never",
        "auto: " + std::to_string(kRegRows)},
       {"exchange", "push|sync",
        "how a cluster leaf's blocks exchange each column's pivot candidates: push: st.async "
        "into every block's shared memory, awaited on a local mbarrier; sync: read across the "
        "cluster after a cluster barrier (a research leftover, slower)",
        "push", true},
       {"graph", "auto|on|off",
        "the whole factorization captured once as a CUDA graph and replayed (its kernels lose "
        "the panel stream's priority); off under --profile",
        "auto: on up to n = 4096"},
       {"trsm", "warp|cublas|inverse|split",
        "the triangular solves of at most " + std::to_string(kMaxNb) +
            " columns (a panel's own U rows, the next panel's), real types: warp: a "
            "warp per column, forward substitution in registers, L staged in shared memory, "
            "on blocks of up to " +
            std::to_string(kSmallSolveMax) +
            " rows (taller ones split in two, a GEMM between); cublas: cuBLAS's TRSM "
            "(complex types always); inverse (experimental): warp's, and the rest's update's U "
            "block row by "
            "a GEMM with the inverse of the panel's L in place of cuBLAS's TRSM, the inverse "
            "made by the update stream while the panel stream begins the next panel (the small "
            "solve on the identity's diagonal blocks, joined by GEMMs); split (experimental): "
            "warp's, and the rest's update's TRSM split as warp's is, cuBLAS's TRSM on each "
            "diagonal block of up to " +
            std::to_string(kSmallSolveMax) + " rows",
        "warp"},
       {"pdl", "off|on",
        "the panel stream's own kernels (leaves, small solves) by programmatic dependent launch: "
        "each made resident while the kernel before it finishes, waiting for it in its threads; "
        "off under --profile",
        "on"}}};
  return k;
}

LuTuning LuTuning::from(const TuneArgs& args) {
  LuTuning t;
  const TuneKeys& k = keys();
  const auto number = [&](const char* name, int& field, int lo, int hi) {
    const TuneKey& key = k.key(name);
    if (const auto v = args.get(key)) field = tune_int(key, *v, lo, hi);
  };
  number("nb", t.nb, 0, kMaxNb);
  number("leaf_smem", t.leaf_smem, 0, kMostRows);
  number("cluster_rows", t.cluster_rows, 0, kMostRows);
  number("cluster_max_rows", t.cluster_max_rows, 0, kMostRows);
  if (const auto v = args.get(k.key("cluster")))
    t.cluster = tune_int_of(k.key("cluster"), *v, {1, 2, 4, 8, 16});
  if (const auto v = args.get(k.key("reg_rows")))
    t.reg_rows = *v == "auto" ? -1 : tune_int(k.key("reg_rows"), *v, 0, kMostRows);
  if (const auto v = args.get(k.key("leaf")))
    t.leaf = static_cast<Leaf>(tune_choice(k.key("leaf"), *v, kLeafWords));
  if (const auto v = args.get(k.key("exchange")))
    t.exchange = static_cast<Exchange>(tune_choice(k.key("exchange"), *v, kExchangeWords));
  if (const auto v = args.get(k.key("graph")))
    t.graph = static_cast<Graph>(tune_choice(k.key("graph"), *v, kGraphWords));
  if (const auto v = args.get(k.key("trsm")))
    t.trsm = static_cast<Trsm>(tune_choice(k.key("trsm"), *v, kTrsmWords));
  if (const auto v = args.get(k.key("pdl"))) t.pdl = tune_on_off(k.key("pdl"), *v);
  return t;
}

nlohmann::json LuTuning::to_json() const {
  const auto word = [](const std::vector<std::string>& words, auto e) {
    return words.at(static_cast<std::size_t>(e));
  };
  return {{"nb", nb},
          {"leaf", word(kLeafWords, leaf)},
          {"cluster", cluster},
          {"leaf_smem", leaf_smem},
          {"cluster_rows", cluster_rows},
          {"cluster_max_rows", cluster_max_rows},
          {"reg_rows", reg_rows < 0 ? nlohmann::json("auto") : nlohmann::json(reg_rows)},
          {"exchange", word(kExchangeWords, exchange)},
          {"graph", word(kGraphWords, graph)},
          {"trsm", word(kTrsmWords, trsm)},
          {"pdl", pdl ? "on" : "off"}};
}

template <class T>
const ImplList<LuMake<T>>& lu_impls() {
  static const ImplList<LuMake<T>> list = [] {
    ImplList<LuMake<T>> l;
    l.push_back({"lapack", Device::cpu, "LAPACK getrf (OpenBLAS), via a column-major copy",
                 make<T, lu_lapack<T>>()});
    l.push_back({"cpu-blocked", Device::cpu,
                 "OpenMP blocked, recursive panels, trailing update by cpu-blocked GEMM's kernel",
                 make<T, blocked<T>>()});
    l.push_back({"ref", Device::cpu, "serial unblocked Doolittle with partial pivoting",
                 make<T, lu_ref<T>>()});
#ifdef MM_HAVE_CUDA
    add_cuda_impls<T>(l);
#endif
    return l;
  }();
  return list;
}

std::string lu_cuda_choice(std::int64_t n, bool real_double) {
  // Measured in double (lu_bench --device cuda --hybrid-max-n 0, x cuSOLVER getrf, pivots
  // equal; bench/results/issue16_fourteenth_pass_2026-11-28_f68b5b5.md and
  // issue16_fifteenth_pass_2026-11-29_f3a2f91.md):
  //  - H200: cuda-blocked 1.10-1.11 / 1.15-1.16 / 1.22-1.23 / 1.27 / 1.07 at
  //    n = 2048 / 4096 / 8192 / 16384 / 32768 with the small solve (1.06-1.07 / 1.13 / 1.19 /
  //    1.25 / 1.06 before it); 0.96 at 1024 (fourteenth pass) and 0.97 at c17cc61 (1.10 at
  //    2048, 1.14 at 4096; the forty-eighth pass's file, below);
  //  - H100 at dd26ab0 and 83e4558: 1.03 / 1.14 / 1.16-1.17 / 1.26 / 1.42 / 1.30 at n = 1024 /
  //    2048 / 4096 / 8192 / 16384 / 32768 (0.92 at 4096 on 2026-11-25, before the register
  //    leaves and the small solve; bench/results/issue16_fortyeighth_pass_2026-12-02_dd26ab0.md).
  // So 2048 on both: 1024 ties on the H100 and loses on the H200. Single and complex precision
  // were not measured against cuSOLVER: they keep it.
  if (!real_double) return "cusolver";
  return n >= 2048 ? "cuda-blocked" : "cusolver";
}

template <class T>
const Impl<LuMake<T>>& lu_default_impl(std::int64_t n, Device device) {
  return pick_default_impl(lu_impls<T>(), "lu", device,
                           [&] { return lu_cuda_choice(n, std::is_same_v<T, double>); });
}

#define MM_LU_IMPLS(T)                               \
  template const ImplList<LuMake<T>>& lu_impls<T>(); \
  template const Impl<LuMake<T>>& lu_default_impl<T>(std::int64_t, Device);
MM_FOR_VALUE_TYPES(MM_LU_IMPLS)

}  // namespace mm
