// Every registry's promises: unique names, a default (the first listed for a device) that is
// never experimental, --list-impls without the experimental ones and --all with them marked,
// and the renames that make names say what runs.
#include <gtest/gtest.h>

#include <complex>
#include <cstdint>
#include <functional>
#include <set>
#include <sstream>
#include <string>

#include "add.hpp"
#include "gemm.hpp"
#include "impl.hpp"
#include "jacobi.hpp"
#include "lu.hpp"
#include "solve.hpp"
#include "spgemm.hpp"
#include "spmv.hpp"
#include "transpose.hpp"

namespace {

using namespace mm;

// The line of TEXT (format_impls' output) that lists NAME, or "" when none does.
std::string line_of(const std::string& text, const std::string& name) {
  std::istringstream s(text);
  for (std::string line; std::getline(s, line);)
    if (line.rfind(name + ' ', 0) == 0) return line;
  return "";
}

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// The promises of one list; returns how many of its implementations are experimental.
template <class Make>
int check_list(const ImplList<Make>& list, const std::string& what) {
  std::set<std::string> names;
  for (const auto& i : list)
    EXPECT_TRUE(names.insert(i.name).second) << what << ": " << i.name << " listed twice";
  for (const Device d : {Device::cpu, Device::cuda})
    for (const auto& i : list)
      if (i.device == d) {
        EXPECT_FALSE(i.experimental()) << what << ": the default " << device_word(d) << " one, "
                                       << i.name << ", is experimental";
        break;
      }
  const std::string shown = format_impls(list), all = format_impls(list, true);
  int experimental = 0;
  for (const auto& i : list) {
    const std::string in_shown = line_of(shown, i.name), in_all = line_of(all, i.name);
    EXPECT_FALSE(in_all.empty()) << what << ": --all lacks " << i.name;
    if (i.experimental()) {
      ++experimental;
      EXPECT_TRUE(in_shown.empty()) << what << ": --list-impls shows " << in_shown;
      EXPECT_TRUE(ends_with(in_all, "[experimental]")) << what << ": " << in_all;
    } else {
      EXPECT_EQ(in_shown, in_all) << what;
      EXPECT_EQ(in_shown.find("[experimental]"), std::string::npos) << what << ": " << in_shown;
    }
  }
  return experimental;
}

// The named implementation of LIST, or nullptr.
template <class Make>
const Impl<Make>* find(const ImplList<Make>& list, const std::string& name) {
  for (const auto& i : list)
    if (i.name == name) return &i;
  return nullptr;
}

// The mechanism itself, on a list made here: an experimental CPU one listed first.
using Toy = std::function<int()>;

TEST(Impls, ExperimentalIsNeverTheDefaultAndListedByAllOnly) {
  const ImplList<Toy> list{
      {"cpu-try", Device::cpu, "a trial", [] { return 1; }, ImplKind::experimental},
      {"cpu-good", Device::cpu, "the product", [] { return 2; }},
      {"ref", Device::cpu, "the reference", [] { return 3; }}};
  EXPECT_EQ(pick_impl(list, "toy", "", Device::cpu).name, "cpu-good");
  EXPECT_EQ(pick_impl(list, "toy", "cpu-try", Device::cpu).make(), 1);  // still selectable
  const std::string shown = format_impls(list), all = format_impls(list, true);
  EXPECT_EQ(shown,
            "cpu-good        cpu   the product\n"
            "ref             cpu   the reference\n");
  EXPECT_EQ(all,
            "cpu-try         cpu   a trial  [experimental]\n"
            "cpu-good        cpu   the product\n"
            "ref             cpu   the reference\n");
  try {
    pick_impl(list, "toy", "bogus", Device::cpu);
    ADD_FAILURE() << "an unknown name was accepted";
  } catch (const UsageError& e) {
    EXPECT_STREQ(e.what(),
                 "unknown --impl 'bogus' for toy; one of: cpu-good, ref (experimental: cpu-try)");
  }
  const ImplList<Toy> only{
      {"cpu-try", Device::cpu, "a trial", [] { return 1; }, ImplKind::experimental}};
  EXPECT_THROW(pick_impl(only, "toy", "", Device::cpu), DeviceError);  // no default at all
}

TEST(Impls, EveryRegistryKeepsItsPromises) {
  using I = std::int32_t;
  int experimental = 0;
  experimental += check_list(add_impls<I, double>(), "add");
  for (const auto& i : add_impls<I, double>())
    EXPECT_FALSE(i.experimental()) << "add: " << i.name;  // pick_add_impl's default
  experimental += check_list(gemm_impls<double>(), "gemm double");
  experimental += check_list(gemm_impls<float>(), "gemm single");
  experimental += check_list(gemm_impls<std::complex<double>>(), "gemm complex");
  experimental += check_list(spgemm_impls<I, double>(), "spgemm");
  experimental += check_list(spmm_impls<I, double>(), "spmm");
  experimental += check_list(dsmm_impls<I, double>(), "dsmm");
  experimental += check_list(spmv_impls<I, double>(), "spmv");
  experimental += check_list(spmv_impls<std::int64_t, float>(), "spmv int64 single");
  experimental += check_list(transpose_dense_impls<double>(), "transpose double");
  experimental += check_list(transpose_dense_impls<float>(), "transpose single");
  experimental += check_list(transpose_dense_impls<std::int64_t>(), "transpose int64");
  experimental += check_list(transpose_inplace_impls<double>(), "transpose in place");
  experimental += check_list(transpose_csr_impls<I, double>(), "transpose csr");
  experimental += check_list(lu_impls<double>(), "lu");
  experimental += check_list(lu_impls<float>(), "lu single");
  for (const auto m : {SolveMethod::lu, SolveMethod::gauss, SolveMethod::umfpack, SolveMethod::cg,
                       SolveMethod::bicgstab, SolveMethod::gmres})
    experimental += check_list(solve_impls<I, double>(m), std::string("solve ") + method_name(m));
  experimental += check_list(jacobi_impls<I, double>(), "jacobi");
  experimental += check_list(stencil_impls<double>(), "stencil double");
  experimental += check_list(stencil_impls<float>(), "stencil single");
#ifdef MM_HAVE_CUDA
  // cuda-dmma-bk16, -884 and cublas-fp64-emulated (double GEMM), cuda-sgemm-bk32, -128 and
  // cuda-regblock (single GEMM), cuda-n128-tf32 and cuda-wmma-tf32 (TF32 GEMM), cuda-norm-ry2,
  // -ry4 and -col (two precisions), spmv's cuda-merge (two lists), the CSR transpose's
  // cuda-scatter.
  EXPECT_EQ(experimental, 3 + 3 + 2 + 3 * 2 + 2 + 1);
#else
  EXPECT_EQ(experimental, 0);  // every experimental one is a CUDA kernel
#endif
}

// Names say what runs: cuda-tf32 is the TF32 kernel (float only), cuda-dmma the FP64 one
// (double only), and no list keeps the name that meant both; double transposes have one
// name for tiled32's kernel. The stored triangle is declared, not recognised by name.
TEST(Impls, NamesSayWhatRuns) {
  EXPECT_EQ(find(gemm_impls<float>(), "cuda-tensor"), nullptr);
  EXPECT_EQ(find(gemm_impls<double>(), "cuda-tensor"), nullptr);
  EXPECT_EQ(find(gemm_impls<double>(), "cuda-tf32"), nullptr);
  EXPECT_EQ(find(gemm_impls<float>(), "cuda-dmma"), nullptr);
  EXPECT_EQ(find(transpose_dense_impls<double>(), "cuda-tiled"), nullptr);
  int triangle = 0;
  for (const auto& i : spmv_impls<std::int32_t, double>())
    triangle += i.make.input == SpmvInput::stored_triangle;
  EXPECT_EQ(triangle, 1);
  const auto* sym = find(spmv_impls<std::int32_t, double>(), "cpu-sym");
  ASSERT_NE(sym, nullptr);
  EXPECT_EQ(sym->make.input, SpmvInput::stored_triangle);
#ifdef MM_HAVE_CUDA
  const auto* tf32 = find(gemm_impls<float>(), "cuda-tf32");
  ASSERT_NE(tf32, nullptr);
  EXPECT_FALSE(tf32->experimental());
  EXPECT_NE(find(gemm_impls<float>(), "cublas-tf32"), nullptr);
  for (const char* n : {"cuda-dmma", "cuda-wmma"}) {
    const auto* i = find(gemm_impls<double>(), n);
    ASSERT_NE(i, nullptr) << n;
    EXPECT_FALSE(i->experimental()) << n;
  }
  for (const char* n : {"cuda-dmma-bk16", "cuda-dmma-884"}) {
    const auto* i = find(gemm_impls<double>(), n);
    ASSERT_NE(i, nullptr) << n;
    EXPECT_TRUE(i->experimental()) << n;
  }
  for (const char* n : {"cuda-norm-ry2", "cuda-norm-ry4", "cuda-norm-col"}) {
    const auto* i = find(stencil_impls<double>(), n);
    ASSERT_NE(i, nullptr) << n;
    EXPECT_TRUE(i->experimental()) << n;
  }
  EXPECT_NE(find(transpose_dense_impls<float>(), "cuda-tiled"), nullptr);
  // The double default: the first CUDA one listed is tiled32's kernel under its own name.
  for (const auto& i : transpose_dense_impls<double>())
    if (i.device == Device::cuda) {
      EXPECT_EQ(i.name, "cuda-tiled32");
      break;
    }
#endif
}

}  // namespace
