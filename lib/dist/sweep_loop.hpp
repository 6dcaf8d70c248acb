// The sweep loop of the distributed heated room (every RoomEngine: slabs, boxes, GPU slabs).
#pragma once

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

}  // namespace mm::dist
