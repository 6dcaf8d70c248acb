#!/usr/bin/env bash
# mmspmv through the real binary: every implementation against SciPy on the corpus,
# pipes and stdin, alpha/beta/y0, generated x, bad input, --list-impls, timing record.
source "$(dirname "$0")/common.bash"
# CUDA implementations run where a GPU exists (the GPU machine), CPU ones everywhere.
impls=$(mmspmv --list-impls --all | awk -v gpu="$(nvidia-smi -L >/dev/null 2>&1 && echo 1)" '$2 == "cpu" || gpu {print $1}')
echo "implementations tested: $(echo $impls)"

# SciPy's y = alpha*A@x + beta*y0 for a corpus file, written as an n x 1 array.
scipy_spmv() {  # A x y0|- alpha beta out
  "$PY" - "$@" <<'PYEOF'
import sys, numpy as np, scipy.io
a, x, y0, alpha, beta, out = sys.argv[1:7]
A = scipy.io.mmread(a)
A = A.tocsr() if hasattr(A, "tocsr") else np.asarray(A)
xv = np.asarray(scipy.io.mmread(x)).ravel()
y = float(alpha) * (A @ xv)
if y0 != "-":
    y = y + float(beta) * np.asarray(scipy.io.mmread(y0)).ravel()
scipy.io.mmwrite(out, np.asarray(y).reshape(-1, 1), precision=17)
PYEOF
}

for name in bcsstk13 west0479 lp_afiro young1c dwt_992 skew_fp64 c full_symmetric cage5 zenios; do
  A="$CORPUS/$name.mtx"
  cols=$(mmcheck info "$A" --json | "$PY" -c 'import json,sys; print(json.load(sys.stdin)["cols"])')
  mmgen vector --n "$cols" --kind random --seed 4 -o "$TMP/x.mtx"
  scipy_spmv "$A" "$TMP/x.mtx" - 1 0 "$TMP/want.mtx"
  for impl in $impls; do
    sym=$(head -1 "$A" | awk '{print $5}')
    [[ $impl == cpu-sym && $sym == general ]] && continue
    expect_exit 0 mmspmv "$A" "$TMP/x.mtx" --impl "$impl" -o "$TMP/y.mtx"
    expect_exit 0 mmcheck compare "$TMP/y.mtx" "$TMP/want.mtx" --rtol 1e-10 --atol 1e-12
  done
done

# alpha, beta and y0 against SciPy.
A="$CORPUS/west0479.mtx"
mmgen vector --n 479 --kind random --seed 5 -o "$TMP/x.mtx"
mmgen vector --n 479 --kind range -o "$TMP/y0.mtx"
scipy_spmv "$A" "$TMP/x.mtx" "$TMP/y0.mtx" 2.5 -0.5 "$TMP/want.mtx"
expect_exit 0 mmspmv "$A" "$TMP/x.mtx" --alpha 2.5 --beta -0.5 --y0 "$TMP/y0.mtx" --repeat 3 -o "$TMP/y.mtx"
expect_exit 0 mmcheck compare "$TMP/y.mtx" "$TMP/want.mtx" --rtol 1e-12

# --x ones through a pipe: the row sums of a 5-point Laplacian (4 inside, 2..3 at the edge).
if mmgen poisson2d --n 30 | mmspmv - --x ones > "$TMP/rows.mtx"; then pass "pipe into mmspmv -"; else fail "pipe"; fi
"$PY" -c "
import numpy as np, scipy.io, sys
y = np.asarray(scipy.io.mmread('$TMP/rows.mtx')).ravel()
assert y.shape == (900,) and y.min() == 0 and y.max() == 2 and (y == 0).sum() == 28**2, (y.min(), y.max())
" && pass "poisson2d row sums" || fail "poisson2d row sums"

# Single precision: close to double in norm (||ys - yd|| / ||yd||, a few float eps). Not
# entry by entry: bcsstk13's rows cancel, and an entry that cancels keeps fewer digits.
expect_exit 0 mmspmv "$CORPUS/bcsstk13.mtx" --x random --precision single -o "$TMP/ys.mtx"
expect_exit 0 mmspmv "$CORPUS/bcsstk13.mtx" --x random -o "$TMP/yd.mtx"
mmcheck compare "$TMP/ys.mtx" "$TMP/yd.mtx" --json > "$TMP/cmp.json" || true
"$PY" -c "
import json; r = json.load(open('$TMP/cmp.json'))
assert 0 < r['rel_frobenius_error'] < 1e-6 and r['nnz_a'] == r['nnz_b'] == 2003, r
" && pass "single close to double" || fail "single vs double: $(cat "$TMP/cmp.json")"

# --x random --seed S is mmgen's vector: mmspmv A --x random --seed 3 multiplies exactly the x
# that mmgen vector --n <cols of A> --kind random --seed 3 writes (rectangular A: 27 x 51),
# in both precisions; the default seed is mmgen's too, and another seed is another vector.
R="$CORPUS/lp_afiro.mtx"
mmgen vector --n 51 --kind random --seed 3 -o "$TMP/x3.mtx"
for p in double single; do
  expect_exit 0 mmspmv "$R" --x random --seed 3 --precision $p -o "$TMP/yr.mtx"
  expect_exit 0 mmspmv "$R" "$TMP/x3.mtx" --precision $p -o "$TMP/yf.mtx"
  expect_exit 0 mmcheck compare "$TMP/yr.mtx" "$TMP/yf.mtx" --rtol 0
done
mmgen vector --n 51 --kind random -o "$TMP/x1.mtx"
expect_exit 0 mmspmv "$R" --x random -o "$TMP/yr.mtx"
expect_exit 0 mmspmv "$R" "$TMP/x1.mtx" -o "$TMP/yf.mtx"
expect_exit 0 mmcheck compare "$TMP/yr.mtx" "$TMP/yf.mtx" --rtol 0
expect_exit 0 mmspmv "$R" --x random --seed 3 -o "$TMP/y3.mtx"
expect_exit 1 mmcheck compare "$TMP/yr.mtx" "$TMP/y3.mtx" --rtol 1e-3

# Timing record: one JSON line with the phases and the work formula.
expect_exit 0 mmspmv "$CORPUS/bcsstk13.mtx" --x ones -q --repeat 5 --warmup 1 --device cpu --timing "$TMP/t.jsonl"
"$PY" -c "
import json; r = [json.loads(l) for l in open('$TMP/t.jsonl')]
assert len(r) == 1 and r[0]['tool'] == 'mmspmv' and r[0]['impl'] == 'cpu-csr', r
p = r[0]['phases']; assert p['compute']['repeats'] == 5 and p['compute']['median'] > 0 and 'read' in p
assert r[0]['flops'] == 2 * (2 * 42943 - 2003), r[0]['flops']
" && pass "timing record" || fail "timing record: $(cat "$TMP/t.jsonl")"
[[ ! -s $TMP/out ]] && pass "-q writes no matrix" || fail "-q wrote output"

# Bad input: wrong vector length, not a vector, unknown impl, cpu-sym on a general file, malformed A.
echo "old" > "$TMP/keep.mtx"
mmgen vector --n 10 --kind ones -o "$TMP/x10.mtx"
expect_exit 3 mmspmv "$A" "$TMP/x10.mtx" -o "$TMP/keep.mtx"
expect_stderr "x must be a vector of length 479"
expect_exit 3 mmspmv "$A" "$A" -o "$TMP/keep.mtx"
expect_exit 3 mmspmv "$A" --x ones --impl cpu-sym -o "$TMP/keep.mtx"
printf '%%%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1\n' > "$TMP/short.mtx"
expect_exit 3 mmspmv "$TMP/short.mtx" --x ones -o "$TMP/keep.mtx"
expect_stderr "short.mtx:4: unexpected end of file"
[[ $(cat "$TMP/keep.mtx") == old ]] && pass "target untouched after bad input" || fail "target changed"
expect_exit 2 mmspmv "$A" --x ones --impl nosuch
expect_exit 2 mmspmv "$A"
expect_exit 2 mmspmv "$A" --x ones --beta 2
if nvidia-smi -L >/dev/null 2>&1; then
  expect_exit 2 mmspmv "$A" --x ones --device cuda --impl cpu-csr -q  # an implementation of the other device
  expect_exit 0 mmspmv "$A" --x ones --device cuda -q                  # the GPU's default
else
  expect_exit 4 mmspmv "$A" --x ones --device cuda --impl cpu-csr -q  # no GPU here
  expect_exit 0 mmspmv "$A" --x ones --device auto -q                  # auto: the CPU
fi
expect_exit 2 mmspmv "$A" --x ones --device cpu --impl cuda-scalar -q
if [[ $(mmspmv --list-impls | awk '$2 == "cpu" {print $1}' | tr '\n' ' ') == "cpu-csr cpu-sym ref " ]]; then
  pass "--list-impls"; else fail "--list-impls: $(mmspmv --list-impls)"; fi

finish
