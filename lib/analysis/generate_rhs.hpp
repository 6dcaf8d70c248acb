// mmgen rhs: a known solution x_true and b = A * x_true for solver tests.
#pragma once

#include <complex>
#include <cstdint>
#include <string>
#include <vector>

#include "mm/error.hpp"
#include "analysis/generate.hpp"
#include "mm/matrix.hpp"

namespace mm {

struct RhsResult {
  MtxMatrix b, x;  // N x 1 arrays; b complex when A is, else real
};

// x_true (ones | random in LO..HI | range 1..N, N = A's columns, from SEED) and
// b = A * x_true computed by the reference SpMV on A with its symmetry expanded.
RhsResult make_rhs(const MtxMatrix& a, const std::string& x_kind, std::uint64_t seed,
                   double lo = 0.0, double hi = 1.0);

}  // namespace mm
