// The blocked CPU transpose on every instruction set the processor has (AVX-512, SSE2,
// portable), against the serial reference bit for bit: awkward shapes, A and B on and off
// cache lines, odd thread counts and block sizes, poisoned outputs and margins.
#include <gtest/gtest.h>

#include <algorithm>
#include <complex>
#include <cstring>
#include <iostream>
#include <limits>

#include "cpu/transpose_cpu.hpp"
#include "random_matrices.hpp"
#include "transpose.hpp"

namespace mm {
namespace {

template <class T>
class BlockedTypes : public ::testing::Test {};
using ValueTypes =
    ::testing::Types<float, double, std::complex<float>, std::complex<double>, std::int64_t>;
TYPED_TEST_SUITE(BlockedTypes, ValueTypes);

struct Dims {
  std::int64_t rows, cols;
};

// N values at BYTE_OFFSET past a 64-byte line, in bytes that can hold any T, with a poisoned
// margin of GUARD values on each side: tests choose how A and B sit against cache lines.
template <class T>
class Placed {
 public:
  static constexpr std::size_t kGuard = 64;
  Placed(std::size_t n, std::size_t byte_offset) : n_(n), raw_((n + 2 * kGuard) * sizeof(T) + 256) {
    const auto base = reinterpret_cast<std::uintptr_t>(raw_.data() + kGuard * sizeof(T));
    const std::size_t at = (base + 63) / 64 * 64 + byte_offset - base + kGuard * sizeof(T);
    p_ = reinterpret_cast<T*>(raw_.data() + at);
    const T pv = test::poison<T>();
    for (std::size_t k = 0; k < n + 2 * kGuard; ++k)
      std::memcpy(raw_.data() + at + (k - kGuard) * sizeof(T), &pv, sizeof(T));
  }
  T* data() const { return p_; }
  std::vector<T> values() const {
    std::vector<T> v(n_);
    std::memcpy(v.data(), p_, n_ * sizeof(T));
    return v;
  }
  // Everything around the N values still the poison: nothing written outside.
  bool margins_intact() const {
    const T pv = test::poison<T>();
    const auto* bytes = reinterpret_cast<const unsigned char*>(p_);
    for (std::size_t k = 0; k < kGuard; ++k)
      if (std::memcmp(bytes - (k + 1) * sizeof(T), &pv, sizeof(T)) != 0 ||
          std::memcmp(bytes + (n_ + k) * sizeof(T), &pv, sizeof(T)) != 0)
        return false;
    return true;
  }

 private:
  std::size_t n_;
  std::vector<unsigned char> raw_;
  T* p_ = nullptr;
};

// Values whose bits a transpose must keep: NaN payloads of both signs, signed zeros, inf.
template <class T>
void sprinkle_specials(std::vector<T>& v) {
  if constexpr (!std::is_same_v<T, std::int64_t>) {
    using R = real_type_t<T>;
    const R specials[] = {std::numeric_limits<R>::quiet_NaN(), -std::numeric_limits<R>::quiet_NaN(),
                          R(-0.0), std::numeric_limits<R>::infinity(),
                          static_cast<R>(std::nan("17"))};
    for (std::size_t k = 0; k < v.size(); k += 7) {
      const R s = specials[(k / 7) % 5];
      if constexpr (is_complex_v<T>)
        v[k] = (k / 7) % 2 ? T(s, R(0.5)) : T(R(-0.25), s);
      else
        v[k] = s;
    }
  }
}

// Every instruction set of the blocked transpose this processor has, against ref bit for bit:
// shapes that are and are not multiples of the 4/8/16-value register tiles and of the
// 64-value blocks, A and B on and off 64-byte lines (streamed stores only when B's rows start
// on lines), several threads and block sizes; outputs and their margins poisoned.
TYPED_TEST(BlockedTypes, EveryIsaMatchesRef) {
  using T = TypeParam;
  std::vector<TransposeIsa> isas;
  for (const auto isa : {TransposeIsa::avx512, TransposeIsa::sse2, TransposeIsa::portable})
    if (transpose_isa_available(isa)) isas.push_back(isa);
  if (!transpose_isa_available(TransposeIsa::avx512))
    std::cout << "note: no AVX-512 here; the avx512 path is not tested\n";
  constexpr std::size_t V = sizeof(T);
  struct Case {
    Dims d;
    bool big;
  };
  const std::vector<Case> cases{
      {{1, 1}, false},   {{7, 9}, false},    {{9, 7}, false},      {{31, 31}, false},
      {{33, 33}, false}, {{31, 33}, false},  {{16, 16}, false},    {{64, 64}, false},
      {{48, 80}, false}, {{129, 65}, false}, {{1, 100}, false},    {{100, 1}, false},
      {{8, 200}, false}, {{200, 8}, false},  {{1000, 997}, true},  {{997, 1000}, true},
      {{520, 64}, true}, {{64, 520}, true},  {{1024, 1024}, true},
  };
  // Byte offsets of A and B past a line; 8 keeps complex<double> (alignof 8) off its 16 bytes.
  std::vector<std::pair<std::size_t, std::size_t>> offsets{{0, 0}, {V, 0}, {0, V}, {3 * V, 5 * V}};
  if (V == 16) offsets.push_back({8, 24});
  std::uint64_t seed = 900;
  for (const auto& c : cases) {
    const auto [rows, cols] = c.d;
    const auto n = static_cast<std::size_t>(rows * cols);
    auto a_values = test::random_vector<T>(rows * cols, seed++);
    sprinkle_specials(a_values);
    for (const bool conj : {false, true}) {
      std::vector<T> want(n);
      transpose_ref(rows, cols, a_values.data(), want.data(), conj);
      for (const auto& [oa, ob] : offsets) {
        if (c.big && oa != ob && oa != 0) continue;  // big shapes: fewer placements
        Placed<T> a(n, oa);
        std::memcpy(a.data(), a_values.data(), n * sizeof(T));
        for (const auto isa : isas)
          for (const int threads : {1, 3})
            for (const std::int64_t block :
                 {std::int64_t{0}, std::int64_t{16}, std::int64_t{100}}) {
              if (c.big && (threads == 1 || block == 16)) continue;
              const std::string what = std::string(transpose_isa_name(isa)) + " " +
                                       std::to_string(rows) + "x" + std::to_string(cols) +
                                       (conj ? " conj" : "") + " offsets " + std::to_string(oa) +
                                       "," + std::to_string(ob) + " threads " +
                                       std::to_string(threads) + " block " + std::to_string(block);
              Placed<T> b(n, ob);
              transpose_cpu_blocked_isa(rows, cols, a.data(), b.data(), conj, threads, block, isa);
              test::expect_same_bits(b.values(), want, what);
              ASSERT_TRUE(b.margins_intact()) << what << ": wrote outside B";
            }
      }
    }
  }
}

TEST(TransposeIsa, NamesAvailabilityAndRefusal) {
  EXPECT_TRUE(transpose_isa_available(TransposeIsa::best));
  EXPECT_TRUE(transpose_isa_available(TransposeIsa::portable));
  EXPECT_NE(transpose_best_isa(), TransposeIsa::best);
  EXPECT_TRUE(transpose_isa_available(transpose_best_isa()));
#if defined(__x86_64__)
  EXPECT_TRUE(transpose_isa_available(TransposeIsa::sse2));
  EXPECT_EQ(transpose_isa_available(TransposeIsa::avx512),
            static_cast<bool>(__builtin_cpu_supports("avx512f")));
#endif
  std::cout << "best transpose isa here: " << transpose_isa_name(transpose_best_isa()) << "\n";
  for (const auto isa : {TransposeIsa::avx512, TransposeIsa::sse2}) {
    if (transpose_isa_available(isa)) continue;
    double x = 1, y = 0;
    EXPECT_THROW(transpose_cpu_blocked_isa(1, 1, &x, &y, false, 1, 0, isa), std::invalid_argument);
  }
}

}  // namespace
}  // namespace mm
