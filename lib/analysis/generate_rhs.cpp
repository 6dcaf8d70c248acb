// mmgen rhs: b = A * x_true by the reference SpMV, for solver tests.
#include "analysis/generate_rhs.hpp"

#include "mm/error.hpp"
#include "spmv.hpp"

namespace mm {

RhsResult make_rhs(const MtxMatrix& a, const std::string& x_kind, std::uint64_t seed, double lo,
                   double hi) {
  if (x_kind != "ones" && x_kind != "random" && x_kind != "range")
    throw UsageError("--x must be ones, random or range, not '" + x_kind + "'");
  GenOptions xo;
  xo.kind = "vector";
  xo.n = a.header.cols;
  xo.seed = seed;
  xo.vector_kind = x_kind;
  if (x_kind == "random") {
    xo.lo = lo;
    xo.hi = hi;
  }
  RhsResult r;
  r.x = generate(xo);
  const std::vector<double>& x = r.x.real;
  auto product = [&](auto zero) {
    using T = decltype(zero);
    const auto csr = coo_to_csr(to_coo<std::int64_t, T>(a));
    std::vector<T> xt(x.begin(), x.end()), y(static_cast<std::size_t>(a.header.rows));
    spmv_ref(csr, xt.data(), y.data(), T(1), T(0));
    return y;
  };
  MtxMatrix& b = r.b;
  b.header.format = Format::array;
  b.header.rows = a.header.rows;
  b.header.cols = 1;
  b.header.nnz = a.header.rows;
  if (a.header.field == Field::complex) {
    const auto y = product(std::complex<double>{});
    b.header.field = Field::complex;
    for (const auto& v : y) {
      b.real.push_back(v.real());
      b.imag.push_back(v.imag());
    }
  } else {
    b.header.field = Field::real;
    b.real = product(0.0);
  }
  return r;
}

}  // namespace mm
