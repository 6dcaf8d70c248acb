#!/usr/bin/env bash
# mmjacobi --poisson2d/3d under mpirun through the real binary: 1 to 4 ranks write the
# one-process tool's grid byte for byte (fewer planes than ranks too), after the same number of
# iterations with the same norm, for --tol and --check-every variants and single precision, in
# slabs and in boxes (--split); -v per rank; the timing record; --output-per-rank; bad options
# under 3 ranks (one message, exit 2, nothing written); GPU ranks (--device cuda) against the
# one-process cuda-norm where a GPU exists.
source "$(dirname "$0")/common.bash"
require_mpi
cd "$TMP"
mkdir -p dst

# outcome RECORD: "iterations final_norm converged" of a timing record (the norm's exact bits).
outcome() { "$PY" -c "import json,sys; r = json.loads(open(sys.argv[1]).readline()); \
print(r['iterations'], r['final_norm'].hex(), r['converged'])" "$1"; }

# same_run NPS ARGS...: the one-process tool (on the CPU: --device auto would take a GPU's
# kernels, which round otherwise), then each NP in NPS under mpirun: the same file (cmp) and
# the same iterations, norm and convergence in the record; the same exit status.
same_run() {
  local nps=$1 want_rc=0 rc np ok=1
  shift
  rm -f want.jsonl
  "$@" --device cpu -o want.mtx --timing want.jsonl 2> /dev/null || want_rc=$?
  for np in $nps; do
    rm -f got.jsonl
    rc=0
    mpi_run "$np" "$@" -o "got$np.mtx" --timing got.jsonl 2> err || rc=$?
    if [[ $rc != "$want_rc" ]] || ! cmp -s want.mtx "got$np.mtx" ||
      [[ $(outcome got.jsonl) != "$(outcome want.jsonl)" ]]; then
      ok=0
      fail "$* on $np ranks: exit $rc (want $want_rc), $(outcome got.jsonl) vs $(outcome want.jsonl), $(cmp want.mtx "got$np.mtx" 2>&1) $(head -c 300 err)"
    fi
  done
  ((ok)) && pass "$* on $nps ranks: the one-process grid, iterations and norm ($(outcome want.jsonl))"
  return 0
}

# 1. Grids bit for bit: 3D and 2D, sides with fewer interior planes than ranks (N = 3: one
#    plane; N = 4, 5: two and three), fixed counts, --tol with --check-every, single precision.
same_run "1 2 3 4" mmjacobi --poisson3d 3 --max-iter 4
same_run "2 3 4" mmjacobi --poisson3d 4 --tol 1e-9 --check-every 2
same_run "3 4" mmjacobi --poisson3d 5 --max-iter 37 --check-every 4
same_run "1 2 3 4" mmjacobi --poisson3d 23 --tol 1e-3 --check-every 10
same_run "2 4" mmjacobi --poisson3d 23 --tol 1e-3
same_run "3" mmjacobi --poisson3d 18 --max-iter 60 --check-every 7 --tol 0.05 --precision single
same_run "2 3 4" mmjacobi --poisson2d 5 --tol 1e-10 --check-every 3
same_run "2 3" mmjacobi --poisson2d 41 --max-iter 150 --precision single
same_run "4" mmjacobi --poisson2d 64 --tol 1e-4 --check-every 25 --max-iter 2000
# Not converged within --max-iter: exit 1, the grid still written with the tool's comment.
same_run "3" mmjacobi --poisson3d 20 --tol 1e-3 --max-iter 30 --check-every 4
grep -q '^% mmjacobi: NOT CONVERGED: 30 iterations, .*not reached in --max-iter 30)$' got3.mtx &&
  pass "unconverged: the comment line" || fail "unconverged comment: $(head -3 got3.mtx)"
# Two OpenMP threads a rank: the same grid and norm (the norm does not depend on threads).
OMP_NUM_THREADS=2 mmjacobi --poisson3d 15 --tol 1e-4 --check-every 3 --device cpu -o want2.mtx \
  --timing w2.jsonl 2> /dev/null
mpi_run 2 env OMP_NUM_THREADS=2 mmjacobi --poisson3d 15 --tol 1e-4 --check-every 3 -o got.mtx \
  --timing g2.jsonl 2> /dev/null
cmp -s want2.mtx got.mtx && [[ $(outcome g2.jsonl) == "$(outcome w2.jsonl)" ]] &&
  pass "two threads a rank: the same grid and norm" || fail "two threads a rank: $(outcome g2.jsonl) vs $(outcome w2.jsonl)"

# 1b. Boxes (--split boxes, a process grid PXxPY[xPZ], or auto below 4 planes a rank): the same
#     bits. x split: each check's norm continues the rows' lanes box after box; y split (3D):
#     the plane sums box after box. Odd sides, boxes of one point, ranks without points.
same_run "2 3 4" mmjacobi --poisson3d 12 --tol 1e-3 --split boxes
same_run "4" mmjacobi --poisson3d 13 --tol 1e-4 --check-every 3 --split 2x2x1
same_run "4" mmjacobi --poisson3d 11 --max-iter 30 --check-every 4 --split 2x1x2 --precision single
same_run "3" mmjacobi --poisson3d 9 --max-iter 20 --split 3x1x1
same_run "4" mmjacobi --poisson3d 10 --tol 1e-3 --check-every 2 --split 1x4x1
same_run "2 3 4" mmjacobi --poisson2d 17 --tol 1e-6 --split boxes
same_run "4" mmjacobi --poisson2d 33 --tol 1e-6 --split 4x1
same_run "4" mmjacobi --poisson2d 30 --tol 1e-5 --check-every 5 --split 2x2 --precision single
same_run "2 3 4" mmjacobi --poisson3d 3 --max-iter 5 --split boxes
same_run "4" mmjacobi --poisson3d 4 --max-iter 7 --split 2x2x1
same_run "4" mmjacobi --poisson2d 4 --max-iter 7 --check-every 2 --split 4x1
same_run "1" mmjacobi --poisson3d 7 --tol 1e-2 --split boxes
same_run "4" mmjacobi --poisson3d 9 --tol 1e-4 --check-every 5  # auto: 7 planes on 4 ranks, boxes
rm -f g2.jsonl
mpi_run 2 env OMP_NUM_THREADS=2 mmjacobi --poisson3d 15 --tol 1e-4 --check-every 3 --split 2x1x1 \
  -o got.mtx --timing g2.jsonl 2> /dev/null
cmp -s want2.mtx got.mtx && [[ $(outcome g2.jsonl) == "$(outcome w2.jsonl)" ]] &&
  pass "boxes, two threads a rank: the same grid and norm" || fail "boxes, two threads a rank: $(outcome g2.jsonl) vs $(outcome w2.jsonl)"
# auto: slabs while every rank has 4 planes (N = 18: 16 planes, 4 ranks), else boxes.
split_of() { "$PY" -c "import json,sys; r = json.loads(open(sys.argv[1]).readline()); \
print(r['partition'], r.get('process_grid'))" "$1"; }
rm -f a.jsonl b.jsonl c.jsonl
mpi_run 4 mmjacobi --poisson3d 18 --max-iter 2 -q --timing a.jsonl 2> /dev/null
mpi_run 4 mmjacobi --poisson3d 17 --max-iter 2 -q --timing b.jsonl 2> /dev/null
mpi_run 4 mmjacobi --poisson2d 17 --max-iter 2 -q --timing c.jsonl 2> /dev/null
[[ $(split_of a.jsonl) == "z-slabs None" && $(split_of b.jsonl) == "boxes [1, 2, 2]" &&
  $(split_of c.jsonl) == "boxes [2, 2, 1]" ]] && pass "auto: slabs from 4 planes a rank, else boxes" ||
  fail "auto split: $(split_of a.jsonl) / $(split_of b.jsonl) / $(split_of c.jsonl)"

# 2. The message and -v: one line a rank (its planes, halo planes and neighbours, what it writes).
expect_exit 0 mpi_run 4 mmjacobi --poisson3d 4 --max-iter 3 -v -q --split slabs
expect_stderr '^mmjacobi: 4 ranks \(mpi\), 1 OpenMP threads a rank, on the CPU; the grid in z slabs$'
expect_stderr '^mmjacobi: rank 0/4: z slab, planes 1\.\.1 \(1, 4 interior points\), halo planes 0 \(wall below\) and 2 \(rank 1 above\), 16 values an exchange; writes planes 0\.\.1$'
expect_stderr '^mmjacobi: rank 1/4: z slab, planes 2\.\.2 \(1, 4 interior points\), halo planes 1 \(rank 0 below\) and 3 \(wall above\), 16 values an exchange; writes planes 2\.\.3$'
expect_stderr '^mmjacobi: rank 3/4: z slab, no planes \(more ranks than the 2 interior planes\); writes nothing$'
expect_stderr '^mmjacobi: poisson3d N=4: 3 iterations, \|\|u_new - u_old\|\|_2 = [0-9.]+ \(fixed count\), [0-9.e+]+ MLUP/s \(cpu-stencil on 4 ranks, median of 1\)$'
expect_exit 0 mpi_run 3 mmjacobi --poisson2d 9 --max-iter 3 -v -q --split slabs
expect_stderr '^mmjacobi: rank 1/3: y slab, planes 4\.\.5 \(2, 14 interior points\), halo planes 3 \(rank 0 below\) and 6 \(rank 2 above\), 18 values an exchange; writes planes 4\.\.5$'
# Boxes: each rank's box, its faces and what it writes (the output goes by planes).
expect_exit 0 mpi_run 4 mmjacobi --poisson3d 9 --max-iter 3 -v -q --split boxes
expect_stderr '^mmjacobi: 4 ranks \(mpi\), 1 OpenMP threads a rank, on the CPU; the grid in boxes, process grid 1x2x2$'
expect_stderr '^mmjacobi: rank 0/4: box \(0,0,0\) of 1x2x2: x 1\.\.7, y 1\.\.4, z 1\.\.4 \(112 interior points\), faces: y\+ rank 1, z\+ rank 2, 56 values an exchange; writes planes 0\.\.2$'
expect_stderr '^mmjacobi: rank 3/4: box \(0,1,1\) of 1x2x2: x 1\.\.7, y 5\.\.7, z 5\.\.7 \(63 interior points\), faces: y- rank 2, z- rank 1, 42 values an exchange; writes planes 7\.\.8$'
expect_exit 0 mpi_run 4 mmjacobi --poisson2d 4 --max-iter 3 -v -q --split 4x1
expect_stderr '^mmjacobi: rank 1/4: box \(1,0\) of 4x1: x 2\.\.2, y 1\.\.2 \(2 interior points\), faces: x- rank 0, 2 values an exchange; writes planes 2\.\.3$'
expect_stderr '^mmjacobi: rank 2/4: box \(2,0\) of 4x1: no points \(more ranks along an axis than its 2 interior points\); writes nothing$'

# 3. The record (rank 0 only): ranks, transport, phases, balance, work by the tool's formula.
expect_exit 0 mpi_run 3 mmjacobi --poisson3d 12 --max-iter 20 -q --repeat 3 --timing t.jsonl --split slabs
"$PY" - t.jsonl <<'PYEOF' && pass "timing record" || fail "timing record: $(cat t.jsonl)"
import json, sys
lines = open(sys.argv[1]).read().splitlines()
assert len(lines) == 1, lines
r = json.loads(lines[0])
assert r["tool"] == "mmjacobi" and r["ranks"] == 3 and r["transport"] == "mpi", r
assert r["impl"] == "cpu-stencil" and r["partition"] == "z-slabs" and r["iterations"] == 20, r
for p in ("partition", "exchange", "allreduce", "write"):
    assert r["phases"][p] >= 0, p
assert r["phases"]["compute"]["repeats"] == 3 and r["phases"]["compute"]["median"] > 0
assert r["flops"] == 8 * 10**3 * 20 and r["bytes"] == 16 * 10**3 * 20, r  # 8 and 16 B a point
assert abs(r["load_imbalance"] - 4 * 3 / 10) < 1e-12, r["load_imbalance"]  # planes 4, 3, 3
assert r["halo_values"] == 4 * 144, r["halo_values"]  # 2 planes for rank 1, 1 for the others
assert abs(r["mlups"] - 1000 * 20 / r["phases"]["compute"]["median"] * 1e-6) < 1e-6 * r["mlups"]
assert r["grid"] == {"dim": 3, "n": 12, "interior": 1000}, r["grid"]
PYEOF

# 4. --output-per-rank: a file a rank and the index, together the one-process grid; empty
#    ranks write an empty part; without mpirun, one part.
mmjacobi --poisson3d 6 --max-iter 9 --device cpu -o want.mtx 2> /dev/null
expect_exit 0 mpi_run 4 mmjacobi --poisson3d 6 --max-iter 9 --output-per-rank -o dst/room.mtx
"$PY" - dst want.mtx 6 4 <<'PYEOF' && pass "per-rank files" || fail "per-rank files: $(ls dst)"
import json, os, sys, numpy as np, scipy.io
d, want, n, ranks = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
idx = json.load(open(os.path.join(d, "room.index.json")))
assert idx["rows"] == n * n and idx["cols"] == n and idx["ranks"] == ranks, idx
assert [p["path"] for p in idx["parts"]] == ["room.rank%d.mtx" % r for r in range(ranks)]
parts = [np.asarray(scipy.io.mmread(os.path.join(d, p["path"]))).reshape(-1, n) for p in idx["parts"]]
assert [len(x) for x in parts] == [p["rows"] for p in idx["parts"]], [len(x) for x in parts]
assert [p["row_begin"] for p in idx["parts"]] == list(np.cumsum([0] + [len(x) for x in parts[:-1]]))
assert (np.concatenate(parts) == np.asarray(scipy.io.mmread(want))).all()
assert not os.path.exists(os.path.join(d, "room.mtx"))
PYEOF
rm -f dst/*
# Boxes write by planes too: the same parts.
expect_exit 0 mpi_run 4 mmjacobi --poisson3d 6 --max-iter 9 --output-per-rank -o dst/room.mtx --split 2x2x1
"$PY" - dst want.mtx 6 4 <<'PYEOF' && pass "per-rank files from boxes" || fail "per-rank files from boxes: $(ls dst)"
import os, sys, numpy as np, scipy.io
d, want, n, ranks = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
parts = [np.asarray(scipy.io.mmread(os.path.join(d, "room.rank%d.mtx" % r))).reshape(-1, n) for r in range(ranks)]
assert (np.concatenate(parts) == np.asarray(scipy.io.mmread(want))).all()
PYEOF
rm -f dst/*
expect_exit 0 mmjacobi --poisson2d 7 --max-iter 3 --output-per-rank -o dst/room.mtx
[[ -f dst/room.rank0.mtx && -f dst/room.index.json && ! -e dst/room.rank1.mtx ]] &&
  pass "one process: one part" || fail "one process per-rank: $(ls dst)"
rm -f dst/*

# 5. Bad options under 3 ranks: exit 2 (4 for --device cuda), one message, nothing written.
one_message() {
  local n
  n=$(grep -c '^mmjacobi: ' err || true)
  [[ $n == 1 && $(wc -l < err) == 1 ]] && pass "one message" || fail "$n messages: $(cat err)"
}
nothing_written() {
  [[ -z $(ls -A dst) ]] && pass "nothing written" || fail "written: $(ls -A dst)"
}
bad() {
  local code=$1 regex=$2
  shift 2
  expect_exit "$code" mpi_run 3 mmjacobi "$@" -o dst/room.mtx
  expect_stderr "$regex"
  one_message
  nothing_written
}
bad 2 'needs N >= 3' --poisson3d 2 --max-iter 3
bad 2 'give --max-iter K and/or --tol T' --poisson3d 8
bad 2 '--check-every must be >= 1' --poisson3d 8 --max-iter 3 --check-every 0
bad 2 '--tol must be a finite number' --poisson3d 8 --tol -1
bad 2 'give --poisson2d or --poisson3d, not both' --poisson3d 8 --poisson2d 8 --max-iter 3
bad 2 '--poisson2d/--poisson3d take no input files' --poisson2d 8 x.mtx --max-iter 3
bad 2 '--impl ref-stencil does not run distributed; under mpirun each rank.s part runs cpu-stencil' \
  --poisson3d 8 --max-iter 3 --impl ref-stencil
bad 2 '--split 2x2: give auto, slabs, boxes or the ranks along each axis \(PXxPYxPZ\)' \
  --poisson3d 8 --max-iter 3 --split 2x2
bad 2 '--split bricks: give auto, slabs, boxes' --poisson2d 8 --max-iter 3 --split bricks
bad 2 '--split 2x1x1: 2 ranks in the process grid, the job has 3' --poisson3d 8 --max-iter 3 --split 2x1x1
bad 2 '--split boxes with --device cuda: GPU ranks run slabs' --poisson3d 8 --max-iter 3 --split boxes --device cuda
bad 2 '--partition metis partitions a sparse matrix' --poisson3d 8 --max-iter 3 --partition metis
bad 2 '--comm nccl moves device memory: it needs GPU ranks \(--device cuda\)' --poisson3d 8 --max-iter 3 --comm nccl
bad 4 'rank 0 of 3: needs [0-9.]+ MB, 1.0 MB available \(--max-memory to change\)' --poisson3d 64 --max-iter 3 --max-memory 1M
bad 2 'the system form does not run distributed' A.mtx b.mtx --max-iter 3
bad 2 "unrecognised option '--bogus'" --poisson3d 8 --max-iter 3 --bogus
expect_exit 2 mpi_run 3 mmjacobi --poisson3d 8 --max-iter 3 --output-per-rank
expect_stderr 'output-per-rank needs -o PATH'
one_message
# -q: nothing written, the run still made.
expect_exit 0 mpi_run 2 mmjacobi --poisson3d 8 --max-iter 3 -q -o dst/room.mtx
expect_stderr 'poisson3d N=8: 3 iterations'
nothing_written

# 6. GPU ranks (--device cuda): each rank's slab on its node's GPUs in turn (on a machine of one
#    GPU every rank on it), halo planes staged through pinned host memory. Against the one-process
#    cuda-norm: the grid bit for bit after the same iterations; the norm bit for bit on one rank
#    (the same launch), else each rank's kernel-reduced change summed across the ranks (another
#    order: within 1e-12 relative, the difference printed); with --tol the iterations within 1
#    (and the grid bit for bit where they agree). The same with --comm nccl (the planes sent
#    from GPU to GPU by NCCL, a GPU a rank) where NCCL loads, on 2 ranks where 2 GPUs exist.
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
if [[ -z $cuda_built ]]; then
  echo "skip: the tools were built without CUDA: the GPU-rank cases did not run"
  bad 4 '--device cuda: built without CUDA' --poisson3d 8 --max-iter 3 --device cuda
elif ((gpus == 0)); then
  echo "skip: no GPU (nvidia-smi finds none): the GPU-rank cases did not run"
  bad 4 '--device cuda: no usable GPU' --poisson3d 8 --max-iter 3 --device cuda
else
  # gpu_same NPS ARGS...: WANT_TRANSPORT the record's transport (default mpi-host-staged).
  gpu_same() {
    local nps=$1 rc want_rc=0 np verdict
    shift
    rm -f want.jsonl
    "$@" --device cuda -o want.mtx --timing want.jsonl 2> /dev/null || want_rc=$?
    for np in $nps; do
      rm -f got.jsonl
      rc=0
      mpi_run "$np" "$@" --device cuda -o "got$np.mtx" --timing got.jsonl 2> err || rc=$?
      verdict=$("$PY" - want.jsonl got.jsonl "$np" want.mtx "got$np.mtx" "${WANT_TRANSPORT:-mpi-host-staged}" <<'PYEOF'
import json, sys, filecmp
w, g = (json.loads(open(p).readline()) for p in sys.argv[1:3])
np_, same = int(sys.argv[3]), filecmp.cmp(sys.argv[4], sys.argv[5], shallow=False)
rel = abs(g["final_norm"] - w["final_norm"]) / max(abs(w["final_norm"]), 1e-300)
di = g["iterations"] - w["iterations"]
ok = g["transport"] == sys.argv[6] and g["impl"] == "cuda-norm" and g["device"] == w["device"]
if w["tol"] is None or di == 0:
    ok = ok and di == 0 and same and (rel == 0 if np_ == 1 else rel <= 1e-12)
else:
    ok = ok and abs(di) <= 1
print(("ok" if ok else "bad") + " iterations %d vs %d, norm rel. diff %.3g, grid %s" % (
    g["iterations"], w["iterations"], rel, "equal" if same else "differs"))
PYEOF
) || verdict="bad: $(head -c 300 err)"
      if [[ $rc == "$want_rc" && $verdict == ok* ]]; then pass "GPU ranks: $* on $np ranks: $verdict"; else
        fail "GPU ranks: $* on $np ranks: exit $rc (want $want_rc), $verdict $(head -c 300 err)"; fi
    done
  }
  gpu_same "1 2 3" mmjacobi --poisson3d 64 --max-iter 50 --check-every 10
  gpu_same "1 2 4" mmjacobi --poisson3d 33 --max-iter 40 --check-every 7
  gpu_same "2 3" mmjacobi --poisson3d 64 --max-iter 60 --precision single
  gpu_same "1 2 3" mmjacobi --poisson3d 40 --tol 1e-3 --check-every 5
  gpu_same "3 4" mmjacobi --poisson3d 4 --max-iter 9  # fewer planes than ranks
  gpu_same "1 2 3" mmjacobi --poisson2d 100 --max-iter 200 --check-every 25
  gpu_same "2 4" mmjacobi --poisson2d 37 --tol 1e-5 --check-every 4
  gpu_same "2" mmjacobi --poisson2d 64 --max-iter 90 --precision single
  # Not converged: exit 1, the comment line.
  gpu_same "2" mmjacobi --poisson3d 24 --tol 1e-6 --max-iter 20
  # The change every sweep with a tolerance: each read while the next sweep runs, that sweep
  # undone at the stop; a second run after it (the slots it left).
  gpu_same "2 3" mmjacobi --poisson3d 20 --tol 1e-3 --repeat 2
  # -v names each rank's GPU (the node's GPUs in turn: rank 1 on GPU 1 where there are two);
  # the record.
  expect_exit 0 mpi_run 2 mmjacobi --poisson3d 16 --max-iter 5 --device cuda -v -q --timing g.jsonl
  expect_stderr '^mmjacobi: 2 ranks \(mpi-host-staged\), one GPU a rank'
  expect_stderr "^mmjacobi: rank 0/2: z slab on GPU 0, planes 1\\.\\.7 "
  expect_stderr "^mmjacobi: rank 1/2: z slab on GPU $((gpus > 1 ? 1 : 0)), planes 8\\.\\.14 "
  expect_stderr 'cuda-norm on 2 GPU ranks'
  # The record's tuning is the one rank 0's sweeps ran under, resolved as the one-process
  # record's is (its slab marches up; l2 as --tune gives it, else the code's choice).
  # tuned WANT ARGS...: mpirun of mmjacobi ARGS, the record's tuning's ahead, order, l2, warps
  # and whether it has chunks matched against the pattern WANT.
  tuned() {
    local want=$1 got
    shift
    rm -f t.jsonl
    got=$(mpi_run "$@" --device cuda -q --timing t.jsonl 2> err &&
      "$PY" -c 'import json,sys; t = json.loads(open("t.jsonl").readline())["tuning"]
print(t.get("ahead"), t.get("order"), t.get("l2"), t.get("warps"), "chunks" in t)') || got="exit: $(head -c 300 err)"
    # shellcheck disable=SC2053 # WANT is a pattern
    if [[ $got == $want ]]; then pass "GPU ranks' tuning record: $*: $got"; else
      fail "GPU ranks' tuning record: $*: $got (want $want)"; fi
  }
  tuned "tma up normal [1-9]* True" 2 mmjacobi --poisson3d 16 --max-iter 5
  tuned "tma up last [1-9]* True" 1 mmjacobi --poisson3d 40 --max-iter 5 --tune l2=last
  tuned "tma up normal 16 True" 2 mmjacobi --poisson3d 40 --max-iter 5 --tune l2=normal --tune warps=16
  # launch is the one-process runs' key: a slab's sweeps exchange halos between them, launched
  # one by one, and the ranks say so.
  if mpi_run 1 mmjacobi --poisson3d 16 --max-iter 3 --device cuda --tune launch=graph -q 2> "$TMP/err" &&
    grep -q "warning: --tune launch=graph not used by" "$TMP/err"; then
    pass "GPU ranks warn that --tune launch is not theirs"
  else fail "GPU ranks and --tune launch: $(cat "$TMP/err")"; fi
  # --comm nccl: one rank works; more ranks than GPUs are refused (exit 4); with a GPU a rank,
  # 2 ranks give the same grids and norms as MPI's.
  nccl_ok=1
  mpi_run 1 mmjacobi --poisson3d 8 --max-iter 2 --device cuda --comm nccl -q 2> "$TMP/err" || nccl_ok=0
  if ((nccl_ok == 0)) && grep -q "cannot load NCCL" "$TMP/err"; then
    echo "skip: NCCL is not loadable here ($(head -1 "$TMP/err")): no NCCL run of mmjacobi"
  else
    ((nccl_ok)) && pass "mmjacobi --comm nccl on one rank" || fail "mmjacobi --comm nccl on one rank: $(cat "$TMP/err")"
    WANT_TRANSPORT=nccl gpu_same "1" mmjacobi --poisson3d 40 --max-iter 30 --comm nccl
    expect_exit 4 mpi_run $((gpus + 1)) mmjacobi --poisson3d 16 --max-iter 3 --device cuda --comm nccl -q
    expect_stderr "share one GPU .*NCCL needs a GPU of its own for every rank"
    if ((gpus >= 2)); then
      WANT_TRANSPORT=nccl gpu_same "2" mmjacobi --poisson3d 64 --max-iter 50 --check-every 10 --comm nccl
      WANT_TRANSPORT=nccl gpu_same "2" mmjacobi --poisson3d 64 --max-iter 60 --precision single --comm nccl
      WANT_TRANSPORT=nccl gpu_same "2" mmjacobi --poisson3d 40 --tol 1e-3 --check-every 5 --comm nccl
      WANT_TRANSPORT=nccl gpu_same "2" mmjacobi --poisson3d 20 --tol 1e-3 --repeat 2 --comm nccl
      WANT_TRANSPORT=nccl gpu_same "2" mmjacobi --poisson2d 100 --max-iter 200 --check-every 25 --comm nccl
      expect_exit 0 mpi_run 2 mmjacobi --poisson3d 16 --max-iter 5 --device cuda --comm nccl -v -q
      expect_stderr '^mmjacobi: 2 ranks \(nccl\), one GPU a rank'
    else
      echo "skip: one GPU here: mmjacobi's NCCL on 2 ranks needs 2 GPUs (its refusal checked above)"
    fi
  fi
fi

finish
