// CUDA plumbing for every kernel: checked calls, RAII device and pinned host memory, streams,
// events and library handles, the device value type of each host type, and the Runner timed
// by events.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusolverDn.h>
#include <cusparse.h>

#include <complex>
#include <cstdint>
#include <cuda/std/complex>
#include <string>
#include <utility>
#include <vector>

#include "device.hpp"
#include "impl.hpp"

namespace mm::cuda {

// Each throws DeviceError naming the call, file and line; out of memory names the bytes.
void check(cudaError_t e, const char* call, const char* file, int line);
void check(cublasStatus_t s, const char* call, const char* file, int line);
void check(cusparseStatus_t s, const char* call, const char* file, int line);
void check(cusolverStatus_t s, const char* call, const char* file, int line);

#define MM_CUDA(call) ::mm::cuda::check((call), #call, __FILE__, __LINE__)
// After a kernel launch: the launch's own error (bad configuration), not a sync.
#define MM_CUDA_LAUNCHED(name) ::mm::cuda::check(cudaGetLastError(), name, __FILE__, __LINE__)

// The device type of a host value type: std::complex<T> -> cuda::std::complex<T>
// (same layout, usable in kernels).
template <class T>
struct dev {
  using type = T;
};
template <class T>
struct dev<std::complex<T>> {
  using type = ::cuda::std::complex<T>;
};
template <class T>
using dev_t = typename dev<T>::type;

// The real type of a device value type: R for cuda::std::complex<R>, else the type itself.
template <class D>
struct real_of {
  using type = D;
};
template <class R>
struct real_of<::cuda::std::complex<R>> {
  using type = R;
};
template <class D>
using real_t = typename real_of<D>::type;

// A host value as the device type, by value. std::complex<double> is 8-byte aligned and
// cuda::std::complex<double> 16: reinterpreting one's address as the other faults on an
// aligned load (seen on the H200).
template <class T>
dev_t<T> to_dev(const T& v) {
  if constexpr (std::is_same_v<T, dev_t<T>>)
    return v;
  else
    return dev_t<T>(v.real(), v.imag());
}

// A host scalar for cuBLAS and cuSPARSE, 16-byte aligned as their complex types
// (cuDoubleComplex is a double2) are read.
template <class T>
struct alignas(16) Scalar {
  T value;
  const T* ptr() const { return &value; }
};

// Raw device memory of N elements of T; freed on destruction. Allocation failure throws
// DeviceError with the bytes asked and free.
template <class T>
class Buffer {
 public:
  Buffer() = default;
  explicit Buffer(std::size_t n) : n_(n) {
    if (n) p_ = static_cast<T*>(allocate(n * sizeof(T)));
  }
  Buffer(const T* host, std::size_t n) : Buffer(n) { upload(host, n); }
  ~Buffer() { release(p_); }
  Buffer(Buffer&& o) noexcept : p_(o.p_), n_(o.n_) { o.p_ = nullptr, o.n_ = 0; }
  Buffer& operator=(Buffer&& o) noexcept {
    std::swap(p_, o.p_);
    std::swap(n_, o.n_);
    return *this;
  }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;

  T* get() const { return p_; }
  dev_t<T>* dev() const { return reinterpret_cast<dev_t<T>*>(p_); }
  std::size_t size() const { return n_; }
  void upload(const T* host, std::size_t n) {
    if (n) MM_CUDA(cudaMemcpy(p_, host, n * sizeof(T), cudaMemcpyHostToDevice));
  }
  void download(T* host, std::size_t n) const {
    if (n) MM_CUDA(cudaMemcpy(host, p_, n * sizeof(T), cudaMemcpyDeviceToHost));
  }
  void fill_bytes(int byte) {
    if (n_) MM_CUDA(cudaMemset(p_, byte, n_ * sizeof(T)));
  }

 private:
  static void* allocate(std::size_t bytes);
  static void release(void* p) noexcept;
  T* p_ = nullptr;
  std::size_t n_ = 0;
};

void* device_allocate(std::size_t bytes);
void device_release(void* p) noexcept;
template <class T>
void* Buffer<T>::allocate(std::size_t bytes) {
  return device_allocate(bytes);
}
template <class T>
void Buffer<T>::release(void* p) noexcept {
  device_release(p);
}

// Page-locked host memory of N elements (cudaMallocHost): what an asynchronous copy needs to
// run asynchronously and at full speed. Move-only; freed on destruction.
template <class T>
class Pinned {
 public:
  Pinned() = default;
  explicit Pinned(std::size_t n) : n_(n) {
    if (n) MM_CUDA(cudaMallocHost(reinterpret_cast<void**>(&p_), n * sizeof(T)));
  }
  ~Pinned() {
    if (p_) cudaFreeHost(p_);
  }
  Pinned(Pinned&& o) noexcept : p_(o.p_), n_(o.n_) { o.p_ = nullptr, o.n_ = 0; }
  Pinned& operator=(Pinned&& o) noexcept {
    std::swap(p_, o.p_);
    std::swap(n_, o.n_);
    return *this;
  }
  Pinned(const Pinned&) = delete;
  Pinned& operator=(const Pinned&) = delete;
  T* get() const { return p_; }
  std::size_t size() const { return n_; }

 private:
  T* p_ = nullptr;
  std::size_t n_ = 0;
};

// A handle of type H (a stream, an event, a library context) released by RELEASE with its
// owner: movable, not copyable. The classes below create it.
template <class H, auto Release>
class Handle {
 public:
  ~Handle() {
    if (h_) Release(h_);
  }
  Handle(Handle&& o) noexcept : h_(std::exchange(o.h_, H{})) {}
  Handle& operator=(Handle&& o) noexcept {
    std::swap(h_, o.h_);
    return *this;
  }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  H get() const { return h_; }

 protected:
  Handle() = default;
  H h_{};
};

// A CUDA stream on the current device. FLAGS as cudaStreamCreateWithFlags takes them:
// cudaStreamDefault orders the stream with the legacy default stream (stream 0),
// cudaStreamNonBlocking does not. With a Priority, the device's least or greatest stream
// priority (cudaDeviceGetStreamPriorityRange).
class Stream : public Handle<cudaStream_t, cudaStreamDestroy> {
 public:
  enum class Priority { least, greatest };
  Stream() { MM_CUDA(cudaStreamCreate(&h_)); }  // cudaStreamDefault
  explicit Stream(unsigned flags) { MM_CUDA(cudaStreamCreateWithFlags(&h_, flags)); }
  Stream(unsigned flags, Priority p) {
    int least = 0, greatest = 0;
    MM_CUDA(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    MM_CUDA(cudaStreamCreateWithPriority(&h_, flags, p == Priority::greatest ? greatest : least));
  }
};

// A CUDA event. FLAGS as cudaEventCreateWithFlags takes them: the default times (elapsed()
// below); cudaEventDisableTiming only orders, at less cost.
class Event : public Handle<cudaEvent_t, cudaEventDestroy> {
 public:
  Event() { MM_CUDA(cudaEventCreate(&h_)); }  // cudaEventDefault
  explicit Event(unsigned flags) { MM_CUDA(cudaEventCreateWithFlags(&h_, flags)); }
  // Records the work enqueued on S so far (stream 0: the legacy default stream).
  void record(cudaStream_t s = nullptr) { MM_CUDA(cudaEventRecord(h_, s)); }
  // Work enqueued on AFTER from now on waits for the work enqueued on BEFORE so far.
  void order(cudaStream_t before, cudaStream_t after) {
    record(before);
    MM_CUDA(cudaStreamWaitEvent(after, h_, 0));
  }
};

// An instantiated CUDA graph: the work QUEUE(stream) queues on STREAM (non-blocking, its own)
// while captured there, launched again as one piece of work. Empty until captured.
class GraphExec : public Handle<cudaGraphExec_t, cudaGraphExecDestroy> {
 public:
  GraphExec() = default;
  template <class Queue>
  GraphExec(cudaStream_t stream, Queue&& queue) {
    // Relaxed: the capture asks nothing of other threads' streams.
    MM_CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeRelaxed));
    cudaGraph_t g = nullptr;
    try {
      queue(stream);
    } catch (...) {  // the stream leaves capture whatever QUEUE threw
      if (cudaStreamEndCapture(stream, &g) == cudaSuccess && g) cudaGraphDestroy(g);
      throw;
    }
    MM_CUDA(cudaStreamEndCapture(stream, &g));
    const cudaError_t e = cudaGraphInstantiate(&h_, g, 0);
    cudaGraphDestroy(g);
    MM_CUDA(e);
  }
  void launch(cudaStream_t s) const { MM_CUDA(cudaGraphLaunch(h_, s)); }
};

// Seconds between two recorded events (waits for the second).
double elapsed(const Event& start, const Event& stop);

// Holds stream S busy for SECONDS by the device's own timer (one thread waiting): what is
// enqueued behind it starts only after, however long the host took to enqueue it.
void hold(cudaStream_t s, double seconds);

class Cublas : public Handle<cublasHandle_t, cublasDestroy> {
 public:
  Cublas() { MM_CUDA(cublasCreate(&h_)); }
};

class Cusparse : public Handle<cusparseHandle_t, cusparseDestroy> {
 public:
  Cusparse() { MM_CUDA(cusparseCreate(&h_)); }
};

class CusolverDn : public Handle<cusolverDnHandle_t, cusolverDnDestroy> {
 public:
  CusolverDn() { MM_CUDA(cusolverDnCreate(&h_)); }
};

// The first GPU's name, for timing records.
std::string device_name();
// Multiprocessor count of the current device.
int multiprocessors();
// A 1-D grid of BLOCKS blocks (no 65535 limit as on its second and third dimensions); throws
// DeviceError naming the launch WHAT where they exceed the grid's 2^31 - 1.
unsigned grid_1d(std::int64_t blocks, const std::string& what);

// A Runner whose compute is device work: run() launches (asynchronously is fine) and
// timed_run() measures it by events, so the median is kernel time without transfers. The
// start event waits behind a hold of kCudaHeadStartSeconds (device.hpp), so the launch's
// latency on an idle GPU falls outside the events.
class CudaRunner : public Runner {
 public:
  void run() override {
    before();
    launch();
    MM_CUDA(cudaDeviceSynchronize());
    after();
  }
  double timed_run() override {
    before();
    hold(nullptr, kCudaHeadStartSeconds);
    start_.record();
    launch();
    stop_.record();
    const double s = elapsed(start_, stop_);
    after();
    return s;
  }
  std::string device_name() const override { return cuda::device_name(); }

 protected:
  virtual void launch() = 0;
  // Host work around every run, outside the timing: before() ahead of the launch (resetting
  // a report), after() once the device work is done (reading back a status, throwing on it).
  virtual void before() {}
  virtual void after() {}

 private:
  Event start_, stop_;
};

// cudaDataType of a host value type, for the vendor libraries.
template <class T>
constexpr cudaDataType data_type() {
  if constexpr (std::is_same_v<T, float>)
    return CUDA_R_32F;
  else if constexpr (std::is_same_v<T, double>)
    return CUDA_R_64F;
  else if constexpr (std::is_same_v<T, std::complex<float>>)
    return CUDA_C_32F;
  else
    return CUDA_C_64F;
}

}  // namespace mm::cuda
