#!/usr/bin/env bash
# Copies the built binaries and the shared libraries the GPU machine lacks into .carry/
# (ignored by git), to be carried to the GPU machine and run by scripts/gpu-run.sh.
#   BASE_BUILD=DIR also packs DIR's benchmarks (a build of an earlier commit, with its COMMIT
#   file or git checkout beside it) as .carry/base.tar.xz: gpu-run.sh then runs every
#   benchmark of both builds in the same call, so a before/after ratio comes from one run.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build}
rm -rf "$root/.carry"
mkdir -p "$root/.carry/bin" "$root/.carry/lib"
find "$build/bin" -maxdepth 1 -type f -perm -u+x -exec cp {} "$root/.carry/bin/" \;
# output.sh's O_TMPFILE-refusing shim (MM_NO_TMPFILE in gpu-run.sh)
[[ -f $build/tests/mm_no_tmpfile.so ]] && cp "$build/tests/mm_no_tmpfile.so" "$root/.carry/bin/"
strip "$root/.carry/bin/"*
# Binaries with CUDA code are large (~230 MB), but each carries much the same device code:
# xz's 64 MiB dictionary (-9) finds the repeats across files, 55 MB at the default -> 15 MB.
tar -cf - -C "$root/.carry" bin | xz -9e -T2 >"$root/.carry/bin.tar.xz" && rm -rf "$root/.carry/bin"
# Libraries not on the GPU machine's Ubuntu image (it has OpenBLAS and LAPACKE): the
# OpenMP runtime, to be safe, SuiteSparse, and libpng (mmcheck spy; every tool links it).
for lib in libgomp.so.1 libumfpack.so.5 libamd.so.2 libcholmod.so.3 libsuitesparseconfig.so.5 \
           libcolamd.so.2 libccolamd.so.2 libcamd.so.2 libmetis.so.5 libpng16.so.16; do
  for d in /lib/x86_64-linux-gnu /usr/lib/x86_64-linux-gnu; do
    [[ -e $d/$lib ]] && { cp -L "$d/$lib" "$root/.carry/lib/"; break; }
  done
done
# Open MPI (tools built with MPI link libmpi; MPI starts only under mpirun), apart: gpu-run.sh
# uses these only where the GPU machine has no libmpi.so.40 of its own, so that its own Open
# MPI and mpirun, when present, stay together.
mkdir -p "$root/.carry/lib-mpi"
for lib in libmpi.so.40 libopen-rte.so.40 libopen-pal.so.40 libhwloc.so.15 \
           libevent_core-2.1.so.7 libevent_pthreads-2.1.so.7; do
  for d in /lib/x86_64-linux-gnu /usr/lib/x86_64-linux-gnu; do
    [[ -e $d/$lib ]] && { cp -L "$d/$lib" "$root/.carry/lib-mpi/"; break; }
  done
done
git -C "$root" rev-parse --short HEAD > "$root/.carry/COMMIT"
if [[ -n ${BASE_BUILD:-} ]]; then
  mkdir -p "$root/.carry/base"
  cp "$BASE_BUILD"/bin/*_bench "$root/.carry/base/"
  strip "$root/.carry/base/"*
  git -C "$BASE_BUILD/.." rev-parse --short HEAD > "$root/.carry/base/COMMIT"
  tar -cf - -C "$root/.carry" base | xz -9e -T2 >"$root/.carry/base.tar.xz" && rm -rf "$root/.carry/base"
fi
du -sh "$root/.carry"
