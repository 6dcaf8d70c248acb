// Programmatic dependent launch (sm_90) for the panel stream's own kernels (--tune pdl, on by
// default): a kernel launched with the attribute may become resident while the kernel
// before it on the stream still runs, once that one's blocks have all called pdl_trigger (or
// exited); it waits in pdl_wait until that kernel has finished and its writes are visible.
// Without the attribute (or without a dependent launched with it) both are no-ops, so every
// kernel of the chain calls them unconditionally.
#pragma once

#include <cuda_runtime.h>

namespace mm::cuda::lu::detail {

// The kernel before this one on the stream finished and its memory visible. Every block calls
// it before its first read or write of the matrix, and before it exits: a block that left
// earlier would let this kernel finish, and so a dependent start, ahead of its predecessor.
__device__ __forceinline__ void pdl_wait() {
  asm volatile("griddepcontrol.wait;" ::: "memory");
}

// This block lets the stream's next kernel (when launched with the attribute) be scheduled.
__device__ __forceinline__ void pdl_trigger() {
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
}

// Columns before a leaf's last at which its blocks trigger, so that the dependent (a small
// solve) finds its multiprocessors while the leaf ends rather than holds them idle through it.
// H200, n = 8192 / 16384 / 32768: 1, 4, 8 columns or the first all within 0.01 of each other
// (1.25 / 1.28-1.29 / 1.07 x cuSOLVER;
// bench/results/issue16_seventeenth_pass_2026-11-29_672a3c6.md).
constexpr int kPdlLeadColumns = 4;

// A leaf's trigger, at column J of W.
__device__ __forceinline__ void pdl_trigger_at(int j, int w) {
  if (j == (w > kPdlLeadColumns ? w - kPdlLeadColumns : 0)) pdl_trigger();
}

// Adds the programmatic-serialization attribute to CFG in SLOT (an element of the array
// cfg.attrs points to, just past its last used one) where ON.
inline void with_pdl(cudaLaunchConfig_t& cfg, cudaLaunchAttribute* slot, bool on) {
  if (!on) return;
  slot->id = cudaLaunchAttributeProgrammaticStreamSerialization;
  slot->val.programmaticStreamSerializationAllowed = 1;
  ++cfg.numAttrs;
}

}  // namespace mm::cuda::lu::detail
