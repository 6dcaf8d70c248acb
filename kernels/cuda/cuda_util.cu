// CUDA plumbing: error checks, device memory, events, device properties.
#include <climits>
#include <sstream>

#include "cuda/cuda_util.cuh"
#include "mm/error.hpp"
#include "mm/memory.hpp"

namespace mm::cuda {

namespace {
[[noreturn]] void fail(const std::string& what, const char* call, const char* file, int line) {
  std::ostringstream s;
  s << call << " failed: " << what << " (" << file << ":" << line << ")";
  throw DeviceError(s.str());
}

// "F free of T" on the current GPU, for out-of-memory messages ("" when it cannot be asked).
std::string free_of_total() {
  std::size_t free = 0, total = 0;
  if (cudaMemGetInfo(&free, &total) != cudaSuccess) {
    cudaGetLastError();
    return "";
  }
  return format_bytes(static_cast<double>(free)) + " free of " +
         format_bytes(static_cast<double>(total));
}

// An allocation inside CALL failed: exit 4 in the form of a failed host allocation.
[[noreturn]] void fail_memory(const char* call, const char* file, int line) {
  std::ostringstream s;
  s << "out of device memory: " << call << " failed (" << file << ":" << line << ")";
  const std::string f = free_of_total();
  s << (f.empty() ? " (" : "; " + f + " (") << "--max-memory to change)";
  throw DeviceError(s.str());
}
}  // namespace

void check(cudaError_t e, const char* call, const char* file, int line) {
  if (e != cudaSuccess) {
    cudaGetLastError();
    if (e == cudaErrorMemoryAllocation) fail_memory(call, file, line);
    fail(cudaGetErrorString(e), call, file, line);
  }
}
void check(cublasStatus_t s, const char* call, const char* file, int line) {
  if (s == CUBLAS_STATUS_ALLOC_FAILED) fail_memory(call, file, line);
  if (s != CUBLAS_STATUS_SUCCESS) fail(cublasGetStatusString(s), call, file, line);
}
void check(cusparseStatus_t s, const char* call, const char* file, int line) {
  if (s == CUSPARSE_STATUS_ALLOC_FAILED) fail_memory(call, file, line);
  if (s != CUSPARSE_STATUS_SUCCESS) fail(cusparseGetErrorString(s), call, file, line);
}
void check(cusolverStatus_t s, const char* call, const char* file, int line) {
  if (s == CUSOLVER_STATUS_ALLOC_FAILED) fail_memory(call, file, line);
  if (s != CUSOLVER_STATUS_SUCCESS)
    fail("cuSOLVER status " + std::to_string(static_cast<int>(s)), call, file, line);
}

void* device_allocate(std::size_t bytes) {
  void* p = nullptr;
  const cudaError_t e = cudaMalloc(&p, bytes);
  if (e == cudaErrorMemoryAllocation) {
    cudaGetLastError();
    const std::string f = free_of_total();
    throw DeviceError("out of device memory: asked " + format_bytes(static_cast<double>(bytes)) +
                      (f.empty() ? "" : ", " + f) + " (--max-memory to change)");
  }
  check(e, "cudaMalloc", __FILE__, __LINE__);
  return p;
}

void device_release(void* p) noexcept {
  if (p) cudaFree(p);
}

namespace {
constexpr int kHoldThreads = 1;  // one thread waits; the rest of the GPU stays free
__global__ void __launch_bounds__(kHoldThreads) hold_kernel(unsigned long long ns) {
  unsigned long long t0 = 0, t = 0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  do {
    __nanosleep(500);
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  } while (t - t0 < ns);
}
}  // namespace

void hold(cudaStream_t s, double seconds) {
  hold_kernel<<<1, kHoldThreads, 0, s>>>(static_cast<unsigned long long>(seconds * 1e9));
  MM_CUDA_LAUNCHED("hold_kernel");
}

double elapsed(const Event& start, const Event& stop) {
  MM_CUDA(cudaEventSynchronize(stop.get()));
  float ms = 0;
  MM_CUDA(cudaEventElapsedTime(&ms, start.get(), stop.get()));
  return static_cast<double>(ms) * 1e-3;
}

std::string device_name() {
  static const std::string name = [] {
    int dev = 0;
    MM_CUDA(cudaGetDevice(&dev));
    cudaDeviceProp p{};
    MM_CUDA(cudaGetDeviceProperties(&p, dev));
    return std::string(p.name);
  }();
  return name;
}

int multiprocessors() {
  static const int n = [] {
    int dev = 0, v = 0;
    MM_CUDA(cudaGetDevice(&dev));
    MM_CUDA(cudaDeviceGetAttribute(&v, cudaDevAttrMultiProcessorCount, dev));
    return v;
  }();
  return n;
}

unsigned grid_1d(std::int64_t blocks, const std::string& what) {
  if (blocks > INT_MAX)
    throw DeviceError(what + ": " + std::to_string(blocks) + " blocks exceed the grid");
  return static_cast<unsigned>(blocks);
}

}  // namespace mm::cuda
