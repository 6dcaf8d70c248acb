#!/usr/bin/env bash
# mmsolve on the GPU against the CPU, in one run on one machine: the real tool, its JSON
# timing records (solve time by CUDA events / the CPU clock, median of --repeat after a
# warm-up; reading, upload and download apart), and a table of ratios.
#   sparse: poisson3d N^3 (7-point, SPD) with b = A * ones: cg, bicgstab, gmres(30) to 1e-8,
#           CPU (OpenMP, every core) against CUDA (--check-every 20 and 1);
#   dense:  a random N x N system (uniform [0,1), b = A * ones): lu by LAPACK (CPU), cusolver
#           and cuda-blocked; gauss by cuda-blocked.
# Work by mmsolve's stated formulas (mmsolve --help): per iteration cg 2 nnz + 10 n flops etc.;
# lu 2/3 n^3 + 2 n^2 flops.
# Usage: bench/solve_bench.sh [--grid N] [--dense N] [--repeat R] [--dir D]; binaries from
# $MM_BIN (default build/bin). Writes the records to D/solve_bench.jsonl and the table to stdout.
set -euo pipefail
grid=128 dense=4096 repeat=5 dir=${TMPDIR:-/tmp}/mm-solve-bench
while (($#)); do
  case $1 in
    --grid) grid=$2; shift 2 ;;
    --dense) dense=$2; shift 2 ;;
    --repeat) repeat=$2; shift 2 ;;
    --dir) dir=$2; shift 2 ;;
    *) echo "solve_bench.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
root=$(cd "$(dirname "$0")/.." && pwd)
B=${MM_BIN:-$root/build/bin}
mkdir -p "$dir"
rec=$dir/solve_bench.jsonl
: > "$rec"
"$B/mmgen" poisson3d --n "$grid" -o "$dir/p3.mtx"
"$B/mmgen" rhs "$dir/p3.mtx" -o "$dir/p3b.mtx"
"$B/mmgen" dense --n "$dense" --seed 7 -o "$dir/d.mtx"
"$B/mmgen" rhs "$dir/d.mtx" -o "$dir/db.mtx"
run() {  # label, then mmsolve arguments
  local label=$1
  shift
  echo "solve_bench: $label" >&2
  local out rc=0
  out=$("$B/mmsolve" "$@" -q --warmup 1 --repeat "$repeat" --timing - 2>&1 >/dev/null) || rc=$?
  if ((rc != 0 && rc != 1)); then  # 1: not converged, still timed and recorded
    echo "solve_bench: $label: exit $rc: $(tail -1 <<< "$out")" >&2
    return 0
  fi
  grep '^{' <<< "$out" | sed "s/^{/{\"case\":\"$label\",/" >> "$rec"
}
for m in cg bicgstab gmres; do
  run "$m cpu" "$dir/p3.mtx" "$dir/p3b.mtx" --method $m --device cpu --max-iter 3000
  for ce in 20 1; do
    run "$m cuda check-every $ce" "$dir/p3.mtx" "$dir/p3b.mtx" --method $m --device cuda \
      --check-every $ce --max-iter 3000
  done
done
run "lu lapack (cpu)" "$dir/d.mtx" "$dir/db.mtx" --method lu --device cpu --impl lapack
for i in cusolver cuda-blocked; do
  run "lu $i" "$dir/d.mtx" "$dir/db.mtx" --method lu --device cuda --impl $i
done
run "gauss cuda-blocked" "$dir/d.mtx" "$dir/db.mtx" --method gauss --device cuda --impl cuda-blocked
python3 - "$rec" "$grid" "$dense" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
cpu = {}
print(f"# mmsolve, GPU against CPU: poisson3d {sys.argv[2]}^3, dense {sys.argv[3]}\n")
print("| case | device | iterations | median solve s | GFLOP/s | GB/s | residual | x CPU |")
print("|---|---|---:|---:|---:|---:|---:|---:|")
for r in rows:
    c = r["case"]
    key = "lu" if c.startswith("gauss") else c.split()[0]  # gauss against LAPACK's lu
    t = r["phases"]["compute"]["median"]
    if "cpu" in c:
        cpu[key] = t
    ratio = cpu.get(key, float("nan")) / t
    print(f"| {c} | {r['device']} | {r.get('iterations', '-')} | {t:.4f} | {r.get('gflops', 0):.1f} "
          f"| {r.get('gbps', 0):.1f} | {r.get('relative_residual', float('nan')):.1e} | {ratio:.2f} |")
PY
