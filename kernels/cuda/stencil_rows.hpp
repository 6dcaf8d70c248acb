// cuda-norm's marching sweeps of one row a thread (and the 2D sweep), as the stencil runners
// take them: which kernel, its plan and its launch. Defined and instantiated in one file
// (stencil_march.cu), so that every runner (cuda-norm, cuda-timetile's plain sweeps, a
// distributed run's slabs) launches the same copy of each kernel: a kernel template
// instantiated in several files has a host stub in each, and a function attribute set on one
// (the dynamic shared memory the plan allows) does not hold for the others.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "cuda/stencil_plan.hpp"

namespace mm::stencil {

// A marching sweep: its arguments are the same for every V, RY, NORM and way of loading.
template <class T>
using MarchFn = void (*)(Room, const T*, T*, T, T, std::int64_t, int, Change);

// cuda-norm's sweep of one row a thread (2D: march2v) for vectors of VEC values, with the
// change (NORM) or not, its loads issued as A says (3D; JacobiTuning::ahead), marching down z
// where DOWN (3D, not RANGE). RANGE: the planes [Room::k_lo, k_hi) only (a slab). ZIGZAG (the
// tma sweep, not RANGE): the odd chunks march the other way (march_zigzag). L2_LAST (the tma
// sweep): its stages' loads evicted last from L2 (march_l2_last).
template <class T, bool NORM, bool RANGE = false>
MarchFn<T> march_row_fn(int dim, int vec, Ahead a, bool down = false, bool zigzag = false,
                        bool l2_last = false);
// The kernel launch L was planned for (plan_march_rows): its way of loading, its order's zigzag
// and its L2 policy, marching down where DOWN. Every runner takes its kernel from its launch so.
template <class T, bool NORM, bool RANGE = false>
MarchFn<T> march_launch_fn(int dim, int vec, const Launch& l, bool down = false) {
  return march_row_fn<T, NORM, RANGE>(dim, vec, static_cast<Ahead>(l.ahead), down, march_zigzag(l),
                                      march_l2_last(l));
}

// Blocks of THREADS threads and SHARED bytes of dynamic shared memory resident a
// multiprocessor for each of the N kernels FNS at once (the least), each first allowed SHARED.
template <class T>
int resident_blocks(const MarchFn<T>* fns, std::size_t n, int threads, std::size_t shared);

// cuda-norm's launch of ROOM (one row a thread) under TUNING: plan_march with the occupancy
// of every kernel a run launches, so that cuda-norm, cuda-timetile's plain sweeps and (with
// RANGE) a distributed run's slabs launch the same grid of blocks and sum the change alike.
// PLANES as plan_march's.
template <class T, bool RANGE = false>
Launch plan_march_rows(const HeatedRoom& room, int vec, const JacobiTuning& tuning,
                       std::int64_t planes = -1);

// Sweeps ROOM from U into OUT as FN with launch L on STREAM, its change as C says (a kernel
// without the change takes C's sum of the sweep before only). DEPENDENT: launched as a
// programmatic dependent of the kernel before it in STREAM.
template <class T>
void launch_march(MarchFn<T> fn, const Launch& l, cudaStream_t stream, bool dependent,
                  const Room& room, const T* u, T* out, T src, T inv, const Change& c);

// The deferred sum (Change) of a sweep of launch L that no sweep follows: its partials (one a
// block of L) into *SLOT, on STREAM behind it, by one block of L's threads (the order a
// following sweep's first block sums in).
void launch_sum_change(const Launch& l, const double* partials, double* slot, cudaStream_t stream);

}  // namespace mm::stencil
