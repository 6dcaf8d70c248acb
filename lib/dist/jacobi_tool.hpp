// mmjacobi's distributed path: the heated room's Jacobi sweep split in slabs or boxes over CPU
// ranks, or in slabs over GPU ranks.
#pragma once

#include "jacobi.hpp"
#include "mm/cli.hpp"

namespace mm::dist {

// --poisson2d/--poisson3d N over the ranks: the interior planes (z in 3D, y in 2D) in uniform
// slabs (slab.hpp), or boxes of a process grid (box.hpp; --split), on CPU ranks, or slabs on GPU
// ranks (--device cuda: one GPU a rank, slab_gpu.cpp); halos exchanged each sweep with the interior
// planes' update overlapped, the change's norm gathered exactly every --check-every sweeps (the
// same norm, stopping decision and iteration count as one process); the timed runs (warm-up,
// repeats, each run the slowest rank's time); the grid gathered to rank 0 and written as the
// one-process tool writes it (or a file a rank); one record from rank 0. Exit 1 when --tol was
// not reached, as the tool. Called after mmjacobi has checked its stopping options (STOP) and
// --tune; the system form (A b) is refused under mpirun.
int jacobi_tool(const Cli& cli, const JacobiStop& stop);

// --split (how the ranks share the grid out; read under mpirun only).
void add_jacobi_options(Cli& cli);

}  // namespace mm::dist
