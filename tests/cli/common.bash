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
# Whether the binaries carry AddressSanitizer (-DMM_SANITIZE=ON): its shadow memory cannot be
# mapped under `ulimit -v`, and a failed allocation ends the process instead of throwing, so the
# checks that rest on either run without the limit or skip, saying so.
asan_built=$(ldd "$MM_BIN/mmspmv" 2> /dev/null | grep -q libasan && echo 1 || true)

# The distributed tests' guard: without MPI (MM_MPIEXEC empty) the script skips, saying why.
require_mpi() {
  if [[ -z ${MM_MPIEXEC:-} ]]; then
    echo "skip: the tools were built without MPI (Debian: libopenmpi-dev openmpi-bin), no mpirun test"
    exit 0
  fi
}

# The iteration count the last run printed ("...: N iterations, ..." on stderr: mmsolve).
iters() { sed -n 's/.*: \([0-9]*\) iterations,.*/\1/p' "$TMP/err"; }

# close_rel X1 X2 BOUND: ||X2 - X1|| <= BOUND ||X1|| (2-norm over all entries, real or complex).
close_rel() {
  "$PY" - "$@" <<'PYEOF'
import sys, numpy as np, scipy.io
a = np.asarray(scipy.io.mmread(sys.argv[1])).astype(complex)
b = np.asarray(scipy.io.mmread(sys.argv[2])).astype(complex)
assert a.shape == b.shape, (a.shape, b.shape)
d = np.linalg.norm(b - a) / max(np.linalg.norm(a), 1e-300)
assert d <= float(sys.argv[3]), (sys.argv[2], d)
PYEOF
}

# mpi_same_solve NP... -- A b ARGS... [-- RANK_ARGS...]: mmsolve A b ARGS on each NP ranks (with
# RANK_ARGS, e.g. --partition metis) against one process (--device cpu): the run names its
# ranks, its iterations are within 2 of one process's and its x within 1000 tol (ARGS' --tol)
# by close_rel (these systems are well conditioned: cond(A) tol bounds the error of either x).
mpi_same_solve() {
  local nps=() args=() rank_args=() tol np want got what
  while [[ $1 != -- ]]; do nps+=("$1"); shift; done
  shift
  while (($#)) && [[ $1 != -- ]]; do args+=("$1"); shift; done
  if (($#)); then shift; rank_args=("$@"); fi
  what="${args[*]}${rank_args[*]:+ ${rank_args[*]}}"
  tol=$(echo "${args[@]}" | sed -n 's/.*--tol \([^ ]*\).*/\1/p')
  expect_exit 0 mmsolve --device cpu "${args[@]}" -o one.mtx
  want=$(iters)
  for np in "${nps[@]}"; do
    expect_exit 0 mpi_run "$np" mmsolve "${args[@]}" "${rank_args[@]}" -o "x$np.mtx"
    expect_stderr "\((cpu|ref), $np ranks?\): [0-9]+ iterations"
    got=$(iters)
    ((got - want <= 2 && want - got <= 2)) &&
      pass "$what on $np: $got iterations, one process $want" ||
      fail "$what on $np: $got iterations, one process $want"
    close_rel one.mtx "x$np.mtx" "$(awk "BEGIN {print 1000 * $tol}")" && pass "x on $np ranks" ||
      fail "$what on $np ranks: x differs"
  done
}

# convection_diffusion FILE: a nonsymmetric system, the 5-point Laplacian on a 30 x 30 grid with
# upwind convection (west and south -1.5, east and north -1, diagonal 5).
convection_diffusion() {
  awk 'BEGIN {
    m = 30; n = m * m; k = 0
    for (y = 0; y < m; y++) for (x = 0; x < m; x++) {
      i = y * m + x + 1
      e[k++] = i " " i " 5"
      if (x > 0) e[k++] = i " " i - 1 " -1.5"
      if (x < m - 1) e[k++] = i " " i + 1 " -1"
      if (y > 0) e[k++] = i " " i - m " -1.5"
      if (y < m - 1) e[k++] = i " " i + m " -1"
    }
    print "%%MatrixMarket matrix coordinate real general"
    print n, n, k
    for (j = 0; j < k; j++) print e[j]
  }' > "$1"
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

# expect_exit CODE CMD...: runs CMD (stdout to $TMP/out, or to $EXPECT_OUT where set; stderr to
# $TMP/err), checks its status.
expect_exit() {
  local want=$1 got=0
  shift
  "$@" >"${EXPECT_OUT:-$TMP/out}" 2>"$TMP/err" || got=$?
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
