// The GPU ranks the GPU tests share (dist_test.hpp's gpu_ranks): opened once a process, with the
// reason they cannot be, decided alike on every rank.
#include <array>
#include <iostream>

#include "device.hpp"
#include "dist/agree.hpp"
#include "dist_test.hpp"

namespace mm::test {

namespace {

struct Opened {
  bool tried = false;
  std::shared_ptr<dist::GpuRanks> gpu;
  std::string why;
};

std::array<Opened, 2>& opened() {
  static std::array<Opened, 2> o;
  return o;
}

std::string open(Opened& o, dist::CommKind kind) {
  const dist::Comm& c = comm();
  const GpuInfo g = cuda_devices();
  if (c.allreduce(g.count > 0 ? 1 : 0, dist::Op::min) == 0)
    return g.count == 0 ? "no GPU: " + g.reason : "no GPU on some rank";
  if (kind == dist::CommKind::nccl) {
    if (!dist::built_with_nccl()) return "built without NCCL (nccl.h not found when configured)";
    // NCCL needs a GPU a rank: the ranks of a node must not outnumber its GPUs.
    const dist::Comm::NodeRank node = c.node_rank();
    if (c.allreduce(node.size > g.count ? 1 : 0, dist::Op::max))
      return "NCCL needs a GPU a rank: " + std::to_string(node.size) + " ranks on a node of " +
             std::to_string(g.count) + (g.count == 1 ? " GPU" : " GPUs");
    try {
      o.gpu = dist::open_gpu_ranks(c, kind);
    } catch (const dist::Failure& f) {  // NCCL not loadable here: said by the reporting rank
      if (f.report) try {
          std::rethrow_exception(f.report);
        } catch (const std::exception& e) {
          std::cerr << "[rank " << c.rank() << "] " << e.what() << "\n";
        }
      return "NCCL could not be set up (exit " + std::to_string(f.code) + ", message above)";
    }
    return "";
  }
  o.gpu = dist::open_gpu_ranks(c, kind);  // MPI: a failure here fails the test
  return "";
}

}  // namespace

const dist::GpuRanks* gpu_ranks(dist::CommKind kind, std::string& why) {
  Opened& o = opened()[kind == dist::CommKind::nccl ? 1 : 0];
  if (!o.tried) {
    o.tried = true;
    o.why = "opening the GPU ranks failed in an earlier test";  // unless open() returns
    o.why = open(o, kind);
  }
  why = o.why;
  return o.gpu.get();
}

void close_gpu_ranks() {
  for (Opened& o : opened()) o.gpu.reset();
}

}  // namespace mm::test
