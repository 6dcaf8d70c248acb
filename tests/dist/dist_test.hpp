// Helpers of the distributed tests: the same global matrix on every rank, a share of its
// entries per rank, and the distributed product against the serial reference.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "../unit/random_matrices.hpp"
#include "dist/comm.hpp"
#include "dist/dist_csr.hpp"
#include "dist/dist_spmv.hpp"
#include "dist/partition.hpp"

namespace mm::test {

inline const dist::Comm& comm() {
  return dist::world();
}

// Entries k of A with k % size == rank: every rank holds some of every row's entries, as a
// parallel read of a file sorted by columns leaves them.
template <class I, class T>
dist::Triplets<T> my_share(const Csr<I, T>& a, const dist::Comm& c) {
  dist::Triplets<T> t;
  std::int64_t k = 0;
  for (std::int64_t i = 0; i < a.rows; ++i)
    for (auto p = a.ptr[i]; p < a.ptr[i + 1]; ++p, ++k)
      if (k % c.size() == c.rank()) t.push(i, a.idx[p], a.val[p]);
  return t;
}

// The distributed matrix of A, partitioned by balanced_rows from the ranks' shares.
template <class I, class T>
dist::DistCsr<I, T> distribute(const Csr<I, T>& a, const dist::Comm& c) {
  dist::Triplets<T> t = my_share(a, c);
  const dist::Partition rows = dist::balanced_rows(c, a.rows, t.row);
  const dist::Partition cols = dist::column_partition(rows, a.rows, a.cols);
  t = dist::route_to_owners(c, rows, std::move(t));
  return dist::build_dist_csr<I, T>(c, a.rows, a.cols, rows, cols, t);
}

// The rounding allowed in a product's entry: |y - y_ref| <= tol * sum_j |a_ij x_j| (the
// order of the sums differs), tol 1e-14 in double.
template <class T>
double spmv_tol() {
  return sizeof(real_type_t<T>) == 8 ? 1e-14 : 5e-6;
}

// y = alpha*A*x + beta*y0 distributed, each rank's rows checked against the serial product.
template <class I, class T>
void check_dist_spmv(const Csr<I, T>& a, std::uint64_t seed, const std::string& what,
                     T alpha = T(1), T beta = T(0),
                     dist::LocalKernel kernel = dist::LocalKernel::cpu_csr) {
  const dist::Comm& c = comm();
  std::mt19937_64 rng(seed);
  std::vector<T> x(static_cast<std::size_t>(a.cols)), y0(static_cast<std::size_t>(a.rows));
  for (auto& v : x) v = random_value<T>(rng);
  for (auto& v : y0) v = random_value<T>(rng);
  std::vector<T> want(y0);
  spmv_ref(a, x.data(), want.data(), alpha, beta);

  const dist::DistCsr<I, T> d = distribute(a, c);
  EXPECT_EQ(c.allreduce(d.local_nnz(), dist::Op::sum), a.nnz()) << what;
  dist::DistSpmv<I, T> op(c, d, kernel);
  const std::int64_t r0 = d.row_begin(), nr = d.local_rows();
  std::vector<T> y(static_cast<std::size_t>(nr));
  op.apply(x.data() + d.col_begin(), y.data(), alpha, beta, y0.data() + r0);
  for (int pass = 0; pass < 2; ++pass) {  // twice: the exchange is reusable
    int bad = 0;
    for (std::int64_t i = 0; i < nr; ++i) {
      double scale = std::abs(beta * y0[static_cast<std::size_t>(r0 + i)]);
      for (auto p = a.ptr[r0 + i]; p < a.ptr[r0 + i + 1]; ++p)
        scale += std::abs(alpha * a.val[p] * x[static_cast<std::size_t>(a.idx[p])]);
      const double err =
          std::abs(y[static_cast<std::size_t>(i)] - want[static_cast<std::size_t>(r0 + i)]);
      if (err > spmv_tol<T>() * scale && bad++ < 3)
        ADD_FAILURE() << what << ": rank " << c.rank() << " row " << r0 + i << " error " << err
                      << " over " << spmv_tol<T>() << " * " << scale;
    }
    EXPECT_EQ(bad, 0) << what;
    op.apply(x.data() + d.col_begin(), y.data(), alpha, beta, y0.data() + r0);
  }
}

}  // namespace mm::test
