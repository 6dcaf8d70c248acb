// mmspmv's distributed path: the same command line, run by every rank under mpirun.
#pragma once

#include "mm/cli.hpp"

namespace mm::dist {

// The tool's six steps over the ranks: A read across the ranks (parallel read of a plain
// file, else by rank 0), rows partitioned and routed, the halo plan built; x generated per
// rank or read by rank 0 and scattered; the product timed (warm-up, repeats: each run the
// slowest rank's time); y gathered to rank 0 and written (or a file a rank); one timing record
// from rank 0. Called after mmspmv has checked its own options (files, --x, --beta).
int spmv_tool(const Cli& cli);

}  // namespace mm::dist
