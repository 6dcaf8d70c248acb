// The GEMM implementations by name, best first for each device.
#include <cblas.h>

#include "gemm.hpp"
#include "instantiate.hpp"

#ifdef MM_HAVE_CUDA
#include "cuda/gemm_cuda.hpp"
#include "cuda/gemm_sgemm.hpp"
#endif

namespace mm {

namespace {

// --tune microkernel's words, in GemmKernel's order.
constexpr const char* kKernelWords[] = {"auto", "portable", "avx2", "avx512"};
constexpr std::size_t index(GemmKernel k) {
  return static_cast<std::size_t>(k);
}

// Binds a kernel with gemm_ref's signature; C is written whole on every run (beta = 0).
template <class T, void (*F)(const Dense<T>&, const Dense<T>&, Dense<T>&, T, T)>
class PlainRunner final : public Runner {
 public:
  explicit PlainRunner(const GemmProblem<T>& p) : p_(p) {}
  void run() override { F(*p_.a, *p_.b, *p_.c, p_.alpha, T{}); }

 private:
  GemmProblem<T> p_;
};

// cpu-blocked with the micro-kernel its tuning asks for; the record names the one that ran.
template <class T>
class BlockedRunner final : public Runner {
 public:
  explicit BlockedRunner(const GemmProblem<T>& p) : p_(p), k_(p.tuning.microkernel) {
    if (!gemm_kernel_supported(k_))
      throw DeviceError("--tune microkernel=" + std::string(kKernelWords[index(k_)]) +
                        ": this CPU lacks the instructions");
  }
  void run() override { gemm_cpu_blocked(*p_.a, *p_.b, *p_.c, p_.alpha, T{}, k_); }
  nlohmann::json tuning() const override { return {{"microkernel", gemm_kernel_name<T>(k_)}}; }

 private:
  GemmProblem<T> p_;
  GemmKernel k_;
};

template <class T, void (*F)(const Dense<T>&, const Dense<T>&, Dense<T>&, T, T)>
GemmMake<T> plain() {
  return [](const GemmProblem<T>& p) -> std::unique_ptr<Runner> {
    return std::make_unique<PlainRunner<T, F>>(p);
  };
}

template <class T>
GemmMake<T> blocked() {
  return [](const GemmProblem<T>& p) -> std::unique_ptr<Runner> {
    return std::make_unique<BlockedRunner<T>>(p);
  };
}

#ifdef MM_HAVE_CUDA
// The GPU ones, best first: cuBLAS, then the hand-written kernels fastest first (complex:
// cuBLAS only). Names say what runs. Float: cuda-tf32 rounds its inputs to TF32, so it
// follows the full-precision register-blocked kernel, and its peer is cublas-tf32, not
// SGEMM. Double: cuda-dmma is full FP64 on the tensor cores and leads the hand-written ones.
template <class T>
void add_cuda_impls(ImplList<GemmMake<T>>& l) {
  l.push_back({"cublas", Device::cuda, "cuBLAS ?gemm (C^T = B^T A^T), default math (no TF32)",
               [](const GemmProblem<T>& p) { return make_gemm_cublas(p); }});
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
    auto hand = [](GemmCudaKernel k) -> GemmMake<T> {
      return [k](const GemmProblem<T>& p) { return make_gemm_cuda(p, k); };
    };
    const Impl<GemmMake<T>> regblock{
        "cuda-regblock", Device::cuda,
        "128x128 block tile, 8x8 register tile per thread, BK=8, double-buffered shared",
        hand(GemmCudaKernel::regblock)};
    if constexpr (std::is_same_v<T, float>) {
      // Full FP32 on the CUDA cores, measured on an H100 (x cuBLAS SGEMM at n = 4096 / 8192):
      // cuda-sgemm 0.93 / 0.93 (0.95 at 2048); with k slices of 32 0.94 / 0.95 but 0.88 at 2048
      // (experimental); the 128x128 shape 0.89 / 0.90, ahead on small products (0.54 against
      // 0.34 at n = 1000: twice the blocks); the register-staged cuda-regblock 0.83 / 0.84
      // (experimental here, the step before the cp.async pipeline; for double it stays).
      auto sgemm = [](SgemmConfig c) -> GemmMake<T> {
        return [c](const GemmProblem<T>& p) { return make_gemm_sgemm(p, c); };
      };
      l.push_back({"cuda-sgemm", Device::cuda,
                   "FFMA (full FP32), 128x256 block, 64x64 warp tiles of 8x16 a thread, 3-stage "
                   "cp.async pipeline of k slices of 16 (A transposed on the way in)",
                   sgemm(SgemmConfig::b128x256k16)});
      l.push_back({"cuda-sgemm-bk32", Device::cuda, "cuda-sgemm with k slices of 32",
                   sgemm(SgemmConfig::b128x256k32), ImplKind::experimental});
      l.push_back({"cuda-sgemm-128", Device::cuda,
                   "cuda-sgemm with a 128x128 block of 8x8 a thread, two blocks a multiprocessor",
                   sgemm(SgemmConfig::b128x128k16), ImplKind::experimental});
      Impl<GemmMake<T>> regblock_float = regblock;
      regblock_float.kind = ImplKind::experimental;
      regblock_float.description += " (0.84x cuBLAS SGEMM on the H100; see cuda-sgemm)";
      l.push_back(regblock_float);
      // TF32 (inputs ROUNDED TO TF32, 10-bit mantissa; FP32 sums), peer cublas-tf32.
      auto wgmma = [](WgmmaTile t) -> GemmMake<T> {
        return [t](const GemmProblem<T>& p) { return make_gemm_tf32_wgmma(p, t); };
      };
      l.push_back({"cuda-tf32", Device::cuda,
                   "tensor cores, wgmma TF32 m64n256k8 (sm_90a), 128x256 block, TMA into a "
                   "4-stage ring; B transposed (rounded to nearest) into scratch each run, A "
                   "truncated by the tensor cores",
                   wgmma(WgmmaTile::t128x256)});
      l.push_back({"cuda-n128-tf32", Device::cuda,
                   "cuda-tf32 with a 128x128 block (m64n128k8) and 6 stages (0.72x "
                   "cublas-tf32 on the H100 at n = 8192, cuda-tf32 0.95x)",
                   wgmma(WgmmaTile::t128x128), ImplKind::experimental});
      l.push_back({"cuda-wmma-tf32", Device::cuda,
                   "tensor cores, wmma TF32 m16n16k8, 128x128 block, register-staged double "
                   "buffer (0.14x cublas-tf32 on the H100)",
                   hand(GemmCudaKernel::tensor), ImplKind::experimental});
      l.push_back({"cublas-tf32", Device::cuda,
                   "cuBLAS Sgemm with TF32 tensor-op math: inputs rounded to TF32",
                   [](const GemmProblem<T>& p) { return make_gemm_cublas(p, CublasMath::tf32); }});
    } else {
      // Full FP64 on the tensor cores, measured on an H200 at n = 8192 (x cuBLAS DGEMM): the
      // mma.sync kernel in its best shape (0.83), then in the shapes it was tuned against
      // (0.79, 0.47; experimental, kept for that comparison), then the wmma kernel (0.37;
      // cuda-tf32's source in FP64, the tensor-core API step between the SIMT register tiles
      // and the hand-pipelined mma.sync).
      auto dmma = [](DmmaConfig c) -> GemmMake<T> {
        return [c](const GemmProblem<T>& p) { return make_gemm_dmma(p, c); };
      };
      l.push_back({"cuda-dmma", Device::cuda,
                   "tensor cores, FP64 mma.sync m16n8k4, 128x128 block, 64x32 warp tiles, "
                   "3-stage cp.async pipeline of k slices of 32 (full double)",
                   dmma(DmmaConfig::bk32)});
      l.push_back({"cuda-dmma-bk16", Device::cuda, "cuda-dmma with k slices of 16 in 4 stages",
                   dmma(DmmaConfig::bk16), ImplKind::experimental});
      l.push_back({"cuda-dmma-884", Device::cuda,
                   "cuda-dmma with mma.sync m8n8k4 (the sm_80 shape), k slices of 16",
                   dmma(DmmaConfig::m8n8k4), ImplKind::experimental});
      l.push_back({"cuda-wmma", Device::cuda,
                   "tensor cores, wmma FP64 DMMA m8n8k4, 128x128 block tile, register-staged "
                   "double buffer (full double)",
                   hand(GemmCudaKernel::tensor)});
      // The library's FP64 emulation (fixed-point slices on the INT8 tensor cores), forced:
      // on the H200 (sm_90) 0.34 / 0.37 / 0.47x cublas at n = 4096 / 8192 / 16384, 16 TFLOP/s
      // against 51 at the LU's trailing update (31744 x 31744 x 1024); left to choose, the
      // library runs native there (bench/results/issue16_thirtyseventh_pass_*). Kept to
      // measure it on GPUs of weaker FP64.
      l.push_back(
          {"cublas-fp64-emulated", Device::cuda,
           "cuBLAS Dgemm with fixed-point FP64 emulation on the integer tensor cores, "
           "forced (eager strategy)",
           [](const GemmProblem<T>& p) { return make_gemm_cublas(p, CublasMath::fp64_emulated); },
           ImplKind::experimental});
      l.push_back(regblock);
    }
    l.push_back({"cuda-tiled32", Device::cuda, "32x32 shared-memory tiles, a thread per element",
                 hand(GemmCudaKernel::tiled32)});
    l.push_back({"cuda-tiled16", Device::cuda, "16x16 shared-memory tiles, a thread per element",
                 hand(GemmCudaKernel::tiled16)});
    l.push_back({"cuda-naive", Device::cuda, "a thread per element of C, operands from memory",
                 hand(GemmCudaKernel::naive)});
  }
}
#endif

}  // namespace

const TuneKeys& GemmTuning::keys() {
  static const TuneKeys k{
      "gemm",
      "cpu-blocked (mmmul --mode gemm on the CPU)",
      {{"microkernel", "auto|portable|avx2|avx512",
        "the register tile's micro-kernel: portable C++ (SSE2, 4x4), AVX2 FMA (6x8 double) or "
        "AVX-512 (8x24 double), each over the same packing and cache blocking; complex values "
        "always take the portable one",
        "auto: the widest this CPU runs"}}};
  return k;
}

GemmTuning GemmTuning::from(const TuneArgs& args) {
  GemmTuning t;
  const TuneKey& mk = keys().key("microkernel");
  if (const auto v = args.get(mk))
    t.microkernel = static_cast<GemmKernel>(
        tune_choice(mk, *v, {kKernelWords[0], kKernelWords[1], kKernelWords[2], kKernelWords[3]}));
  return t;
}

template <class T>
const ImplList<GemmMake<T>>& gemm_impls() {
  static const ImplList<GemmMake<T>> list = [] {
    ImplList<GemmMake<T>> l;
    l.push_back({"cpu-blocked", Device::cpu,
                 "OpenMP, packed cache blocks, register tile (" +
                     gemm_kernel_name<T>(GemmKernel::best) + " here; --tune microkernel)",
                 blocked<T>()});
    l.push_back({"openblas", Device::cpu,
                 std::string("OpenBLAS cblas_?gemm (") + openblas_get_corename() + ")",
                 plain<T, gemm_openblas<T>>()});
    l.push_back({"cpu-rows", Device::cpu, "OpenMP over rows, i-k-j loops, no blocking",
                 plain<T, gemm_cpu_rows<T>>()});
    l.push_back(
        {"ref", Device::cpu, "serial reference, naive i-j-k loops", plain<T, gemm_ref<T>>()});
#ifdef MM_HAVE_CUDA
    add_cuda_impls<T>(l);
#endif
    return l;
  }();
  return list;
}

#define MM_GEMM_IMPLS(T) template const ImplList<GemmMake<T>>& gemm_impls<T>();
MM_FOR_VALUE_TYPES(MM_GEMM_IMPLS)

}  // namespace mm
