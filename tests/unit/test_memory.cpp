// The memory budget: sizes (--max-memory), saturating size arithmetic, plans and their check,
// the reader's header hook, and the plan of an input made from its header.
#include <gtest/gtest.h>

#include <unistd.h>

#include <limits>
#include <string>

#include "device_memory.hpp"
#include "gpu.hpp"
#include "mm/error.hpp"
#include "mm/memory.hpp"
#include "mm/mtx.hpp"
#include "mm/tool_io.hpp"

namespace {

using namespace mm;

constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();

TEST(ParseSize, UnitsArePowersOf1024) {
  EXPECT_EQ(parse_size("4096"), 4096);
  EXPECT_EQ(parse_size("100K"), 102400);
  EXPECT_EQ(parse_size("512M"), 512LL << 20);
  EXPECT_EQ(parse_size("8G"), 8LL << 30);
  EXPECT_EQ(parse_size("2T"), 2LL << 40);
  EXPECT_EQ(parse_size("1.5G"), 3LL << 29);
  EXPECT_EQ(parse_size("0.5K"), 512);
  EXPECT_EQ(parse_size("8g"), 8LL << 30);
  EXPECT_EQ(parse_size("8GB"), 8LL << 30);
  EXPECT_EQ(parse_size("8GiB"), 8LL << 30);
  EXPECT_EQ(parse_size("1.5"), 1);  // whole bytes
}

TEST(ParseSize, BadSizesAreUsageErrors) {
  for (const char* bad : {"", "G", "-1", "-1G", "1.5.5G", "8X", "8GG", "8 G", "0", "0.1", "1e3",
                          ".", "16E", "9999999999T", "8GiBs"}) {
    try {
      parse_size(bad);
      ADD_FAILURE() << "'" << bad << "' was accepted";
    } catch (const UsageError& e) {
      EXPECT_EQ(e.code(), ExitCode::usage);
      EXPECT_NE(std::string(e.what()).find("--max-memory '" + std::string(bad) + "'"),
                std::string::npos)
          << e.what();
    }
  }
}

TEST(FormatBytes, DecimalUnitsWithOneDecimal) {
  EXPECT_EQ(format_bytes(24e9), "24.0 GB");
  EXPECT_EQ(format_bytes(21.3e9), "21.3 GB");
  EXPECT_EQ(format_bytes(1024), "1.0 kB");
  EXPECT_EQ(format_bytes(999), "999 bytes");
  EXPECT_EQ(format_bytes(0), "0 bytes");
  EXPECT_EQ(format_bytes(999.96e6), "1.0 GB");  // never "1000.0 MB"
  EXPECT_EQ(format_bytes(512.3e6), "512.3 MB");
  EXPECT_EQ(format_bytes(7.2e19), "72000000000.0 GB");  // GB is the largest unit
}

TEST(SizeArithmetic, SaturatesInsteadOfWrapping) {
  EXPECT_EQ(mul_sat(3'000'000'000, 3'000'000'000), 9'000'000'000'000'000'000);
  EXPECT_EQ(mul_sat(mul_sat(3'000'000'000, 3'000'000'000), 8), kMax);  // 7.2e19 > 2^63
  EXPECT_EQ(add_sat(kMax, 1), kMax);
  EXPECT_EQ(add_sat(40, 2), 42);
  // Doubles: the 3e9 x 3e9 dense matrix is 7.2e19 bytes, never a negative number.
  EXPECT_DOUBLE_EQ(dense_bytes(3'000'000'000, 3'000'000'000, 8), 7.2e19);
  EXPECT_DOUBLE_EQ(csr_bytes(3, 5, 4, 8), 4 * 4 + 5 * 12);
  EXPECT_DOUBLE_EQ(coo_bytes(5, 8, 16), 5 * 32);
  EXPECT_DOUBLE_EQ(csr_bytes(3'000'000'000, 2, 8, 8), 3'000'000'001.0 * 8 + 32);
}

TEST(MemoryPlan, AddsItsItems) {
  MemoryPlan p;
  p.add("a", 10).add("b", 32).add("nothing", 0);
  EXPECT_DOUBLE_EQ(p.total(), 42);
  ASSERT_EQ(p.items().size(), 2u);  // an empty item is left out
  EXPECT_EQ(p.items()[1].name, "b");
  p.add("huge", dense_bytes(3'000'000'000, 3'000'000'000, 8));
  EXPECT_GT(p.total(), 7e19);
}

TEST(MemoryPlan, CheckRefusesOverTheBudgetInTheIssuesForm) {
  MemoryPlan p;
  p.add("A as CSR", 20e9).add("y", 4e9);
  EXPECT_NO_THROW(check_memory(p, 24'000'000'000));  // exactly the budget fits
  try {
    check_memory(p, 21'300'000'000);
    ADD_FAILURE() << "24 GB fitted in 21.3 GB";
  } catch (const DeviceError& e) {
    EXPECT_EQ(e.code(), ExitCode::device);
    EXPECT_STREQ(e.what(), "needs 24.0 GB, 21.3 GB available (--max-memory to change)");
  }
  try {
    check_memory(p, 1000, /*verbose=*/true);
    ADD_FAILURE();
  } catch (const DeviceError& e) {
    EXPECT_STREQ(e.what(),
                 "needs 24.0 GB, 1.0 kB available (--max-memory to change): A as CSR 20.0 GB, "
                 "y 4.0 GB");
  }
  EXPECT_EQ(out_of_memory_message(),
            "out of memory: an allocation failed (the plan checked needs 24.0 GB, 1.0 kB "
            "available; --max-memory to change)");
  MemoryPlan d("device memory");
  d.add("two grids", 1.024e12);
  try {
    check_memory(d, 80'000'000'000);
    ADD_FAILURE();
  } catch (const DeviceError& e) {
    EXPECT_STREQ(e.what(),
                 "needs 1024.0 GB of device memory, 80.0 GB available (--max-memory to change)");
  }
}

TEST(AvailableMemory, IsSomethingAndNotMoreThanTheMachine) {
  const std::int64_t a = available_memory();
  EXPECT_GT(a, 0);
  EXPECT_LE(a, static_cast<std::int64_t>(sysconf(_SC_PHYS_PAGES)) * sysconf(_SC_PAGE_SIZE));
}

// The reader calls on_header with the header before it reads any of the body: an exception
// thrown there is what the caller sees, not the malformed body's error.
TEST(ReaderHook, CalledWithTheHeaderBeforeTheBody) {
  const std::string text =
      "%%MatrixMarket matrix coordinate real symmetric\n3000000000 3000000000 2\nnot an entry\n";
  ReadOptions opt;
  MtxHeader seen;
  long long bytes = 0;
  opt.on_header = [&](const MtxHeader& h, long long b) {
    seen = h;
    bytes = b;
    throw DeviceError("refused at the header");
  };
  try {
    parse_mtx(text, "t.mtx", opt);
    ADD_FAILURE() << "read past the hook";
  } catch (const DeviceError& e) {
    EXPECT_STREQ(e.what(), "refused at the header");
  }
  EXPECT_EQ(seen.rows, 3'000'000'000);
  EXPECT_EQ(seen.nnz, 2);
  EXPECT_EQ(seen.symmetry, Symmetry::symmetric);
  EXPECT_EQ(bytes, static_cast<long long>(text.size()));
  // Without a hook, the same text is refused for its body.
  EXPECT_THROW(parse_mtx(text, "t.mtx"), InputError);
}

MtxHeader header(Format f, Field field, Symmetry s, std::int64_t rows, std::int64_t cols,
                 std::int64_t nnz) {
  MtxHeader h;
  h.format = f;
  h.field = field;
  h.symmetry = s;
  h.rows = rows;
  h.cols = cols;
  h.nnz = nnz;
  return h;
}

TEST(PlanRead, TheReadersStorageIsBoundedByTheInputsSize) {
  MemoryPlan p;
  ReadOptions opt;
  opt.threads = 2;
  // 3e9 x 3e9 with 2 entries: 2 x (two int64 indices + a double); the window is the file.
  const auto h =
      header(Format::coordinate, Field::real, Symmetry::general, 3'000'000'000, 3'000'000'000, 2);
  const PlanInput in = plan_read(p, h, "A.mtx", 100, opt);
  EXPECT_DOUBLE_EQ(in.entries, 2);
  ASSERT_EQ(p.items().size(), 2u);
  EXPECT_EQ(p.items()[0].name, "A.mtx as read");
  EXPECT_DOUBLE_EQ(p.items()[0].bytes, 48);
  EXPECT_DOUBLE_EQ(p.items()[1].bytes, 101);
  // A size line claiming 10^12 entries in a 600-byte file: at most 600/6 + 1 lines fit.
  MemoryPlan q;
  const auto lying =
      header(Format::coordinate, Field::real, Symmetry::symmetric, 10, 10, 1'000'000'000'000);
  const PlanInput l = plan_read(q, lying, "B.mtx", 600, opt);
  EXPECT_DOUBLE_EQ(l.entries, 101);
  EXPECT_DOUBLE_EQ(l.expanded, 202);  // symmetric: both triangles
  // From standard input (size unknown) the size line is believed.
  MemoryPlan r;
  const PlanInput s = plan_read(r, lying, "<stdin>", -1, opt);
  EXPECT_DOUBLE_EQ(s.entries, 1e12);
  EXPECT_DOUBLE_EQ(r.items()[0].bytes, 24e12);
  EXPECT_DOUBLE_EQ(r.items()[1].bytes, 8.0 * 1024 * 1024);  // 1 MB chunks x 2 threads x 4
  // A dense array: its expanded count is rows x cols whatever the file holds.
  MemoryPlan t;
  const auto dense =
      header(Format::array, Field::real, Symmetry::general, 100'000, 100'000, 10'000'000'000);
  const PlanInput d = plan_read(t, dense, "D.mtx", 60, opt);
  EXPECT_DOUBLE_EQ(d.entries, 31);  // "1\n" a value at least
  plan_dense(t, d, 8);
  EXPECT_DOUBLE_EQ(t.items().back().bytes, 8e10);
}

TEST(PlanRead, CsrOfAHugeDimensionIsRowsSized) {
  MemoryPlan p;
  const auto h =
      header(Format::coordinate, Field::real, Symmetry::general, 3'000'000'000, 3'000'000'000, 2);
  const PlanInput in = plan_read(p, h, "A.mtx", 100, ReadOptions{});
  EXPECT_DOUBLE_EQ(index_size(h.rows, h.cols, 2), 8);
  EXPECT_DOUBLE_EQ(index_size(1000, 1000, 2), 4);
  EXPECT_DOUBLE_EQ(value_size("single", true), 8);
  EXPECT_DOUBLE_EQ(value_size("double", true), 16);
  const double before = p.total();
  plan_csr(p, in, 8, 8);
  // COO 2 x 24, the sort's row starts and cursor (16 a row) and order, CSR pointers 8 a row.
  EXPECT_DOUBLE_EQ(p.total() - before, 48 + 3'000'000'001.0 * 16 + 16 + 3'000'000'001.0 * 8 + 32);
  EXPECT_THROW(check_memory(p, 20'000'000'000), DeviceError);
}

// The device side: the budget, which implementation lists run on the GPU, and an allocation
// larger than the GPU reported in the budget's form (GPU machine only).
TEST(DeviceBudget, NoneOnTheCpu) {
  EXPECT_EQ(device_budget(Device::cpu, -1), -1);
  EXPECT_EQ(device_budget(Device::cpu, 1000), -1);
}

TEST(DeviceBudget, RunsOnCudaFollowsTheNamedImplementationOrTheList) {
  ImplList<int> list = {{"cpu-a", Device::cpu, "", 0},
                        {"cuda-b", Device::cuda, "", 0},
                        {"cuda-x", Device::cuda, "", 0, ImplKind::experimental}};
  EXPECT_TRUE(runs_on_cuda(list, "", Device::cuda));
  EXPECT_FALSE(runs_on_cuda(list, "cpu-a", Device::cuda));
  EXPECT_TRUE(runs_on_cuda(list, "cuda-x", Device::cuda));
  EXPECT_FALSE(runs_on_cuda(list, "", Device::cpu));
  list.erase(list.begin() + 1);  // only an experimental one on the GPU: auto falls back
  EXPECT_FALSE(runs_on_cuda(list, "", Device::cuda));
}

TEST(DeviceBudget, IsTheFreeMemoryCappedByMaxMemory) {
  if (test::gpu().count == 0) {
    EXPECT_THROW(cuda_free_memory(), DeviceError);
    GTEST_SKIP() << "no GPU: " << test::gpu().reason;
  }
  const std::int64_t free = cuda_free_memory();
  EXPECT_GT(free, std::int64_t{1} << 30);
  EXPECT_EQ(device_budget(Device::cuda, 1000), 1000);
  const std::int64_t b = device_budget(Device::cuda, -1);
  EXPECT_GT(b, free / 2);
  EXPECT_LE(b, free + (std::int64_t{1} << 30));
}

TEST(DeviceBudget, AnAllocationOverTheGpuIsOutOfDeviceMemory) {
  MM_REQUIRE_GPU();
  const auto bytes = static_cast<std::size_t>(cuda_free_memory()) + (std::size_t{4} << 30);
  try {
    cuda_copy_gbps(bytes, 1);
    ADD_FAILURE() << "allocated " << bytes << " bytes";
  } catch (const DeviceError& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.rfind("out of device memory: asked " + format_bytes(double(bytes)), 0), 0u)
        << what;
    EXPECT_NE(what.find(" free of "), std::string::npos) << what;
    EXPECT_NE(what.find("(--max-memory to change)"), std::string::npos) << what;
  }
}

}  // namespace
