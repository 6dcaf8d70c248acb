#!/usr/bin/env bash
# Weak scaling of the distributed SpMV and one CG iteration on 1 and 2 CPU ranks of this
# machine, against the memory-bandwidth bound measured in the same rounds (bench/dist_bench.cpp
# states the model; docs/scaling.md, "CPU ranks on one machine").
#
#   bench/dist_scaling.sh [dist_bench options, e.g. --n 216 --repeat 5]
#
# ROUNDS (default 5) rounds, each running dist_bench under mpirun -np 1 and -np 2 in turn (the
# order alternating between rounds, so slow phases of a shared machine hit both), one rank a
# core, one OpenMP thread a rank. Medians over the rounds of every figure; the JSON lines go to
# $RESULTS/dist_scaling_<date>_<commit>.jsonl (RESULTS: results/bench), the Markdown table to
# standard output. BUILD_DIR: the build (default build); MPIEXEC: mpirun. SUMMARIZE=FILE.jsonl:
# no runs, the table of an earlier run's lines.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build}
bench=$build/bin/dist_bench
rounds=${ROUNDS:-5}
results=${RESULTS:-$root/results/bench}
mpiexec=${MPIEXEC:-mpirun}
commit=$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)
if [[ -n ${SUMMARIZE:-} ]]; then
  out=$SUMMARIZE
  commit=$(basename "$out" .jsonl | sed 's/.*_//')
else
  [[ -x $bench ]] || { echo "dist_bench: build it first (cmake --build $build --target dist_bench)" >&2; exit 2; }
  mkdir -p "$results"
  out=$results/dist_scaling_$(date +%F)_$commit.jsonl
  : > "$out"
  export OMP_NUM_THREADS=1 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  for ((r = 0; r < rounds; r++)); do
    order="1 2"
    ((r % 2)) && order="2 1"
    for np in $order; do
      "$mpiexec" -q -n "$np" --bind-to core "$bench" "$@" | tee -a "$out" >&2
    done
  done
fi

python3 - "$out" "$commit" <<'PYEOF'
import json, statistics, sys
runs = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
by = {p: [r for r in runs if r["ranks"] == p] for p in (1, 2)}
med = lambda p, k: statistics.median(r[k] for r in by[p])
loads = [r["load_average"] for r in runs]
r1 = by[1][0]
print(f"device: {r1['device']}; commit {sys.argv[2]}; {len(by[1])} rounds; "
      f"{r1['rows_per_rank']:,} rows ({r1['nnz_per_rank']:,} nonzeros) a rank; "
      f"load average {min(loads):.1f}-{max(loads):.1f}\n")
bw = {p: med(p, "copy_gbps") for p in (1, 2)}
print(f"copy bandwidth: 1 rank {bw[1]:.2f} GB/s, 2 ranks together {bw[2]:.2f} GB/s "
      f"({bw[2] / bw[1]:.2f}x)\n")
print("| op | ranks | bytes (all ranks) | median time | of bound T_bound/T | weak-scaling eff. T(1)/T(2) "
      "| its bound T_bound(1)/T_bound(2) | eff. / bound |")
print("|---|---:|---:|---:|---:|---:|---:|---:|")
for op, t, b in (("spmv", "spmv_s", "spmv_bytes_per_rank"),
                 ("cg iteration", "cg_iteration_s", "cg_bytes_per_rank")):
    T = {p: med(p, t) for p in (1, 2)}
    B = {p: p * med(p, b) for p in (1, 2)}
    Tb = {p: B[p] / (bw[p] * 1e9) for p in (1, 2)}
    eff, bound = T[1] / T[2], Tb[1] / Tb[2]
    for p in (1, 2):
        tail = f"{eff:.3f} | {bound:.3f} | **{eff / bound:.2f}** |" if p == 2 else " | | |"
        print(f"| {op} | {p} | {B[p] / 1e6:.1f} MB | {T[p] * 1e3:.2f} ms | {Tb[p] / T[p]:.2f} | {tail}")
print()
# The same ratio round by round (each round's 1- and 2-rank runs, minutes apart at most): its
# median and range show how much a disturbed round moved the medians above.
pairs = [{r["ranks"]: r for r in runs[i:i + 2]} for i in range(0, len(runs) - 1, 2)]
pairs = [q for q in pairs if set(q) == {1, 2}]
# Rounds whose 2 ranks copied at least 1.5x what one did: no other process held a core when
# that run started (one that did halves a rank's share: the pair copies as one, the slower
# rank sets every time).
quiet = [q for q in pairs if q[2]["copy_gbps"] >= 1.5 * q[1]["copy_gbps"]]
for op, t, b in (("spmv", "spmv_s", "spmv_bytes_per_rank"),
                 ("cg iteration", "cg_iteration_s", "cg_bytes_per_rank")):
    def ratios(qs):
        out = []
        for q in qs:
            tb = {p: p * q[p][b] / q[p]["copy_gbps"] for p in (1, 2)}
            out.append((q[1][t] / q[2][t]) / (tb[1] / tb[2]))
        return out
    a, z = ratios(pairs), ratios(quiet)
    line = (f"- {op}: eff. / bound round by round: median {statistics.median(a):.2f}, "
            f"range {min(a):.2f}-{max(a):.2f} over {len(a)} rounds")
    if z:
        line += (f"; in the {len(z)} rounds whose 2 ranks copied >= 1.5x one: median "
                 f"{statistics.median(z):.2f}, range {min(z):.2f}-{max(z):.2f}")
    print(line)
for p in (1, 2):
    print(f"- {p} rank(s): cg {med(p, 'cg_reductions_per_iteration'):.0f} reductions an iteration, "
          f"{med(p, 'cg_allreduce_per_iteration_s') * 1e6:.0f} us in allreduce an iteration; "
          f"spmv halo exchange outside the overlap {med(p, 'spmv_exchange_s') * 1e6:.0f} us")
PYEOF
