// The host loop of the time-tiled CUDA Jacobi runs (kernels/cuda/jacobi_timetile.cu): passes of
// up to K sweeps, each ending at K sweeps or at a checked iteration, whose change the host
// reads only at checks (jacobi_drive.cuh's drive() is this loop with K = 1 and one kind of
// pass).
#pragma once

#include <cmath>

#include "cuda/jacobi_drive.cuh"
#include "jacobi.hpp"

namespace mm::jacobi_host {

// One pass of a run: SWEEPS sweeps, its last's change wanted (CHECK), and whether it writes
// the buffer it reads (a pass in two launches: the result back where it started).
struct Pass {
  std::int64_t sweeps = 1;
  bool check = false;
  bool in_place = false;
};

// Runs the iterations from x_0 in buffer 0 in passes of at most K sweeps
// (stencil_pass_sweeps): IN_PLACE(pass) says whether a pass writes its source buffer, and
// STEP(src, pass, slot) launches it from buffer SRC (0 or 1), its change into SLOT (-1: not
// computed). As drive(): the host waits for a checked change only once the next pass is
// queued, unless that pass writes the buffer holding the checked result (then first), so that
// when the change stops the run the result is intact in RESULT_BUF.
template <class InPlace, class Step>
JacobiResult drive_passes(const JacobiStop& stop, int k, ChangeSlots& slots, InPlace&& in_place,
                          Step&& step, int& result_buf) {
  JacobiResult res;
  int cur = 0, checks = 0, last_slot = 0;
  bool pending = false;
  std::int64_t pend_k = 0;
  int pend_slot = 0, pend_buf = 0;
  // The pending check's outcome; true when it stops the run.
  const auto settle = [&]() {
    pending = false;
    res.norm = std::sqrt(slots.wait(pend_slot));
    if (res.norm > stop.tol) return false;
    res.iterations = pend_k;
    res.converged = true;
    result_buf = pend_buf;
    return true;
  };
  for (std::int64_t done = 0; done < stop.max_iter;) {
    Pass p;
    p.sweeps = stencil_pass_sweeps(stop, done, k);
    done += p.sweeps;
    p.check = jacobi_checks(stop, done);
    p.in_place = in_place(p);
    if (pending && p.in_place && pend_buf == cur && settle()) return res;
    const int slot = checks & 1;  // never the pending one (the previous check's)
    step(cur, p, p.check ? slot : -1);
    if (p.check) slots.fetch(slot), ++checks;
    if (!p.in_place) cur = 1 - cur;
    if (pending && settle()) return res;
    if (p.check) {
      last_slot = slot;
      if (stop.tol >= 0) pending = true, pend_k = done, pend_slot = slot, pend_buf = cur;
    }
  }
  // The last pass is always checked.
  res.iterations = stop.max_iter;
  res.norm = std::sqrt(slots.wait(last_slot));
  res.converged = stop.tol >= 0 && res.norm <= stop.tol;
  result_buf = cur;
  return res;
}

}  // namespace mm::jacobi_host
