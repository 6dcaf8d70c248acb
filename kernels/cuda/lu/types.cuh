// The index type and the limits every part of the CUDA LU shares.
#pragma once

#include <cstdint>

namespace mm::cuda::lu {

using Index = std::int64_t;

// A leaf's columns are a warp's lanes.
constexpr int kLeafWidth = 32;
// The most pivots one pivot_pairs call takes (the widest panel of cuda-blocked).
constexpr int kMaxPivots = 512;
// INFO's value while no exact zero pivot was met (the leaves atomicMin their column into it).
constexpr unsigned long long kNoZeroPivot = ~0ull;

}  // namespace mm::cuda::lu
