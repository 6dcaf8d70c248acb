// GPU ranks: which GPU of its node a rank runs on.
#pragma once

#include "dist/comm.hpp"

namespace mm::dist {

// Makes this rank's GPU current and returns its index: the rank's place among the ranks of its
// node (Comm::node_rank) modulo the node's GPU count, so ranks share the GPUs in turn (two ranks
// on one GPU share it). Collective. DeviceError (exit 4) when the node has no usable GPU, or
// the build has no CUDA.
int select_local_gpu(const Comm& comm);

}  // namespace mm::dist
