// CUDA CSR -> CSC (mmtranspose on coordinate files): either a stable radix sort of the entries by
// column carrying each one's row and position, the row pointers read off the sorted columns,
// and a gather of the values (cuda-csr2csc), or column counts by atomics and a scan, then a scatter
// of every entry to a free slot of its column by an atomic cursor and a sort of each column's few
// entries by row (cuda-scatter): one pass over the entries and a short segmented sort instead of a
// radix sort's three passes of 22-bit keys.
#include <cub/cub.cuh>

#include <algorithm>
#include <type_traits>

#include "cuda/cuda_util.cuh"
#include "cuda/transpose_bits.cuh"
#include "cuda/transpose_cuda.hpp"

namespace mm {

namespace {

using namespace cuda::transpose_bits;

template <class I>
__global__ void count_columns(std::int64_t nnz, const I* __restrict__ idx, I* __restrict__ count) {
  for (std::int64_t k = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; k < nnz;
       k += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    if constexpr (sizeof(I) == 4)
      atomicAdd(reinterpret_cast<int*>(count + idx[k]), 1);
    else
      atomicAdd(reinterpret_cast<unsigned long long*>(count + idx[k]), 1ull);
  }
}

// Tuning: threads a block, a block expanding that many rows; values gathered a thread in flight.
constexpr int kThreads = 256;
constexpr int kGatherIlp = 4;

// The sort's payload: an entry's row and its position in A, moved with its column key. 32-bit
// indices: one 8-byte word (row << 32 | position), the radix passes' values.
template <class I>
struct Payload;
template <>
struct Payload<std::int32_t> {
  using type = unsigned long long;
  __device__ static type pack(std::int64_t row, std::int64_t k) {
    return static_cast<type>(row) << 32 | static_cast<type>(k);
  }
  __device__ static std::int32_t row(type p) { return static_cast<std::int32_t>(p >> 32); }
  __device__ static std::int64_t position(type p) {
    return static_cast<std::int64_t>(p & 0xffffffffu);
  }
};
template <>
struct Payload<std::int64_t> {
  using type = ulonglong2;
  __device__ static type pack(std::int64_t row, std::int64_t k) {
    return make_ulonglong2(static_cast<unsigned long long>(row),
                           static_cast<unsigned long long>(k));
  }
  __device__ static std::int64_t row(type p) { return static_cast<std::int64_t>(p.x); }
  __device__ static std::int64_t position(type p) { return static_cast<std::int64_t>(p.y); }
};

// The payload of every entry of kThreads rows a block: their PTR staged in shared memory, the
// entries walked by the whole block (coalesced writes), each finding its row by a binary search
// of the staged PTR. A long row is still one block's, walked kThreads entries at a time.
template <class I>
__global__ void __launch_bounds__(kThreads)
    expand_rows(std::int64_t rows, const I* __restrict__ ptr,
                typename Payload<I>::type* __restrict__ payload) {
  __shared__ I sp[kThreads + 1];
  const std::int64_t r0 = blockIdx.x * static_cast<std::int64_t>(kThreads);
  const int n = static_cast<int>(rows - r0 < kThreads ? rows - r0 : kThreads);
  for (int t = threadIdx.x; t <= n; t += kThreads) sp[t] = ptr[r0 + t];
  __syncthreads();
  for (std::int64_t e = sp[0] + threadIdx.x; e < sp[n]; e += kThreads) {
    int lo = 0, hi = n - 1;  // the last staged row starting at or before E
    while (lo < hi) {
      const int mid = (lo + hi + 1) / 2;
      if (static_cast<std::int64_t>(sp[mid]) <= e)
        lo = mid;
      else
        hi = mid - 1;
    }
    payload[e] = Payload<I>::pack(r0 + lo, e);
  }
}

// The transpose's row pointers from the sorted columns: T_PTR[C] is the first P whose column
// is >= C, written by the P where the columns step past C (P = NNZ: the columns after the last).
template <class I, class U>
__global__ void column_starts(std::int64_t nnz, std::int64_t cols, const U* __restrict__ keys,
                              I* __restrict__ t_ptr) {
  for (std::int64_t p = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; p <= nnz;
       p += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    const std::int64_t prev = p == 0 ? -1 : static_cast<std::int64_t>(keys[p - 1]);
    const std::int64_t cur = p == nnz ? cols : static_cast<std::int64_t>(keys[p]);
    for (std::int64_t c = prev + 1; c <= cur; ++c) t_ptr[c] = static_cast<I>(p);
  }
}

// Output entry p: the row and the value of the entry the sort put there. kGatherIlp entries a
// thread, their random value loads issued together.
template <bool Complex, class I, class B>
__global__ void __launch_bounds__(kThreads)
    gather_sorted(std::int64_t nnz, const typename Payload<I>::type* __restrict__ payload,
                  const B* __restrict__ val, I* __restrict__ t_idx, B* __restrict__ t_val,
                  bool conj) {
  using P = Payload<I>;
  const std::int64_t step = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t p0 = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; p0 < nnz;
       p0 += step * kGatherIlp) {
    typename P::type q[kGatherIlp];
    B v[kGatherIlp];
#pragma unroll
    for (int j = 0; j < kGatherIlp; ++j)
      if (p0 + j * step < nnz) q[j] = payload[p0 + j * step];
#pragma unroll
    for (int j = 0; j < kGatherIlp; ++j)
      if (p0 + j * step < nnz) v[j] = val[P::position(q[j])];
#pragma unroll
    for (int j = 0; j < kGatherIlp; ++j)
      if (p0 + j * step < nnz) {
        t_idx[p0 + j * step] = static_cast<I>(P::row(q[j]));
        t_val[p0 + j * step] = conj_bits<Complex>(v[j], conj);
      }
  }
}

// The row of entry K: the last row I with PTR[I] <= K (an empty row shares its PTR with the
// next). A binary search a thread, so that the work is balanced whatever the row lengths.
template <class I>
__device__ __forceinline__ I row_of_entry(std::int64_t rows, const I* __restrict__ ptr,
                                          std::int64_t k) {
  std::int64_t lo = 0, hi = rows - 1;
  while (lo < hi) {
    const std::int64_t mid = (lo + hi + 1) / 2;
    if (static_cast<std::int64_t>(ptr[mid]) <= k)
      lo = mid;
    else
      hi = mid - 1;
  }
  return static_cast<I>(lo);
}

// Entry K to the next free slot of its column (CURSOR: the columns' next slots, from T_PTR):
// the columns' entries end up in any order, sorted afterwards by row.
template <bool Complex, class I, class B>
__global__ void scatter(std::int64_t rows, std::int64_t nnz, const I* __restrict__ ptr,
                        const I* __restrict__ idx, const B* __restrict__ val,
                        I* __restrict__ cursor, I* __restrict__ t_idx, B* __restrict__ t_val,
                        bool conj) {
  for (std::int64_t k = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; k < nnz;
       k += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    I slot;
    if constexpr (sizeof(I) == 4)
      slot = static_cast<I>(atomicAdd(reinterpret_cast<int*>(cursor + idx[k]), 1));
    else
      slot =
          static_cast<I>(atomicAdd(reinterpret_cast<unsigned long long*>(cursor + idx[k]), 1ull));
    t_idx[slot] = row_of_entry(rows, ptr, k);
    t_val[slot] = conj_bits<Complex>(val[k], conj);
  }
}

template <class I, class T>
class Csr2CscRunner final : public cuda::CudaRunner {
  using U = std::make_unsigned_t<I>;  // sort keys: columns are never negative

 public:
  Csr2CscRunner(const CsrTransposeProblem<I, T>& p, CsrTransposeCudaKernel k) : p_(p), k_(k) {}

  void upload() override {
    const Csr<I, T>& a = *p_.a;
    const auto nnz = static_cast<std::size_t>(a.nnz());
    ptr_ = cuda::Buffer<I>(a.ptr.data(), a.ptr.size());
    idx_ = cuda::Buffer<I>(a.idx.data(), nnz);
    val_ = cuda::Buffer<T>(a.val.data(), nnz);
    t_ptr_ = cuda::Buffer<I>(static_cast<std::size_t>(a.cols) + 1);
    t_ptr_.fill_bytes(0);  // an empty A's; else every launch writes them all
    if (sorts()) {
      payload_ = cuda::Buffer<Pay>(nnz);
      sorted_ = cuda::Buffer<Pay>(nnz);
      keys_ = cuda::Buffer<U>(nnz);
    } else {  // column counts, then the scattered columns before their sort by row
      count_ = cuda::Buffer<I>(static_cast<std::size_t>(a.cols));
      row_of_ = cuda::Buffer<I>(nnz);
      s_val_ = cuda::Buffer<T>(nnz);
    }
    t_idx_ = cuda::Buffer<I>(nnz);
    t_val_ = cuda::Buffer<T>(nnz);
    t_idx_.fill_bytes(0xff);  // poison: every entry must be written
    t_val_.fill_bytes(0xff);
    end_bit_ = 1;
    while (end_bit_ < static_cast<int>(8 * sizeof(I)) &&
           (std::uint64_t{1} << end_bit_) < static_cast<std::uint64_t>(a.cols))
      ++end_bit_;
    std::size_t scan = 0, sort = 0;
    if (a.cols > 0 && !sorts())
      MM_CUDA(cub::DeviceScan::InclusiveSum(nullptr, scan, count_.get(), t_ptr_.get() + 1, a.cols));
    if (nnz > 0 && sorts())
      MM_CUDA(cub::DeviceRadixSort::SortPairs(nullptr, sort, keys_in(), keys_.get(), payload_.get(),
                                              sorted_.get(), a.nnz(), 0, end_bit_));
    if (nnz > 0 && !sorts()) sort_columns(nullptr, sort);
    temp_ = cuda::Buffer<char>(std::max<std::size_t>({scan, sort, 1}));
  }

  void download() override {
    Csr<I, T>& t = *p_.out;
    t_ptr_.download(t.ptr.data(), t.ptr.size());
    t_idx_.download(t.idx.data(), t.idx.size());
    t_val_.download(t.val.data(), t.val.size());
  }

 protected:
  void launch() override {
    const Csr<I, T>& a = *p_.a;
    const std::int64_t nnz = a.nnz();
    if (nnz == 0) return;  // t_ptr is all zeros from upload()
    constexpr int threads = kThreads;
    using B = bits_t<T>;
    std::size_t bytes = temp_.size();
    if (sorts()) {  // (column, payload) sorted by column, stably: rows ascend in each column
      expand_rows<I><<<static_cast<unsigned>((a.rows + kThreads - 1) / kThreads), kThreads>>>(
          a.rows, ptr_.get(), payload_.get());
      MM_CUDA_LAUNCHED("csr2csc expand_rows");
      MM_CUDA(cub::DeviceRadixSort::SortPairs(temp_.get(), bytes, keys_in(), keys_.get(),
                                              payload_.get(), sorted_.get(), nnz, 0, end_bit_));
      column_starts<I, U>
          <<<blocks_for(nnz + 1, threads), threads>>>(nnz, a.cols, keys_.get(), t_ptr_.get());
      MM_CUDA_LAUNCHED("csr2csc column_starts");
      gather_sorted<is_complex_v<T>, I, B><<<blocks_for(nnz, threads * kGatherIlp), threads>>>(
          nnz, sorted_.get(), reinterpret_cast<const B*>(val_.get()), t_idx_.get(),
          reinterpret_cast<B*>(t_val_.get()), p_.conjugate);
      MM_CUDA_LAUNCHED("csr2csc gather_sorted");
      return;
    }
    MM_CUDA(cudaMemsetAsync(count_.get(), 0, count_.size() * sizeof(I)));
    count_columns<I><<<blocks_for(nnz, threads), threads>>>(nnz, idx_.get(), count_.get());
    MM_CUDA_LAUNCHED("csr2csc count_columns");
    MM_CUDA(
        cub::DeviceScan::InclusiveSum(temp_.get(), bytes, count_.get(), t_ptr_.get() + 1, a.cols));
    // The count buffer becomes the columns' cursors: their first slots.
    MM_CUDA(cudaMemcpyAsync(count_.get(), t_ptr_.get(), count_.size() * sizeof(I),
                            cudaMemcpyDeviceToDevice));
    scatter<is_complex_v<T>, I, B><<<blocks_for(nnz, threads), threads>>>(
        a.rows, nnz, ptr_.get(), idx_.get(), reinterpret_cast<const B*>(val_.get()), count_.get(),
        row_of_.get(), reinterpret_cast<B*>(s_val_.get()), p_.conjugate);
    MM_CUDA_LAUNCHED("csr2csc scatter");
    bytes = temp_.size();
    sort_columns(temp_.get(), bytes);
  }

 private:
  const U* keys_in() const { return reinterpret_cast<const U*>(idx_.get()); }
  bool sorts() const { return k_ == CsrTransposeCudaKernel::sort; }

  // Each column's scattered entries sorted by row (unique in a column: no order to keep), the
  // values moved as raw bits. TEMP null: the scratch size into BYTES.
  void sort_columns(void* temp, std::size_t& bytes) {
    using B = bits_t<T>;
    const auto cols = static_cast<std::int64_t>(p_.a->cols);
    MM_CUDA(cub::DeviceSegmentedSort::SortPairs(
        temp, bytes, row_of_.get(), t_idx_.get(), reinterpret_cast<const B*>(s_val_.get()),
        reinterpret_cast<B*>(t_val_.get()), p_.a->nnz(), cols, t_ptr_.get(), t_ptr_.get() + 1));
  }

  CsrTransposeProblem<I, T> p_;
  CsrTransposeCudaKernel k_;
  using Pay = typename Payload<I>::type;
  cuda::Buffer<I> ptr_, idx_, count_, t_ptr_, row_of_, t_idx_;
  cuda::Buffer<Pay> payload_, sorted_;
  cuda::Buffer<U> keys_;
  cuda::Buffer<T> val_, t_val_, s_val_;
  cuda::Buffer<char> temp_;
  int end_bit_ = 1;
};

}  // namespace

template <class I, class T>
std::unique_ptr<Runner> make_transpose_cuda_csr2csc(const CsrTransposeProblem<I, T>& p,
                                                    CsrTransposeCudaKernel k) {
  transpose_shape(*p.a, *p.out);
  return std::make_unique<Csr2CscRunner<I, T>>(p, k);
}

#define MM_TRANSPOSE_CUDA_CSR(I, T)                                   \
  template std::unique_ptr<Runner> make_transpose_cuda_csr2csc<I, T>( \
      const CsrTransposeProblem<I, T>&, CsrTransposeCudaKernel);
MM_TRANSPOSE_INDEX_VALUE_TYPES(MM_TRANSPOSE_CUDA_CSR)

}  // namespace mm
