// The SpMV implementations by name, best first for each device; their tuning keys; and the
// GPU kernel the default runs, chosen from the matrix's row statistics.
#include <omp.h>
#include <algorithm>
#include <cmath>

#include "device.hpp"
#include "instantiate.hpp"
#include "spmv.hpp"

#ifdef MM_HAVE_CUDA
#include "cuda/spmv_cuda.hpp"
#endif

namespace mm {

namespace {

template <class I, class T>
class RefRunner final : public Runner {
 public:
  explicit RefRunner(const SpmvProblem<I, T>& p) : p_(p) {}
  void run() override {
    if (p_.beta != T{}) std::copy(p_.y0, p_.y0 + p_.full->rows, p_.y);
    spmv_ref(*p_.full, p_.x, p_.y, p_.alpha, p_.beta);
  }

 private:
  SpmvProblem<I, T> p_;
};

template <class I, class T>
class CsrRunner final : public Runner {
 public:
  explicit CsrRunner(const SpmvProblem<I, T>& p)
      : p_(p), split_(spmv_split(*p.full, omp_get_max_threads())) {}
  void run() override { spmv_cpu_csr(*p_.full, split_, p_.x, p_.y0, p_.y, p_.alpha, p_.beta); }

 private:
  SpmvProblem<I, T> p_;
  std::vector<std::int64_t> split_;
};

template <class I, class T>
class SymRunner final : public Runner {
 public:
  explicit SymRunner(const SpmvProblem<I, T>& p) : p_(p) {
    if (!p.stored || p.symmetry == Symmetry::general)
      throw InputError("--impl cpu-sym needs a symmetric, skew-symmetric or hermitian file");
  }
  void run() override {
    spmv_cpu_sym(*p_.stored, p_.symmetry, p_.x, p_.y0, p_.y, p_.alpha, p_.beta,
                 omp_get_max_threads());
  }

 private:
  SpmvProblem<I, T> p_;
};

template <class R, class I, class T>
SpmvMake<I, T> make(SpmvInput input = SpmvInput::full) {
  return {input, [](const SpmvProblem<I, T>& p, const SpmvTuning&) -> std::unique_ptr<Runner> {
            return std::make_unique<R>(p);
          }};
}

const std::vector<std::string> kL2Words = {"plain", "stream", "keep-x"};  // SpmvTuning::l2 - 1

}  // namespace

const TuneKeys& SpmvTuning::keys() {
  static const TuneKeys k{
      "spmv",
      "the GPU kernels cuda-vector-k (lanes, l2), cuda-csr-stream (l2), cuda-adaptive (l2) and "
      "cuda-merge (items, l2)",
      {{"lanes", "0|1|2|4|8|16|32",
        "cuda-vector-k: lanes that share a row; 0: about 4 nonzeros a lane (a power of two "
        "2..32 from the mean row length)",
        "0: from the mean row length"},
       {"items", "0|4|6|8",
        "cuda-merge: merge-path items (row ends and nonzeros) a thread, 256 threads a tile; "
        "fewer where a tile would not fit the shared memory (complex double, 64-bit indices: 6)",
        "0: 4"},
       {"l2", "plain|stream|keep-x",
        "L2 hints: none; the matrix and y streamed (evict first) so that x stays; that and x "
        "kept (evict last)",
        "keep-x (cuda-adaptive: plain)", true}}};
  return k;
}

SpmvTuning SpmvTuning::from(const TuneArgs& args) {
  SpmvTuning t;
  const TuneKey &lanes = keys().key("lanes"), &items = keys().key("items"), &l2 = keys().key("l2");
  if (const auto v = args.get(lanes)) t.lanes = tune_int_of(lanes, *v, {0, 1, 2, 4, 8, 16, 32});
  if (const auto v = args.get(items)) t.items = tune_int_of(items, *v, {0, 4, 6, 8});
  if (const auto v = args.get(l2)) t.l2 = static_cast<int>(tune_choice(l2, *v, kL2Words)) + 1;
  return t;
}

nlohmann::json SpmvTuning::to_json() const {
  nlohmann::json j = nlohmann::json::object();
  if (lanes) j["lanes"] = lanes;
  if (items) j["items"] = items;
  if (l2 >= 1 && l2 <= 3) j["l2"] = kL2Words[static_cast<std::size_t>(l2 - 1)];
  return j;
}

template <class I, class T>
SpmvRowStats spmv_row_stats(const Csr<I, T>& a) {
  SpmvRowStats s;
  s.rows = a.rows;
  s.nnz = a.nnz();
  if (a.rows == 0) return s;
  s.mean = static_cast<double>(s.nnz) / static_cast<double>(a.rows);
  double var = 0;
  for (std::int64_t i = 0; i < a.rows; ++i) {
    const std::int64_t len = a.ptr[i + 1] - a.ptr[i];
    s.max = std::max(s.max, len);
    var += (static_cast<double>(len) - s.mean) * (static_cast<double>(len) - s.mean);
  }
  s.cv = s.mean > 0 ? std::sqrt(var / static_cast<double>(a.rows)) / s.mean : 0.0;
  return s;
}

int spmv_lanes(double mean_row) {
  // About 4 nonzeros a lane (one unrolled batch of loads): the nearest power of two to
  // mean/4 on a log scale, 2..32. On the H100 (bench/results/spmv_gpu_h100_*.md) 2 lanes
  // beat 4 and 8 on rows of 5-7 (92-101% of copy against 72-92%), and tie on rows of 8.
  int k = 2;
  while (k < 32 && 4.0 * k * std::sqrt(2.0) <= mean_row) k *= 2;
  return k;
}

std::string spmv_cuda_choice(const SpmvRowStats& s, bool memory_rich) {
  // Measured on the H100 (bench/results/spmv_gpu_h100_*.md), x cuSPARSE:
  //  - even rows (cv <= 0.5, no row beyond 4x the mean or 32): cuda-vector-k, 1.04-1.50x
  //    (it leaves a group's lanes idle for all but its longest row's length, so only there);
  //  - a few rows holding a large share of the nonzeros (cv >= 20: four full rows of 1M among
  //    rows of 10 has cv 143): cuda-adaptive, whose long-row chunks spread over the GPU, 1.13x;
  //  - spread rows between (power-law, alpha 1.5 to 3: cv 0.6-7): cuSPARSE, where
  //    cuda-adaptive and cuda-merge reach 0.94-1.00x.
  //  - on a memory-rich GPU (the H200, gpu_memory_rich), even rows of fewer than 6: the warp
  //    staging them, cuda-csr-stream (H200, poisson2d's rows of 5: 0.91 of copy against
  //    0.88, see its entry below); vector-k stays on rows of 7 there (0.95-1.05 of copy
  //    against 0.88-0.98) and on the H100, where it reached 92-101% of copy on rows of 5-7.
  if (s.cv <= 0.5 && static_cast<double>(s.max) <= 4.0 * std::max(s.mean, 8.0))
    return memory_rich && s.mean < 6.0 ? "cuda-csr-stream" : "cuda-vector-k";
  if (s.cv >= 20) return "cuda-adaptive";
  return "cusparse";
}

template <class I, class T>
const Impl<SpmvMake<I, T>>& spmv_default_impl(const Csr<I, T>& a, Device device) {
  return pick_default_impl(spmv_impls<I, T>(), "spmv", device,
                           [&] { return spmv_cuda_choice(spmv_row_stats(a), gpu_memory_rich()); });
}

template <class I, class T>
const ImplList<SpmvMake<I, T>>& spmv_impls() {
  static const ImplList<SpmvMake<I, T>> list = [] {
    ImplList<SpmvMake<I, T>> l;
    l.push_back({"cpu-csr", Device::cpu, "OpenMP CSR, rows split by nonzeros",
                 make<CsrRunner<I, T>, I, T>()});
    l.push_back({"cpu-sym", Device::cpu, "OpenMP on the stored triangle of a symmetric kind",
                 make<SymRunner<I, T>, I, T>(SpmvInput::stored_triangle)});
    l.push_back(
        {"ref", Device::cpu, "serial reference, plain CSR loops", make<RefRunner<I, T>, I, T>()});
#ifdef MM_HAVE_CUDA
    auto cuda = [](SpmvCudaKernel k) -> SpmvMake<I, T> {
      return {.fn = [k](const SpmvProblem<I, T>& p, const SpmvTuning& t) {
        return make_spmv_cuda(p, k, t);
      }};
    };
    l.push_back({"cuda-vector-k", Device::cuda,
                 "k lanes a row (k from the mean row length), the matrix streamed past x in L2",
                 cuda(SpmvCudaKernel::vector_k)});
    // CSR-stream a warp at a time. On the H200, three runs of the bench's matrices at 9e23b73:
    // 0.91 of copy on poisson2d against vector-k's 0.88, but 0.88-0.89 / 0.97-0.98 against
    // 0.95 / 1.05 on poisson3d's and banded rows of 7, and 1.07x cuSPARSE on random-8 against
    // 1.03x, too little to tell its rows of 8 from banded ones by their lengths
    // (bench/results/issue16_thirteenth_pass_2026-11-28_9e23b73.md): spmv_cuda_choice.
    l.push_back({"cuda-csr-stream", Device::cuda,
                 "a warp per 32 rows: their nonzeros read once in order, products staged in "
                 "shared memory, a lane sums its row (CSR-stream)",
                 cuda(SpmvCudaKernel::csr_stream)});
    l.push_back({"cuda-adaptive", Device::cuda,
                 "row blocks balanced by nonzeros, staged in shared memory",
                 cuda(SpmvCudaKernel::adaptive)});
    const SpmvMake<I, T> cusparse{
        .fn = [](const SpmvProblem<I, T>& p, const SpmvTuning&) { return make_spmv_cusparse(p); }};
    l.push_back({"cusparse", Device::cuda, "cuSPARSE SpMV (CSR_ALG1)", cusparse});
    l.push_back({"cuda-vector", Device::cuda, "a warp per row", cuda(SpmvCudaKernel::vector)});
    l.push_back({"cuda-scalar", Device::cuda, "a thread per row", cuda(SpmvCudaKernel::scalar)});
    // Load balanced by construction, but its staging and walk cost more than they save here
    // (0.5-0.7x cuSPARSE on the H100: bench/results/spmv_gpu_h100_*.md).
    l.push_back({"cuda-merge", Device::cuda,
                 "merge-path tiles of equal work over row ends and nonzeros, one carry fix-up",
                 cuda(SpmvCudaKernel::merge), ImplKind::experimental});
#endif
    return l;
  }();
  return list;
}

#define MM_SPMV_IMPLS(I, T)                                     \
  template const ImplList<SpmvMake<I, T>>& spmv_impls<I, T>();  \
  template SpmvRowStats spmv_row_stats<I, T>(const Csr<I, T>&); \
  template const Impl<SpmvMake<I, T>>& spmv_default_impl<I, T>(const Csr<I, T>&, Device);
MM_FOR_INDEX_VALUE_TYPES(MM_SPMV_IMPLS)

}  // namespace mm
