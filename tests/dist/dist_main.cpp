// main() of the distributed tests: each rank runs every test (the tests are collective); rank
// 0 prints the usual output, the others only their failures, tagged with their rank; every
// rank exits 1 when a test failed on any rank.
#include <gtest/gtest.h>

#include <iostream>

#include "dist/comm.hpp"
#include "dist_test.hpp"

namespace {

// Failures of a rank other than 0, one line each.
class RankFailures : public testing::EmptyTestEventListener {
 public:
  explicit RankFailures(int rank) : rank_(rank) {}
  void OnTestPartResult(const testing::TestPartResult& r) override {
    if (r.failed())
      std::cerr << "[rank " << rank_ << "] " << (r.file_name() ? r.file_name() : "?") << ":"
                << r.line_number() << ": " << r.summary() << "\n";
  }

 private:
  int rank_;
};

}  // namespace

int main(int argc, char** argv) {
  mm::dist::Session session(argc, argv);
  testing::InitGoogleTest(&argc, argv);
  const mm::dist::Comm& comm = mm::dist::world();
  if (!comm.root()) {
    auto& listeners = testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
    listeners.Append(new RankFailures(comm.rank()));
  }
  if (comm.root())
    std::cout << "distributed tests on " << comm.size() << (comm.mpi() ? " MPI" : " (no MPI)")
              << (comm.size() == 1 ? " rank\n" : " ranks\n");
  const int failed = RUN_ALL_TESTS() != 0 ? 1 : 0;
  mm::test::close_gpu_ranks();  // NCCL and the streams go before MPI and the CUDA runtime
  return comm.allreduce(failed, mm::dist::Op::max);
}
