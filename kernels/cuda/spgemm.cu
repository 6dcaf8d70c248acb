// Hand-written CUDA SpGEMM, row-wise Gustavson in two passes: rows binned by their product
// count, a symbolic pass (distinct columns per row in a shared-memory hash table), a scan,
// rows binned again by their true length, and a numeric pass (the same tables accumulate,
// then a bitonic sort orders each row). Rows too long for shared memory use a dense
// accumulator (bitmap + values) in global memory, written out in column order.
#include <cub/cub.cuh>

#include <algorithm>
#include <limits>

#include "cuda/cuda_util.cuh"
#include "cuda/spgemm_cuda.hpp"
#include "cuda/spgemm_rows.cuh"
#include "instantiate.hpp"

namespace mm {

namespace {

using namespace spgemm;

// Tuning: threads of the group kernels, the small block kernel and the analysis; threads of
// the large block kernel (tables of 4096 slots and more, and the dense accumulator); lanes
// counting one row's products in the analysis.
constexpr int kThreads = 256;
constexpr int kBigThreads = 1024;
constexpr int kCountLanes = 8;
// Dense accumulators live at once, and the memory they may take.
constexpr std::int64_t kDenseBudget = std::int64_t{1} << 30;

// Adds one row's bin to the block's histogram; the block then adds it to HIST.
__device__ __forceinline__ void flush_histogram(unsigned* local, unsigned long long* hist) {
  __syncthreads();
  if (threadIdx.x < kBins && local[threadIdx.x])
    atomicAdd(hist + threadIdx.x, static_cast<unsigned long long>(local[threadIdx.x]));
}

// Each row's product count (a group of kCountLanes lanes per row), bounded by n: the room
// its symbolic table needs. Empty rows get count 0 here and no bin's kernel sees them.
template <class I>
__global__ void __launch_bounds__(kThreads)
    count_products(std::int64_t m, std::int64_t n, const I* __restrict__ ap,
                   const I* __restrict__ ai, const I* __restrict__ bp, std::int64_t max_table,
                   unsigned char* __restrict__ bin, std::int64_t* __restrict__ count,
                   unsigned long long* __restrict__ hist) {
  __shared__ unsigned local[kBins];
  if (threadIdx.x < kBins) local[threadIdx.x] = 0;
  __syncthreads();
  const std::int64_t i = group_row<kThreads, kCountLanes>();
  const int lane = threadIdx.x % kCountLanes;
  std::int64_t prods = 0;
  if (i < m)
    for (I e = ap[i] + lane; e < ap[i + 1]; e += kCountLanes) {
      const I k = ai[e];
      prods += bp[k + 1] - bp[k];
    }
  for (int o = kCountLanes / 2; o > 0; o /= 2) prods += __shfl_xor_sync(~0u, prods, o, kCountLanes);
  if (i < m && lane == 0) {
    const int b = bin_of(prods < n ? prods : n, max_table, 4);
    bin[i] = static_cast<unsigned char>(b);
    if (b == 0) count[i] = 0;
    atomicAdd(local + b, 1u);
  }
  flush_histogram(local, hist);
}

// After the scan: C's row pointers in I, and each row's bin by its true length.
template <class I>
__global__ void __launch_bounds__(kThreads)
    finish_offsets(std::int64_t m, const std::int64_t* __restrict__ off, I* __restrict__ cp,
                   std::int64_t max_table, unsigned char* __restrict__ bin,
                   unsigned long long* __restrict__ hist) {
  __shared__ unsigned local[kBins];
  if (threadIdx.x < kBins) local[threadIdx.x] = 0;
  __syncthreads();
  const std::int64_t i = blockIdx.x * static_cast<std::int64_t>(kThreads) + threadIdx.x;
  if (i <= m) cp[i] = static_cast<I>(off[i]);
  if (i == m) hist[kBins] = static_cast<unsigned long long>(off[m]);  // nnz(C)
  if (i < m) {
    const int b = bin_of(off[i + 1] - off[i], max_table, 2);
    bin[i] = static_cast<unsigned char>(b);
    atomicAdd(local + b, 1u);
  }
  flush_histogram(local, hist);
}

// Lists the rows of bins 1.. in bin order (LIST), from the histogram HIST; CURSOR (zeroed)
// hands out places. The order inside a bin does not matter.
template <class I>
__global__ void __launch_bounds__(kThreads)
    scatter_rows(std::int64_t m, const unsigned char* __restrict__ bin,
                 const unsigned long long* __restrict__ hist, unsigned long long* cursor,
                 I* __restrict__ list) {
  __shared__ unsigned cnt[kBins];
  __shared__ unsigned long long base[kBins];
  if (threadIdx.x < kBins) cnt[threadIdx.x] = 0;
  __syncthreads();
  const std::int64_t i = blockIdx.x * static_cast<std::int64_t>(kThreads) + threadIdx.x;
  int b = 0;
  unsigned rank = 0;
  if (i < m) {
    b = bin[i];
    if (b) rank = atomicAdd(cnt + b, 1u);
  }
  __syncthreads();
  if (threadIdx.x > 0 && threadIdx.x < kBins && cnt[threadIdx.x]) {
    unsigned long long off = 0;
    for (int u = 1; u < static_cast<int>(threadIdx.x); ++u) off += hist[u];
    base[threadIdx.x] = off + atomicAdd(cursor + threadIdx.x, cnt[threadIdx.x]);
  }
  __syncthreads();
  if (b) list[base[b] + rank] = static_cast<I>(i);
}

// One row per group of G lanes (G <= 32, THREADS / G rows a block) or per block (G ==
// THREADS), each with a hash table of TABLE = 2^(32 - SHIFT) slots in shared memory.
// Symbolic (!NUMERIC): COUNT[i] = the row's distinct columns. Numeric: products summed in
// the table, the table sorted, the row's COUNT entries written at CP[i] scaled by ALPHA.
template <class I, class T, int THREADS, int G, bool NUMERIC>
__global__ void __launch_bounds__(THREADS)
    hash_rows(const I* __restrict__ list, std::int64_t rows, int table, int shift,
              const I* __restrict__ ap, const I* __restrict__ ai, const T* __restrict__ av,
              const I* __restrict__ bp, const I* __restrict__ bi, const T* __restrict__ bv,
              std::int64_t* __restrict__ count, const I* __restrict__ cp, I* __restrict__ ci,
              T* __restrict__ cv, T alpha) {
  constexpr bool kBlock = G == THREADS;
  constexpr int R = THREADS / G, U = G < 32 ? G : 32;
  extern __shared__ __align__(16) unsigned char smem[];
  __shared__ std::conditional_t<kBlock, Deferred<I, T>, NoDeferred> dq;
  T* vals = reinterpret_cast<T*>(smem);
  I* keys = reinterpret_cast<I*>(smem + (NUMERIC ? sizeof(T) * R * table : 0));
  for (int s = threadIdx.x; s < R * table; s += THREADS) {
    keys[s] = kEmpty<I>;
    if constexpr (NUMERIC) vals[s] = T{};
  }
  if constexpr (kBlock)
    if (threadIdx.x == 0) dq.n = 0;
  __syncthreads();
  const int grp = threadIdx.x / G, lane = threadIdx.x % G;
  const std::int64_t r = group_row<THREADS, G>();
  if (r >= rows) return;  // the whole group: its later barriers are its own
  const unsigned umask = unit_mask<U>();
  auto sync = [umask] {
    if constexpr (kBlock)
      __syncthreads();
    else
      __syncwarp(umask);
  };
  const I i = list[r];
  I* tk = keys + grp * table;
  T* tv = vals + grp * table;
  const unsigned tmask = static_cast<unsigned>(table - 1);
  unsigned fresh = 0;
  auto visit = [&](I j, T v) {
    bool is_new;
    const unsigned h = insert(tk, tmask, shift, j, is_new);
    fresh += is_new;
    if constexpr (NUMERIC) atomicAdd(tv + h, v);
  };
  auto defer = [&](I b0, I b1, T v) {
    if constexpr (kBlock)
      return dq.template take<THREADS>(b0, b1, v);
    else
      return false;
  };
  walk<U, NUMERIC>(umask, kBlock ? threadIdx.x / 32 : 0, kBlock ? THREADS / 32 : 1, ap[i],
                   ap[i + 1], ai, av, bp, bi, bv, defer, visit);
  if constexpr (kBlock) {
    __syncthreads();
    dq.template walk_all<THREADS, NUMERIC>(bi, bv, visit);
  }
  if constexpr (!NUMERIC) {
    for (int o = U / 2; o > 0; o /= 2) fresh += __shfl_xor_sync(umask, fresh, o, U);
    if constexpr (kBlock) {
      __shared__ unsigned total;
      if (threadIdx.x == 0) total = 0;
      __syncthreads();
      if (threadIdx.x % 32 == 0) atomicAdd(&total, fresh);
      __syncthreads();
      if (threadIdx.x == 0) count[i] = total;
    } else if (lane == 0) {
      count[i] = fresh;
    }
  } else {
    sync();
    bitonic_sort(tk, tv, table, lane, G, sync);
    const I off = cp[i], nz = cp[i + 1] - off;
    for (I q = lane; q < nz; q += G) {
      ci[off + q] = tk[q];
      cv[off + q] = alpha * tv[q];
    }
  }
}

// Rows too long for a shared table, a block per row: a bitmap of n bits marks the columns
// met (symbolic: counts them) and n values accumulate (numeric), both in this block's slot
// of the workspace, zero on entry and left zero on exit. The numeric pass writes the row
// by scanning the bitmap in order, so it comes out sorted.
template <class I, class T, bool NUMERIC>
__global__ void __launch_bounds__(kBigThreads)
    dense_rows(const I* __restrict__ list, std::int64_t rows, std::int64_t n, std::int64_t words,
               unsigned* __restrict__ bits, T* __restrict__ acc, const I* __restrict__ ap,
               const I* __restrict__ ai, const T* __restrict__ av, const I* __restrict__ bp,
               const I* __restrict__ bi, const T* __restrict__ bv, std::int64_t* __restrict__ count,
               const I* __restrict__ cp, I* __restrict__ ci, T* __restrict__ cv, T alpha) {
  using Scan = cub::BlockScan<unsigned, kBigThreads>;
  __shared__ typename Scan::TempStorage scan;
  __shared__ Deferred<I, T> dq;
  __shared__ unsigned long long total;
  unsigned* mine = bits + blockIdx.x * words;
  T* macc = NUMERIC ? acc + blockIdx.x * n : nullptr;
  for (std::int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const I i = list[r];
    if (threadIdx.x == 0) total = 0, dq.n = 0;
    __syncthreads();
    unsigned long long fresh = 0;
    auto visit = [&](I j, T v) {
      const unsigned bit = 1u << (j & 31);
      fresh += !(atomicOr(mine + (j >> 5), bit) & bit);
      if constexpr (NUMERIC) atomicAdd(macc + j, v);
    };
    walk<32, NUMERIC>(
        ~0u, threadIdx.x / 32, kBigThreads / 32, ap[i], ap[i + 1], ai, av, bp, bi, bv,
        [&](I b0, I b1, T v) { return dq.template take<kBigThreads>(b0, b1, v); }, visit);
    __syncthreads();
    dq.template walk_all<kBigThreads, NUMERIC>(bi, bv, visit);
    __syncthreads();
    if constexpr (!NUMERIC) {
      atomicAdd(&total, fresh);
      for (std::int64_t w = threadIdx.x; w < words; w += kBigThreads) mine[w] = 0;
      __syncthreads();
      if (threadIdx.x == 0) count[i] = static_cast<std::int64_t>(total);
    } else {
      std::int64_t out = cp[i];
      for (std::int64_t w0 = 0; w0 < words; w0 += kBigThreads) {
        const std::int64_t w = w0 + threadIdx.x;
        unsigned word = w < words ? mine[w] : 0u, pos = 0, sum = 0;
        Scan(scan).ExclusiveSum(static_cast<unsigned>(__popc(word)), pos, sum);
        std::int64_t o = out + pos;
        if (word) mine[w] = 0;
        while (word) {
          const std::int64_t j = w * 32 + __ffs(word) - 1;
          word &= word - 1;
          ci[o] = static_cast<I>(j);
          cv[o++] = alpha * macc[j];
          macc[j] = T{};
        }
        out += sum;
        __syncthreads();  // scan storage reused
      }
    }
  }
}

template <class I, class T>
class GustavsonRunner final : public cuda::CudaRunner {
 public:
  explicit GustavsonRunner(const SpgemmProblem<I, T>& p) : p_(p) {}

  void upload() override {
    const Csr<I, T>&a = *p_.a, &b = *p_.b;
    ap_ = cuda::Buffer<I>(a.ptr.data(), a.ptr.size());
    ai_ = cuda::Buffer<I>(a.idx.data(), a.idx.size());
    av_ = cuda::Buffer<T>(a.val.data(), a.val.size());
    bp_ = cuda::Buffer<I>(b.ptr.data(), b.ptr.size());
    bi_ = cuda::Buffer<I>(b.idx.data(), b.idx.size());
    bv_ = cuda::Buffer<T>(b.val.data(), b.val.size());
    const auto m = static_cast<std::size_t>(a.rows);
    cp_ = cuda::Buffer<I>(m + 1);
    cp_.fill_bytes(0);  // stays all zeros when A has no rows
    off_ = cuda::Buffer<std::int64_t>(m + 1);
    off_.fill_bytes(0);  // off[0] stays 0; the scan writes the rest
    count_ = cuda::Buffer<std::int64_t>(m);
    bin_ = cuda::Buffer<unsigned char>(m);
    list_ = cuda::Buffer<I>(m);
    hist_ = cuda::Buffer<unsigned long long>(kBins + 1);
    cursor_ = cuda::Buffer<unsigned long long>(kBins);
    std::size_t bytes = 0;
    if (m)
      MM_CUDA(cub::DeviceScan::InclusiveSum(nullptr, bytes, count_.get(), off_.get() + 1, a.rows));
    temp_ = cuda::Buffer<char>(std::max<std::size_t>(bytes, 1));
    // The largest table the device's shared memory holds for a numeric row.
    int dev = 0, optin = 0;
    MM_CUDA(cudaGetDevice(&dev));
    MM_CUDA(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
    smem_max_ = optin;
    max_table_ = table_of(kTableBins);
    // Static shared memory (the deferred rows, a few counters) takes some of it.
    const std::int64_t room = optin - static_cast<std::int64_t>(sizeof(Deferred<I, T>)) - 256;
    while (max_table_ > kMinTable &&
           max_table_ * static_cast<std::int64_t>(sizeof(I) + sizeof(T)) > room)
      max_table_ /= 2;
  }

  void download() override { download_product(p_, cp_, ci_, cv_, nnz_); }

 protected:
  // The whole product, output sizing included: two small synchronous copies bring the bin
  // sizes (and nnz(C)) to the host, which launches each bin's kernel with its own grid.
  void launch() override {
    const std::int64_t m = p_.a->rows, n = p_.b->cols;
    nnz_ = 0;
    if (m == 0) return;
    MM_CUDA(cudaMemsetAsync(hist_.get(), 0, hist_.size() * sizeof(unsigned long long)));
    count_products<I><<<blocks_for(m * kCountLanes, kThreads), kThreads>>>(
        m, n, ap_.get(), ai_.get(), bp_.get(), max_table_, bin_.get(), count_.get(), hist_.get());
    MM_CUDA_LAUNCHED("spgemm count_products");
    pass(false);
    std::size_t bytes = temp_.size();
    MM_CUDA(cub::DeviceScan::InclusiveSum(temp_.get(), bytes, count_.get(), off_.get() + 1, m));
    MM_CUDA(cudaMemsetAsync(hist_.get(), 0, hist_.size() * sizeof(unsigned long long)));
    finish_offsets<I><<<blocks_for(m + 1, kThreads), kThreads>>>(
        m, off_.get(), cp_.get(), max_table_, bin_.get(), hist_.get());
    MM_CUDA_LAUNCHED("spgemm finish_offsets");
    pass(true);
  }

 private:
  // Brings the histogram home, lists the rows by bin and runs every non-empty bin.
  void pass(bool numeric) {
    const std::int64_t m = p_.a->rows;
    unsigned long long h[kBins + 1];
    MM_CUDA(cudaMemcpy(h, hist_.get(), sizeof h, cudaMemcpyDeviceToHost));
    if (numeric) {
      nnz_ = static_cast<std::int64_t>(h[kBins]);
      if (nnz_ > static_cast<std::int64_t>(std::numeric_limits<I>::max()))
        throw InputError("the product has " + std::to_string(nnz_) +
                         " entries, more than 32-bit indices can count");
      if (ci_.size() < static_cast<std::size_t>(nnz_) || ci_.size() == 0) {
        // Grown only when too small: repeats of one product allocate once.
        ci_ = cuda::Buffer<I>(std::max<std::size_t>(static_cast<std::size_t>(nnz_), 1));
        cv_ = cuda::Buffer<T>(ci_.size());
      }
    }
    if (h[0] == static_cast<unsigned long long>(m)) return;  // every row empty
    MM_CUDA(cudaMemsetAsync(cursor_.get(), 0, cursor_.size() * sizeof(unsigned long long)));
    scatter_rows<I><<<blocks_for(m, kThreads), kThreads>>>(m, bin_.get(), hist_.get(),
                                                           cursor_.get(), list_.get());
    MM_CUDA_LAUNCHED("spgemm scatter_rows");
    std::int64_t at = 0;
    for (int b = 1; b < kBins; ++b) {
      const auto rows = static_cast<std::int64_t>(h[b]);
      if (rows == 0) continue;
      const I* list = list_.get() + at;
      at += rows;
      if (b == kDenseBin)
        dense(numeric, list, rows);
      else if (numeric)
        table<T, true>(b, list, rows);
      else
        table<float, false>(b, list, rows);  // values unused: one instantiation per I
    }
  }

  // One bin of shared-memory tables: the group or block size by the table's size.
  template <class V, bool NUMERIC>
  void table(int b, const I* list, std::int64_t rows) {
    const int t = table_of(b);
    int shift = 32;
    for (int s = t; s > 1; s >>= 1) --shift;
    if (t <= 16)
      run_table<V, NUMERIC, kThreads, 4>(t, shift, list, rows);
    else if (t == 32)
      run_table<V, NUMERIC, kThreads, 8>(t, shift, list, rows);
    else if (t == 64)
      run_table<V, NUMERIC, kThreads, 16>(t, shift, list, rows);
    else if (t <= 512)
      run_table<V, NUMERIC, kThreads, 32>(t, shift, list, rows);
    else if (t <= 2048)
      run_table<V, NUMERIC, kThreads, kThreads>(t, shift, list, rows);
    else
      run_table<V, NUMERIC, kBigThreads, kBigThreads>(t, shift, list, rows);
  }

  template <class V, bool NUMERIC, int THREADS, int G>
  void run_table(int t, int shift, const I* list, std::int64_t rows) {
    constexpr int R = THREADS / G;
    const std::size_t smem =
        static_cast<std::size_t>(R) * t * (sizeof(I) + (NUMERIC ? sizeof(V) : 0));
    auto kernel = hash_rows<I, V, THREADS, G, NUMERIC>;
    if (smem + sizeof(Deferred<I, V>) > static_cast<std::size_t>(smem_max_))
      throw DeviceError("spgemm: a table of " + std::to_string(t) + " slots needs " +
                        std::to_string(smem) + " bytes of shared memory, more than this GPU has");
    if (smem + sizeof(Deferred<I, V>) > 40 * 1024)  // near the 48 KiB default (static included)
      MM_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                   static_cast<int>(smem)));
    using D = cuda::dev_t<V>;
    const D* av = NUMERIC ? reinterpret_cast<const D*>(av_.get()) : nullptr;
    const D* bv = NUMERIC ? reinterpret_cast<const D*>(bv_.get()) : nullptr;
    D* cv = NUMERIC ? reinterpret_cast<D*>(cv_.get()) : nullptr;
    const D alpha = NUMERIC ? static_cast<D>(p_.alpha) : D{};
    kernel<<<blocks_for(rows, R), THREADS, smem>>>(list, rows, t, shift, ap_.get(), ai_.get(), av,
                                                   bp_.get(), bi_.get(), bv, count_.get(),
                                                   cp_.get(), ci_.get(), cv, alpha);
    MM_CUDA_LAUNCHED("spgemm hash_rows");
  }

  // Rows beyond every shared table: a dense accumulator per block, as many blocks as the
  // budget allows (at least one), each walking its share of the rows.
  void dense(bool numeric, const I* list, std::int64_t rows) {
    const std::int64_t n = p_.b->cols, words = (n + 31) / 32;
    const std::int64_t slot = words * 4 + n * static_cast<std::int64_t>(sizeof(T));
    const std::int64_t want = std::min<std::int64_t>(rows, 2 * cuda::multiprocessors());
    const std::int64_t slots = std::clamp<std::int64_t>(kDenseBudget / slot, 1, want);
    if (slots > dense_slots_) {  // zeroed once: the kernels leave it zero
      bits_ = cuda::Buffer<unsigned>(static_cast<std::size_t>(slots * words));
      acc_ = cuda::Buffer<T>(static_cast<std::size_t>(slots * n));
      bits_.fill_bytes(0);
      acc_.fill_bytes(0);
      dense_slots_ = slots;
    }
    const auto grid = static_cast<unsigned>(slots);
    if (numeric)
      dense_rows<I, T, true><<<grid, kBigThreads>>>(
          list, rows, n, words, bits_.get(), acc_.get(), ap_.get(), ai_.get(), av_.get(), bp_.get(),
          bi_.get(), bv_.get(), count_.get(), cp_.get(), ci_.get(), cv_.get(), p_.alpha);
    else
      dense_rows<I, T, false><<<grid, kBigThreads>>>(
          list, rows, n, words, bits_.get(), acc_.get(), ap_.get(), ai_.get(), av_.get(), bp_.get(),
          bi_.get(), bv_.get(), count_.get(), cp_.get(), ci_.get(), cv_.get(), p_.alpha);
    MM_CUDA_LAUNCHED("spgemm dense_rows");
  }

  SpgemmProblem<I, T> p_;
  cuda::Buffer<I> ap_, ai_, bp_, bi_, cp_, ci_, list_;
  cuda::Buffer<T> av_, bv_, cv_, acc_;
  cuda::Buffer<std::int64_t> off_, count_;
  cuda::Buffer<unsigned char> bin_;
  cuda::Buffer<unsigned long long> hist_, cursor_;
  cuda::Buffer<unsigned> bits_;
  cuda::Buffer<char> temp_;
  std::int64_t max_table_ = 0, nnz_ = 0, dense_slots_ = 0;
  int smem_max_ = 0;
};

}  // namespace

template <class I, class T>
std::unique_ptr<Runner> make_spgemm_cuda(const SpgemmProblem<I, T>& p) {
  return spgemm::make_real_runner<GustavsonRunner>(p, "cuda-gustavson");
}

#define MM_SPGEMM_CUDA(I, T) \
  template std::unique_ptr<Runner> make_spgemm_cuda<I, T>(const SpgemmProblem<I, T>&);
MM_FOR_INDEX_VALUE_TYPES(MM_SPGEMM_CUDA)

}  // namespace mm
