# mmlu through the real binary: every impl checked by mmcheck lu, pipes and '-', --split,
# singular and bad input, and SciPy's lu_factor as an outside oracle; the CUDA impls where a
# GPU exists.
source "$(dirname "$0")/common.bash"
cd "$TMP"
gpu=$(nvidia-smi -L >/dev/null 2>&1 && echo 1 || true)
cuda_impls="cuda-blocked cusolver cuda-hybrid"

# Every impl on awkward sizes, random and diagonally dominant, checked by mmcheck lu.
for n in 1 31 33 200; do
  mmgen dense --n "$n" --lo -1 --hi 1 --seed "$n" -o "A$n.mtx"
  mmgen diagdom --n "$n" --seed "$n" -o "D$n.mtx"
  for m in "A$n" "D$n"; do
    for impl in ref cpu-blocked lapack ${gpu:+$cuda_impls}; do
      expect_exit 0 mmlu "$m.mtx" --impl "$impl" -o "LU.mtx" --pivots p.mtx
      expect_exit 0 mmcheck lu "$m.mtx" LU.mtx p.mtx
    done
  done
done
for prec in single double; do
  expect_exit 0 mmlu A200.mtx --precision "$prec" --impl cpu-blocked -o LU.mtx --pivots p.mtx
  [[ $prec == double ]] && expect_exit 0 mmcheck lu A200.mtx LU.mtx p.mtx
  [[ $prec == single ]] && expect_exit 0 mmcheck lu A200.mtx LU.mtx p.mtx --tol 1e-4
done

# [[0,1],[1,0]] needs a swap: pivots 2 2 and LU = identity.
printf '%%%%MatrixMarket matrix coordinate real general\n2 2 2\n1 2 1\n2 1 1\n' >swap.mtx
expect_exit 0 mmlu swap.mtx -o LU.mtx --pivots p.mtx
if [[ "$(grep -v '^%' p.mtx | tr '\n' ' ')" == "2 1 2 2 " ]]; then pass "swap pivots 2 2"; else fail "swap pivots: $(cat p.mtx)"; fi
if [[ "$(grep -v '^%' LU.mtx | tr '\n' ' ')" == "2 2 1 0 0 1 " ]]; then pass "swap LU = I"; else fail "swap LU: $(cat LU.mtx)"; fi

# Sparse input from a pipe, '-', output to stdout; a complex corpus matrix; --split.
mmgen poisson2d --n 12 | mmlu - --impl cpu-blocked --pivots pp.mtx >LU.mtx 2>"$TMP/err" && pass "pipe" || fail "pipe"
mmgen poisson2d --n 12 -o P.mtx
expect_exit 0 mmcheck lu P.mtx LU.mtx pp.mtx
expect_exit 0 mmlu "$CORPUS/young1c.mtx" -o LUc.mtx --pivots pc.mtx
expect_exit 0 mmcheck lu "$CORPUS/young1c.mtx" LUc.mtx pc.mtx
expect_exit 0 mmlu A31.mtx --split L.mtx U.mtx Pm.mtx -o LU.mtx --timing t.jsonl
"$PY" - A31.mtx L.mtx U.mtx Pm.mtx <<'EOF' && pass "split: P A = L U" || fail "split: P A != L U"
import sys, numpy as np, scipy.io as sio
A, L, U, P = (np.asarray(sio.mmread(f).todense() if hasattr(sio.mmread(f), 'todense') else sio.mmread(f)) for f in sys.argv[1:])
assert np.allclose(np.tril(L), L) and np.allclose(np.diag(L), 1) and np.allclose(np.triu(U), U)
assert np.allclose(P @ A, L @ U, atol=1e-12)
EOF
if grep -q '"tool":"mmlu"' t.jsonl && grep -q '"flops"' t.jsonl; then pass "timing record"; else fail "timing record: $(cat t.jsonl)"; fi

# SciPy's lu_factor (LAPACK getrf) gives the ref impl's pivots and factors.
mmgen dense --n 60 --lo -1 --hi 1 --seed 9 -o R.mtx
expect_exit 0 mmlu R.mtx --impl ref -o LUr.mtx --pivots pr.mtx
"$PY" - <<'EOF' && pass "scipy lu_factor agrees" || fail "scipy lu_factor disagrees"
import numpy as np, scipy.io as sio, scipy.linalg as sl
A = np.asarray(sio.mmread("R.mtx")); LU = np.asarray(sio.mmread("LUr.mtx")); p = np.asarray(sio.mmread("pr.mtx")).ravel()
lu, piv = sl.lu_factor(A)
assert (piv + 1 == p).all(), (piv + 1, p)
assert np.allclose(lu, LU, rtol=1e-10, atol=1e-12)
EOF

# Singular: exit 5 naming the column; nothing written, an existing target untouched.
printf '%%%%MatrixMarket matrix array real general\n3 3\n1\n1\n4\n2\n2\n5\n3\n3\n7\n' >sing.mtx
echo keep >target.mtx
for impl in ref cpu-blocked lapack ${gpu:+$cuda_impls}; do
  expect_exit 5 mmlu sing.mtx --impl "$impl" -o target.mtx --pivots pz.mtx
  expect_stderr "zero pivot in column 3"
done
same_files target.mtx <(echo keep)
[[ ! -e pz.mtx ]] && pass "no pivots written" || fail "pivots written for a singular matrix"

# Bad input: non-square, malformed, too large; usage; --device cuda.
expect_exit 3 mmlu "$CORPUS/lp_afiro.mtx" -o target.mtx
expect_stderr "square"
printf '%%%%MatrixMarket matrix coordinate real general\n3 3 1\n1 4 1\n' >bad.mtx
expect_exit 3 mmlu bad.mtx -o target.mtx
expect_exit 4 mmlu A200.mtx --max-memory 100K -o target.mtx
expect_stderr '^mmlu: needs [0-9.]+ [kM]B, 102.4 kB available \(--max-memory to change\)$'
same_files target.mtx <(echo keep)
expect_exit 2 mmlu A31.mtx --split L.mtx U.mtx
expect_exit 2 mmlu A31.mtx --impl nosuch
if [[ -z $gpu ]]; then
  expect_exit 4 mmlu A31.mtx --device cuda
else
  # --device cuda alone: cusolver (the fastest), the GPU named in the record with the h2d phase; the
  # pivots are SciPy's (LAPACK's) on a matrix that needs them; single precision; complex.
  expect_exit 0 mmlu R.mtx --device cuda -o LUg.mtx --pivots pg.mtx --timing g.jsonl
  "$PY" - <<'EOF' && pass "--device cuda agrees with lu_factor" || fail "--device cuda disagrees with lu_factor"
import json, numpy as np, scipy.io as sio, scipy.linalg as sl
A = np.asarray(sio.mmread("R.mtx")); LU = np.asarray(sio.mmread("LUg.mtx")); p = np.asarray(sio.mmread("pg.mtx")).ravel()
lu, piv = sl.lu_factor(A)
assert (piv + 1 == p).all(), (piv + 1, p)
assert np.allclose(lu, LU, rtol=1e-10, atol=1e-12)
r = json.loads(open("g.jsonl").readline())
assert r["impl"] == "cusolver" and "h2d" in r["phases"] and "NVIDIA" in r["device"], r
EOF
  # --device cuda at n = 2048 in double: cuda-blocked (lu_cuda_choice, on the H100 and the
  # H200 alike); single precision keeps cuSOLVER.
  mmgen dense --n 2048 --lo -1 --hi 1 --seed 13 -o A2048.mtx
  expect_exit 0 mmlu A2048.mtx --device cuda --quiet --timing d.jsonl
  expect_exit 0 mmlu A2048.mtx --device cuda --precision single --quiet --timing s.jsonl
  "$PY" - <<'EOF' && pass "--device cuda picks by size and type" || fail "--device cuda's default"
import json
d = json.loads(open("d.jsonl").readline()); s = json.loads(open("s.jsonl").readline())
assert d["impl"] == "cuda-blocked", d["impl"]
assert s["impl"] == "cusolver", s["impl"]
EOF
  mmgen dense --n 700 --lo -1 --hi 1 --seed 12 -o A700.mtx
  for impl in $cuda_impls; do
    expect_exit 0 mmlu A700.mtx --impl "$impl" -o LU.mtx --pivots p.mtx --repeat 3 --warmup 1
    expect_exit 0 mmcheck lu A700.mtx LU.mtx p.mtx
    expect_exit 0 mmlu A200.mtx --impl "$impl" --precision single -o LU.mtx --pivots p.mtx
    expect_exit 0 mmcheck lu A200.mtx LU.mtx p.mtx --tol 1e-4
    expect_exit 0 mmlu "$CORPUS/young1c.mtx" --impl "$impl" -o LUc.mtx --pivots pc.mtx
    expect_exit 0 mmcheck lu "$CORPUS/young1c.mtx" LUc.mtx pc.mtx
  done
fi
expect_exit 0 mmlu --list-impls
grep -q cpu-blocked "$TMP/out" && pass "list-impls" || fail "list-impls"
finish
