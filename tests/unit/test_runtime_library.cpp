// mm::RuntimeLibrary: a library opened at its first use, and the errors that name what failed;
// with CUDA, cuBLAS opened by the first cuBLAS call of the process, not at its start.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "mm/error.hpp"
#include "mm/runtime_library.hpp"

#ifdef MM_HAVE_CUDA
#include <cublas_v2.h>
#endif

namespace {

// Whether a file whose name holds NAME is mapped into this process.
bool mapped(const std::string& name) {
  std::ifstream maps("/proc/self/maps");
  for (std::string line; std::getline(maps, line);)
    if (line.find(name) != std::string::npos) return true;
  return false;
}

TEST(RuntimeLibrary, OpensAtTheFirstSymbolAndFindsIt) {
  // libz is linked (mm reads .gz), so open already: the handle is the process's copy.
  const mm::RuntimeLibrary z("libz.so.1", "", "zlib");
  using Version = const char* (*)();
  const auto version = reinterpret_cast<Version>(z.symbol("zlibVersion"));
  ASSERT_NE(version, nullptr);
  EXPECT_EQ(std::string(version()).substr(0, 2), "1.");
  EXPECT_EQ(z.symbol("zlibVersion"), reinterpret_cast<void*>(version));  // looked up again
}

TEST(RuntimeLibrary, AMissingSymbolIsADeviceErrorNamingIt) {
  const mm::RuntimeLibrary z("libz.so.1", "", "zlib", "a hint");
  try {
    z.symbol("mm_no_such_function");
    FAIL() << "no error";
  } catch (const mm::DeviceError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("zlib (libz.so.1) has no mm_no_such_function"), std::string::npos) << what;
    EXPECT_NE(what.find("; a hint"), std::string::npos) << what;
    EXPECT_EQ(e.code(), mm::ExitCode::device);
  }
}

TEST(RuntimeLibrary, AMissingLibraryIsADeviceErrorEveryTime) {
  const mm::RuntimeLibrary none("libmm_no_such_library.so.7", "/nonexistent", "Nothing",
                                "install it");
  for (int i = 0; i < 2; ++i) {
    try {
      none.symbol("f");
      FAIL() << "no error";
    } catch (const mm::DeviceError& e) {
      const std::string what = e.what();
      EXPECT_EQ(what.rfind("cannot load Nothing (", 0), 0u) << what;
      // both places tried, the fallback folder named
      EXPECT_NE(what.find("libmm_no_such_library.so.7"), std::string::npos) << what;
      EXPECT_NE(what.find("/nonexistent/libmm_no_such_library.so.7"), std::string::npos) << what;
      EXPECT_NE(what.find("); install it"), std::string::npos) << what;
    }
  }
  EXPECT_FALSE(mapped("libmm_no_such_library"));
}

#ifdef MM_HAVE_CUDA
// No GPU needed: cublasGetStatusString runs on the host.
TEST(RuntimeLibrary, CublasOpensAtItsFirstCall) {
  EXPECT_FALSE(mapped("libcublas.so")) << "cuBLAS was opened at the start";
  EXPECT_FALSE(mapped("libcublasLt.so"));
  EXPECT_STREQ(cublasGetStatusString(CUBLAS_STATUS_SUCCESS), "success");
  EXPECT_TRUE(mapped("libcublas.so"));
  EXPECT_TRUE(mapped("libcublasLt.so"));
  EXPECT_STREQ(cublasGetStatusString(CUBLAS_STATUS_NOT_INITIALIZED),
               "the library was not initialized");
}
#endif

}  // namespace
