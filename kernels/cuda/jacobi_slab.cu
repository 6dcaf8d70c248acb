// A slab of the heated room on the GPU for a distributed run: cuda-norm's marching sweeps over
// ranges of planes, the halo planes staged through pinned host memory, the change in slots.
#include <cuda_runtime.h>

#include <algorithm>
#include <iomanip>
#include <map>
#include <sstream>
#include <vector>

#include "cuda/cuda_util.cuh"
#include "cuda/jacobi_cuda.hpp"
#include "cuda/jacobi_drive.cuh"
#include "cuda/stencil_plan.hpp"
#include "cuda/stencil_rows.hpp"
#include "mm/error.hpp"

namespace mm {

template <class T>
struct StencilSlabCuda<T>::Impl {
  using MarchFn = stencil::MarchFn<T>;

  Impl(const HeatedRoom& r, std::int64_t k0_, std::int64_t k1_, const JacobiTuning& t)
      : room(r),
        k0(k0_),
        k1(k1_),
        first(k0_ - 1),
        plane(r.dim == 3 ? r.n * r.n : r.n),
        count((k1_ - k0_ + 2) * plane),
        tuning(t),
        vec(stencil::march_vector(sizeof(T), r.n)),
        staging(4 * static_cast<std::size_t>(plane)) {
    // The slowest index of the buffer is the grid's less FIRST (stencil_march.cuh's Room).
    geo = stencil::room_of(r);
    (r.dim == 3 ? geo.rz0 : geo.ry0) -= first;
    (r.dim == 3 ? geo.rz1 : geo.ry1) -= first;
    require_memory();
    std::vector<T> host(static_cast<std::size_t>(count));
    heated_room_init_planes(room, host.data(), first, k1 + 1);
    start = cuda::Buffer<T>(host.data(), host.size());
    grid[0] = cuda::Buffer<T>(host.data(), host.size());
    grid[1] = cuda::Buffer<T>(host.data(), host.size());  // its walls stay for good
    // Every range a run sweeps: all the planes, less one or two next to a halo, or one.
    std::int64_t blocks = 1;
    for (std::int64_t p : {k1 - k0, k1 - k0 - 1, k1 - k0 - 2, std::int64_t{1}})
      if (p >= 1) blocks = std::max(blocks, launch_for(p).blocks());
    partials = cuda::Buffer<double>(static_cast<std::size_t>(blocks));
    counter = cuda::Buffer<unsigned>(1);
    counter.fill_bytes(0);
    beside_partials = cuda::Buffer<double>(static_cast<std::size_t>(launch_for(1).blocks()));
    beside_counter = cuda::Buffer<unsigned>(1);
    beside_counter.fill_bytes(0);
    // The set-up ran on the legacy stream (fill_bytes may return early), which the run's
    // non-blocking streams do not wait for.
    MM_CUDA(cudaDeviceSynchronize());
  }

  void require_memory() const {
    const long double need = 3.0L * static_cast<long double>(count) * sizeof(T);
    std::size_t free = 0, total = 0;
    MM_CUDA(cudaMemGetInfo(&free, &total));
    if (need <= static_cast<long double>(free)) return;
    std::ostringstream s;
    s << std::fixed << std::setprecision(0) << "out of device memory: asked " << need
      << " bytes (three slabs of " << k1 - k0 + 2 << " planes of " << plane << " " << sizeof(T)
      << "-byte values: two buffers and the starting planes), " << free << " free of " << total;
    throw DeviceError(s.str());
  }

  // cuda-norm's sweep (one row a thread, its loads as the tuning's `ahead` says) over a plane
  // range, and its plan for a range of PLANES planes: the one-process runner's kernel and
  // launch, so that one rank's grid and change are cuda-norm's.
  template <bool NORM>
  MarchFn march_fn(const stencil::Launch& l) const {
    return stencil::march_launch_fn<T, NORM, true>(room.dim, vec, l);
  }
  const stencil::Launch& launch_for(std::int64_t planes) {
    auto it = launches.find(planes);
    if (it != launches.end()) return it->second;
    return launches.emplace(planes, stencil::plan_march_rows<T, true>(room, vec, tuning, planes))
        .first->second;
  }

  T* plane_of(int buf, std::int64_t k) const { return grid[buf].get() + (k - first) * plane; }

  HeatedRoom room;
  std::int64_t k0, k1, first, plane, count;
  JacobiTuning tuning;
  int vec;
  stencil::Room geo{};
  cuda::Buffer<T> start, grid[2];
  cuda::Buffer<double> partials, beside_partials;  // the sweeps' on each stream
  cuda::Buffer<unsigned> counter, beside_counter;
  cuda::Pinned<T> staging;  // send lower, send upper, receive lower, receive upper
  // Non-blocking: not ordered with the legacy default stream (hence the set-up's synchronize).
  // The copy stream first where both have work: its boundary planes' sweeps gate the next
  // iteration, the compute stream's bulk does not.
  cuda::Stream compute{cudaStreamNonBlocking},
      copy{cudaStreamNonBlocking, cuda::Stream::Priority::greatest};
  cuda::Event swept, arrived;
  // Two sets of three slots (the launches of an iteration: the planes that need no halo, the
  // planes next to the lower and the upper halo), read behind an event on the compute stream,
  // which waits for the exchange's stream before an iteration's end.
  jacobi_host::ChangeSlots slots{true, 3, compute.get()};
  std::map<std::int64_t, stencil::Launch> launches;
  std::int64_t widest = 0;  // the most planes a sweep has taken
  int cur = 0;
};

template <class T>
StencilSlabCuda<T>::StencilSlabCuda(const HeatedRoom& room, std::int64_t k0, std::int64_t k1,
                                    const JacobiTuning& tuning)
    : impl_(std::make_unique<Impl>(room, k0, k1, tuning)) {}

template <class T>
StencilSlabCuda<T>::~StencilSlabCuda() {
  if (impl_) {
    cudaStreamSynchronize(impl_->compute.get());
    cudaStreamSynchronize(impl_->copy.get());
  }
}

template <class T>
void StencilSlabCuda<T>::reset() {
  Impl& m = *impl_;
  MM_CUDA(cudaMemcpyAsync(m.grid[0].get(), m.start.get(), m.count * sizeof(T),
                          cudaMemcpyDeviceToDevice, m.compute.get()));
  m.cur = 0;
}

template <class T>
T* StencilSlabCuda<T>::send_plane(int side) const {
  return impl_->staging.get() + side * impl_->plane;
}
template <class T>
T* StencilSlabCuda<T>::recv_plane(int side) const {
  return impl_->staging.get() + (2 + side) * impl_->plane;
}

template <class T>
void StencilSlabCuda<T>::stage_out(bool lower, bool upper) {
  Impl& m = *impl_;
  const std::size_t bytes = static_cast<std::size_t>(m.plane) * sizeof(T);
  m.swept.order(m.compute.get(), m.copy.get());  // the copies after the sweeps so far
  if (lower)
    MM_CUDA(cudaMemcpyAsync(send_plane(0), m.plane_of(m.cur, m.k0), bytes, cudaMemcpyDeviceToHost,
                            m.copy.get()));
  if (upper)
    MM_CUDA(cudaMemcpyAsync(send_plane(1), m.plane_of(m.cur, m.k1 - 1), bytes,
                            cudaMemcpyDeviceToHost, m.copy.get()));
}

template <class T>
void StencilSlabCuda<T>::wait_staged() {
  MM_CUDA(cudaStreamSynchronize(impl_->copy.get()));
}

template <class T>
void StencilSlabCuda<T>::stage_in(bool lower, bool upper) {
  Impl& m = *impl_;
  const std::size_t bytes = static_cast<std::size_t>(m.plane) * sizeof(T);
  if (lower)
    MM_CUDA(cudaMemcpyAsync(m.plane_of(m.cur, m.k0 - 1), recv_plane(0), bytes,
                            cudaMemcpyHostToDevice, m.copy.get()));
  if (upper)
    MM_CUDA(cudaMemcpyAsync(m.plane_of(m.cur, m.k1), recv_plane(1), bytes, cudaMemcpyHostToDevice,
                            m.copy.get()));
}

template <class T>
void StencilSlabCuda<T>::exchange(bool lower, bool upper, const DevicePost& post) {
  Impl& m = *impl_;
  m.swept.order(m.compute.get(), m.copy.get());  // after the sweeps so far
  post(m.copy.get(), lower ? m.plane_of(m.cur, m.k0) : nullptr,
       lower ? m.plane_of(m.cur, m.k0 - 1) : nullptr, upper ? m.plane_of(m.cur, m.k1 - 1) : nullptr,
       upper ? m.plane_of(m.cur, m.k1) : nullptr);
}

template <class T>
void StencilSlabCuda<T>::await_exchange() {
  impl_->arrived.order(impl_->copy.get(), impl_->compute.get());
}

template <class T>
void StencilSlabCuda<T>::sweep(std::int64_t p0, std::int64_t p1, int slot, bool beside) {
  Impl& m = *impl_;
  if (p1 <= p0) return;
  const stencil::Launch& l = m.launch_for(p1 - p0);
  m.widest = std::max(m.widest, p1 - p0);
  stencil::Room g = m.geo;
  g.k_lo = p0 - m.first;
  g.k_hi = p1 - m.first;
  const T inv = m.room.dim == 3 ? T(1) / T(6) : T(1) / T(4);
  const typename Impl::MarchFn fn =
      slot < 0 ? m.template march_fn<false>(l) : m.template march_fn<true>(l);
  stencil::launch_march<T>(fn, l, beside ? m.copy.get() : m.compute.get(), false, g,
                           m.grid[m.cur].get(), m.grid[1 - m.cur].get(), static_cast<T>(m.room.h2f),
                           inv,
                           {slot < 0 ? nullptr : m.slots.slot(slot / 3, slot % 3),
                            (beside ? m.beside_partials : m.partials).get(),
                            (beside ? m.beside_counter : m.counter).get()});
}

template <class T>
void StencilSlabCuda<T>::swap() {
  impl_->cur = 1 - impl_->cur;
}

template <class T>
void StencilSlabCuda<T>::mark(int set) {
  impl_->slots.fetch(set, true);
}

template <class T>
double StencilSlabCuda<T>::change(int set) {
  return impl_->slots.wait(set);
}

template <class T>
void StencilSlabCuda<T>::synchronize() {
  MM_CUDA(cudaStreamSynchronize(impl_->compute.get()));
  MM_CUDA(cudaStreamSynchronize(impl_->copy.get()));
}

template <class T>
void StencilSlabCuda<T>::download(std::int64_t p0, std::int64_t p1, T* host) const {
  const Impl& m = *impl_;
  if (p1 > p0)
    MM_CUDA(cudaMemcpy(host, m.plane_of(m.cur, p0), (p1 - p0) * m.plane * sizeof(T),
                       cudaMemcpyDeviceToHost));
}

template <class T>
JacobiTuning StencilSlabCuda<T>::tuning() const {
  const Impl& m = *impl_;
  if (m.widest == 0) return m.tuning;
  return stencil::march_tuning(m.launches.at(m.widest), m.room.dim);
}

template class StencilSlabCuda<float>;
template class StencilSlabCuda<double>;

}  // namespace mm
