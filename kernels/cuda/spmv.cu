// Hand-written CUDA SpMV, mmspmv's runner: K lanes a row (vector-k), a warp's rows staged
// (csr-stream) and merge-path tiles of equal work over row ends and nonzeros (merge) here, and
// spmv_csr.cu's scalar, vector and adaptive kernels through launch_csr.
#include "cuda/cuda_util.cuh"
#include "cuda/spmv_csr.cuh"
#include "cuda/spmv_cuda.hpp"
#include "cuda/spmv_loads.cuh"
#include "cuda/warp.cuh"
#include "instantiate.hpp"

namespace mm {

namespace {

using cuda::dev_t;
using spmv_csr::grid_for;
using spmv_csr::kThreads;

// Tuning, besides the threads per block (spmv_csr.cuh's kThreads, which vector-k and merge's
// partition and fix-up take too). vector-k: nonzeros a lane loads before it multiplies (loads
// in flight a lane).
constexpr int kVectorUnroll = 4;
// csr-stream: products a warp stages at a time, and loads in flight a lane (one pass over a
// full stage: in a stand-alone probe on the H200's poisson2d 8 measured 0.92 of copy, 4 and 5
// 0.75-0.79).
constexpr int kStreamCap = 256;
constexpr int kStreamUnroll = kStreamCap / 32;
// csr-stream's threads a block: a stand-alone copy of its kernel ran the H200's poisson2d in
// 46.3 us with 128, 46.5-46.9 with 256 and 51.6-52.0 with 512 (bench/results/
// issue16_thirteenth_pass_*.md).
constexpr int kStreamThreads = 128;
// merge: threads a tile; items (row ends + nonzeros) a thread by default, and the static
// shared memory a tile may take (its row ends and products, and a carry a thread).
constexpr int kMergeThreads = 256;
constexpr int kMergeItems = 4;  // 1.4x faster than 8 on random rows (H100)
constexpr std::size_t kMergeShared = 48 * 1024;

// ---- vector-k: K lanes a row ----------------------------------------------------------------
// Rows of about K..4K nonzeros keep every lane busy and a warp's loads contiguous; the matrix
// and y stream through L2 under the L2 mode's policy, x is gathered through L1.
template <int K, class I, class T>
__global__ void __launch_bounds__(kThreads)
    vector_k_kernel(std::int64_t rows, const I* __restrict__ ptr, const I* __restrict__ idx,
                    const T* __restrict__ val, const T* __restrict__ x, const T* __restrict__ y0,
                    T* __restrict__ y, T alpha, T beta, int l2) {
  const cuda::L2Policy pol = cuda::l2_policy(l2);
  const std::int64_t i = (blockIdx.x * static_cast<std::int64_t>(kThreads) + threadIdx.x) / K;
  const int lane = threadIdx.x % K;
  const bool live = i < rows;  // no early return: the group's shuffles need every lane
  std::int64_t b = 0, e = 0;
  if (live) {
    b = cuda::ld_stream(ptr + i, pol.stream);
    e = cuda::ld_stream(ptr + i + 1, pol.stream);
  }
  T s{};
  for (std::int64_t k = b + lane; k < e; k += K * kVectorUnroll) {
    I c[kVectorUnroll];
    T v[kVectorUnroll];
#pragma unroll
    for (int u = 0; u < kVectorUnroll; ++u) {
      const std::int64_t q = k + u * K;
      c[u] = q < e ? cuda::ld_stream(idx + q, pol.stream) : I{};
      v[u] = q < e ? cuda::ld_stream(val + q, pol.stream) : T{};
    }
#pragma unroll
    for (int u = 0; u < kVectorUnroll; ++u)
      if (k + u * K < e) s += v[u] * cuda::ld_x(x + c[u], pol.x);
  }
  s = cuda::group_sum<K>(s);
  if (live && lane == 0)
    cuda::st_stream(y + i, y0 ? alpha * s + beta * y0[i] : alpha * s, pol.stream);
}

// ---- csr-stream: a warp per 32 rows, their nonzeros staged --------------------------------
// The warp reads its rows' nonzeros once, lane after lane (whole sectors, kStreamUnroll loads in
// flight a lane), stages their products in shared memory kStreamCap at a time, and each lane
// sums its own row from there; y's 32 rows are written together. Rows of a few nonzeros cost
// vector-k idle lanes and loads that skip about. Any row lengths are right, but a long row is
// one lane's sum. The default on memory-rich GPUs for even rows shorter than 6 (spmv_impls.cpp's
// spmv_cuda_choice says why).

// Stages the N <= kStreamCap products of nonzeros [0, N) of IDX and VAL into PROD. Written as
// one pass of a loop over 32 * kStreamUnroll items with 32-bit offsets: a form with 64-bit
// offsets and the guard on the stage's bound (same loads, same registers) measured 0.76 of copy
// here against 0.89 on the H200's poisson2d (bench/results/issue16_twelfth_pass_*.md).
template <class I, class T>
__device__ __forceinline__ void stream_stage(const I* __restrict__ idx, const T* __restrict__ val,
                                             const T* __restrict__ x, int n, int lane, T* prod,
                                             const cuda::L2Policy& pol) {
  for (int k = lane; k < n; k += 32 * kStreamUnroll) {
    I c[kStreamUnroll];
    T v[kStreamUnroll];
#pragma unroll
    for (int u = 0; u < kStreamUnroll; ++u) {
      const int q = k + 32 * u;
      c[u] = q < n ? cuda::ld_stream(idx + q, pol.stream) : I{};
      v[u] = q < n ? cuda::ld_stream(val + q, pol.stream) : T{};
    }
#pragma unroll
    for (int u = 0; u < kStreamUnroll; ++u)
      if (k + 32 * u < n) prod[k + 32 * u] = v[u] * cuda::ld_x(x + c[u], pol.x);
  }
  __syncwarp();
}

template <class I, class T>
__global__ void __launch_bounds__(kStreamThreads)
    csr_stream_kernel(std::int64_t rows, const I* __restrict__ ptr, const I* __restrict__ idx,
                      const T* __restrict__ val, const T* __restrict__ x, const T* __restrict__ y0,
                      T* __restrict__ y, T alpha, T beta, int l2) {
  __shared__ T prod[kStreamThreads / 32][kStreamCap];
  const cuda::L2Policy pol = cuda::l2_policy(l2);
  const int w = threadIdx.x / 32, lane = threadIdx.x % 32;
  const std::int64_t r = blockIdx.x * static_cast<std::int64_t>(kStreamThreads) + threadIdx.x;
  if (r - lane >= rows) return;  // whole warps: the warp's first row is past the end
  const bool live = r < rows;
  // A lane past the end reads ptr[rows]: its row is empty, at the end of the warp's range.
  // Offsets in the index type: as 64-bit values (int32 indices) the kernel measured 47.4 us on
  // the H200's poisson2d against 46.7 us (a stand-alone copy of this kernel, twelfth pass's
  // follow-up in bench/results/issue16_thirteenth_pass_*.md).
  const I b = cuda::ld_stream(ptr + (live ? r : rows), pol.stream);
  const I e = live ? cuda::ld_stream(ptr + r + 1, pol.stream) : b;
  const I base = __shfl_sync(0xffffffffu, b, 0), end = __shfl_sync(0xffffffffu, e, 31);
  T s{};
  // Both paths are kept although the loop alone would cover the first: that copy of the kernel
  // ran poisson2d in 50.0 us with the first path alone, and a loop-only form 54.8 us.
  if (end - base <= kStreamCap) {  // the rows' nonzeros fit one stage
    stream_stage(idx + base, val + base, x, static_cast<int>(end - base), lane, prod[w], pol);
    for (int k = static_cast<int>(b - base); k < static_cast<int>(e - base); ++k) s += prod[w][k];
  } else {
    for (std::int64_t c0 = base; c0 < end; c0 += kStreamCap) {
      const int n = static_cast<int>(end - c0 < kStreamCap ? end - c0 : kStreamCap);
      stream_stage(idx + c0, val + c0, x, n, lane, prod[w], pol);
      const std::int64_t lo = b > c0 ? b : c0, hi = e < c0 + n ? e : c0 + n;
      for (std::int64_t k = lo; k < hi; ++k) s += prod[w][k - c0];
      __syncwarp();  // the stage is read before the next one overwrites it
    }
  }
  if (live) cuda::st_stream(y + r, y0 ? alpha * s + beta * y0[r] : alpha * s, pol.stream);
}

// ---- merge: tiles of equal work on the merge path of row ends and nonzeros ------------------
// The path walks nonzero k while k < ptr[r+1], else ends row r: rows + nnz items, cut into
// tiles of ITEMS * kMergeThreads. A tile whose last row goes on into the next tile leaves that
// row's part as its carry-out, added by merge_fixup. Load balance holds for any row lengths.
template <int ITEMS, class I, class T>
constexpr bool merge_fits() {
  return static_cast<std::size_t>(ITEMS) * kMergeThreads * (sizeof(I) + sizeof(T)) +
             kMergeThreads * (sizeof(T) + sizeof(int)) <=
         kMergeShared;
}

__device__ __forceinline__ std::int64_t min64(std::int64_t a, std::int64_t b) {
  return a < b ? a : b;
}
__device__ __forceinline__ std::int64_t max64(std::int64_t a, std::int64_t b) {
  return a > b ? a : b;
}

// STARTS[b]: the row coordinate where the path's diagonal b * TILE crosses it (b = 0..tiles;
// the nonzero coordinate is the diagonal minus it).
template <class I>
__global__ void __launch_bounds__(kThreads)
    merge_partition(std::int64_t rows, std::int64_t nnz, std::int64_t tile, std::int64_t tiles,
                    const I* __restrict__ ptr, std::int64_t* __restrict__ starts) {
  const std::int64_t b = blockIdx.x * static_cast<std::int64_t>(kThreads) + threadIdx.x;
  if (b > tiles) return;
  const std::int64_t d = min64(b * tile, rows + nnz);
  std::int64_t lo = max64(0, d - nnz), hi = min64(d, rows);
  while (lo < hi) {  // the first r whose row end lies after nonzero d - r - 1
    const std::int64_t mid = (lo + hi) / 2;
    if (ptr[mid + 1] <= d - mid - 1)
      lo = mid + 1;
    else
      hi = mid;
  }
  starts[b] = lo;
}

template <int ITEMS, class I, class T>
__global__ void __launch_bounds__(kMergeThreads)
    merge_kernel(std::int64_t rows, std::int64_t nnz, const std::int64_t* __restrict__ starts,
                 const I* __restrict__ ptr, const I* __restrict__ idx, const T* __restrict__ val,
                 const T* __restrict__ x, const T* __restrict__ y0, T* __restrict__ y, T alpha,
                 T beta, std::int64_t* __restrict__ carry_row, T* __restrict__ carry_val, int l2) {
  constexpr int kTile = ITEMS * kMergeThreads;
  __shared__ I s_end[kTile];   // the row ends of the tile's rows (global nonzero offsets)
  __shared__ T s_prod[kTile];  // the tile's products val * x
  __shared__ T s_carry[kMergeThreads];
  __shared__ int s_carry_row[kMergeThreads];
  const cuda::L2Policy pol = cuda::l2_policy(l2);
  const int t = threadIdx.x;
  const std::int64_t d0 = blockIdx.x * static_cast<std::int64_t>(kTile);
  const std::int64_t d1 = min64(d0 + kTile, rows + nnz);
  const std::int64_t r0 = starts[blockIdx.x], r1 = starts[blockIdx.x + 1];
  const std::int64_t k0 = d0 - r0;
  const int nr = static_cast<int>(r1 - r0), nk = static_cast<int>(d1 - r1 - k0), len = nr + nk;

  // Stage the row ends and the products, ITEMS loads a thread in flight at once.
#pragma unroll
  for (int u = 0; u < ITEMS; ++u) {
    const int j = t + u * kMergeThreads;
    if (j < nr) s_end[j] = cuda::ld_stream(ptr + r0 + 1 + j, pol.stream);
  }
  I c[ITEMS];
  T v[ITEMS];
#pragma unroll
  for (int u = 0; u < ITEMS; ++u) {
    const int j = t + u * kMergeThreads;
    c[u] = j < nk ? cuda::ld_stream(idx + k0 + j, pol.stream) : I{};
    v[u] = j < nk ? cuda::ld_stream(val + k0 + j, pol.stream) : T{};
  }
#pragma unroll
  for (int u = 0; u < ITEMS; ++u) {
    const int j = t + u * kMergeThreads;
    if (j < nk) s_prod[j] = v[u] * cuda::ld_x(x + c[u], pol.x);
  }
  __syncthreads();

  // This thread's ITEMS items of the tile: where its diagonal crosses the path.
  const int dt = min(t * ITEMS, len);
  int lo = max(0, dt - nk), hi = min(dt, nr);
  while (lo < hi) {
    const int mid = (lo + hi) / 2;
    if (s_end[mid] - k0 <= dt - mid - 1)
      lo = mid + 1;
    else
      hi = mid;
  }
  const int rs = lo;  // the row (of the tile) this thread starts in
  int rr = lo, kk = dt - lo;
  T sum{}, first{};
  bool ends_first = false;  // whether the thread ends row rs (whose earlier part is not its own)
#pragma unroll
  for (int u = 0; u < ITEMS; ++u) {
    if (dt + u >= len) break;
    if (rr < nr && s_end[rr] - k0 <= kk) {  // row rr ends here
      if (!ends_first) {
        first = sum;
        ends_first = true;
      } else {  // a row wholly inside this thread's items
        const std::int64_t i = r0 + rr;
        cuda::st_stream(y + i, y0 ? alpha * sum + beta * y0[i] : alpha * sum, pol.stream);
      }
      sum = T{};
      ++rr;
    } else {
      sum += s_prod[kk++];
    }
  }
  s_carry[t] = sum;  // the part of row rr (not ended by this thread) in its items
  s_carry_row[t] = rr;
  __syncthreads();
  if (ends_first) {  // add the parts of row rs that the threads before this one hold
    for (int u = t - 1; u >= 0 && s_carry_row[u] == rs; --u) first += s_carry[u];
    const std::int64_t i = r0 + rs;
    cuda::st_stream(y + i, y0 ? alpha * first + beta * y0[i] : alpha * first, pol.stream);
  }
  if (t == kMergeThreads - 1) {  // the tile's carry-out: the part of row r1 it holds
    T out{};
    for (int u = t; u >= 0 && s_carry_row[u] == nr; --u) out += s_carry[u];
    carry_row[blockIdx.x] = r1;
    carry_val[blockIdx.x] = out;
  }
}

// y[r] += alpha * (the carry-outs into row r), once a row: the first tile of each run of tiles
// carrying into the same row adds the run's sum (a fixed order: the result is deterministic).
template <class T>
__global__ void __launch_bounds__(kThreads)
    merge_fixup(std::int64_t tiles, std::int64_t rows, const std::int64_t* __restrict__ carry_row,
                const T* __restrict__ carry_val, T* __restrict__ y, T alpha) {
  const std::int64_t b = blockIdx.x * static_cast<std::int64_t>(kThreads) + threadIdx.x;
  if (b >= tiles) return;
  const std::int64_t r = carry_row[b];
  if (r >= rows || (b > 0 && carry_row[b - 1] == r)) return;
  T s{};
  for (std::int64_t q = b; q < tiles && carry_row[q] == r; ++q) s += carry_val[q];
  y[r] += alpha * s;
}

// merge's items a thread: the one asked for (0: kMergeItems), or the most below it whose tile
// fits the shared memory (complex double with 64-bit indices: 6).
template <class I, class T>
int merge_items(int asked) {
  const int want = asked ? asked : kMergeItems;
  if (want >= 8 && merge_fits<8, I, T>()) return 8;
  if (want >= 6 && merge_fits<6, I, T>()) return 6;
  return 4;
}

template <class I, class T>
class SpmvCudaRunner final : public cuda::CudaRunner {
 public:
  SpmvCudaRunner(const SpmvProblem<I, T>& p, SpmvCudaKernel k, const SpmvTuning& t)
      : p_(p), kernel_(k), tuning_(t) {}

  void upload() override {
    const Csr<I, T>& a = *p_.full;
    ptr_ = cuda::Buffer<I>(a.ptr.data(), a.ptr.size());
    idx_ = cuda::Buffer<I>(a.idx.data(), a.idx.size());
    val_ = cuda::Buffer<T>(a.val.data(), a.val.size());
    x_ = cuda::Buffer<T>(p_.x, static_cast<std::size_t>(a.cols));
    if (p_.beta != T{}) y0_ = cuda::Buffer<T>(p_.y0, static_cast<std::size_t>(a.rows));
    y_ = cuda::Buffer<T>(static_cast<std::size_t>(a.rows));
    y_.fill_bytes(0xff);  // poison: every row must be written
    if (kernel_ == SpmvCudaKernel::adaptive) plan_ = spmv_csr::plan_adaptive(a);
    if (kernel_ == SpmvCudaKernel::vector_k || kernel_ == SpmvCudaKernel::merge ||
        kernel_ == SpmvCudaKernel::adaptive || kernel_ == SpmvCudaKernel::csr_stream) {
      // x kept by default, but not by adaptive: on even rows (its direct blocks) keep-x
      // measured 0.52 of copy against 0.77-0.83 plain, and on the others only 3% faster (H100).
      const int fallback = kernel_ == SpmvCudaKernel::adaptive ? cuda::kL2Plain : cuda::kL2KeepX;
      used_.l2 = tuning_.l2 ? tuning_.l2 : fallback;
      if (kernel_ == SpmvCudaKernel::vector_k)
        used_.lanes =
            tuning_.lanes
                ? tuning_.lanes
                : spmv_lanes(a.rows ? static_cast<double>(a.nnz()) / static_cast<double>(a.rows)
                                    : 0.0);
    }
    if (kernel_ == SpmvCudaKernel::merge) plan_merge(a);
  }

  void download() override { y_.download(p_.y, static_cast<std::size_t>(p_.full->rows)); }
  nlohmann::json tuning() const override { return used_.to_json(); }

 protected:
  void launch() override {
    using D = dev_t<T>;
    const std::int64_t rows = p_.full->rows;
    const D alpha = cuda::to_dev(p_.alpha), beta = cuda::to_dev(p_.beta);
    const D* y0 = p_.beta != T{} ? y0_.dev() : nullptr;
    if (rows == 0) return;
    switch (kernel_) {
      case SpmvCudaKernel::vector_k:
        launch_vector_k(rows, alpha, beta, y0);
        break;
      case SpmvCudaKernel::merge:
        launch_merge(rows, alpha, beta, y0);
        break;
      case SpmvCudaKernel::csr_stream:
        csr_stream_kernel<I, D><<<grid_for(rows, kStreamThreads), kStreamThreads>>>(
            rows, ptr_.get(), idx_.get(), val_.dev(), x_.dev(), y0, y_.dev(), alpha, beta,
            used_.l2);
        MM_CUDA_LAUNCHED("spmv csr_stream_kernel");
        break;
      default:
        spmv_csr::launch_csr<I, D>(kernel_, rows, ptr_.get(), idx_.get(), val_.dev(), x_.dev(), y0,
                                   y_.dev(), alpha, beta, plan_, used_.l2, cudaStream_t{});
    }
  }

  // Lines that x kept (evict last) are made normal again, so that nothing run later, cuSPARSE
  // in the same benchmark included, finds x held for it.
  void after() override { cuda::release_kept_lines(used_.l2 == cuda::kL2KeepX); }

 private:
  using D = dev_t<T>;

  template <int K>
  void launch_lanes(std::int64_t rows, D alpha, D beta, const D* y0) {
    vector_k_kernel<K, I, D><<<grid_for(rows * K), kThreads>>>(
        rows, ptr_.get(), idx_.get(), val_.dev(), x_.dev(), y0, y_.dev(), alpha, beta, used_.l2);
    MM_CUDA_LAUNCHED("spmv vector_k_kernel");
  }
  void launch_vector_k(std::int64_t rows, D alpha, D beta, const D* y0) {
    switch (used_.lanes) {
      case 1:
        launch_lanes<1>(rows, alpha, beta, y0);
        break;
      case 2:
        launch_lanes<2>(rows, alpha, beta, y0);
        break;
      case 4:
        launch_lanes<4>(rows, alpha, beta, y0);
        break;
      case 8:
        launch_lanes<8>(rows, alpha, beta, y0);
        break;
      case 16:
        launch_lanes<16>(rows, alpha, beta, y0);
        break;
      default:
        launch_lanes<32>(rows, alpha, beta, y0);
        break;
    }
  }

  // The path's tiles, cut on the device once (the matrix is fixed across runs).
  void plan_merge(const Csr<I, T>& a) {
    used_.items = merge_items<I, T>(tuning_.items);
    const std::int64_t tile = static_cast<std::int64_t>(used_.items) * kMergeThreads;
    tiles_ = (a.rows + a.nnz() + tile - 1) / tile;
    if (tiles_ == 0) return;
    starts_ = cuda::Buffer<std::int64_t>(static_cast<std::size_t>(tiles_ + 1));
    carry_row_ = cuda::Buffer<std::int64_t>(static_cast<std::size_t>(tiles_));
    carry_val_ = cuda::Buffer<T>(static_cast<std::size_t>(tiles_));
    merge_partition<I><<<grid_for(tiles_ + 1), kThreads>>>(a.rows, a.nnz(), tile, tiles_,
                                                           ptr_.get(), starts_.get());
    MM_CUDA_LAUNCHED("spmv merge_partition");
    MM_CUDA(cudaDeviceSynchronize());
  }

  template <int ITEMS>
  void launch_merge_items(std::int64_t rows, D alpha, D beta, const D* y0) {
    if constexpr (merge_fits<ITEMS, I, D>()) {
      merge_kernel<ITEMS, I, D><<<tiles_, kMergeThreads>>>(
          rows, p_.full->nnz(), starts_.get(), ptr_.get(), idx_.get(), val_.dev(), x_.dev(), y0,
          y_.dev(), alpha, beta, carry_row_.get(), carry_val_.dev(), used_.l2);
      MM_CUDA_LAUNCHED("spmv merge_kernel");
    }
  }
  void launch_merge(std::int64_t rows, D alpha, D beta, const D* y0) {
    if (tiles_ == 0) return;
    switch (used_.items) {
      case 8:
        launch_merge_items<8>(rows, alpha, beta, y0);
        break;
      case 6:
        launch_merge_items<6>(rows, alpha, beta, y0);
        break;
      default:
        launch_merge_items<4>(rows, alpha, beta, y0);
        break;
    }
    if (tiles_ > 1) {
      merge_fixup<D><<<grid_for(tiles_), kThreads>>>(tiles_, rows, carry_row_.get(),
                                                     carry_val_.dev(), y_.dev(), alpha);
      MM_CUDA_LAUNCHED("spmv merge_fixup");
    }
  }

  SpmvProblem<I, T> p_;
  SpmvCudaKernel kernel_;
  SpmvTuning tuning_, used_;  // as asked; as resolved and run (the record's tuning)
  cuda::Buffer<I> ptr_, idx_;
  cuda::Buffer<T> val_, x_, y0_, y_;
  spmv_csr::AdaptivePlan plan_;
  std::int64_t tiles_ = 0;
  cuda::Buffer<std::int64_t> starts_, carry_row_;
  cuda::Buffer<T> carry_val_;
};

}  // namespace

template <class I, class T>
std::unique_ptr<Runner> make_spmv_cuda(const SpmvProblem<I, T>& p, SpmvCudaKernel k,
                                       const SpmvTuning& t) {
  return std::make_unique<SpmvCudaRunner<I, T>>(p, k, t);
}

#define MM_SPMV_CUDA(I, T)                                                                        \
  template std::unique_ptr<Runner> make_spmv_cuda<I, T>(const SpmvProblem<I, T>&, SpmvCudaKernel, \
                                                        const SpmvTuning&);
MM_FOR_INDEX_VALUE_TYPES(MM_SPMV_CUDA)

}  // namespace mm
