// GPU presence and --device resolution. GPU tests skip, saying why, where there is no GPU.
#include <gtest/gtest.h>

#include "device.hpp"
#include "mm/error.hpp"

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

TEST(Device, CpuIsAlwaysCpu) {
  EXPECT_EQ(resolve_device("cpu", false, "test"), Device::cpu);
}

}  // namespace
}  // namespace mm
