// GPU presence and --device resolution. GPU tests skip, saying why, where there is no GPU.
#include <gtest/gtest.h>

#include <iostream>
#include <string>

#include "device.hpp"
#include "gpu.hpp"
#include "mm/error.hpp"
#include "spmv.hpp"

namespace mm {
namespace {

TEST(Gpu, DeviceQueryNamesTheGpu) {
  const GpuInfo g = cuda_devices();
  if (g.count == 0) GTEST_SKIP() << "no usable GPU: " << g.reason;
  EXPECT_GE(g.count, 1);
  EXPECT_FALSE(g.name.empty());
  EXPECT_EQ(resolve_device("auto", false, "test"), Device::cuda);
  EXPECT_EQ(resolve_device("cuda", false, "test"), Device::cuda);
}

// The memory-per-multiprocessor balance some defaults follow (cuda-norm's loads ahead,
// cuda-timetile's K): read off the device's attributes, and on the two Hopper GPUs these
// defaults were measured on, on the side each was measured to be.
TEST(Gpu, MemoryBalanceSplitsTheH100FromTheH200) {
  const GpuInfo g = cuda_devices();
  if (g.count == 0) GTEST_SKIP() << "no usable GPU: " << g.reason;
  RecordProperty("bytes_per_sm_clock", std::to_string(g.bytes_per_sm_clock));
  std::cout << g.name << ": " << g.bytes_per_sm_clock << " bytes a clock per multiprocessor\n";
  EXPECT_GT(g.bytes_per_sm_clock, 1.0);
  EXPECT_LT(g.bytes_per_sm_clock, 100.0);
  EXPECT_EQ(gpu_memory_rich(), g.bytes_per_sm_clock >= kMemoryRichBytesPerSmClock);
  if (g.name.find("H100") != std::string::npos && g.name.find("NVL") == std::string::npos) {
    EXPECT_FALSE(gpu_memory_rich()) << g.bytes_per_sm_clock;
  }
  if (g.name.find("H200") != std::string::npos) {
    EXPECT_TRUE(gpu_memory_rich()) << g.bytes_per_sm_clock;
  }
}

TEST(Device, CudaWithoutGpuIsDeviceErrorAutoFallsBack) {
  const GpuInfo g = cuda_devices();
  if (g.count > 0)
    GTEST_SKIP() << "a GPU is present (" << g.name << "): fallback not testable here";
  EXPECT_FALSE(g.reason.empty());
  try {
    resolve_device("cuda", false, "test");
    FAIL() << "no error";
  } catch (const DeviceError& e) {
    EXPECT_EQ(e.code(), ExitCode::device);
    EXPECT_NE(std::string(e.what()).find("no usable GPU"), std::string::npos);
  }
  EXPECT_EQ(resolve_device("auto", false, "test"), Device::cpu);
}

// The hold every timed GPU run starts behind lasts its time by the device's own clock, and it
// stays outside the events: a one-row SpMV's median lies far below it.
TEST(Gpu, TimedRunsStartBehindAHoldOutsideTheirEvents) {
  MM_REQUIRE_GPU();
  EXPECT_GE(cuda_timed_hold(2e-3), 2e-3 * 0.999);
  EXPECT_LT(cuda_timed_hold(2e-3), 1.0);
  EXPECT_GE(cuda_timed_hold(kCudaHeadStartSeconds), kCudaHeadStartSeconds * 0.999);
  Csr<std::int32_t, double> a;
  a.rows = a.cols = 1;
  a.ptr = {0, 1};
  a.idx = {0};
  a.val = {2.0};
  std::vector<double> x{3.0}, y{0.0};
  const SpmvProblem<std::int32_t, double> p{&a,       nullptr, Symmetry::general,
                                            x.data(), nullptr, y.data()};
  const auto& impl = spmv_default_impl(a, Device::cuda);
  auto r = impl.make(p, {});
  const Measured m = measure(*r, 1, 9);
  EXPECT_EQ(y[0], 6.0);
  EXPECT_GT(m.compute.median, 0.0);
  EXPECT_LT(m.compute.median, kCudaHeadStartSeconds * 0.5) << impl.name;
}

TEST(Device, CpuIsAlwaysCpu) {
  EXPECT_EQ(resolve_device("cpu", false, "test"), Device::cpu);
}

}  // namespace
}  // namespace mm
