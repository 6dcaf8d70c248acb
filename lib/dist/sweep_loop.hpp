// The sweep loops of the distributed heated room: sweep_loop (the CPU engines: slabs, boxes) and
// lagged_sweep_loop (GPU slabs).
#pragma once

#include <cmath>
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

// The loop of the GPU ranks, stopping as jacobi_iterate does: ITERATE(set) queues one iteration,
// its change into set SET of the slots (0 or 1 by the iteration's parity; -1: not computed);
// NORM2(set) waits for the iteration that wrote SET and returns the whole grid's squared change
// (collective); UNDO() makes the buffer that the last queued iteration read the current one
// again. A checked change is awaited only where it can stop the run (with a tolerance, or at
// the last iteration), and then only once the next iteration is queued, so that the GPU sweeps
// while the host waits and the ranks reduce. Where it stops the run, the iteration queued after
// it is undone: that wrote the other buffer, so the result is intact. Every rank takes the same
// decisions from the same reduced value.
template <class Iterate, class Norm2, class Undo>
JacobiResult lagged_sweep_loop(const JacobiStop& stop, Iterate&& iterate, Norm2&& norm2,
                               Undo&& undo) {
  JacobiResult res;
  const auto stops = [&](std::int64_t k) {  // reads iteration K's change
    res.norm = std::sqrt(norm2(static_cast<int>(k & 1)));
    res.converged = stop.tol >= 0 && res.norm <= stop.tol;
    return res.converged;
  };
  std::int64_t pending = 0;  // the checked iteration whose change is read next, 0: none
  for (std::int64_t k = 1; k <= stop.max_iter; ++k) {
    const bool check = jacobi_checks(stop, k);
    iterate(check ? static_cast<int>(k & 1) : -1);
    res.iterations = k;
    if (pending > 0 && stops(pending)) {
      undo();
      res.iterations = pending;
      return res;
    }
    pending = 0;
    if (!check || (stop.tol < 0 && k < stop.max_iter)) continue;
    if (k < stop.max_iter)
      pending = k;
    else
      stops(k);
  }
  return res;
}

}  // namespace mm::dist
