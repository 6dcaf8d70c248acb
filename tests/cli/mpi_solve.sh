#!/usr/bin/env bash
# mmsolve under mpirun through the real binary: cg, bicgstab and gmres on 1 to 4 ranks against
# the one-process tool (iterations within 2, x within the tolerance) on generated systems and
# the corpus; several columns, stdin, single precision, fewer rows than ranks, auto, -v, the
# timing record, --output-per-rank, non-convergence; bad inputs under 3 ranks (exit 3, one
# message, nothing written), Jacobi's zero diagonal (exit 5), direct methods refused (exit 2).
source "$(dirname "$0")/common.bash"
require_mpi
cd "$TMP"
mkdir -p dst
leftovers() { find dst -name '.*.mmtmp.*' | wc -l; }
C=$CORPUS

convection_diffusion CD.mtx
mmgen spd --n 800 --nnz-per-row 8 --seed 3 -o S.mtx
mmgen poisson2d --n 30 -o P.mtx
mmgen diagdom --n 300 --seed 4 -o D.mtx
for m in S P D CD; do mmgen rhs "$m.mtx" --x random --seed 5 -o "b$m.mtx"; done

# 1. Every method on generated systems, with and without Jacobi, 1 to 4 ranks.
mpi_same_solve 1 2 3 4 -- S.mtx bS.mtx --method cg --precond jacobi --tol 1e-10
mpi_same_solve 2 3 -- S.mtx bS.mtx --method gmres --tol 1e-10
for method in cg bicgstab gmres; do
  mpi_same_solve 1 2 3 4 -- P.mtx bP.mtx --method "$method" --tol 1e-10
done
mpi_same_solve 4 -- P.mtx bP.mtx --method bicgstab --precond jacobi --tol 1e-10
mpi_same_solve 2 -- P.mtx bP.mtx --method gmres --impl ref --tol 1e-10
for method in bicgstab gmres; do
  mpi_same_solve 2 3 -- D.mtx bD.mtx --method "$method" --precond jacobi --tol 1e-10
  mpi_same_solve 1 2 4 -- CD.mtx bCD.mtx --method "$method" --tol 1e-10
  mpi_same_solve 3 -- CD.mtx bCD.mtx --method "$method" --precond jacobi --restart 10 --tol 1e-10
done
# One rank under mpirun solves as one process does, bit for bit (cg, bicgstab: the same
# arithmetic in the same order; gmres orthogonalizes by cgs2 under mpirun, mgs in one process).
expect_exit 0 mmsolve --device cpu P.mtx bP.mtx --method cg --threads 1 -o one.mtx
expect_exit 0 mpi_run 1 mmsolve P.mtx bP.mtx --method cg -o x1.mtx
same_files one.mtx x1.mtx

# 2. The corpus: bcsstk13 (SPD, ill-conditioned: 1500 iterations), x checked by its residual;
#    young1c (complex): its slow, erratic convergence makes the count vary with any rounding
#    (one process with another thread count too): within 10% here, and the residual met.
mmgen rhs "$C/bcsstk13.mtx" -o b13.mtx
expect_exit 0 mmsolve --device cpu "$C/bcsstk13.mtx" b13.mtx --method cg --precond jacobi --max-iter 20000 --tol 1e-12 -q
want=$(iters)
for np in 2 4; do
  expect_exit 0 mpi_run $np mmsolve "$C/bcsstk13.mtx" b13.mtx --method cg --precond jacobi --max-iter 20000 --tol 1e-12 -o x.mtx
  got=$(iters)
  ((got - want <= 2 && want - got <= 2)) && pass "bcsstk13 on $np: $got iterations, one process $want" ||
    fail "bcsstk13 on $np: $got iterations, one process $want"
  expect_exit 0 mmcheck residual "$C/bcsstk13.mtx" x.mtx b13.mtx
done
mmgen rhs "$C/young1c.mtx" -o byc.mtx
for method in bicgstab gmres; do
  expect_exit 0 mmsolve --device cpu "$C/young1c.mtx" byc.mtx --method "$method" --precond jacobi --max-iter 5000 --tol 1e-11 -q
  want=$(iters)
  expect_exit 0 mpi_run 3 mmsolve "$C/young1c.mtx" byc.mtx --method "$method" --precond jacobi --max-iter 5000 --tol 1e-11 -o x.mtx
  got=$(iters)
  ((10 * got >= 9 * want && 10 * got <= 11 * want)) && pass "young1c $method: $got iterations, one process $want" ||
    fail "young1c $method: $got iterations, one process $want"
  expect_exit 0 mmcheck residual "$C/young1c.mtx" x.mtx byc.mtx --tol 1e-9
done

# 3. Four columns, b from standard input, single precision, fewer rows than ranks, auto.
mmgen dense --rows 300 --cols 4 --lo -1 --hi 1 --seed 2 -o B4.mtx
expect_exit 0 mmsolve --device cpu D.mtx B4.mtx --method gmres --tol 1e-12 -o one.mtx
if mpi_run 3 mmsolve D.mtx - --method gmres --tol 1e-12 -o X4.mtx < B4.mtx 2> err; then
  pass "b from stdin"; else fail "b from stdin: $(cat err)"; fi
grep -q "(worst column)" err && pass "worst column" || fail "no worst column: $(cat err)"
close_rel one.mtx X4.mtx 1e-9 && pass "4 columns as one process" || fail "4 columns differ"
expect_exit 0 mmcheck residual D.mtx X4.mtx B4.mtx --tol 1e-10
expect_exit 0 mpi_run 2 mmsolve S.mtx bS.mtx --method bicgstab --precision single --tol 1e-5 -o x.mtx
expect_exit 0 mmcheck residual S.mtx x.mtx bS.mtx --tol 1e-5
printf '%%%%MatrixMarket matrix coordinate real symmetric\n3 3 5\n1 1 4\n2 1 -1\n2 2 4\n3 2 -1\n3 3 4\n' > T3.mtx
printf '%%%%MatrixMarket matrix array real general\n3 1\n1\n2\n3\n' > b3.mtx
for method in cg bicgstab gmres; do
  expect_exit 0 mpi_run 4 mmsolve T3.mtx b3.mtx --method "$method" --precond jacobi -o x.mtx
  expect_exit 0 mmcheck residual T3.mtx x.mtx b3.mtx --tol 1e-8
done
mmgen spd --n 3000 --nnz-per-row 6 --seed 8 -o S3.mtx
mmgen rhs S3.mtx -o bS3.mtx
expect_exit 0 mpi_run 2 mmsolve S3.mtx bS3.mtx -v -q
expect_stderr "auto chose cg: stored symmetric, positive diagonal"
expect_exit 0 mpi_run 2 mmsolve D.mtx bD.mtx -v -q
expect_stderr "auto chose gmres: not stored symmetric"

# 4. -v: a line a rank; the timing record from rank 0 alone.
expect_exit 0 mpi_run 3 mmsolve P.mtx bP.mtx --method cg -v -q --repeat 3 --timing t.jsonl
for r in 0 1 2; do
  expect_stderr "mmsolve: rank $r/3: rows [0-9]+\.\.[0-9]+ \([0-9]+\), [0-9]+ nonzeros .*halo [0-9]+ from [0-9]+ ranks"
done
expect_stderr "[0-9]+ reductions \([0-9.e-]+ s in allreduce\)"
"$PY" - t.jsonl <<'PYEOF' && pass "timing record" || fail "timing record: $(cat t.jsonl)"
import json, sys
lines = open(sys.argv[1]).read().splitlines()
assert len(lines) == 1, lines  # one record, from rank 0
r = json.loads(lines[0])
assert r["tool"] == "mmsolve" and r["ranks"] == 3 and r["transport"] == "mpi", r
assert r["impl"] == "cg/cpu" and r["converged"] and r["iterations"] > 50, r
assert r["relative_residual"] <= 1e-8, r
for p in ("read", "partition", "exchange", "allreduce", "write"):
    assert r["phases"][p] >= 0, p
assert r["phases"]["compute"]["repeats"] == 3
it, n, nnz = r["iterations"], 900, 4380
assert r["reductions"] <= 2 * it + 6, r["reductions"]  # cg: two an iteration
assert abs(r["flops"] - it * (2 * nnz + 10 * n)) <= 1e-9 * r["flops"], r["flops"]
assert 1.0 <= r["load_imbalance"] < 1.2 and r["halo_values"] > 0, r
PYEOF

# 5. --output-per-rank: a file a rank (two columns), together x.
mmgen dense --rows 900 --cols 2 --seed 3 -o B2.mtx
expect_exit 0 mmsolve --device cpu P.mtx B2.mtx --method cg --tol 1e-12 -o one.mtx
expect_exit 0 mpi_run 3 mmsolve P.mtx B2.mtx --method cg --tol 1e-12 --output-per-rank -o dst/x.mtx
"$PY" - dst one.mtx <<'PYEOF' && pass "per-rank files" || fail "per-rank files"
import json, os, sys, numpy as np, scipy.io
d = sys.argv[1]
idx = json.load(open(os.path.join(d, "x.index.json")))
assert idx["rows"] == 900 and idx["cols"] == 2 and idx["ranks"] == 3, idx
x = np.vstack([np.asarray(scipy.io.mmread(os.path.join(d, p["path"]))) for p in idx["parts"]])
want = np.asarray(scipy.io.mmread(sys.argv[2]))
assert np.linalg.norm(x - want) <= 1e-9 * np.linalg.norm(want)
PYEOF
rm -f dst/*

# 6. Not converged: exit 1 from every rank, x written and marked, as one process.
expect_exit 1 mpi_run 3 mmsolve P.mtx bP.mtx --method gmres --restart 5 --max-iter 10 -o dst/xn.mtx
expect_stderr "^mmsolve: not converged after 10 iterations"
grep -q '^% mmsolve: not converged after 10 iterations, relative residual' dst/xn.mtx &&
  pass "x marked" || fail "x not marked"
expect_exit 1 mpi_run 2 mmsolve P.mtx bP.mtx --method cg --max-iter 5 --output-per-rank -o dst/xn.mtx
grep -q '^% mmsolve: not converged after 5 iterations' dst/xn.rank1.mtx && pass "part marked" ||
  fail "part not marked"
rm -f dst/*

# 7. Bad inputs under 3 ranks: exit 3 (5 for a zero diagonal under Jacobi, 2 for usage), one
#    message, nothing written, an existing target untouched.
one_message() {
  local n
  n=$(grep -c '^mmsolve: ' "$TMP/err" || true)
  [[ $n == 1 && $(wc -l < "$TMP/err") == 1 ]] && pass "one message" || fail "$n messages: $(cat "$TMP/err")"
}
no_output() {
  [[ $(cat dst/keep.mtx) == old && $(ls -A dst) == keep.mtx && $(leftovers) == 0 ]] &&
    pass "nothing written" || fail "output left: $(ls -A dst)"
}
echo old > dst/keep.mtx
expect_exit 3 mpi_run 3 mmsolve D.mtx bS.mtx --method gmres -o dst/keep.mtx
expect_stderr "bS.mtx: b has 800 rows, A has 300"
one_message
no_output
expect_exit 3 mpi_run 3 mmsolve "$C/lp_afiro.mtx" bD.mtx --method gmres -o dst/keep.mtx
expect_stderr "A must be square"
one_message
no_output
mmgen sparse --rows 3000 --cols 3000 --nnz-per-row 4 --seed 2 -o big.mtx
awk 'NR == 11000 {$2 = "x"} {print}' big.mtx > bad.mtx  # in the last rank's bytes
mmgen rhs big.mtx -o bbig.mtx
expect_exit 3 mpi_run 3 mmsolve bad.mtx bbig.mtx --method gmres -o dst/keep.mtx
expect_stderr "^mmsolve: .*bad.mtx:11000: expected an integer column index, found 'x'$"
one_message
no_output
# Over the budget (--max-memory, each rank's): exit 4 from the header, one message, nothing
# written; GMRES's plan counts its restart's vectors.
expect_exit 4 mpi_run 3 mmsolve big.mtx bbig.mtx --method gmres --max-memory 64K -o dst/keep.mtx
expect_stderr "^mmsolve: rank 0 of 3: needs [0-9.]+ kB, 65.5 kB available \(--max-memory to change\)$"
one_message
no_output
expect_exit 4 mpi_run 2 mmsolve big.mtx bbig.mtx --method gmres --max-memory 64K -v -o dst/keep.mtx
expect_stderr "the method's vectors of this rank's rows"
no_output
sed '3s/.*/oops/' bD.mtx > badb.mtx
expect_exit 3 mpi_run 3 mmsolve D.mtx badb.mtx --method gmres -o dst/keep.mtx
expect_stderr "badb.mtx:3"
one_message
no_output
expect_exit 3 mpi_run 3 mmsolve D.mtx missing.mtx --method gmres -o dst/keep.mtx
expect_stderr "missing.mtx: cannot open"
one_message
no_output
mmgen rhs "$C/west0479.mtx" -o bw.mtx
expect_exit 5 mpi_run 3 mmsolve "$C/west0479.mtx" bw.mtx --method gmres --precond jacobi -o dst/keep.mtx
expect_stderr "zero diagonal entry in row 1$"
one_message
no_output
expect_exit 2 mpi_run 3 mmsolve D.mtx bD.mtx --method lu -o dst/keep.mtx
expect_stderr "does not run distributed"
one_message
expect_exit 2 mpi_run 3 mmsolve D.mtx bD.mtx --method gmres --impl cpu-blocked
one_message
expect_exit 2 mpi_run 3 mmsolve D.mtx bD.mtx --precond ilu
one_message
if ! nvidia-smi -L >/dev/null 2>&1; then  # GPU ranks without a GPU (mpi_gpu.sh runs them)
  expect_exit 4 mpi_run 2 mmsolve D.mtx bD.mtx --method gmres --device cuda
  one_message
fi
no_output

finish
