#!/usr/bin/env bash
# The whole GPU session in one call on the lent GPU machine: unpack the carried build
# (scripts/pack-for-device.sh), run every unit and CLI test (CUDA implementations
# included), then the benchmarks with --device cuda. Logs land in $OUT: summary.txt
# unit.log cli.log bench_<name>.txt. They are raw output, not for git: what they measure
# goes into a summary per claim in bench/results/ (bench/results/README.md).
#   TESTS=0 skips the tests; BENCHES="lu spgemm" picks benchmarks (default: all of
#   spmv gemm jacobi add transpose lu spgemm solve); TEST_FILTER=regex picks test programs.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
carry=$root/.carry
out=${OUT:-/tmp/mm-gpu-out}
mkdir -p "$out"
[[ -f $carry/bin.tar.xz && ! -d $carry/bin ]] && tar -xJf "$carry/bin.tar.xz" -C "$carry"
export LD_LIBRARY_PATH="$carry/lib:/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export MM_BIN="$carry/bin" MM_ROOT="$root" MM_PYTHON=${MM_PYTHON:-python3}
B=$MM_BIN
summary=$out/summary.txt
{
  echo "commit $(cat "$carry/COMMIT" 2>/dev/null), $(date -u +%FT%TZ)"
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
  ldd "$B/mmsolve" | grep "not found"
} | tee "$summary"
status=0
for t in "$B"/test_*; do
  [[ ${TESTS:-1} == 0 ]] && break
  [[ $(basename "$t") =~ ${TEST_FILTER:-.} ]] || continue
  if timeout 240 "$t" --gtest_brief=1 >> "$out/unit.log" 2>&1; then r=passed; else r=FAILED; status=1; fi
  echo "$(basename "$t"): $r ($(grep -E '^\[  (PASSED|SKIPPED|FAILED) ' "$out/unit.log" | tail -3 | tr '\n' ' '))" |
    tee -a "$summary"
  echo "=== end $(basename "$t")" >> "$out/unit.log"
done
for t in "$root"/tests/cli/*.sh; do
  [[ ${TESTS:-1} == 0 ]] && break
  name=$(basename "$t" .sh)
  [[ cli.$name =~ ${TEST_FILTER:-.} ]] || continue
  echo "=== cli.$name" >> "$out/cli.log"
  if timeout 240 bash "$t" >> "$out/cli.log" 2>&1; then r=passed; else r=FAILED; status=1; fi
  echo "cli.$name: $r ($(tail -1 "$out/cli.log"))" | tee -a "$summary"
done
bench() {  # name command...
  local name=$1
  shift
  echo "=== $* ($(date -u +%T))" > "$out/bench_$name.txt"
  timeout 300 "$@" >> "$out/bench_$name.txt" 2>&1 || echo "bench $name: exit $?" | tee -a "$summary"
}
export B
for b in ${BENCHES:-spmv gemm jacobi add transpose lu spgemm solve}; do
  case $b in
    spmv | gemm | jacobi | add | spgemm) bench $b "$B/${b}_bench" --device cuda ;;
    transpose) bench transpose "$B/transpose_bench" --device cuda --repeat 20 ;;
    lu) bench lu "$B/lu_bench" --device cuda --nb 0,128,256 ;;
    solve) bench solve bash "$root/bench/solve_bench.sh" --dir /tmp/mm-solve-bench ;;
    *) echo "unknown bench $b" | tee -a "$summary" ;;
  esac
done
echo "overall tests: $([[ $status == 0 ]] && echo passed || echo FAILED)" | tee -a "$summary"
exit $status
