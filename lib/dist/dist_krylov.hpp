// The Krylov methods over ranks: KrylovOps on a square DistCsr, so that CG, BiCGSTAB and
// GMRES are the one-process drivers (kernels/cpu/krylov.cpp, krylov_solve) unchanged.
//
// Vectors are a rank's rows (row_part = col_part). matvec is DistSpmv::apply (the halo
// overlapped with the diagonal block); dot and dots reduce this rank's sums with one
// allreduce (dots: K values in one); axpby and precond are local. The drivers batch their
// reductions (CG two an iteration, BiCGSTAB four, GMRES with cgs2 two a step), so results
// differ from one process only by the order of the sums (lib/dist/README.md says how much).
// Work: nnz() and size() are this rank's, so the drivers' flops are this rank's share; their
// sum over the ranks is the one-process formula.
//
// GPU ranks (a GPU kernel and GpuRanks): the drivers' vectors are device vectors (vector()),
// the product is DistSpmv's on the device, the vector operations run on the GPU, and a batch of
// dot products is summed there and reduced across the ranks in one allreduce of K values (MPI
// on the host, or ncclAllReduce on the device). b and x go in and out through KrylovVector.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "dist/comm.hpp"
#include "dist/dist_csr.hpp"
#include "dist/dist_spmv.hpp"
#include "dist/gpu.hpp"
#include "solve.hpp"

namespace mm::dist {

template <class I, class T>
class DistKrylovOps final : public KrylovOps<T> {
 public:
  // COMM and A (square) must outlive this object. JACOBI: the inverse diagonal, from the
  // diagonal block; a zero entry throws NumericalError naming its global row (1-based) on
  // this rank only: construct under agree().
  DistKrylovOps(const Comm& comm, const DistCsr<I, T>& a, LocalKernel kernel, bool jacobi,
                const GpuRanks* gpu = nullptr);

  std::unique_ptr<KrylovVector<T>> vector(std::int64_t n) const override;
  bool on_device() const { return gpu_vec_ != nullptr; }
  std::int64_t size() const override { return a_.local_rows(); }
  double nnz() const override { return static_cast<double>(a_.local_nnz()); }
  void matvec(const T* x, T* y) override;
  T dot(const T* x, const T* y) override;
  void dots(int k, const T* const* x, const T* const* y, T* out) override;
  void axpby(T a, const T* x, T b, T* y) override;
  void precond(const T* r, T* z) override;

  // Since the last reset(): seconds in allreduce calls (waiting for the slowest rank
  // included), in the halo exchange outside the overlap, and the reductions made.
  double allreduce_seconds() const { return allreduce_s_; }
  double exchange_seconds() const { return spmv_.exchange_total() - exchange_at_reset_; }
  std::int64_t reductions() const { return reductions_; }
  void reset() {
    allreduce_s_ = 0, reductions_ = 0;
    exchange_at_reset_ = spmv_.exchange_total();
  }

 private:
  void reduce(T* v, int k);

  Comm comm_;
  const DistCsr<I, T>& a_;
  DistSpmv<I, T> spmv_;
  int threads_;
  std::vector<T> inv_;                        // Jacobi: 1 / a_ii of this rank's rows; empty: none
  std::unique_ptr<GpuVectorOps<T>> gpu_vec_;  // GPU ranks
  double allreduce_s_ = 0, exchange_at_reset_ = 0;
  std::int64_t reductions_ = 0;
};

}  // namespace mm::dist
