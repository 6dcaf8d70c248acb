// CUDA plumbing: error checks, device memory, events, device properties.
#include <sstream>

#include "cuda/cuda_util.cuh"
#include "mm/error.hpp"

namespace mm::cuda {

namespace {
[[noreturn]] void fail(const std::string& what, const char* call, const char* file, int line) {
  std::ostringstream s;
  s << call << " failed: " << what << " (" << file << ":" << line << ")";
  throw DeviceError(s.str());
}
}  // namespace

void check(cudaError_t e, const char* call, const char* file, int line) {
  if (e != cudaSuccess) {
    cudaGetLastError();
    fail(cudaGetErrorString(e), call, file, line);
  }
}
void check(cublasStatus_t s, const char* call, const char* file, int line) {
  if (s != CUBLAS_STATUS_SUCCESS) fail(cublasGetStatusString(s), call, file, line);
}
void check(cusparseStatus_t s, const char* call, const char* file, int line) {
  if (s != CUSPARSE_STATUS_SUCCESS) fail(cusparseGetErrorString(s), call, file, line);
}
void check(cusolverStatus_t s, const char* call, const char* file, int line) {
  if (s != CUSOLVER_STATUS_SUCCESS)
    fail("cuSOLVER status " + std::to_string(static_cast<int>(s)), call, file, line);
}

void* device_allocate(std::size_t bytes) {
  void* p = nullptr;
  const cudaError_t e = cudaMalloc(&p, bytes);
  if (e == cudaErrorMemoryAllocation) {
    cudaGetLastError();
    std::size_t free = 0, total = 0;
    cudaMemGetInfo(&free, &total);
    throw DeviceError("out of device memory: asked " + std::to_string(bytes) + " bytes, " +
                      std::to_string(free) + " free of " + std::to_string(total));
  }
  check(e, "cudaMalloc", __FILE__, __LINE__);
  return p;
}

void device_release(void* p) noexcept {
  if (p) cudaFree(p);
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

}  // namespace mm::cuda
