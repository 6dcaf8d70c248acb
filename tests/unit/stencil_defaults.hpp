// The CUDA stencil sweeps' device-dependent defaults as the tests expect them (shared by the
// plan tests and the tuned sweeps' tests).
#pragma once

#include "cuda/stencil_plan.hpp"
#include "device.hpp"

namespace mm::test {

// Without the copy engine (rows not of 16-byte vectors: N odd, or not a multiple of 4 in single):
// the loads ahead by default where memory is not rich against the multiprocessors (H100), at the
// step where it is (H200): device.hpp's gpu_memory_rich().
inline stencil::Ahead plain_ahead() {
  return gpu_memory_rich() ? stencil::Ahead::off : stencil::Ahead::regs;
}
// Its name, as a run records it.
inline const char* plain_ahead_name() {
  return gpu_memory_rich() ? "off" : "regs";
}

}  // namespace mm::test
