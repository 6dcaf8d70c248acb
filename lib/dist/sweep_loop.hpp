// The sweep loops of the distributed heated room: sweep_loop (the CPU engines: slabs, boxes) and
// lagged_sweep_loop (GPU slabs).
#pragma once

#include <cstdint>

#include "jacobi.hpp"
#include "mm/timing.hpp"

namespace mm::dist {

// Sweeps 1..STOP.max_iter, stopping as the one-process loop does: SWEEP(check) advances this
// rank's part one sweep (its halo exchange included; CHECK: the change is wanted); at each
// checked sweep NORM2() returns the whole grid's squared change, the same on every rank
// (collective), its seconds added to ALLREDUCE_S.
template <class Sweep, class Norm2>
JacobiResult sweep_loop(const JacobiStop& stop, double& allreduce_s, Sweep&& sweep, Norm2&& norm2) {
  return jacobi_iterate(stop, [&](bool check) {
    sweep(check);
    if (!check) return 0.0;
    Stopwatch w;
    const double change = norm2();
    allreduce_s += w.seconds();
    return change;
  });
}

// The loop of the GPU ranks: jacobi_lagged_passes a sweep a pass. ITERATE(slot) queues one
// iteration, its change into set SLOT of the slots (0 or 1; -1: not computed); NORM2(slot) waits
// for the iteration that wrote SLOT and returns the whole grid's squared change (collective);
// UNDO() makes the buffer that the last queued iteration read the current one again, called
// where a change read late stops the run.
template <class Iterate, class Norm2, class Undo>
JacobiResult lagged_sweep_loop(const JacobiStop& stop, Iterate&& iterate, Norm2&& norm2,
                               Undo&& undo) {
  std::int64_t queued = 0;
  int result_buf = 0;
  const JacobiResult res = jacobi_lagged_passes(
      stop, 1, [](const JacobiPass&) { return false; },
      [&](int, const JacobiPass& p, int slot) {
        iterate(slot);
        queued = p.last;
      },
      norm2, result_buf);
  if (res.iterations < queued) undo();
  return res;
}

}  // namespace mm::dist
