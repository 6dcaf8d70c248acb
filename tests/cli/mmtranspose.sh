# mmtranspose through the real binary: every mode and impl against SciPy's mmread(A).T,
# pipes and '-', fields kept (integer exact, pattern), exit codes, bad input leaving nothing.
source "$(dirname "$0")/common.bash"
# CUDA implementations run where a GPU exists (the GPU machine), CPU ones everywhere.
gpu=$(nvidia-smi -L >/dev/null 2>&1 && echo 1 || true)

# ---- usage, listing, devices ------------------------------------------------------------------
expect_exit 0 mmtranspose --help
for ex in "mmtranspose A.mtx -o" "--conjugate" "--in-place" "--list-impls"; do
  grep -q -- "$ex" "$TMP/out" && pass "--help mentions $ex" || fail "--help lacks $ex"
done
grep -q "flops = 0" "$TMP/out" && pass "--help states the work formula" || fail "--help lacks the formula"
expect_exit 0 mmtranspose --list-impls
for impl in cpu-blocked cpu-inplace cpu-csr2csc ref; do
  grep -Eq "^$impl +cpu " "$TMP/out" && pass "--list-impls lists $impl" || fail "--list-impls lacks $impl"
done
# One name a kernel: cuda-tiled is float's own kernel; every other type runs tiled32's kernel,
# listed once as cuda-tiled32 (binaries built without CUDA list no CUDA implementation).
if grep -q '^cublas ' "$TMP/out"; then
  ! grep -q '^cuda-tiled ' "$TMP/out" && grep -q '^cuda-tiled32 ' "$TMP/out" &&
    pass "--list-impls (double): cuda-tiled32, no second name for it" || fail "--list-impls: $(cat "$TMP/out")"
  expect_exit 0 mmtranspose --list-impls --precision single
  grep -Eq '^cuda-tiled +cuda .*swizzled' "$TMP/out" && grep -q '^cuda-tiled32 ' "$TMP/out" &&
    pass "--list-impls --precision single: cuda-tiled and cuda-tiled32" || fail "--list-impls --precision single: $(cat "$TMP/out")"
  expect_exit 2 mmtranspose "$CORPUS/full.mtx" --impl cuda-tiled
  expect_stderr "unknown --impl 'cuda-tiled'"
else
  echo "skip: these binaries were built without CUDA (no CUDA implementation listed)"
fi
expect_exit 2 mmtranspose
expect_exit 2 mmtranspose "$CORPUS/c.mtx" "$CORPUS/c.mtx"
expect_exit 2 mmtranspose "$CORPUS/lp_afiro.mtx" --impl bogus
expect_stderr "unknown --impl 'bogus'"
expect_exit 2 mmtranspose "$CORPUS/lp_afiro.mtx" --impl cpu-blocked  # a dense impl for a sparse file
expect_exit 2 mmtranspose "$CORPUS/full.mtx" --impl cpu-inplace      # needs --in-place
expect_stderr "in-place"
expect_exit 2 mmtranspose "$CORPUS/full.mtx" --precision half
if [[ -z $gpu ]]; then
  expect_exit 4 mmtranspose "$CORPUS/lp_afiro.mtx" --device cuda
else
  expect_exit 0 mmtranspose "$CORPUS/lp_afiro.mtx" --device cuda -q --timing "$TMP/g.jsonl"
  expect_exit 0 mmtranspose "$CORPUS/full.mtx" --device cuda -q --timing "$TMP/g.jsonl"
  expect_exit 0 mmtranspose "$CORPUS/full.mtx" --device cuda --in-place -q --timing "$TMP/g.jsonl"
  "$PY" - "$TMP/g.jsonl" "$(nvidia-smi -L | head -1)" <<'EOF' && pass "--device cuda: default impls, GPU named, transfers apart" || fail "--device cuda record: $(cat "$TMP/g.jsonl")"
import json, sys
r = [json.loads(l) for l in open(sys.argv[1])]
assert [j["impl"] for j in r] == ["cuda-csr2csc", "cuda-tiled32", "cuda-inplace"], [j["impl"] for j in r]
for j in r:
    assert j["device"] in sys.argv[2], (j["device"], sys.argv[2])
    assert all(k in j["phases"] for k in ("h2d", "compute", "d2h")), j["phases"]
EOF
fi
expect_exit 0 mmtranspose "$CORPUS/lp_afiro.mtx" --device cpu -o "$TMP/dev.mtx"

# ---- every corpus file, every mode and impl: outputs collected for SciPy ----------------------
mkdir -p "$TMP/sp"
: >"$TMP/sp/list"
run_case() {  # NAME CONJ(0|1) FILE ARGS...
  local name=$1 conj=$2 file=$3
  shift 3
  expect_exit 0 mmtranspose "$file" "$@" -o "$TMP/sp/$name.mtx"
  echo "$TMP/sp/$name.mtx $conj $file" >>"$TMP/sp/list"
}
for f in "$CORPUS"/*.mtx; do
  b=$(basename "$f" .mtx)
  fmt=$(sed -n '1s/^%%MatrixMarket matrix \([a-z]*\).*/\1/p' "$f")
  field=$(sed -n '1s/^%%MatrixMarket matrix [a-z]* \([a-z]*\).*/\1/p' "$f")
  if [[ $fmt == coordinate ]]; then impls="cpu-csr2csc ref"; else impls="cpu-blocked ref"; fi
  if [[ -n $gpu && $fmt == coordinate ]]; then impls+=" cusparse cuda-csr2csc cuda-scatter"; fi
  if [[ -n $gpu && $fmt == array ]]; then impls+=" cuda-tiled32 cuda-naive"; fi
  # cuda-tiled64 moves pairs of real values: float and double only.
  if [[ -n $gpu && $fmt == array && $field != complex ]]; then impls+=" cuda-tiled64"; fi
  # cuBLAS computes 1*a: not offered for integer values, and complex inf may come back NaN.
  if [[ -n $gpu && $fmt == array && $field == real ]]; then impls+=" cublas"; fi
  for impl in $impls; do
    run_case "$b.$impl" 0 "$f" --impl "$impl"
    run_case "$b.$impl.conj" 1 "$f" --impl "$impl" --conjugate
  done
  # square arrays in place too, after an even number of runs (the runner's parity fix)
  if [[ $fmt == array ]] && read -r r c < <(grep -v '^%' "$f" | head -1) && [[ $r == "$c" ]]; then
    run_case "$b.inplace" 0 "$f" --in-place --repeat 2
    run_case "$b.inplace.conj" 1 "$f" --in-place --impl ref --conjugate --repeat 3
    if [[ -n $gpu ]]; then
      run_case "$b.cuda-inplace" 0 "$f" --in-place --impl cuda-inplace --repeat 2
      run_case "$b.cuda-inplace.conj" 1 "$f" --in-place --impl cuda-inplace --conjugate --repeat 3
    fi
  fi
done
# Non-square arrays and complex values in every mode, made here.
mmgen dense --rows 37 --cols 53 --seed 4 -o "$TMP/rect.mtx"
mmgen dense --rows 70 --cols 70 --field complex --seed 5 -o "$TMP/sqc.mtx"
mmgen sparse --rows 300 --cols 170 --density 0.05 --field complex --seed 6 -o "$TMP/spc.mtx"
run_case rect 0 "$TMP/rect.mtx"
run_case rect.ref 0 "$TMP/rect.mtx" --impl ref
run_case sqc.inplace.conj 1 "$TMP/sqc.mtx" --in-place --conjugate --threads 2
run_case sqc.blocked.conj 1 "$TMP/sqc.mtx" --conjugate
run_case spc.conj 1 "$TMP/spc.mtx" --conjugate
run_case spc.ref 0 "$TMP/spc.mtx" --impl ref --repeat 4
if [[ -n $gpu ]]; then
  for impl in cuda-tiled32 cuda-naive cublas; do
    run_case "rect.$impl" 0 "$TMP/rect.mtx" --impl "$impl"
    run_case "sqc.$impl.conj" 1 "$TMP/sqc.mtx" --impl "$impl" --conjugate
  done
  # float's own cuda-tiled (even sides: 2x2 blocks in registers; odd: as tiled32) moves the
  # rounded values bit for bit, as the CPU does in single precision.
  mmgen dense --rows 70 --cols 134 --seed 7 -o "$TMP/even.mtx"
  for f in even rect; do
    mmtranspose "$TMP/$f.mtx" --precision single --impl cpu-blocked -o "$TMP/$f.single.mtx"
    expect_exit 0 mmtranspose "$TMP/$f.mtx" --precision single --impl cuda-tiled -o "$TMP/$f.tiled.mtx"
    same_files "$TMP/$f.tiled.mtx" "$TMP/$f.single.mtx"
  done
  run_case sqc.cuda-inplace.conj 1 "$TMP/sqc.mtx" --in-place --impl cuda-inplace --conjugate
  for impl in cusparse cuda-csr2csc cuda-scatter; do
    run_case "spc.$impl.conj" 1 "$TMP/spc.mtx" --impl "$impl" --conjugate --repeat 2
  done
fi

# SciPy's own reading of A, transposed by NumPy, against our file as SciPy reads it: the same
# shape, dtype kind, format, field, and bit-equal values (nan where nan); coordinate output
# sorted by row then column and symmetric kinds kept as such.
while read -r verdict msg; do
  if [[ $verdict == PASS ]]; then pass "$msg"; else fail "$msg"; fi
done < <("$PY" - "$TMP/sp/list" <<'EOF'
import sys, numpy as np, scipy.io as sio, scipy.sparse as sp
def canonical(m):  # sparse: CSR, duplicates summed, zeros dropped (as a dense comparison sees it)
    m = m.tocsr(copy=True)
    m.sum_duplicates()
    m.eliminate_zeros()
    m.sort_indices()
    return m
def same(got, want):  # the same values (nan where nan), compared sparse where both are
    if got.shape != want.shape or got.dtype.kind != want.dtype.kind:
        return False
    if sp.issparse(got) and sp.issparse(want):
        g, w = canonical(got), canonical(want)
        return (np.array_equal(g.indptr, w.indptr) and np.array_equal(g.indices, w.indices)
                and np.array_equal(g.data, w.data, equal_nan=True))
    dense = lambda m: m.toarray() if sp.issparse(m) else np.asarray(m)
    return np.array_equal(dense(got), dense(want), equal_nan=True)
read = {}  # each source read once
for line in open(sys.argv[1]):
    out, conj, src = line.split()
    name = out.rsplit("/", 1)[1]
    try:
        if src not in read:
            read[src] = sio.mmread(src)
        want = read[src].T
        if conj == "1":
            want = want.conj()
        got = sio.mmread(out)
        ia, ib = sio.mminfo(src), sio.mminfo(out)
        ok = same(got, want)
        ok = ok and ia[3] == ib[3] and ia[4] == ib[4]  # format and field kept
        ok = ok and ib[5] == ia[5]  # symmetric kinds come back as such
        if ib[3] == "coordinate":
            with open(out) as f:
                lines = [l for l in f if not l.startswith("%")][1:]
            keys = [tuple(int(t) for t in l.split()[:2]) for l in lines]
            ok = ok and keys == sorted(keys)
        print("PASS" if ok else "FAIL", f"{name} == scipy mmread(A).T{'.conj()' if conj == '1' else ''}"
              + ("" if ok else f" (shape {got.shape} vs {want.shape}, info {ib} vs {ia})"))
    except Exception as e:
        print("FAIL", f"{name}: {e!r}")
EOF
)
[[ $(wc -l <"$TMP/sp/list") -ge 100 ]] && pass "SciPy compared $(wc -l <"$TMP/sp/list") outputs" ||
  fail "only $(wc -l <"$TMP/sp/list") outputs compared"

# ---- pipes and '-': transposing twice gives A back ---------------------------------------------
mmgen sparse --rows 500 --cols 200 --nnz-per-row 7 --seed 3 | mmtranspose - | mmtranspose - -o "$TMP/twice.mtx"
mmgen sparse --rows 500 --cols 200 --nnz-per-row 7 --seed 3 -o "$TMP/once.mtx"
expect_exit 0 mmcheck compare "$TMP/twice.mtx" "$TMP/once.mtx" --rtol 0
mmgen dense --rows 40 --cols 9 --seed 2 | mmtranspose - --impl ref | mmtranspose - >"$TMP/dtwice.mtx"
mmgen dense --rows 40 --cols 9 --seed 2 -o "$TMP/donce.mtx"
same_files "$TMP/dtwice.mtx" "$TMP/donce.mtx"
mmtranspose "$CORPUS/young1c.mtx" --conjugate | mmtranspose - --conjugate -o "$TMP/y2.mtx"
expect_exit 0 mmcheck compare "$TMP/y2.mtx" "$CORPUS/young1c.mtx" --rtol 0
# --precision single rounds values to float and says so only through the values
expect_exit 0 mmtranspose "$CORPUS/lp_afiro.mtx" --precision single -o "$TMP/single.mtx"
expect_exit 0 mmcheck compare "$TMP/single.mtx" "$TMP/sp/lp_afiro.ref.mtx" --rtol 1e-6

# ---- fields: integer exact beyond 2^53, pattern stays pattern ----------------------------------
printf '%%%%MatrixMarket matrix coordinate integer general\n2 3 2\n1 3 9007199254740993\n2 1 -5\n' >"$TMP/int.mtx"
expect_exit 0 mmtranspose "$TMP/int.mtx" --precision single
printf '%%%%MatrixMarket matrix coordinate integer general\n3 2 2\n1 2 -5\n3 1 9007199254740993\n' >"$TMP/int_t.mtx"
same_files "$TMP/out" "$TMP/int_t.mtx"
printf '%%%%MatrixMarket matrix array integer general\n2 2\n1\n9007199254740993\n3\n4\n' >"$TMP/inta.mtx"
expect_exit 0 mmtranspose "$TMP/inta.mtx" --in-place
printf '%%%%MatrixMarket matrix array integer general\n2 2\n1\n3\n9007199254740993\n4\n' >"$TMP/inta_t.mtx"
same_files "$TMP/out" "$TMP/inta_t.mtx"
printf '%%%%MatrixMarket matrix coordinate pattern general\n2 4 3\n2 4\n1 2\n1 4\n' >"$TMP/pat.mtx"
expect_exit 0 mmtranspose "$TMP/pat.mtx"
printf '%%%%MatrixMarket matrix coordinate pattern general\n4 2 3\n2 1\n4 1\n4 2\n' >"$TMP/pat_t.mtx"
same_files "$TMP/out" "$TMP/pat_t.mtx"
# duplicates summed, explicit zeros kept
printf '%%%%MatrixMarket matrix coordinate real general\n2 2 3\n1 2 1.5\n1 2 2\n2 1 0\n' >"$TMP/dup.mtx"
expect_exit 0 mmtranspose "$TMP/dup.mtx"
printf '%%%%MatrixMarket matrix coordinate real general\n2 2 2\n1 2 0\n2 1 3.5\n' >"$TMP/dup_t.mtx"
same_files "$TMP/out" "$TMP/dup_t.mtx"

# ---- timing record -----------------------------------------------------------------------------
expect_exit 0 mmtranspose "$TMP/rect.mtx" -q --repeat 3 --warmup 1 --timing "$TMP/t.jsonl" --device cpu
[[ ! -s $TMP/out ]] && pass "-q writes no matrix" || fail "-q wrote output"
"$PY" - "$TMP/t.jsonl" <<'EOF' && pass "timing record: impl, flops 0, bytes 2*37*53*8" || fail "timing record: $(cat "$TMP/t.jsonl")"
import json, sys
j = json.loads(open(sys.argv[1]).read().splitlines()[-1])
assert j["tool"] == "mmtranspose" and j["impl"] == "cpu-blocked", j
assert j["flops"] == 0 and j["bytes"] == 2 * 37 * 53 * 8, j
assert j["phases"]["compute"]["repeats"] == 3, j
EOF

# ---- bad input: exit 3, nothing written, an existing target untouched ---------------------------
echo "keep me" >"$TMP/target.mtx"
for bad in "$MM_ROOT"/tests/bad/entry_complex_too_few.mtx "$MM_ROOT"/tests/bad/banner_no_field.mtx; do
  expect_exit 3 mmtranspose "$bad" -o "$TMP/target.mtx"
  [[ $(cat "$TMP/target.mtx") == "keep me" ]] && pass "target untouched after $(basename "$bad")" ||
    fail "target changed after $(basename "$bad")"
  expect_exit 3 mmtranspose "$bad" -o "$TMP/new.mtx"
  [[ ! -e $TMP/new.mtx ]] && pass "no output file after $(basename "$bad")" || fail "output file left"
done
expect_exit 3 mmtranspose "$TMP/no-such-file.mtx" -o "$TMP/new.mtx"
expect_exit 3 mmtranspose "$CORPUS/lp_afiro.mtx" --in-place -o "$TMP/target.mtx"
expect_stderr "in-place needs a dense"
expect_exit 3 mmtranspose "$TMP/rect.mtx" --in-place -o "$TMP/target.mtx"
expect_stderr "square"
[[ $(cat "$TMP/target.mtx") == "keep me" ]] && pass "target untouched after refused --in-place" ||
  fail "target changed after refused --in-place"
printf '%%%%MatrixMarket matrix coordinate real general\n2 2 1\n3 1 1\n' >"$TMP/badrow.mtx"
expect_exit 3 mmtranspose - -o "$TMP/new.mtx" <"$TMP/badrow.mtx"
expect_stderr ':3: row index 3 out of range'
[[ ! -e $TMP/new.mtx ]] && pass "no output file after bad stdin" || fail "output file left after bad stdin"

finish
