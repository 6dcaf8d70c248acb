// DistSpmv on a GPU rank: the blocks on the device, the halo packed there and exchanged on the
// exchange stream while the diagonal block's product runs on the compute stream.
#include <cstdint>
#include <vector>

#include "cuda/spmv_device.hpp"
#include "dist/cuda/gpu_context.cuh"
#include "instantiate.hpp"

namespace mm::dist {

namespace gpu {

namespace {

using cuda::dev_t;

// Tuning: threads a block of the gather and scatter kernels (memory-bound, one value a thread).
constexpr int kThreads = 256;

std::int64_t blocks_for(std::int64_t n) {
  return (n + kThreads - 1) / kThreads;
}

// send[j] = x[idx[j]]: the values the neighbours need, packed in the plan's order.
template <class D>
__global__ void __launch_bounds__(kThreads)
    gather_kernel(std::int64_t n, const std::int64_t* __restrict__ idx, const D* __restrict__ x,
                  D* __restrict__ send) {
  const std::int64_t j = blockIdx.x * static_cast<std::int64_t>(kThreads) + threadIdx.x;
  if (j < n) send[j] = x[idx[j]];
}

// y[rows[r]] = part[r] + y[rows[r]]: the remote columns' share (alpha included) added to the
// rows that have any, as the CPU ranks add it.
template <class D>
__global__ void __launch_bounds__(kThreads)
    add_rows_kernel(std::int64_t n, const std::int64_t* __restrict__ rows,
                    const D* __restrict__ part, D* __restrict__ y) {
  const std::int64_t r = blockIdx.x * static_cast<std::int64_t>(kThreads) + threadIdx.x;
  if (r < n) y[rows[r]] = part[r] + y[rows[r]];
}

SpmvCudaKernel to_cuda(GpuKernel k) {
  return k == GpuKernel::scalar   ? SpmvCudaKernel::scalar
         : k == GpuKernel::vector ? SpmvCudaKernel::vector
                                  : SpmvCudaKernel::adaptive;
}

// The off-diagonal block's rows that hold entries (ROWS gets their local numbers), as a CSR
// matrix of those rows only: the product then touches no other row of y.
template <class I, class T>
Csr<I, T> boundary_rows(const Csr<I, T>& offd, std::vector<std::int64_t>& rows) {
  Csr<I, T> b;
  b.cols = offd.cols;
  b.ptr.push_back(0);
  for (std::int64_t i = 0; i < offd.rows; ++i) {
    if (offd.ptr[i + 1] == offd.ptr[i]) continue;
    rows.push_back(i);
    for (auto k = offd.ptr[i]; k < offd.ptr[i + 1]; ++k) {
      b.idx.push_back(offd.idx[k]);
      b.val.push_back(offd.val[k]);
    }
    b.ptr.push_back(static_cast<I>(b.idx.size()));
  }
  b.rows = static_cast<std::int64_t>(rows.size());
  return b;
}

template <class I, class T>
class Spmv final : public GpuSpmv<I, T> {
 public:
  Spmv(const Context& g, const DistCsr<I, T>& a, GpuKernel kernel)
      : g_(g),
        plan_(a.plan),
        diag_(a.diag, to_cuda(kernel)),
        send_idx_(a.plan.send_idx.data(), a.plan.send_idx.size()),
        send_(static_cast<std::size_t>(a.plan.send_size())),
        halo_(static_cast<std::size_t>(a.plan.halo_size())) {
    std::vector<std::int64_t> rows;
    const Csr<I, T> b = boundary_rows(a.offd, rows);
    if (!rows.empty()) {
      offd_ = std::make_unique<SpmvCudaDevice<I, T>>(b, to_cuda(kernel));
      offd_rows_ = cuda::Buffer<std::int64_t>(rows.data(), rows.size());
      part_ = cuda::Buffer<T>(rows.size());
    }
    exchanges_ = !plan_.send_ranks.empty() || !plan_.recv_ranks.empty();
    if (g_.kind() == Transport::host_staged) {
      send_host_ = cuda::Pinned<T>(send_.size());
      halo_host_ = cuda::Pinned<T>(halo_.size());
    }
  }

  void apply(const T* x, T* y, T alpha, T beta, const T* y0) override {
    using D = dev_t<T>;
    settle();
    const cudaStream_t main = g_.compute(), side = g_.exchange();
    if (exchanges_) {
      // Pack on the exchange stream once x is written (by the compute stream's earlier work).
      x_ready_.order(main, side);
      const auto n = static_cast<std::int64_t>(send_.size());
      if (n) {
        gather_kernel<D><<<blocks_for(n), kThreads, 0, side>>>(
            n, send_idx_.get(), reinterpret_cast<const D*>(x), send_.dev());
        MM_CUDA_LAUNCHED("dist gather_kernel");
      }
      if (g_.kind() == Transport::nccl) {
        post_nccl(side);
        halo_ready_.record(side);
      } else if (g_.kind() == Transport::host_staged && n) {
        MM_CUDA(cudaMemcpyAsync(send_host_.get(), send_.get(), send_.size() * sizeof(T),
                                cudaMemcpyDeviceToHost, side));
      }
    }
    // The diagonal block meanwhile.
    diag_.apply(x, y0, y, alpha, beta, main);
    if (!exchanges_) {
      last_ = 0;
      return;
    }
    diag_done_.record(main);
    if (g_.kind() == Transport::nccl) {
      MM_CUDA(cudaStreamWaitEvent(main, halo_ready_.get(), 0));
    } else {
      MM_CUDA(cudaStreamSynchronize(side));  // packed (and staged): MPI may read it
      exchange_mpi();
      if (g_.kind() == Transport::host_staged && halo_.size() != 0)
        MM_CUDA(cudaMemcpyAsync(halo_.get(), halo_host_.get(), halo_.size() * sizeof(T),
                                cudaMemcpyHostToDevice, main));
    }
    halo_in_.record(main);
    pending_ = true;
    if (offd_) {
      const auto m = static_cast<std::int64_t>(offd_rows_.size());
      offd_->apply(halo_.get(), nullptr, part_.get(), alpha, T{}, main);
      add_rows_kernel<D><<<blocks_for(m), kThreads, 0, main>>>(m, offd_rows_.get(), part_.dev(),
                                                               reinterpret_cast<D*>(y));
      MM_CUDA_LAUNCHED("dist add_rows_kernel");
    }
  }

  double exchange_seconds() override {
    settle();
    return last_;
  }
  double exchange_total() override {
    settle();
    return total_;
  }

 private:
  // The last apply's wait for the halo, read from its events once they have happened.
  void settle() {
    if (!pending_) return;
    pending_ = false;
    last_ = cuda::elapsed(diag_done_, halo_in_);
    total_ += last_;
  }

  // Every receive and send of the plan in one NCCL group on STREAM.
  void post_nccl(cudaStream_t stream) {
    constexpr Scalar s = scalar_of<T>::value;
    constexpr int w = scalar_of<T>::width;
    const Nccl& nccl = g_.nccl();
    nccl.group_start();
    for (std::size_t k = 0; k < plan_.recv_ranks.size(); ++k)
      nccl.recv(halo_.get() + plan_.recv_offset[k],
                static_cast<std::size_t>(plan_.recv_offset[k + 1] - plan_.recv_offset[k]) * w, s,
                plan_.recv_ranks[k], stream);
    for (std::size_t k = 0; k < plan_.send_ranks.size(); ++k)
      nccl.send(send_.get() + plan_.send_offset[k],
                static_cast<std::size_t>(plan_.send_offset[k + 1] - plan_.send_offset[k]) * w, s,
                plan_.send_ranks[k], stream);
    nccl.group_end();
  }

  // MPI point to point on device buffers (CUDA-aware) or their pinned host copies; waits.
  void exchange_mpi() {
    const bool staged = g_.kind() == Transport::host_staged;
    T* halo = staged ? halo_host_.get() : halo_.get();
    T* send = staged ? send_host_.get() : send_.get();
    const Comm& comm = g_.comm();
    for (std::size_t k = 0; k < plan_.recv_ranks.size(); ++k)
      comm.irecv(reqs_, halo + plan_.recv_offset[k],
                 static_cast<std::size_t>(plan_.recv_offset[k + 1] - plan_.recv_offset[k]),
                 plan_.recv_ranks[k], kTagGpuHalo);
    for (std::size_t k = 0; k < plan_.send_ranks.size(); ++k)
      comm.isend(reqs_, send + plan_.send_offset[k],
                 static_cast<std::size_t>(plan_.send_offset[k + 1] - plan_.send_offset[k]),
                 plan_.send_ranks[k], kTagGpuHalo);
    reqs_.wait();
  }

  // Distinct from the CPU ranks' halo tag (halo.hpp) and the library's collectives.
  static constexpr int kTagGpuHalo = 201;

  const Context& g_;
  const HaloPlan& plan_;
  SpmvCudaDevice<I, T> diag_;
  std::unique_ptr<SpmvCudaDevice<I, T>> offd_;  // the boundary rows' remote columns
  cuda::Buffer<std::int64_t> offd_rows_, send_idx_;
  cuda::Buffer<T> part_, send_, halo_;
  cuda::Pinned<T> send_host_, halo_host_;  // host staging
  cuda::Event x_ready_, halo_ready_, diag_done_, halo_in_;
  Requests reqs_;
  bool exchanges_ = false, pending_ = false;
  double last_ = 0, total_ = 0;
};

}  // namespace

}  // namespace gpu

template <class I, class T>
std::unique_ptr<GpuSpmv<I, T>> make_gpu_spmv(const GpuRanks& g, const DistCsr<I, T>& a,
                                             GpuKernel kernel) {
  return std::make_unique<gpu::Spmv<I, T>>(gpu::context(g), a, kernel);
}

#define MM_GPU_SPMV(I, T)                                                      \
  template std::unique_ptr<GpuSpmv<I, T>> make_gpu_spmv<I, T>(const GpuRanks&, \
                                                              const DistCsr<I, T>&, GpuKernel);
MM_FOR_INDEX_VALUE_TYPES(MM_GPU_SPMV)

}  // namespace mm::dist
