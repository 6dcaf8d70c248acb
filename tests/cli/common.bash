# Shared helpers for the CLI tests (sourced by tests/cli/*.sh; not a test itself).
# The tests run the real binaries from $MM_BIN; $MM_ROOT is the source tree.
set -euo pipefail
: "${MM_BIN:?set by CTest}" "${MM_ROOT:?set by CTest}"
export PATH="$MM_BIN:$PATH"
PY=${MM_PYTHON:-/usr/bin/python3}  # a python3 with numpy and scipy (Debian's here)
CORPUS="$MM_ROOT/datasets/corpus"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fails=0
checks=0
# Whether the binaries were built with the CUDA backend (their CUDA implementations listed);
# a GPU to run them on is a separate question (nvidia-smi).
cuda_built=$(mmspmv --list-impls | awk '$2 == "cuda" {f = 1} END {if (f) print 1}')

# The distributed tests' guard: without MPI (MM_MPIEXEC empty) the script skips, saying why.
require_mpi() {
  if [[ -z ${MM_MPIEXEC:-} ]]; then
    echo "skip: the tools were built without MPI (Debian: libopenmpi-dev openmpi-bin), no mpirun test"
    exit 0
  fi
}

# mpi_run NP CMD...: CMD as NP ranks under mpirun (MM_MPIEXEC, set by CTest when the tools are
# built with MPI: mpirun and its flags; for Open MPI --oversubscribe, as CI has 2 cores, and -q,
# so that a tool's one message is all its stderr holds). Open MPI refuses root unless told; one
# OpenMP thread a rank. A job whose ranks fail ends at once, not after Open MPI's 1 s grace
# between SIGTERM and SIGKILL for ranks that have exited anyway.
mpi_run() {
  local np=$1
  shift
  OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1 \
    OMPI_MCA_odls_base_sigkill_timeout=0 \
    ${MM_MPIEXEC:?built without MPI} -n "$np" "$@"
}

pass() { checks=$((checks + 1)); echo "ok: $*"; }
fail() { checks=$((checks + 1)); fails=$((fails + 1)); echo "FAIL: $*" >&2; }

# expect_exit CODE CMD...: runs CMD (stdout to $TMP/out, stderr to $TMP/err), checks its status.
expect_exit() {
  local want=$1 got=0
  shift
  "$@" >"$TMP/out" 2>"$TMP/err" || got=$?
  if [[ $got == "$want" ]]; then pass "$* -> exit $want"; else
    fail "$* -> exit $got, expected $want; stderr: $(head -c 600 "$TMP/err")"; fi
}

# expect_stderr REGEX: the last expect_exit's stderr matches REGEX.
expect_stderr() {
  if grep -Eq -- "$1" "$TMP/err"; then pass "stderr matches /$1/"; else
    fail "stderr does not match /$1/: $(head -c 600 "$TMP/err")"; fi
}

# same_files A B: byte-identical.
same_files() {
  if cmp -s "$1" "$2"; then pass "$1 == $2"; else fail "$1 and $2 differ"; fi
}

finish() {
  echo "$checks checks, $fails failed"
  ((fails == 0))
}
