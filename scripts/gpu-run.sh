#!/usr/bin/env bash
# The whole GPU session in one call on the lent GPU machine: unpack the carried build
# (scripts/pack-for-device.sh), run every unit and CLI test (CUDA implementations
# included), then the benchmarks with --device cuda. Logs: summary.txt unit_<test>.log
# cli.<test>.log bench_<name>.txt clocks_<name>.csv (the GPU's SM clock, power and clock-event
# reasons during each benchmark; in $OUT/logs.tar.gz on the device tool's machine). They are raw
# output, not for git: what they measure goes into a summary per claim in bench/results/.
#   TESTS=0 skips the tests; BENCHES="lu spgemm" picks benchmarks (default: all of
#   spmv gemm jacobi add transpose lu spgemm solve); TEST_FILTER=regex picks test programs;
#   BENCH_ARGS_<name>="..." replaces a benchmark's arguments. With .carry/base.tar.xz
#   (pack-for-device.sh BASE_BUILD=...) each benchmark also runs from that earlier build, right
#   after this one's, into bench_<name>_base.txt: before/after ratios from the same machine.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
carry=$root/.carry
# Logs are written under /tmp; at the end $OUT (where the device tool fetches at most 8 files)
# gets summary.txt and every log in one logs.tar.gz.
out=/tmp/mm-gpu-out
rm -rf "$out" && mkdir -p "$out"
ROOT=$root CARRY=$carry
# shellcheck source=scripts/device-env.sh
source "$root/scripts/device-env.sh"
summary=$out/summary.txt
{
  echo "commit $(cat "$carry/COMMIT" 2>/dev/null), $(date -u +%FT%TZ)"
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
  ldd "$B/mmsolve" | grep "not found"
} | tee "$summary"
# Tests JOBS at a time (default 6: the GPU machine has 16 cores; the GPU is shared, which the
# correctness tests do not mind), each into its own log; one summary line each.
run_one() {  # unit|cli PATH
  local name log rc
  if [[ $1 == unit ]]; then
    name=$(basename "$2") log=$out/unit_$(basename "$2").log
    timeout 420 "$2" --gtest_brief=1 > "$log" 2>&1
  elif [[ $1 == mpi* ]]; then  # mpiNP PATH: a unit-test program as NP ranks
    name=$(basename "$2").np${1#mpi} log=$out/unit_$(basename "$2").np${1#mpi}.log
    OMP_NUM_THREADS=1 timeout 300 $MM_MPIEXEC -n "${1#mpi}" "$2" --gtest_brief=1 > "$log" 2>&1
  else
    name=cli.$(basename "$2" .sh) log=$out/$name.log
    timeout 480 bash "$2" > "$log" 2>&1
  fi
  rc=$?
  if [[ $1 != cli ]]; then
    echo "$name: $([[ $rc == 0 ]] && echo passed || echo "FAILED (exit $rc)") ($(grep -E '^\[  (PASSED|SKIPPED|FAILED) ' "$log" | tr '\n' ' '))"
  else
    echo "$name: $([[ $rc == 0 ]] && echo passed || echo "FAILED (exit $rc)") ($(tail -1 "$log"))"
  fi
}
export -f run_one
export out
# Each test's OpenMP gets its share of the cores, and waits passively: JOBS tests each spinning
# on every core starve one another (test_lu and test_solve ran past their timeout that way).
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-$(($(nproc) / ${JOBS:-6} > 0 ? $(nproc) / ${JOBS:-6} : 1))}
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive}
status=0
if [[ ${TESTS:-1} != 0 ]]; then
  {
    for t in "$B"/test_*; do
      [[ $(basename "$t") =~ ${TEST_FILTER:-.} ]] && printf '%s\0%s\0' unit "$t"
    done
    if [[ -n ${MM_MPIEXEC:-} && -x $B/test_dist && test_dist.np =~ ${TEST_FILTER:-.} ]]; then
      for np in 2 3 4; do printf '%s\0%s\0' "mpi$np" "$B/test_dist"; done
    fi
    for t in "$root"/tests/cli/*.sh; do
      [[ cli.$(basename "$t" .sh) =~ ${TEST_FILTER:-.} ]] && printf '%s\0%s\0' cli "$t"
    done
  } | xargs -0 -n 2 -P "${JOBS:-6}" bash -c 'run_one "$@"' _ | tee -a "$summary"
  grep -q FAILED "$summary" && status=1
fi
# The GPU's clocks and power while each benchmark runs (nvidia-smi every 100 ms into
# clocks_<name>.csv), one summary line a benchmark: at the power cap (clock-event reason SW
# power cap, bit 0x4) the SM clocks drop, and a long run's rate with them (an H200 running LU
# at n = 32768: 1620-1965 MHz against 1980). Plain awk (the GPU machine's is mawk).
clocks_start() {  # name
  smi_pid=
  command -v nvidia-smi > /dev/null || return 0
  nvidia-smi --query-gpu=index,clocks.sm,power.draw,clocks_event_reasons.active \
    --format=csv,noheader,nounits -lms 100 > "$out/clocks_$1.csv" 2> /dev/null &
  smi_pid=$!
}
clocks_stop() {  # name
  [[ -n ${smi_pid:-} ]] || return 0
  kill "$smi_pid" 2> /dev/null
  wait "$smi_pid" 2> /dev/null
  awk -F', *' -v name="$1" '
    $2 ~ /^[0-9]+$/ { n++; c = $2 + 0; if (n == 1 || c < lo) lo = c; if (c > hi) hi = c
                      if ($3 + 0 > p) p = $3 + 0; if (substr($4, length($4), 1) ~ /[4-7c-fC-F]/) cap++ }
    END { if (n) printf "bench %s: SM clock %d-%d MHz, power up to %.0f W, power cap in %d of %d samples\n",
                        name, lo, hi, p, cap, n }' "$out/clocks_$1.csv" | tee -a "$summary"
}
bench() {  # name dir command args...: runs DIR/command
  local name=$1 dir=$2 cmd=$3
  shift 3
  echo "=== $cmd $* ($(date -u +%T), $(cat "$dir/COMMIT" 2>/dev/null || cat "$carry/COMMIT"))" > "$out/bench_$name.txt"
  clocks_start "$name"
  timeout 300 "$dir/$cmd" "$@" >> "$out/bench_$name.txt" 2>&1 || echo "bench $name: exit $?" | tee -a "$summary"
  clocks_stop "$name"
}
export B
for b in ${BENCHES:-spmv gemm jacobi add transpose lu spgemm solve}; do
  case $b in
    spmv | gemm | jacobi | add | spgemm) args=(--device cuda) ;;
    transpose) args=(--device cuda --repeat 20) ;;
    lu) args=(--device cuda) ;;
    solve) clocks_start solve
           bash "$root/bench/solve_bench.sh" --dir /tmp/mm-solve-bench > "$out/bench_solve.txt" 2>&1 ||
             echo "bench solve: exit $?" | tee -a "$summary"
           clocks_stop solve
           continue ;;
    *) echo "unknown bench $b" | tee -a "$summary"; continue ;;
  esac
  var=BENCH_ARGS_$b
  [[ -n ${!var:-} ]] && read -ra args <<< "${!var}"
  bench "$b" "$B" "${b}_bench" "${args[@]}"
  [[ -x $carry/base/${b}_bench ]] && bench "${b}_base" "$carry/base" "${b}_bench" "${args[@]}"
done
echo "overall tests: $([[ $status == 0 ]] && echo passed || echo FAILED)" | tee -a "$summary"
finish "$summary" summary.txt logs.tar.gz "$out" $status
