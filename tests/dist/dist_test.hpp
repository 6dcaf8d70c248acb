// Helpers of the distributed tests: the same global matrix on every rank, a share of its
// entries per rank, and the distributed product against the serial reference.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "../unit/random_matrices.hpp"
#include "dist/comm.hpp"
#include "dist/dist_csr.hpp"
#include "dist/dist_spmv.hpp"
#include "dist/gpu.hpp"
#include "dist/partition.hpp"
#include "jacobi.hpp"

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

// The one-process cpu-stencil run of ROOM a distributed one is checked against.
template <class T>
struct OneProcessRoom {
  std::vector<T> grid;
  JacobiResult result;
};
template <class T>
OneProcessRoom<T> one_process_room(const HeatedRoom& room, const JacobiStop& stop) {
  OneProcessRoom<T> w{std::vector<T>(static_cast<std::size_t>(room.points())), {}};
  std::vector<T> other(w.grid.size());
  w.result = stencil_iterate<T>(room, &stencil_sweep_cpu<T>, w.grid.data(), other.data(), stop);
  return w;
}

// A distributed run against WANT: the same iterations and convergence and the norm bit for bit
// on every rank; MINE (this rank's output planes) gathered on rank 0 equal to WANT's grid bit
// for bit.
template <class T>
void expect_same_room(const dist::Comm& c, const JacobiResult& got, const std::vector<T>& mine,
                      const OneProcessRoom<T>& want, const std::string& what) {
  EXPECT_EQ(got.iterations, want.result.iterations) << what;
  EXPECT_EQ(got.converged, want.result.converged) << what;
  EXPECT_EQ(std::memcmp(&got.norm, &want.result.norm, sizeof(double)), 0)
      << what << ": norm " << got.norm << " vs " << want.result.norm;
  const std::vector<T> all = c.gatherv(mine.data(), mine.size(), 0);
  if (c.root()) {
    ASSERT_EQ(all.size(), want.grid.size()) << what;
    EXPECT_EQ(std::memcmp(all.data(), want.grid.data(), all.size() * sizeof(T)), 0) << what;
  }
}

// GPU ranks for the GPU tests, opened once a process (collective: every rank asks in the same
// test) and closed by close_gpu_ranks() before MPI ends. Null, with WHY, where they cannot run
// here: no GPU (on any rank); NCCL not built or not loadable, or fewer GPUs than ranks on a
// node (NCCL needs a GPU a rank).
const dist::GpuRanks* gpu_ranks(dist::CommKind kind, std::string& why);
void close_gpu_ranks();

// First statement of a GPU-rank test: GPU (a const dist::GpuRanks*) for transport KIND, or the
// test skips saying why (alike on every rank).
#define MM_DIST_GPU(gpu, kind)                                              \
  std::string gpu##_why;                                                    \
  const ::mm::dist::GpuRanks* gpu = ::mm::test::gpu_ranks(kind, gpu##_why); \
  if (!gpu) GTEST_SKIP() << gpu##_why

// The rounding allowed in a product's entry: |y - y_ref| <= tol * sum_j |a_ij x_j| (the
// order of the sums differs), tol 1e-14 in double. GPU ranks sum a row in another order
// (lanes, blocks) than the serial loop: 1e-12.
template <class T>
double spmv_tol(bool gpu = false) {
  if (gpu) return sizeof(real_type_t<T>) == 8 ? 1e-12 : 1e-4;
  return sizeof(real_type_t<T>) == 8 ? 1e-14 : 5e-6;
}

// y = alpha*A*x + beta*y0 distributed, each rank's rows checked against the serial product.
// GPU: on GPU ranks (KERNEL one of the cuda kernels), x, y0 and y in device memory.
template <class I, class T>
void check_dist_spmv(const Csr<I, T>& a, std::uint64_t seed, const std::string& what,
                     T alpha = T(1), T beta = T(0),
                     dist::LocalKernel kernel = dist::LocalKernel::cpu_csr,
                     const dist::GpuRanks* gpu = nullptr) {
  const dist::Comm& c = comm();
  std::mt19937_64 rng(seed);
  std::vector<T> x(static_cast<std::size_t>(a.cols)), y0(static_cast<std::size_t>(a.rows));
  for (auto& v : x) v = random_value<T>(rng);
  for (auto& v : y0) v = random_value<T>(rng);
  std::vector<T> want(y0);
  spmv_ref(a, x.data(), want.data(), alpha, beta);

  const dist::DistCsr<I, T> d = distribute(a, c);
  EXPECT_EQ(c.allreduce(d.local_nnz(), dist::Op::sum), a.nnz()) << what;
  dist::DistSpmv<I, T> op(c, d, kernel, gpu);
  const std::int64_t r0 = d.row_begin(), nr = d.local_rows();
  std::vector<T> y(static_cast<std::size_t>(nr));
  std::unique_ptr<KrylovVector<T>> dx, dy0, dy;  // GPU ranks: device copies
  if (gpu) {
    const auto v = dist::make_gpu_vector_ops<T>(*gpu, 0, {});
    dx = v->vector(d.local_cols());
    dx->load(x.data() + d.col_begin());
    dy0 = v->vector(nr);
    dy0->load(y0.data() + r0);
    dy = v->vector(nr);
  }
  auto apply = [&] {
    if (!gpu) return op.apply(x.data() + d.col_begin(), y.data(), alpha, beta, y0.data() + r0);
    std::fill(y.begin(), y.end(), T(-7));
    op.apply(dx->data(), dy->data(), alpha, beta, dy0->data());
    dy->store(y.data());
  };
  const double tol = spmv_tol<T>(gpu != nullptr);
  apply();
  for (int pass = 0; pass < 2; ++pass) {  // twice: the exchange is reusable
    int bad = 0;
    for (std::int64_t i = 0; i < nr; ++i) {
      double scale = std::abs(beta * y0[static_cast<std::size_t>(r0 + i)]);
      for (auto p = a.ptr[r0 + i]; p < a.ptr[r0 + i + 1]; ++p)
        scale += std::abs(alpha * a.val[p] * x[static_cast<std::size_t>(a.idx[p])]);
      const double err =
          std::abs(y[static_cast<std::size_t>(i)] - want[static_cast<std::size_t>(r0 + i)]);
      if (!(err <= tol * scale) && bad++ < 3)
        ADD_FAILURE() << what << ": rank " << c.rank() << " row " << r0 + i << " error " << err
                      << " over " << tol << " * " << scale;
    }
    EXPECT_EQ(bad, 0) << what;
    apply();
  }
}

}  // namespace mm::test
