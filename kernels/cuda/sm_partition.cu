#include <cudaTypedefs.h>

#include <string>

#include "cuda/sm_partition.cuh"
#include "mm/error.hpp"

namespace mm::cuda {

namespace {

// The driver functions this file uses, resolved once through the runtime.
struct Driver {
  PFN_cuDeviceGetDevResource_v12040 get_resource = nullptr;
  PFN_cuDevSmResourceSplitByCount_v12040 split = nullptr;
  PFN_cuDevResourceGenerateDesc_v12040 desc = nullptr;
  PFN_cuGreenCtxCreate_v12040 create = nullptr;
  PFN_cuGreenCtxDestroy_v12040 destroy = nullptr;
  PFN_cuGreenCtxStreamCreate_v12050 stream = nullptr;
  PFN_cuCtxFromGreenCtx_v12040 as_ctx = nullptr;
  PFN_cuCtxPushCurrent_v4000 push = nullptr;
  PFN_cuCtxPopCurrent_v4000 pop = nullptr;
  PFN_cuEventCreate_v2000 event = nullptr;
  PFN_cuGetErrorString_v6000 error_string = nullptr;
};

template <class F>
void resolve(F& f, const char* symbol, unsigned version) {
  cudaDriverEntryPointQueryResult q{};
  void* p = nullptr;
  MM_CUDA(cudaGetDriverEntryPointByVersion(symbol, &p, version, cudaEnableDefault, &q));
  if (q != cudaDriverEntryPointSuccess || !p)
    throw DeviceError(std::string("the CUDA driver lacks ") + symbol + " (green contexts)");
  f = reinterpret_cast<F>(p);
}

const Driver& driver() {
  static const Driver d = [] {
    Driver x;
    resolve(x.get_resource, "cuDeviceGetDevResource", 12040);
    resolve(x.split, "cuDevSmResourceSplitByCount", 12040);
    resolve(x.desc, "cuDevResourceGenerateDesc", 12040);
    resolve(x.create, "cuGreenCtxCreate", 12040);
    resolve(x.destroy, "cuGreenCtxDestroy", 12040);
    resolve(x.stream, "cuGreenCtxStreamCreate", 12050);
    resolve(x.as_ctx, "cuCtxFromGreenCtx", 12040);
    resolve(x.push, "cuCtxPushCurrent", 4000);
    resolve(x.pop, "cuCtxPopCurrent", 4000);
    resolve(x.event, "cuEventCreate", 2000);
    resolve(x.error_string, "cuGetErrorString", 6000);
    return x;
  }();
  return d;
}

}  // namespace

void check(CUresult r, const char* call, const char* file, int line) {
  if (r == CUDA_SUCCESS) return;
  const char* s = nullptr;
  if (driver().error_string) driver().error_string(r, &s);
  throw DeviceError(std::string(s ? s : "CUDA driver error " + std::to_string(r)) + " in " + call +
                    " (" + file + ":" + std::to_string(line) + ")");
}

SmPartition::SmPartition(int count) {
  const Driver& d = driver();
  int dev = 0;
  MM_CUDA(cudaGetDevice(&dev));
  MM_CUDA(cudaFree(nullptr));  // the primary context made current before green ones retain it
  CUdevResource all{};
  MM_CUDA(d.get_resource(static_cast<CUdevice>(dev), &all, CU_DEV_RESOURCE_TYPE_SM));
  CUdevResource group{}, rest{};
  unsigned groups = 1;
  MM_CUDA(d.split(&group, &groups, &all, &rest, CU_DEV_SM_RESOURCE_SPLIT_MAX_POTENTIAL_CLUSTER_SIZE,
                  static_cast<unsigned>(count)));
  if (groups != 1 || rest.sm.smCount == 0)
    throw DeviceError("cannot split the device's " + std::to_string(all.sm.smCount) +
                      " SMs into a group of " + std::to_string(count) + " and the rest");
  group_sms_ = static_cast<int>(group.sm.smCount);
  rest_sms_ = static_cast<int>(rest.sm.smCount);
  CUdevResourceDesc gd{}, rd{};
  MM_CUDA(d.desc(&gd, &group, 1));
  MM_CUDA(d.desc(&rd, &rest, 1));
  MM_CUDA(d.create(&group_, gd, static_cast<CUdevice>(dev), CU_GREEN_CTX_DEFAULT_STREAM));
  try {
    MM_CUDA(d.create(&rest_, rd, static_cast<CUdevice>(dev), CU_GREEN_CTX_DEFAULT_STREAM));
  } catch (...) {
    d.destroy(group_);
    throw;
  }
}

SmPartition::~SmPartition() {
  driver().destroy(rest_);
  driver().destroy(group_);
}

CtxStream::CtxStream(bool high, CUgreenCtx g) : owned_(true) {
  int least = 0, greatest = 0;
  MM_CUDA(cudaDeviceGetStreamPriorityRange(&least, &greatest));
  const int priority = high ? greatest : least;
  if (!g) {
    MM_CUDA(cudaStreamCreateWithPriority(&s_, cudaStreamNonBlocking, priority));
    return;
  }
  const Driver& d = driver();
  MM_CUDA(d.as_ctx(&ctx_, g));
  CUstream s{};
  MM_CUDA(d.stream(&s, g, CU_STREAM_NON_BLOCKING, priority));
  s_ = s;
}

CtxStream::~CtxStream() {
  if (owned_) cudaStreamDestroy(s_);
}

void CtxStream::push() const {
  if (ctx_) MM_CUDA(driver().push(ctx_));
}
void CtxStream::pop() const {
  CUcontext c{};
  if (ctx_) MM_CUDA(driver().pop(&c));
}

cudaEvent_t CtxStream::new_event(bool timing) const {
  cudaEvent_t e{};
  if (!ctx_) {
    MM_CUDA(cudaEventCreateWithFlags(&e, timing ? cudaEventDefault : cudaEventDisableTiming));
    return e;
  }
  CUevent ce{};
  in_context(
      [&] { MM_CUDA(driver().event(&ce, timing ? CU_EVENT_DEFAULT : CU_EVENT_DISABLE_TIMING)); });
  return ce;
}

}  // namespace mm::cuda
