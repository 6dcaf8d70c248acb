// OpenBLAS's thread set-up, the one place the tools and benchmarks do it.
#pragma once

namespace mm {

// Debian's OpenBLAS (the pthreads build) keeps its own thread pool apart from OpenMP's, so
// --threads must reach it too. THREADS > 0: that many; 0: as many as OpenMP will use
// (omp_get_max_threads(): --threads, OMP_NUM_THREADS or one per core), so that both
// libraries run with the same count.
//
// Not here: the idle pools' spin-waiting (OMP_WAIT_POLICY, OPENBLAS_THREAD_TIMEOUT). Each
// library reads those from the environment once, when it is loaded, so only a program's
// main can change them, by running itself again (gemm_bench does, where implementations of
// both libraries take turns); a tool runs one implementation, where spinning costs nothing.
void set_openblas_threads(int threads);

}  // namespace mm
