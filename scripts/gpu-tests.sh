#!/usr/bin/env bash
# Runs the whole test suite on the GPU machine from binaries carried in .carry/
# (scripts/pack-for-device.sh). Logs go to $OUT when set. Exits non-zero on any failure.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
carry=${1:-$root/.carry}
out=${OUT:-/tmp/mm-gpu-out}
mkdir -p "$out"
export LD_LIBRARY_PATH="$carry/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export MM_BIN="$carry/bin" MM_ROOT="$root" MM_PYTHON=${MM_PYTHON:-python3}
{
  echo "commit: $(cat "$carry/COMMIT" 2>/dev/null)  date: $(date -u +%FT%TZ)"
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
} | tee "$out/gpu-tests-summary.txt"
status=0
for t in "$MM_BIN"/test_*; do "$t" --gtest_brief=1 >> "$out/unit.log" 2>&1 || status=1; done
grep -E "PASSED|FAILED|SKIPPED|tests? ran" "$out/unit.log" | tail -6 | tee -a "$out/gpu-tests-summary.txt"
for t in "$root"/tests/cli/*.sh; do
  name=$(basename "$t" .sh)
  if bash "$t" > "$out/cli-$name.log" 2>&1; then r=passed; else r=FAILED; status=1; fi
  echo "cli.$name: $r ($(tail -1 "$out/cli-$name.log"))" | tee -a "$out/gpu-tests-summary.txt"
done
echo "overall: $([[ $status == 0 ]] && echo passed || echo FAILED)" | tee -a "$out/gpu-tests-summary.txt"
exit $status
