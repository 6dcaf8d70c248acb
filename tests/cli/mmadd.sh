# CLI tests of mmadd: every operand mix against SciPy, pipes and '-', fields, exit codes, bad input.
source "$MM_ROOT/tests/cli/common.bash"
# CUDA implementations run where a GPU exists (the GPU machine), CPU ones everywhere.
gpu=$(nvidia-smi -L >/dev/null 2>&1 && echo 1 || true)

# scipy_add A B ALPHA BETA OUT: OUT = ALPHA*A + BETA*B by SciPy (scales as mmadd takes them:
# a number or re,im). mmread expands symmetry; sparse + sparse stays sparse, anything with a
# dense operand is dense; mmwrite writes the result.
scipy_add() {
  $PY - "$@" <<'PYEOF'
import sys, numpy as np, scipy.io, scipy.sparse as sp
def scale(s):
    if "," in s:
        re, im = s.split(",")
        return complex(float(re), float(im))
    return float(s)
a, b = scipy.io.mmread(sys.argv[1]), scipy.io.mmread(sys.argv[2])
al, be = scale(sys.argv[3]), scale(sys.argv[4])
if sp.issparse(a) and sp.issparse(b):
    c = sp.coo_matrix(al * sp.csr_matrix(a) + be * sp.csr_matrix(b))
else:
    c = al * (a.toarray() if sp.issparse(a) else a) + be * (b.toarray() if sp.issparse(b) else b)
scipy.io.mmwrite(sys.argv[5], c)
PYEOF
}

# scipy_transpose IN OUT: the transpose of IN (symmetry expanded), written by SciPy.
scipy_transpose() {
  $PY -c "import sys, scipy.io, scipy.sparse as sp; m = scipy.io.mmread(sys.argv[1]); \
scipy.io.mmwrite(sys.argv[2], sp.coo_matrix(m).T if sp.issparse(m) else m.T)" "$1" "$2"
}

# check_sum A B ALPHA BETA RTOL [mmadd options...]: mmadd against SciPy via mmcheck compare.
check_sum() {
  local a=$1 b=$2 al=$3 be=$4 rtol=$5
  shift 5
  scipy_add "$a" "$b" "$al" "$be" "$TMP/want.mtx"
  if mmadd "$a" "$b" --alpha "$al" --beta "$be" "$@" -o "$TMP/got.mtx" 2>"$TMP/cmp" &&
    mmcheck compare "$TMP/got.mtx" "$TMP/want.mtx" --rtol "$rtol" --atol "${ATOL:-1e-300}" >"$TMP/cmp" 2>&1; then
    pass "$(basename "$a") + $(basename "$b") (alpha $al, beta $be $*) matches SciPy"
  else
    fail "$(basename "$a") + $(basename "$b") (alpha $al, beta $be $*): $(head -c 600 "$TMP/cmp")"
  fi
}

banner() { head -1 "$1" | tr -s ' '; }
expect_banner() {
  if [[ $(banner "$1") == "$2" ]]; then pass "$3"; else fail "$3: banner $(banner "$1")"; fi
}

# --- inputs -----------------------------------------------------------------------------
mmgen dense --rows 40 --cols 30 --seed 1 -o "$TMP/d1.mtx"
mmgen dense --rows 40 --cols 30 --seed 2 --lo -3 --hi 3 -o "$TMP/d2.mtx"
mmgen dense --rows 300 --cols 300 --seed 3 -o "$TMP/d300.mtx"
mmgen sparse --rows 40 --cols 30 --density 0.2 --seed 4 -o "$TMP/s1.mtx"
mmgen sparse --rows 300 --cols 300 --nnz-per-row 30 --seed 5 -o "$TMP/s300.mtx"
mmgen spd --n 300 --seed 6 -o "$TMP/spd300.mtx" # symmetric, lower triangle stored
mmgen sparse --n 2873 --nnz-per-row 5 --seed 7 -o "$TMP/s2873.mtx"
mmgen dense --rows 67 --cols 67 --seed 8 -o "$TMP/d67.mtx"
mmgen sparse --n 400 --nnz-per-row 8 --field integer --seed 9 -o "$TMP/i400a.mtx"
mmgen sparse --n 400 --nnz-per-row 8 --field integer --seed 10 -o "$TMP/i400b.mtx"
scipy_transpose "$CORPUS/west0479.mtx" "$TMP/west0479T.mtx"
scipy_transpose "$CORPUS/young1c.mtx" "$TMP/young1cT.mtx"

# --- every operand mix against SciPy ----------------------------------------------------
check_sum "$TMP/d1.mtx" "$TMP/d2.mtx" 2 -0.5 1e-15                      # dense + dense
check_sum "$TMP/d300.mtx" "$TMP/d300.mtx" 1 1 1e-15                     # large enough for threads
check_sum "$CORPUS/west0479.mtx" "$TMP/west0479T.mtx" 1.5 -2 1e-15      # sparse + its transpose
check_sum "$CORPUS/zenios.mtx" "$TMP/s2873.mtx" -1 3 1e-15              # symmetric + general
check_sum "$TMP/spd300.mtx" "$TMP/s300.mtx" 1 1 1e-15                   # generated symmetric
check_sum "$CORPUS/bcsstk13.mtx" "$CORPUS/bcsstk13.mtx" 0.5 0.5 1e-15   # large: cpu-sparse
check_sum "$TMP/d1.mtx" "$TMP/s1.mtx" 3 -1 1e-15                        # dense + sparse
check_sum "$TMP/s1.mtx" "$TMP/d2.mtx" 3 -1 1e-15                        # sparse + dense
check_sum "$CORPUS/west0067.mtx" "$TMP/d67.mtx" 1 2 1e-15               # corpus sparse + dense
check_sum "$TMP/d300.mtx" "$TMP/spd300.mtx" 1 -1 1e-15                  # dense + symmetric, cpu
check_sum "$CORPUS/young1c.mtx" "$TMP/young1cT.mtx" 0.5,1 -1 1e-15      # complex, complex alpha
check_sum "$CORPUS/young1c.mtx" "$TMP/young1cT.mtx" 2 -1 1e-15          # complex, real scales
check_sum "$CORPUS/c.mtx" "$CORPUS/c.mtx" 1 0,1 1e-15                   # hermitian, complex beta
check_sum "$CORPUS/west0067.mtx" "$CORPUS/west0067.mtx" 1 2,-1 1e-15    # real made complex
check_sum "$CORPUS/lp_afiro.mtx" "$CORPUS/lp_afiro.mtx" 1 -1 1e-15      # rectangular, cancels
check_sum "$CORPUS/skew_fp64.mtx" "$CORPUS/skew_fp64.mtx" 1 2 1e-15     # skew-symmetric
check_sum "$CORPUS/complex.mtx" "$CORPUS/complex.mtx" 2 1 1e-15         # complex array
check_sum "$CORPUS/full_symmetric.mtx" "$CORPUS/full_symmetric.mtx" 1 -3 1e-15 # symmetric array
check_sum "$CORPUS/dwt_992.mtx" "$CORPUS/dwt_992.mtx" 1 1 1e-15         # pattern symmetric
for impl in ref cpu openblas; do
  check_sum "$TMP/d300.mtx" "$TMP/d300.mtx" -1.25 0.75 1e-15 --impl "$impl"
done
for impl in ref-sparse cpu-sparse; do
  check_sum "$CORPUS/west0479.mtx" "$TMP/west0479T.mtx" 1 1 1e-15 --impl "$impl" --threads 2
done
for impl in ref cpu; do
  check_sum "$TMP/s300.mtx" "$TMP/d300.mtx" 2 1 1e-15 --impl "$impl"
done
check_sum "$TMP/d300.mtx" "$TMP/s300.mtx" 1 1 1e-6 --precision single
check_sum "$CORPUS/young1c.mtx" "$TMP/young1cT.mtx" 1 1 1e-6 --precision single

# --- CUDA implementations against SciPy, each on the operand kinds it lists -----------------
if [[ -n $gpu ]]; then
  mmgen dense --rows 1000 --cols 1001 --seed 11 -o "$TMP/d1000a.mtx"
  mmgen dense --rows 1000 --cols 1001 --seed 12 -o "$TMP/d1000b.mtx"
  while read -r impl line; do
    # The vendors may fuse a*x + b*y into one FMA: a nearly cancelled sum then differs from
    # SciPy's by an absolute, not a relative, rounding. The hand-written kernels never fuse.
    if [[ $impl == cublas || $impl == cusparse ]]; then ATOL=1e-13; else ATOL=1e-300; fi
    if [[ $line == *dense+dense* ]]; then
      check_sum "$TMP/d1000a.mtx" "$TMP/d1000b.mtx" -1.25 0.75 1e-15 --impl "$impl"
      check_sum "$TMP/d1.mtx" "$TMP/d2.mtx" 2 -0.5 1e-15 --impl "$impl"
      check_sum "$CORPUS/complex.mtx" "$CORPUS/complex.mtx" 2 0.5,1 1e-15 --impl "$impl"
      check_sum "$TMP/d300.mtx" "$TMP/d300.mtx" 1 -1 1e-6 --impl "$impl" --precision single
    fi
    if [[ $line == *dense+sparse* ]]; then
      check_sum "$TMP/s300.mtx" "$TMP/d300.mtx" 2 1 1e-15 --impl "$impl"
      check_sum "$TMP/d1.mtx" "$TMP/s1.mtx" 3 -1 1e-15 --impl "$impl"
      check_sum "$CORPUS/west0067.mtx" "$TMP/d67.mtx" 1 2,-1 1e-15 --impl "$impl"
    fi
    if [[ $line == *sparse+sparse* ]]; then
      check_sum "$CORPUS/west0479.mtx" "$TMP/west0479T.mtx" 1.5 -2 1e-15 --impl "$impl"
      check_sum "$CORPUS/zenios.mtx" "$TMP/s2873.mtx" -1 3 1e-15 --impl "$impl"
      check_sum "$CORPUS/young1c.mtx" "$TMP/young1cT.mtx" 0.5,1 -1 1e-15 --impl "$impl"
      check_sum "$CORPUS/lp_afiro.mtx" "$CORPUS/lp_afiro.mtx" 1 -1 1e-15 --impl "$impl"
      check_sum "$CORPUS/bcsstk13.mtx" "$CORPUS/bcsstk13.mtx" 0.5 0.5 1e-6 --impl "$impl" --precision single
      mmadd "$CORPUS/bayer10.mtx" "$CORPUS/bayer10.mtx" --impl ref-sparse --beta -0.5 -o "$TMP/r.mtx"
      mmadd "$CORPUS/bayer10.mtx" "$CORPUS/bayer10.mtx" --impl "$impl" --beta -0.5 -o "$TMP/g.mtx"
      same_files "$TMP/r.mtx" "$TMP/g.mtx"
    fi
  done < <(mmadd --list-impls --all | awk '$2 == "cuda" {print}')
  ATOL=1e-300
  # The defaults on the GPU, and the record: kernel time apart from the transfers, the GPU named.
  mmadd "$TMP/d1000a.mtx" "$TMP/d1000b.mtx" --device cuda -q --repeat 3 --timing "$TMP/g.jsonl"
  mmadd "$TMP/s300.mtx" "$TMP/s300.mtx" --device cuda -q --timing "$TMP/g.jsonl"
  mmadd "$TMP/s300.mtx" "$TMP/d300.mtx" --device auto -q --timing "$TMP/g.jsonl"
  if $PY - "$TMP/g.jsonl" "$(nvidia-smi -L | head -1)" <<'PYEOF'; then
import json, sys
r = [json.loads(l) for l in open(sys.argv[1])]
assert [j["impl"] for j in r] == ["cuda-vec", "cuda-sparse", "cuda-vec"], [j["impl"] for j in r]
for j in r:
    assert j["device"] in sys.argv[2], (j["device"], sys.argv[2])
    assert all(k in j["phases"] for k in ("h2d", "compute", "d2h")), j["phases"]
PYEOF
    pass "--device cuda: cuda-vec / cuda-sparse by default, GPU named, transfers apart"
  else fail "--device cuda defaults or record: $(cat "$TMP/g.jsonl")"; fi
  mmgen dense --rows 1100 --cols 1000 --seed 13 -o "$TMP/d1100.mtx"  # 1.1M elements > 2^20
  expect_exit 3 mmadd "$TMP/d1100.mtx" "$TMP/d1100.mtx" --impl cuda-seq -o "$TMP/never.mtx"
  expect_stderr "cuda-seq runs on one GPU thread"
fi

# --- output form ------------------------------------------------------------------------
mmadd "$CORPUS/zenios.mtx" "$TMP/s2873.mtx" -o "$TMP/ss.mtx"
expect_banner "$TMP/ss.mtx" "%%MatrixMarket matrix coordinate real general" "sparse + sparse: coordinate general"
if $PY - "$TMP/ss.mtx" "$CORPUS/zenios.mtx" "$TMP/s2873.mtx" <<'PYEOF'; then
import sys, numpy as np, scipy.io, scipy.sparse as sp
rows, cols = np.loadtxt(sys.argv[1], comments="%", skiprows=2, usecols=(0, 1), dtype=np.int64).T
key = rows * 10**6 + cols
assert np.all(np.diff(key) > 0), "rows not in order, or columns not sorted and unique"
# The union of the stored patterns: ones in place of the values, so nothing cancels.
a, b = (sp.coo_matrix(scipy.io.mmread(f)) for f in sys.argv[2:4])
a.data[:] = 1
b.data[:] = 1
u = (sp.csr_matrix(a) + sp.csr_matrix(b)).tocoo()
assert len(key) == u.nnz, (len(key), u.nnz)
assert set(key) == set((u.row.astype(np.int64) + 1) * 10**6 + u.col + 1)
PYEOF
  pass "union of the patterns, columns sorted"
else fail "union pattern"; fi
mmadd "$TMP/d1.mtx" "$TMP/s1.mtx" -o "$TMP/ds.mtx"
expect_banner "$TMP/ds.mtx" "%%MatrixMarket matrix array real general" "dense + sparse: an array"
mmadd "$CORPUS/young1c.mtx" "$CORPUS/young1c.mtx" -o "$TMP/cc.mtx"
expect_banner "$TMP/cc.mtx" "%%MatrixMarket matrix coordinate complex general" "complex result"
mmadd "$TMP/i400a.mtx" "$TMP/i400b.mtx" --beta -3 -o "$TMP/ii.mtx"
expect_banner "$TMP/ii.mtx" "%%MatrixMarket matrix coordinate integer general" "integer sum stays integer"
check_sum "$TMP/i400a.mtx" "$TMP/i400b.mtx" 1 -3 0
mmadd "$TMP/i400a.mtx" "$TMP/i400b.mtx" --beta 0.5 -o "$TMP/ir.mtx"
expect_banner "$TMP/ir.mtx" "%%MatrixMarket matrix coordinate real general" "a fractional scale gives real"

# --- pipes, '-', stdout, gzip, and the implementations agreeing --------------------------
mmadd "$TMP/d300.mtx" "$TMP/s300.mtx" -o "$TMP/f.mtx"
mmgen dense --rows 300 --cols 300 --seed 3 | mmadd - "$TMP/s300.mtx" >"$TMP/p1.mtx"
same_files "$TMP/f.mtx" "$TMP/p1.mtx"
mmadd "$TMP/d300.mtx" - <"$TMP/s300.mtx" | cat >"$TMP/p2.mtx"
same_files "$TMP/f.mtx" "$TMP/p2.mtx"
gzip -c "$TMP/s300.mtx" >"$TMP/s300.mtx.gz"
mmadd "$TMP/d300.mtx" "$TMP/s300.mtx.gz" -o "$TMP/p3.mtx.gz"
gzip -dc "$TMP/p3.mtx.gz" >"$TMP/p3.mtx"
same_files "$TMP/f.mtx" "$TMP/p3.mtx"
mmadd "$CORPUS/bayer10.mtx" "$CORPUS/bayer10.mtx" --impl ref-sparse --beta -0.5 -o "$TMP/r.mtx"
mmadd "$CORPUS/bayer10.mtx" "$CORPUS/bayer10.mtx" --impl cpu-sparse --beta -0.5 --threads 2 -o "$TMP/c.mtx"
same_files "$TMP/r.mtx" "$TMP/c.mtx"
mmadd "$TMP/d300.mtx" "$TMP/d300.mtx" --impl ref --beta 3 -o "$TMP/r.mtx"
mmadd "$TMP/d300.mtx" "$TMP/d300.mtx" --impl cpu --beta 3 -o "$TMP/c.mtx"
same_files "$TMP/r.mtx" "$TMP/c.mtx"
status=0
mmadd "$CORPUS/bayer10.mtx" "$CORPUS/bayer10.mtx" 2>"$TMP/pipe.err" | head -c 100 >/dev/null ||
  status=${PIPESTATUS[0]}
if [[ $status == 0 && ! -s "$TMP/pipe.err" ]]; then pass "mmadd | head ends quietly"; else
  fail "mmadd | head: status $status, $(head -c 300 "$TMP/pipe.err")"; fi

# --- timing record, -q and the default by size -------------------------------------------
mmadd "$TMP/d300.mtx" "$TMP/d300.mtx" -q --repeat 3 --warmup 1 --timing "$TMP/t.jsonl" --device cpu >"$TMP/q.out"
if [[ ! -s "$TMP/q.out" ]]; then pass "-q writes no matrix"; else fail "-q wrote output"; fi
if $PY - "$TMP/t.jsonl" <<'PYEOF'; then
import json, sys
j = json.loads(open(sys.argv[1]).read().splitlines()[-1])
assert j["tool"] == "mmadd" and j["impl"] == "cpu", j
assert j["flops"] == 3 * 300 * 300 and j["bytes"] == 3 * 300 * 300 * 8, j
assert j["phases"]["compute"]["repeats"] == 3 and len(j["inputs"]) == 2, j
PYEOF
  pass "timing record: formula and phases"
else fail "timing record"; fi
default_impl() { mmadd "$1" "$2" -q --timing - --device cpu "${@:3}" 2>&1 | sed -n 's/.*"impl":"\([^"]*\)".*/\1/p'; }
[[ $(default_impl "$TMP/d1.mtx" "$TMP/d1.mtx") == ref ]] && pass "small dense: ref" || fail "small dense default"
[[ $(default_impl "$CORPUS/west0067.mtx" "$CORPUS/west0067.mtx") == ref-sparse ]] &&
  pass "small sparse: ref-sparse" || fail "small sparse default"
[[ $(default_impl "$CORPUS/bayer10.mtx" "$CORPUS/bayer10.mtx" --threads 4) == cpu-sparse ]] &&
  pass "large sparse, 4 threads: cpu-sparse" || fail "large sparse default, 4 threads"
[[ $(default_impl "$CORPUS/bayer10.mtx" "$CORPUS/bayer10.mtx" --threads 2) == ref-sparse ]] &&
  pass "large sparse, 2 threads: ref-sparse" || fail "large sparse default, 2 threads"
[[ $(default_impl "$TMP/s300.mtx" "$TMP/d300.mtx") == cpu ]] && pass "large mixed: cpu" || fail "large mixed default"

# --- listing and help ---------------------------------------------------------------------
expect_exit 0 mmadd --list-impls
for i in "cpu " openblas "ref " cpu-sparse ref-sparse; do
  if grep -q "^$i" "$TMP/out"; then pass "--list-impls shows $i"; else fail "--list-impls lacks $i"; fi
done
if grep -q "sparse+sparse" "$TMP/out" && grep -q "dense+sparse" "$TMP/out"; then
  pass "--list-impls shows operand kinds"
else fail "--list-impls shows no operand kinds"; fi
expect_exit 0 mmadd --help
if grep -q "Examples" "$TMP/out" && grep -q "3\*rows\*cols" "$TMP/out"; then
  pass "--help: formula and examples"
else fail "--help lacks formula or examples"; fi

# --- bad input: exit 3, a message, nothing written, an existing target untouched ---------
echo "precious" >"$TMP/keep.mtx"
expect_exit 3 mmadd "$CORPUS/west0067.mtx" "$CORPUS/lp_afiro.mtx" -o "$TMP/keep.mtx"
expect_stderr "67 x 67.*27 x 51"
expect_exit 3 mmadd "$TMP/d1.mtx" "$TMP/d67.mtx" -o "$TMP/never.mtx"
expect_stderr "40 x 30.*67 x 67"
expect_exit 3 mmadd "$TMP/d1.mtx" "$CORPUS/lp_afiro.mtx" -o "$TMP/never.mtx"
for bad in entry_real_too_many.mtx index_row_past.mtx empty_file.mtx banner_unknown_format.mtx; do
  expect_exit 3 mmadd "$CORPUS/full.mtx" "$MM_ROOT/tests/bad/$bad" -o "$TMP/never.mtx"
  expect_stderr "$bad"
  expect_exit 3 mmadd "$MM_ROOT/tests/bad/$bad" "$CORPUS/full.mtx" -o "$TMP/keep.mtx"
done
expect_exit 3 mmadd "$TMP/nosuch.mtx" "$CORPUS/full.mtx" -o "$TMP/never.mtx"
expect_exit 3 mmadd "$CORPUS/west0067.mtx" "$CORPUS/west0067.mtx" --impl openblas -o "$TMP/keep.mtx"
expect_stderr "openblas handles dense\+dense, not sparse\+sparse"
expect_exit 3 mmadd "$TMP/d1.mtx" "$TMP/d1.mtx" --impl cpu-sparse -o "$TMP/never.mtx"
if [[ ! -e "$TMP/never.mtx" && $(cat "$TMP/keep.mtx") == precious ]]; then
  pass "bad input: nothing written, the existing target untouched"
else fail "bad input: output written or target changed"; fi

# --- usage and device errors ----------------------------------------------------------------
expect_exit 2 mmadd "$TMP/d1.mtx"
expect_exit 2 mmadd "$TMP/d1.mtx" "$TMP/d1.mtx" "$TMP/d1.mtx"
expect_exit 2 mmadd "$TMP/d1.mtx" "$TMP/d1.mtx" --alpha x
expect_stderr "--alpha must be a number"
expect_exit 2 mmadd "$TMP/d1.mtx" "$TMP/d1.mtx" --beta 1,
expect_exit 2 mmadd "$TMP/d1.mtx" "$TMP/d1.mtx" --impl nosuch
expect_exit 2 mmadd "$TMP/d1.mtx" "$TMP/d1.mtx" --precision half
if [[ -z $gpu ]]; then
  expect_exit 4 mmadd "$TMP/d1.mtx" "$TMP/d1.mtx" --device cuda -o "$TMP/never.mtx"
fi
if [[ ! -e "$TMP/never.mtx" ]]; then pass "nothing written on usage or device errors"; else
  fail "written on a usage or device error"; fi

finish
