// mmsolve's distributed path: the same command line, run by every rank under mpirun.
#pragma once

#include "mm/cli.hpp"
#include "solve.hpp"

namespace mm::dist {

// The tool's six steps over the ranks: A read across the ranks, rows partitioned and routed,
// the halo plan built; b (n x k) read by rank 0 and its rows scattered; each column solved
// from x = 0 by the one-process Krylov drivers over DistKrylovOps (cg, bicgstab, gmres; auto:
// cg for a file stored symmetric or hermitian with a positive real diagonal, else gmres), with
// Jacobi when asked, timed (warm-up, repeats: each run the slowest rank's time); the final
// ||b-Ax||/||b|| by the distributed product; x gathered to rank 0 and written (or a file a
// rank); one timing record from rank 0. Exit 1 when a column does not converge (x written
// and marked, as one process does), 5 for a zero diagonal under Jacobi, 2 for a direct method.
// Called after mmsolve has checked its own options; OPT: its --tol, --max-iter, --restart,
// --precond.
int solve_tool(const Cli& cli, IterOptions opt);

}  // namespace mm::dist
