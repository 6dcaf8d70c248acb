# mmsolve through the real binary: every method and impl checked by mmcheck residual,
# pipes and '-', several right-hand sides, non-convergence, bad input, and SciPy's spsolve.
source "$(dirname "$0")/common.bash"
cd "$TMP"

mmgen spd --n 800 --nnz-per-row 8 --seed 3 -o S.mtx
mmgen poisson2d --n 25 -o P.mtx
mmgen diagdom --n 300 --seed 4 -o D.mtx
for m in S P D; do mmgen rhs "$m.mtx" --x random --seed 5 -o "b$m.mtx"; done

# CUDA implementations run where a GPU exists (the GPU machine), CPU ones everywhere.
gpu=$(nvidia-smi -L >/dev/null 2>&1 && echo 1 || true)
impls() {
  mmsolve --list-impls --all | awk -v m="--method $1:" -v gpu="$gpu" \
    '$0 == m {f = 1; next} /^--method/ {f = 0} f && ($2 == "cpu" || gpu) {print $1}'
}

# Every method and impl on systems it applies to; the residual checked by mmcheck.
for method in lu gauss umfpack cg bicgstab gmres; do
  systems="S P D"
  [[ $method == cg ]] && systems="S P"  # cg needs SPD
  for impl in $(impls "$method"); do
    for m in $systems; do
      expect_exit 0 mmsolve "$m.mtx" "b$m.mtx" --method "$method" --impl "$impl" --tol 1e-12 -o x.mtx
      expect_stderr "relative residual"
      expect_exit 0 mmcheck residual "$m.mtx" x.mtx "b$m.mtx" --tol 1e-10
    done
  done
done
expect_exit 0 mmsolve P.mtx bP.mtx --method gauss -o x.mtx
expect_stderr "warning: gauss"
expect_exit 0 mmsolve S.mtx bS.mtx --method cg --precond jacobi -v -o x.mtx
expect_stderr "[0-9]+ iterations"

# auto: cg for the sparse SPD system, lu for a small one, stated with -v.
mmgen spd --n 3000 --nnz-per-row 6 --seed 8 -o S3.mtx
mmgen rhs S3.mtx -o bS3.mtx
expect_exit 0 mmsolve S3.mtx bS3.mtx -v -o x.mtx
expect_stderr "chose cg"
expect_exit 0 mmsolve D.mtx bD.mtx -v -o x.mtx
expect_stderr "chose lu"

# Pipes, '-', several columns, single precision, the complex corpus matrix.
mmgen dense --rows 300 --cols 4 --lo -1 --hi 1 --seed 2 -o B4.mtx
mmsolve D.mtx - --method gmres --tol 1e-12 <B4.mtx | mmcheck residual D.mtx - B4.mtx --tol 1e-10 >/dev/null &&
  pass "pipe with 4 columns" || fail "pipe with 4 columns"
expect_exit 0 mmsolve D.mtx B4.mtx --method lu --impl cpu-blocked -o X4.mtx
expect_exit 0 mmcheck residual D.mtx X4.mtx B4.mtx
expect_exit 0 mmsolve S.mtx bS.mtx --method bicgstab --precision single --tol 1e-5 -o x.mtx
expect_exit 0 mmcheck residual S.mtx x.mtx bS.mtx --tol 1e-5
mmgen rhs "$CORPUS/young1c.mtx" -o byc.mtx
for method in lu gmres bicgstab; do
  expect_exit 0 mmsolve "$CORPUS/young1c.mtx" byc.mtx --method "$method" --precond jacobi --max-iter 5000 --tol 1e-11 -o x.mtx
  expect_exit 0 mmcheck residual "$CORPUS/young1c.mtx" x.mtx byc.mtx --tol 1e-9
done
mmgen rhs "$CORPUS/bcsstk13.mtx" -o b13.mtx
expect_exit 0 mmsolve "$CORPUS/bcsstk13.mtx" b13.mtx --method cg --precond jacobi --max-iter 20000 --tol 1e-12 -o x.mtx
expect_exit 0 mmcheck residual "$CORPUS/bcsstk13.mtx" x.mtx b13.mtx
mmgen rhs "$CORPUS/west0479.mtx" -o bw.mtx
expect_exit 0 mmsolve "$CORPUS/west0479.mtx" bw.mtx --method umfpack -o xw.mtx --timing t.jsonl
expect_exit 0 mmcheck residual "$CORPUS/west0479.mtx" xw.mtx bw.mtx
grep -q '"tool":"mmsolve"' t.jsonl && pass "timing record" || fail "timing record"

# SciPy's spsolve agrees with ours.
CORPUS_DIR="$CORPUS" "$PY" - <<'EOF' && pass "scipy spsolve agrees" || fail "scipy spsolve disagrees"
import os, numpy as np, scipy.io as sio, scipy.sparse.linalg as sla
A = sio.mmread(os.environ["CORPUS_DIR"] + "/west0479.mtx").tocsc()
b = np.asarray(sio.mmread("bw.mtx")).ravel()
x = np.asarray(sio.mmread("xw.mtx")).ravel()
xs = sla.spsolve(A, b)
assert np.linalg.norm(x - xs) <= 1e-8 * np.linalg.norm(xs), np.linalg.norm(x - xs) / np.linalg.norm(xs)
for f, g in (("S.mtx", "bS.mtx"), ("D.mtx", "bD.mtx")):
    A = sio.mmread(f).tocsc(); b = np.asarray(sio.mmread(g)).ravel()
    os.system(f"mmsolve {f} {g} --method cg --tol 1e-13 --max-iter 5000 -o xs.mtx 2>/dev/null" if f == "S.mtx"
              else f"mmsolve {f} {g} --method bicgstab --tol 1e-13 -o xs.mtx 2>/dev/null")
    x = np.asarray(sio.mmread("xs.mtx")).ravel(); xs = sla.spsolve(A, b)
    assert np.linalg.norm(x - xs) <= 1e-9 * np.linalg.norm(xs), (f, np.linalg.norm(x - xs) / np.linalg.norm(xs))
EOF

# Not converged: exit 1, x written and marked; the relative residual on stderr.
expect_exit 1 mmsolve P.mtx bP.mtx --method gmres --restart 5 --max-iter 10 -o xn.mtx
expect_stderr "^mmsolve: not converged after 10 iterations"
grep -q '^% mmsolve: not converged after 10 iterations, relative residual' xn.mtx && pass "x marked" || fail "x not marked"
expect_exit 0 mmcheck info xn.mtx

# Bad input: exit 3, nothing written, an existing target untouched; singular: exit 5.
echo keep >target.mtx
expect_exit 3 mmsolve "$CORPUS/lp_afiro.mtx" bD.mtx -o target.mtx
expect_stderr "square"
expect_exit 3 mmsolve D.mtx bS.mtx -o target.mtx
expect_stderr "rows"
expect_exit 3 mmsolve "$CORPUS/young1c.mtx" byc.mtx --method umfpack -o target.mtx
printf '%%%%MatrixMarket matrix coordinate real general\n2 2 1\n1 3 1\n' >bad.mtx
expect_exit 3 mmsolve bad.mtx bD.mtx -o target.mtx
printf '%%%%MatrixMarket matrix coordinate real general\n3 3 3\n1 1 1\n2 2 1\n3 1 1\n' >sing.mtx
printf '%%%%MatrixMarket matrix array real general\n3 1\n1\n2\n3\n' >b3.mtx
expect_exit 5 mmsolve sing.mtx b3.mtx --method lu -o target.mtx
expect_stderr "singular matrix"
for impl in ref cpu-blocked; do
  expect_exit 5 mmsolve sing.mtx b3.mtx --method lu --impl "$impl" -o target.mtx
  expect_stderr "zero pivot in column 3"
done
expect_exit 5 mmsolve sing.mtx b3.mtx --method umfpack -o target.mtx
printf '%%%%MatrixMarket matrix coordinate real general\n2 2 2\n1 2 1\n2 1 1\n' >swap.mtx
printf '%%%%MatrixMarket matrix array real general\n2 1\n1\n2\n' >b2.mtx
expect_exit 5 mmsolve swap.mtx b2.mtx --method gauss -o target.mtx
expect_stderr "zero pivot in column 1"
expect_exit 4 mmsolve D.mtx bD.mtx --method lu --max-memory 1K -o target.mtx
expect_stderr '^mmsolve: needs [0-9.]+ [kM]B, 1.0 kB available \(--max-memory to change\)$'
same_files target.mtx <(echo keep)
expect_exit 2 mmsolve D.mtx bD.mtx --method nosuch
expect_exit 2 mmsolve D.mtx bD.mtx --precond ilu
expect_exit 2 mmsolve D.mtx
expect_exit 2 mmsolve S.mtx bS.mtx --method cg --check-every 0

# A matrix singular to working precision (west0067 with a zero row, no exact zero pivot met):
# every direct method refuses it with exit 5 and writes nothing, on every implementation.
mmgen rhs "$CORPUS/comments_west0067.mtx" -o b67.mtx
for method in lu gauss; do
  for impl in $(impls "$method"); do
    echo keep > x67.mtx
    expect_exit 5 mmsolve "$CORPUS/comments_west0067.mtx" b67.mtx --method "$method" --impl "$impl" -o x67.mtx
    expect_stderr "A is singular or too ill-conditioned"
    same_files x67.mtx <(echo keep)
  done
done
expect_exit 5 mmsolve "$CORPUS/comments_west0067.mtx" b67.mtx --method umfpack -o x67.mtx

if [[ $gpu ]]; then
  # The GPU: the iterations near the CPU's, the same x whatever --check-every, 4 columns through
  # a pipe, single precision, the complex corpus matrix, non-convergence, refusals, the record.
  for method in cg bicgstab gmres; do
    expect_exit 0 mmsolve P.mtx bP.mtx --method "$method" --precond jacobi --device cpu -q
    cpu=$(iters)
    expect_exit 0 mmsolve P.mtx bP.mtx --method "$method" --precond jacobi --device cuda -q
    expect_stderr "$method \(cuda\)"
    gpu_it=$(iters)
    ((10 * gpu_it >= 9 * cpu - 30 && 10 * gpu_it <= 11 * cpu + 30)) &&
      pass "$method: $gpu_it iterations on the GPU, $cpu on the CPU" ||
      fail "$method: $gpu_it iterations on the GPU, $cpu on the CPU"
    expect_exit 0 mmsolve S.mtx bS.mtx --method "$method" --device cuda --check-every 1 -o c1.mtx
    expect_exit 0 mmsolve S.mtx bS.mtx --method "$method" --device cuda --check-every 1000 -o c2.mtx
    same_files c1.mtx c2.mtx
  done
  mmsolve D.mtx - --method bicgstab --device cuda --tol 1e-12 <B4.mtx | mmcheck residual D.mtx - B4.mtx --tol 1e-10 >/dev/null &&
    pass "cuda: pipe with 4 columns" || fail "cuda: pipe with 4 columns"
  expect_exit 0 mmsolve S.mtx bS.mtx --method cg --device cuda --precision single --tol 1e-5 -o x.mtx
  expect_exit 0 mmcheck residual S.mtx x.mtx bS.mtx --tol 1e-5
  for method in gmres bicgstab; do
    expect_exit 0 mmsolve "$CORPUS/young1c.mtx" byc.mtx --method "$method" --precond jacobi --device cuda --max-iter 5000 --tol 1e-11 -o x.mtx
    expect_exit 0 mmcheck residual "$CORPUS/young1c.mtx" x.mtx byc.mtx --tol 1e-9
  done
  expect_exit 0 mmsolve "$CORPUS/bcsstk13.mtx" b13.mtx --method cg --precond jacobi --device cuda --max-iter 20000 --tol 1e-12 -o x.mtx
  expect_exit 0 mmcheck residual "$CORPUS/bcsstk13.mtx" x.mtx b13.mtx
  expect_exit 1 mmsolve P.mtx bP.mtx --method gmres --restart 5 --max-iter 10 --device cuda -o xn.mtx
  expect_stderr "not converged after 10 iterations"
  grep -q '^% mmsolve: not converged after 10 iterations' xn.mtx && pass "cuda: x marked" || fail "cuda: x not marked"
  expect_exit 5 mmsolve swap.mtx b2.mtx --method gauss --device cuda -o target.mtx
  expect_stderr "zero pivot in column 1"
  expect_exit 5 mmsolve "$CORPUS/west0479.mtx" bw.mtx --method cg --precond jacobi --device cuda -o target.mtx
  expect_stderr "zero diagonal entry in row 1"
  same_files target.mtx <(echo keep)
  expect_exit 0 mmsolve S3.mtx bS3.mtx --method cg --device cuda --repeat 3 -q --timing g.jsonl
  "$PY" - g.jsonl <<'PYEOF' && pass "cuda: timing record" || fail "cuda: timing record: $(cat g.jsonl)"
import json, sys
r = json.loads(open(sys.argv[1]).readline())
assert r["impl"] == "cg/cuda" and r["converged"] and r["iterations"] > 0, r
assert "h2d" in r["phases"] and r["flops"] > 0 and r["relative_residual"] <= 2e-8, r
PYEOF
else
  expect_exit 4 mmsolve D.mtx bD.mtx --device cuda
  if [[ $cuda_built ]]; then
    expect_exit 4 mmsolve S.mtx bS.mtx --method cg --impl cuda
    expect_stderr "needs a GPU"
  else  # built without CUDA: the name is not known at all
    expect_exit 2 mmsolve S.mtx bS.mtx --method cg --impl cuda
    expect_stderr "unknown --impl 'cuda'"
  fi
fi
finish
