// Partition, routing, halo plan and distributed SpMV against the serial reference, on every
// rank count CTest runs them with (mpirun -np 1..4, and without mpirun).
#include <algorithm>
#include <numeric>

#include "device.hpp"
#include "dist/agree.hpp"
#include "dist/halo.hpp"
#include "dist/read.hpp"
#include "dist_test.hpp"
#include "mm/error.hpp"

namespace mm::test {
namespace {

using dist::Op;
using dist::Partition;

TEST(Partition, UniformBlocksAndOwners) {
  const Partition p = dist::uniform_partition(10, 4);
  EXPECT_EQ(p.start, (std::vector<std::int64_t>{0, 3, 6, 8, 10}));
  EXPECT_EQ(p.owner(0), 0);
  EXPECT_EQ(p.owner(5), 1);
  EXPECT_EQ(p.owner(9), 3);
  // Fewer indices than parts: the owner is the part that holds the index, never an empty one.
  const Partition q = dist::uniform_partition(2, 4);
  EXPECT_EQ(q.start, (std::vector<std::int64_t>{0, 1, 2, 2, 2}));
  EXPECT_EQ(q.owner(1), 1);
  Partition e;
  e.start = {0, 0, 5, 5, 9};
  EXPECT_EQ(e.owner(0), 1);
  EXPECT_EQ(e.owner(4), 1);
  EXPECT_EQ(e.owner(5), 3);
  EXPECT_EQ(e.owner(8), 3);
}

TEST(Partition, BalancedByNonzerosPlusOne) {
  // Weights 2, 10, 2, 2 (total 16): the second block starts at the first row whose preceding
  // weight reaches 8, row 2 (12 before it).
  EXPECT_EQ(dist::balanced_rows({1, 9, 1, 1}, 2).start, (std::vector<std::int64_t>{0, 2, 4}));
  // A dense row among empty ones (weights 1 1 13 1 1 1): both the 1/3 and the 2/3 marks are
  // passed within it, so the middle block is empty.
  EXPECT_EQ(dist::balanced_rows({0, 0, 12, 0, 0, 0}, 3).start,
            (std::vector<std::int64_t>{0, 3, 3, 6}));
  // Empty rows only: shared out by count.
  EXPECT_EQ(dist::balanced_rows(std::vector<std::int64_t>(8, 0), 4).start,
            (std::vector<std::int64_t>{0, 2, 4, 6, 8}));
  EXPECT_EQ(dist::balanced_rows({}, 3).start, (std::vector<std::int64_t>{0, 0, 0, 0}));
  EXPECT_EQ(dist::parse_partition("metis"), dist::PartitionKind::metis);
  EXPECT_THROW(dist::parse_partition("cols"), UsageError);
}

// The partition computed across the ranks from scattered entries equals the one computed
// from the whole row counts.
TEST(Partition, DistributedEqualsSerial) {
  for (const Shape& s : awkward_shapes()) {
    const Csr<std::int64_t, double> a = random_csr<std::int64_t, double>(s, 11);
    std::vector<std::int64_t> row_nnz(static_cast<std::size_t>(a.rows));
    for (std::int64_t i = 0; i < a.rows; ++i) row_nnz[i] = a.ptr[i + 1] - a.ptr[i];
    const auto t = my_share(a, comm());
    const Partition p = dist::balanced_rows(comm(), a.rows, t.row);
    EXPECT_EQ(p, dist::balanced_rows(row_nnz, comm().size())) << s.name;
  }
}

TEST(Route, EntriesReachTheirRowsOwnerInOrder) {
  const Shape s{"r", 57, 40, 0.2};
  const Csr<std::int32_t, double> a = random_csr<std::int32_t, double>(s, 3);
  auto t = my_share(a, comm());
  const Partition p = dist::uniform_partition(a.rows, comm().size());
  const auto mine = dist::route_to_owners(comm(), p, std::move(t));
  std::int64_t expect = 0;
  for (std::int64_t i = p.begin(comm().rank()); i < p.end(comm().rank()); ++i)
    expect += a.ptr[i + 1] - a.ptr[i];
  EXPECT_EQ(static_cast<std::int64_t>(mine.size()), expect);
  // Entries from rank r arrive before those of rank r + 1; within a sender, in its order
  // (entry k of A came from rank k % size).
  std::pair<std::int64_t, std::int64_t> last{-1, -1};
  for (std::size_t e = 0; e < mine.size(); ++e) {
    EXPECT_EQ(p.owner(mine.row[e]), comm().rank());
    const auto b = a.idx.begin() + a.ptr[mine.row[e]], end = a.idx.begin() + a.ptr[mine.row[e] + 1];
    const std::int64_t k = std::lower_bound(b, end, mine.col[e]) - a.idx.begin();
    const std::pair<std::int64_t, std::int64_t> at{k % comm().size(), k};
    EXPECT_LT(last, at);
    last = at;
  }
}

// Every rank's halo, filled by the exchange, holds x at its halo columns; what a rank sends
// to another equals what that one expects.
TEST(HaloPlan, ExchangeFillsTheHalo) {
  for (const Shape& s : awkward_shapes()) {
    const Csr<std::int32_t, double> a = random_csr<std::int32_t, double>(s, 5);
    const auto d = distribute(a, comm());
    std::vector<std::int64_t> sends(static_cast<std::size_t>(comm().size()), 0);
    for (std::size_t k = 0; k < d.plan.send_ranks.size(); ++k)
      sends[static_cast<std::size_t>(d.plan.send_ranks[k])] =
          d.plan.send_offset[k + 1] - d.plan.send_offset[k];
    const auto expected = comm().alltoall(sends);  // what each rank says it sends me
    std::vector<std::int64_t> recvs(static_cast<std::size_t>(comm().size()), 0);
    for (std::size_t k = 0; k < d.plan.recv_ranks.size(); ++k)
      recvs[static_cast<std::size_t>(d.plan.recv_ranks[k])] =
          d.plan.recv_offset[k + 1] - d.plan.recv_offset[k];
    EXPECT_EQ(recvs, expected) << s.name;
    EXPECT_TRUE(std::is_sorted(d.halo_cols.begin(), d.halo_cols.end()));
    EXPECT_EQ(std::count(d.plan.recv_ranks.begin(), d.plan.recv_ranks.end(), comm().rank()), 0);

    std::vector<double> x(static_cast<std::size_t>(d.local_cols()));
    std::iota(x.begin(), x.end(), static_cast<double>(d.col_begin()));  // x_j = j
    std::vector<double> halo(static_cast<std::size_t>(d.plan.halo_size()), -1.0);
    dist::HaloExchange<double> ex(comm(), d.plan);
    ex.start(x.data(), halo.data());
    ex.finish();
    for (std::size_t h = 0; h < halo.size(); ++h)
      EXPECT_EQ(halo[h], static_cast<double>(d.halo_cols[h])) << s.name;
  }
}

TEST(DistSpmv, AwkwardShapesAgainstReference) {
  std::uint64_t seed = 1;
  for (const Shape& s : awkward_shapes()) {
    check_dist_spmv(random_csr<std::int32_t, double>(s, seed), seed + 100, s.name);
    check_dist_spmv(random_csr<std::int32_t, double>(s, seed), seed + 200, s.name + " beta", 2.5,
                    -0.5);
    ++seed;
  }
}

TEST(DistSpmv, FewerRowsThanRanks) {
  for (const Shape& s : {Shape{"1x1", 1, 1, 1.0}, Shape{"2x2", 2, 2, 1.0}, Shape{"3x7", 3, 7, 0.6},
                         Shape{"2x1", 2, 1, 1.0}, Shape{"0x5", 0, 5, 0.0}, Shape{"5x0", 5, 0, 0.0}})
    check_dist_spmv(random_csr<std::int32_t, double>(s, 9), 10, s.name);
}

TEST(DistSpmv, ValueAndIndexTypes) {
  const Shape s{"200", 200, 150, 0.05, true, true};
  check_dist_spmv(random_csr<std::int64_t, double>(s, 2), 3, "int64 double");
  check_dist_spmv(random_csr<std::int32_t, float>(s, 2), 3, "float");
  check_dist_spmv(random_csr<std::int32_t, std::complex<double>>(s, 2), 3, "complex double",
                  std::complex<double>(1, 2), std::complex<double>(0.5, -1));
  check_dist_spmv(random_csr<std::int64_t, std::complex<float>>(s, 2), 3, "complex float");
  check_dist_spmv(random_csr<std::int32_t, double>(s, 2), 3, "ref kernel", 1.0, 0.0,
                  dist::LocalKernel::ref);
  check_dist_spmv(random_csr<std::int32_t, double>(s, 2), 3, "ref kernel beta", 1.0, 3.0,
                  dist::LocalKernel::ref);
}

// A symmetric file's stored triangle, expanded by to_triplets on each rank's share: the
// mirrors reach their rows' owners.
TEST(DistSpmv, SymmetricStoredTriangle) {
  for (Symmetry sym : {Symmetry::symmetric, Symmetry::skew_symmetric}) {
    const Shape s{"sym", 120, 120, 0.05};
    const Csr<std::int32_t, double> full = random_csr<std::int32_t, double>(s, 4);
    MtxMatrix m;  // the lower triangle as a symmetric file stores it
    m.header.symmetry = sym;
    m.header.rows = m.header.cols = s.rows;
    MtxMatrix mine = m;
    std::int64_t k = 0;
    for (std::int64_t i = 0; i < full.rows; ++i)
      for (auto p = full.ptr[i]; p < full.ptr[i + 1]; ++p) {
        const std::int64_t j = full.idx[p];
        if (j > i || (j == i && sym == Symmetry::skew_symmetric)) continue;
        for (MtxMatrix* t : {&m, &mine}) {
          if (t == &mine && k % comm().size() != comm().rank()) continue;
          t->row.push_back(i);
          t->col.push_back(j);
          t->real.push_back(full.val[p]);
          ++t->header.nnz;
        }
        ++k;
      }
    const Csr<std::int32_t, double> ref = coo_to_csr(to_coo<std::int32_t, double>(m));
    auto t = dist::to_triplets<double>(mine);
    const Partition rows = dist::balanced_rows(comm(), ref.rows, t.row);
    t = dist::route_to_owners(comm(), rows, std::move(t));
    const auto d =
        dist::build_dist_csr<std::int32_t, double>(comm(), ref.rows, ref.cols, rows, rows, t);
    // The blocks, put back together, are the expanded matrix.
    std::int64_t n = 0;
    for (std::int64_t i = 0; i < d.local_rows(); ++i) {
      const std::int64_t gi = d.row_begin() + i;
      std::vector<std::pair<std::int64_t, double>> got, want;
      for (auto p = d.diag.ptr[i]; p < d.diag.ptr[i + 1]; ++p)
        got.emplace_back(d.col_begin() + d.diag.idx[p], d.diag.val[p]);
      for (auto p = d.offd.ptr[i]; p < d.offd.ptr[i + 1]; ++p)
        got.emplace_back(d.halo_cols[static_cast<std::size_t>(d.offd.idx[p])], d.offd.val[p]);
      std::sort(got.begin(), got.end());
      for (auto p = ref.ptr[gi]; p < ref.ptr[gi + 1]; ++p)
        want.emplace_back(ref.idx[p], ref.val[p]);
      EXPECT_EQ(got, want) << "row " << gi;
      n += static_cast<std::int64_t>(got.size());
    }
    EXPECT_EQ(comm().allreduce(n, Op::sum), ref.nnz());
    check_dist_spmv(ref, 8, sym == Symmetry::symmetric ? "symmetric" : "skew");
  }
}

// An error on one rank: every rank throws Failure with its code, only that rank reports.
TEST(Agree, OneFailingRankFailsAll) {
  const int last = comm().size() - 1;
  try {
    dist::agree(comm(), [&] {
      if (comm().rank() == last) throw InputError("f.mtx", 7, "bad");
    });
    ADD_FAILURE() << "no failure";
  } catch (const dist::Failure& f) {
    EXPECT_EQ(f.code, 3);
    EXPECT_EQ(f.report != nullptr, comm().rank() == last);
  }
  // The lowest failing rank reports, with its code.
  try {
    dist::agree(comm(), [&] {
      if (comm().rank() == last) throw DeviceError("late");
      if (comm().rank() == 0) throw UsageError("first");
    });
    ADD_FAILURE() << "no failure";
  } catch (const dist::Failure& f) {
    EXPECT_EQ(f.code, comm().size() == 1 ? 4 : 2);
    EXPECT_EQ(f.report != nullptr, comm().rank() == 0);
  }
  EXPECT_EQ(dist::agree(comm(), [] { return 42; }), 42);
}

// ---- GPU ranks: the blocks on each rank's GPU, x, y0 and y device vectors, the halo packed
// there and exchanged over MPI (CUDA-aware or staged through pinned host memory) or NCCL.

void check_gpu_shapes(const dist::GpuRanks* gpu, dist::LocalKernel kernel, const std::string& tag) {
  std::uint64_t seed = 1;
  for (const Shape& s : awkward_shapes()) {
    check_dist_spmv(random_csr<std::int32_t, double>(s, seed), seed + 100, s.name + tag, 1.0, 0.0,
                    kernel, gpu);
    check_dist_spmv(random_csr<std::int32_t, double>(s, seed), seed + 200, s.name + tag + " beta",
                    2.5, -0.5, kernel, gpu);
    ++seed;
  }
}

TEST(GpuDistSpmv, AwkwardShapesEveryKernel) {
  MM_DIST_GPU(gpu, dist::CommKind::mpi);
  check_gpu_shapes(gpu, dist::LocalKernel::cuda_adaptive, " (cuda-adaptive)");
  check_gpu_shapes(gpu, dist::LocalKernel::cuda_vector, " (cuda-vector)");
  check_gpu_shapes(gpu, dist::LocalKernel::cuda_scalar, " (cuda-scalar)");
}

TEST(GpuDistSpmv, FewerRowsThanRanksAndTypes) {
  MM_DIST_GPU(gpu, dist::CommKind::mpi);
  const auto k = dist::LocalKernel::cuda_adaptive;
  for (const Shape& s : {Shape{"1x1", 1, 1, 1.0}, Shape{"2x2", 2, 2, 1.0}, Shape{"3x7", 3, 7, 0.6},
                         Shape{"2x1", 2, 1, 1.0}, Shape{"0x5", 0, 5, 0.0}, Shape{"5x0", 5, 0, 0.0}})
    check_dist_spmv(random_csr<std::int32_t, double>(s, 9), 10, s.name, 1.0, 0.0, k, gpu);
  const Shape s{"200", 200, 150, 0.05, true, true};
  check_dist_spmv(random_csr<std::int64_t, double>(s, 2), 3, "int64 double", 1.0, 0.0, k, gpu);
  check_dist_spmv(random_csr<std::int32_t, float>(s, 2), 3, "float", 1.0f, 0.0f, k, gpu);
  check_dist_spmv(random_csr<std::int32_t, std::complex<double>>(s, 2), 3, "complex double",
                  std::complex<double>(1, 2), std::complex<double>(0.5, -1), k, gpu);
  check_dist_spmv(random_csr<std::int64_t, std::complex<float>>(s, 2), 3, "complex float",
                  std::complex<float>(1), std::complex<float>(0), k, gpu);
}

// The halo's wait is measured on the device: never negative, zero on one rank (no halo).
TEST(GpuDistSpmv, ExchangeTimeMeasured) {
  MM_DIST_GPU(gpu, dist::CommKind::mpi);
  const auto a = random_csr<std::int32_t, double>({"400", 400, 400, 0.02}, 5);
  const auto d = distribute(a, comm());
  dist::DistSpmv<std::int32_t, double> op(comm(), d, dist::LocalKernel::cuda_adaptive, gpu);
  const auto v = dist::make_gpu_vector_ops<double>(*gpu, 0, {});
  const auto x = v->vector(d.local_cols()), y = v->vector(d.local_rows());
  for (int i = 0; i < 3; ++i) op.apply(x->data(), y->data());
  gpu->synchronize();
  EXPECT_GE(op.exchange_seconds(), 0.0);
  EXPECT_GE(op.exchange_total(), op.exchange_seconds());
  if (comm().size() == 1) {
    EXPECT_EQ(op.exchange_total(), 0.0);
  }
  EXPECT_TRUE(gpu->transport() == "mpi-cuda-aware" || gpu->transport() == "mpi-host-staged")
      << gpu->transport();
}

// NCCL: a GPU a rank (skipped where ranks share one, as on a one-GPU machine under np > 1).
TEST(GpuDistSpmv, Nccl) {
  MM_DIST_GPU(gpu, dist::CommKind::nccl);
  EXPECT_EQ(gpu->transport(), "nccl");
  check_gpu_shapes(gpu, dist::LocalKernel::cuda_adaptive, " (nccl)");
  const Shape s{"200", 200, 150, 0.05, true, true};
  check_dist_spmv(random_csr<std::int32_t, std::complex<double>>(s, 2), 3, "nccl complex",
                  std::complex<double>(1, 2), std::complex<double>(0.5, -1),
                  dist::LocalKernel::cuda_adaptive, gpu);
  check_dist_spmv(random_csr<std::int32_t, float>(s, 2), 3, "nccl float", 1.0f, 0.0f,
                  dist::LocalKernel::cuda_vector, gpu);
}

// Two ranks on one GPU: NCCL refused on every rank, exit 4, the reason said once.
TEST(GpuDistSpmv, NcclRefusedWhereRanksShareAGpu) {
  const dist::Comm& c = comm();
  const GpuInfo g = cuda_devices();
  if (c.allreduce(g.count > 0 ? 1 : 0, Op::min) == 0) GTEST_SKIP() << "no GPU: " << g.reason;
  if (!dist::built_with_nccl()) GTEST_SKIP() << "built without NCCL";
  const dist::Comm::NodeRank node = c.node_rank();
  if (c.allreduce(node.size > g.count ? 1 : 0, Op::max) == 0)
    GTEST_SKIP() << "every rank has a GPU of its own: nothing to refuse";
  try {
    dist::open_gpu_ranks(c, dist::CommKind::nccl);
    ADD_FAILURE() << "NCCL accepted ranks sharing a GPU";
  } catch (const dist::Failure& f) {
    EXPECT_EQ(f.code, 4);
    EXPECT_EQ(static_cast<bool>(f.report), c.rank() == 0);  // every rank fails alike: rank 0 says
    if (f.report) try {
        std::rethrow_exception(f.report);
      } catch (const DeviceError& e) {
        EXPECT_NE(std::string(e.what()).find("share one GPU"), std::string::npos) << e.what();
      }
  }
}

TEST(GpuDistSpmv, KernelNames) {
  EXPECT_EQ(dist::parse_local_kernel("", true), dist::LocalKernel::cuda_adaptive);
  EXPECT_EQ(dist::parse_local_kernel("cuda-scalar", true), dist::LocalKernel::cuda_scalar);
  EXPECT_EQ(dist::to_string(dist::LocalKernel::cuda_vector), "cuda-vector");
  EXPECT_THROW(dist::parse_local_kernel("cpu-csr", true), UsageError);
  EXPECT_THROW(dist::parse_local_kernel("cuda-vector", false), UsageError);
  EXPECT_EQ(dist::parse_comm("nccl"), dist::CommKind::nccl);
  EXPECT_THROW(dist::parse_comm("gloo"), UsageError);
}

}  // namespace
}  // namespace mm::test
