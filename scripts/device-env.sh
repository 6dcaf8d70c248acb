# shellcheck shell=bash disable=SC2034
# The carried build's environment on the GPU machine, sourced by gpu-run.sh and
# gpu-sanitize.sh with ROOT and CARRY set: the build unpacked (scripts/pack-for-device.sh), its
# libraries, Open MPI and NCCL found, MM_BIN / MM_ROOT and what the CLI tests take; B is the
# binaries' folder.
[[ -f $CARRY/bin.tar.xz && ! -d $CARRY/bin ]] && tar -xJf "$CARRY/bin.tar.xz" -C "$CARRY"
[[ -f $CARRY/base.tar.xz && ! -d $CARRY/base ]] && tar -xJf "$CARRY/base.tar.xz" -C "$CARRY"
export LD_LIBRARY_PATH="$CARRY/lib:/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
# The carried Open MPI only where the machine has none (pack-for-device.sh).
ldconfig -p | grep -q 'libmpi\.so\.40 ' || LD_LIBRARY_PATH+=":$CARRY/lib-mpi"
# NCCL (--comm nccl loads libnccl.so.2 at run time) where the machine keeps it off the default
# path: the GPU machine's copy comes with its PyTorch environment.
if ! ldconfig -p | grep -q 'libnccl\.so\.2 '; then
  for d in /opt/torch/.venv/lib/python3*/site-packages/nvidia/nccl/lib; do
    [[ -e $d/libnccl.so.2 ]] && LD_LIBRARY_PATH+=":$d"
  done
fi
export MM_BIN="$CARRY/bin" MM_ROOT="$ROOT" MM_PYTHON=${MM_PYTHON:-python3}
# What CTest passes the CLI tests: the O_TMPFILE-refusing shim (output.sh's fallback path) and
# mpirun with its flags (the distributed tests; Open MPI: more ranks than cores, quiet).
export MM_NO_TMPFILE="$CARRY/bin/mm_no_tmpfile.so"
command -v mpirun > /dev/null && export MM_MPIEXEC="mpirun --oversubscribe -q"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
B=$MM_BIN

# finish SUMMARY NAME TAR DIR STATUS: the script's last step. Where the device tool's $OUT is set,
# SUMMARY is copied there as NAME and DIR's logs packed as TAR, so that they come back; then
# exits with STATUS.
finish() {
  if [[ -n ${OUT:-} ]]; then
    cp "$1" "$OUT/$2"
    tar -czf "$OUT/$3" -C "$4" .
  fi
  exit "$5"
}
