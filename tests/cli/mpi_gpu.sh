#!/usr/bin/env bash
# GPU ranks through the real binaries (mpirun ... --device cuda): mmspmv on 1 to 3 ranks against
# the one-process CPU product (1e-12 relative) with every kernel, mmsolve cg/bicgstab/gmres
# against the one-process CPU solve (iterations within 2, x within 1000 tol), the record's
# transport and device, -v's GPU a rank, --comm nccl (one rank; refused on a shared GPU, exit 4;
# with CPU ranks exit 2). Without a GPU only the checks that need none run; the rest skips, saying
# why.
source "$(dirname "$0")/common.bash"
require_mpi
cd "$TMP"
C=$CORPUS

mmgen poisson2d --n 30 -o P.mtx
mmgen rhs P.mtx --x random --seed 5 -o bP.mtx

# 1. Without a GPU too: --comm nccl on CPU ranks is a usage error; bad --comm likewise.
expect_exit 2 mpi_run 2 mmspmv P.mtx --x ones --comm nccl --device cpu -q
expect_stderr "--comm nccl .*needs GPU ranks \(--device cuda\)"
expect_exit 2 mpi_run 2 mmsolve P.mtx bP.mtx --method cg --comm nccl -q
expect_exit 2 mpi_run 2 mmspmv P.mtx --x ones --comm gloo --device cuda -q
expect_stderr "--comm must be mpi or nccl"
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
if [[ -z $cuda_built ]]; then
  expect_exit 4 mpi_run 2 mmspmv P.mtx --x ones --device cuda -q
  expect_stderr "built without CUDA"
  echo "skip: built without CUDA, no GPU-rank run"
  finish
  exit $?
fi
if ((gpus == 0)); then
  expect_exit 4 mpi_run 2 mmspmv P.mtx --x ones --device cuda -q
  expect_stderr "--device cuda: no usable GPU"
  echo "skip: no GPU (nvidia-smi lists none): the GPU-rank runs need one"
  finish
  exit $?
fi

# 2. SpMV: each rank count against one process on the CPU, relative 2-norm 1e-12.
mmgen diagdom --n 500 --seed 4 -o D.mtx
mmgen sparse --rows 300 --cols 170 --density 0.05 --seed 2 -o R.mtx
for A in P.mtx D.mtx R.mtx "$C/bcsstk13.mtx" "$C/complex.mtx" "$C/west0479.mtx"; do
  expect_exit 0 mmspmv "$A" --x random --seed 3 --device cpu -o want.mtx
  for np in 1 2 3; do
    expect_exit 0 mpi_run $np mmspmv "$A" --x random --seed 3 --device cuda -o y.mtx
    close_rel want.mtx y.mtx 1e-12 && pass "$(basename "$A") on $np GPU ranks" ||
      fail "$(basename "$A") on $np GPU ranks: y differs"
  done
done
mmgen rhs D.mtx --x ones -o y0.mtx
expect_exit 0 mmspmv D.mtx --x range --alpha 2 --beta -0.5 --y0 y0.mtx --device cpu -o want.mtx
for impl in cuda-adaptive cuda-vector cuda-scalar; do
  expect_exit 0 mpi_run 3 mmspmv D.mtx --x range --alpha 2 --beta -0.5 --y0 y0.mtx --device cuda --impl $impl -o y.mtx
  close_rel want.mtx y.mtx 1e-12 && pass "$impl, beta" || fail "$impl, beta: y differs"
done
expect_exit 0 mpi_run 2 mmspmv D.mtx --x ones --device cuda --precision single -o y.mtx
expect_exit 0 mmspmv D.mtx --x ones --device cpu --precision single -o want.mtx
close_rel want.mtx y.mtx 1e-5 && pass "single precision" || fail "single precision: y differs"
expect_exit 2 mpi_run 2 mmspmv D.mtx --x ones --device cuda --impl cpu-csr -q
expect_stderr "does not run on GPU ranks"

# The record and -v: the transport, the GPU's name, a line a rank naming its GPU.
expect_exit 0 mpi_run 2 mmspmv D.mtx --x ones --device cuda -q -v --repeat 3 --timing t.jsonl
for r in 0 1; do expect_stderr "mmspmv: rank $r/2: GPU [0-9]+ of $gpus \(.*\), node rank $r of 2"; done
expect_stderr "2 ranks \(mpi-(cuda-aware|host-staged)\), a GPU a rank"
echo "transport here: $(grep -Eo 'mpi-(cuda-aware|host-staged)' "$TMP/err" | head -1)"
"$PY" - t.jsonl <<'PYEOF' && pass "mmspmv record" || fail "mmspmv record: $(cat t.jsonl)"
import json, sys
r = [json.loads(l) for l in open(sys.argv[1])]
assert len(r) == 1, r
r = r[0]
assert r["ranks"] == 2 and r["transport"] in ("mpi-cuda-aware", "mpi-host-staged"), r
assert r["impl"] == "cuda-adaptive" and "Xeon" not in r["device"], r
for p in ("read", "partition", "exchange", "compute", "h2d", "d2h", "write"):
    assert p in r["phases"], p
PYEOF

# 3. Solvers: every method, with and without Jacobi, 1 to 3 GPU ranks against one process on
#    the CPU: iterations within 2, x within 1000 tol (these systems are well conditioned).
mmgen spd --n 800 --nnz-per-row 8 --seed 3 -o S.mtx
mmgen rhs S.mtx --x random --seed 5 -o bS.mtx
mmgen rhs D.mtx --x random --seed 5 -o bD.mtx
same() {  # A b ARGS: one process on the CPU, then 1 2 3 GPU ranks
  local want got np
  expect_exit 0 mmsolve --device cpu "$@" --tol 1e-10 -o one.mtx
  want=$(iters)
  for np in 1 2 3; do
    expect_exit 0 mpi_run $np mmsolve --device cuda "$@" --tol 1e-10 -o x.mtx
    expect_stderr "\(cuda, $np ranks?\): [0-9]+ iterations"
    got=$(iters)
    ((got - want <= 2 && want - got <= 2)) && pass "$* on $np GPU ranks: $got iterations, one process $want" ||
      fail "$* on $np GPU ranks: $got iterations, one process $want"
    close_rel one.mtx x.mtx 1e-7 && pass "x on $np GPU ranks" || fail "$* on $np GPU ranks: x differs"
  done
}
convection_diffusion CD.mtx
mmgen rhs CD.mtx --x random --seed 5 -o bCD.mtx
for method in cg bicgstab gmres; do
  same S.mtx bS.mtx --method $method --precond jacobi
done
for method in cg gmres; do same P.mtx bP.mtx --method $method; done
for method in bicgstab gmres; do
  same CD.mtx bCD.mtx --method $method
  same D.mtx bD.mtx --method $method --precond jacobi --restart 10
done
# BiCGSTAB on the Poisson grid converges erratically: any rounding changes its path (70 on one
# process, 68-71 on 1-4 CPU ranks, 71-76 on 1-3 GPU ranks, lib/dist/README.md): within 10%.
expect_exit 0 mmsolve --device cpu P.mtx bP.mtx --method bicgstab --tol 1e-10 -o one.mtx
want=$(iters)
for np in 1 2; do
  expect_exit 0 mpi_run $np mmsolve --device cuda P.mtx bP.mtx --method bicgstab --tol 1e-10 -o x.mtx
  got=$(iters)
  ((10 * got >= 9 * want && 10 * got <= 11 * want)) && pass "poisson bicgstab on $np: $got, one process $want" ||
    fail "poisson bicgstab on $np GPU ranks: $got iterations, one process $want"
  close_rel one.mtx x.mtx 1e-7 && pass "x on $np GPU ranks" || fail "poisson bicgstab on $np: x differs"
done
# bcsstk13 (SPD, cond ~1e10: 1500 iterations, their count moved by rounding): within 2%, and
# the residual met.
mmgen rhs "$C/bcsstk13.mtx" -o b13.mtx
expect_exit 0 mmsolve --device cpu "$C/bcsstk13.mtx" b13.mtx --method cg --precond jacobi --max-iter 20000 --tol 1e-12 -q
want=$(iters)
expect_exit 0 mpi_run 2 mmsolve --device cuda "$C/bcsstk13.mtx" b13.mtx --method cg --precond jacobi --max-iter 20000 --tol 1e-12 -o x.mtx
got=$(iters)
((50 * got >= 49 * want && 50 * got <= 51 * want)) && pass "bcsstk13 on 2 GPU ranks: $got iterations, one process $want" ||
  fail "bcsstk13 on 2 GPU ranks: $got iterations, one process $want"
expect_exit 0 mmcheck residual "$C/bcsstk13.mtx" x.mtx b13.mtx
mmgen rhs "$C/young1c.mtx" -o byc.mtx  # complex: the residual met on 2 GPU ranks
expect_exit 0 mpi_run 2 mmsolve "$C/young1c.mtx" byc.mtx --device cuda --method gmres --precond jacobi --max-iter 10000 --tol 1e-10 -o x.mtx
expect_exit 0 mmcheck residual "$C/young1c.mtx" x.mtx byc.mtx --tol 1e-9
expect_exit 0 mpi_run 2 mmsolve P.mtx bP.mtx --device cuda --method cg -q --timing t.jsonl
"$PY" - t.jsonl <<'PYEOF' && pass "mmsolve record" || fail "mmsolve record: $(cat t.jsonl)"
import json, sys
r = json.loads(open(sys.argv[1]).read().splitlines()[-1])
assert r["impl"] == "cg/cuda" and r["ranks"] == 2 and r["converged"], r
assert r["transport"] in ("mpi-cuda-aware", "mpi-host-staged") and r["reductions"] > 0, r
for p in ("read", "partition", "exchange", "compute", "allreduce", "write"):
    assert p in r["phases"], p
PYEOF
expect_exit 2 mpi_run 2 mmsolve P.mtx bP.mtx --device cuda --method cg --impl cpu -q

# 4. NCCL: one rank works (as one process on the CPU); more ranks than GPUs are refused on
#    every rank with exit 4 and one message; with a GPU a rank, 2 ranks work.
nccl_ok=1
mpi_run 1 mmspmv D.mtx --x random --seed 3 --device cuda --comm nccl -o y.mtx -v 2>"$TMP/err" || nccl_ok=0
if ((nccl_ok == 0)) && grep -q "cannot load NCCL" "$TMP/err"; then
  echo "skip: NCCL is not loadable here ($(head -1 "$TMP/err")): no NCCL run"
else
  ((nccl_ok)) && pass "--comm nccl on one rank" || fail "--comm nccl on one rank: $(cat "$TMP/err")"
  expect_exit 0 mmspmv D.mtx --x random --seed 3 --device cpu -o want.mtx
  close_rel want.mtx y.mtx 1e-12 && pass "nccl: y as one process" || fail "nccl: y differs"
  expect_exit 0 mpi_run 1 mmsolve P.mtx bP.mtx --device cuda --comm nccl --method cg --tol 1e-10 --timing t.jsonl -o x.mtx
  expect_exit 0 mmsolve P.mtx bP.mtx --device cpu --method cg --tol 1e-10 -o one.mtx
  close_rel one.mtx x.mtx 1e-7 && pass "nccl: x as one process" || fail "nccl: x differs"
  grep -q '"transport":"nccl"' t.jsonl && pass "nccl in the record" || fail "record: $(cat t.jsonl)"
  np=$((gpus + 1))
  expect_exit 4 mpi_run $np mmspmv D.mtx --x ones --device cuda --comm nccl -o y.mtx
  expect_stderr "share one GPU .*NCCL needs a GPU of its own for every rank"
  (($(grep -c "share one GPU" "$TMP/err") == 1)) && pass "one message" || fail "messages: $(cat "$TMP/err")"
  if ((gpus >= 2)); then
    expect_exit 0 mpi_run 2 mmsolve P.mtx bP.mtx --device cuda --comm nccl --method gmres --tol 1e-10 -o x.mtx
    close_rel one.mtx x.mtx 1e-7 && pass "nccl on 2 GPUs" || fail "nccl on 2 GPUs: x differs"
  else
    echo "skip: one GPU here: NCCL with 2 ranks needs 2 GPUs (its refusal checked above)"
  fi
fi

finish
