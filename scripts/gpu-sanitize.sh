#!/usr/bin/env bash
# The CUDA kernels under NVIDIA's compute-sanitizer, on the lent GPU machine with the carried
# build (scripts/pack-for-device.sh): the unit tests that run every CUDA implementation against
# the reference on small, awkward shapes, each under each of TOOLS. A kernel that reads or
# writes out of bounds (memcheck), races on shared memory (racecheck), reads global memory
# nothing wrote (initcheck) or misuses a barrier (synccheck) is reported even where its result
# happened to come out right. One line an entry and tool in summary_sanitize.txt:
#   <tool> <test> [<filter>]: clean | N errors | test failed (exit E) | timed out (not checked)
# and the sanitizer's report in san_<tool>_<test>.log (in $OUT/sanitize.tar.gz on the device
# tool's machine). Exit 1 if any entry found errors or failed.
#   TOOLS="memcheck racecheck" (default memcheck); TIMEOUT=S a run (default 300); ENTRIES=regex
#   picks entries by test name; BUDGET=S starts no entry after S seconds (default: none).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
ROOT=$root CARRY=$root/.carry
# shellcheck source=scripts/device-env.sh
source "$root/scripts/device-env.sh"
san=${SANITIZER:-$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)}
[[ -x $san ]] || { echo "gpu-sanitize: no compute-sanitizer ($san)" >&2; exit 2; }
out=/tmp/mm-sanitize-out
rm -rf "$out" && mkdir -p "$out"
summary=$out/summary_sanitize.txt
# The entries, most telling first: a test program and its filter (the CUDA cases on small
# shapes; the corpus and the large rooms stay out: under the sanitizer a launch is 10-100x
# slower).
entries=(
  "test_jacobi_timetile *MatchesCudaNormBitForBit*:*TwoDimensionsAreCudaNorms*"
  "test_stencil *CudaSmallGridsByHand*:*CudaMatchesRef*"
  "test_spmv *CudaImplsMatchRefOnAwkwardShapes*:*CudaTuningsMatchRef*"
  "test_transpose *CudaInPlaceImplsMatchRef*:*CudaOutOfPlaceImplsMatchRef*:*CudaSparseImplsMatchRefOnAwkwardShapes*"
  "test_spgemm *CudaImplsMatchRefOnAwkwardShapes*:*CudaSpgemmOnEveryRowBin*:*CudaSpmmOnWideAndNarrowB*"
  "test_add *CudaDenseImplsMatchRef*:*CudaSparseImplsMatchRef*:*CudaMixedImplsMatchRefInBothOrders*"
  "test_gemm *CudaImplsMatchRef*"
  "test_jacobi *CudaMatchesRefOnAwkwardShapes*"
  "test_lu *CudaImplsMatchRef*:*CudaZeroPivotSameColumnAsCpu*"
  "test_lu_cuda_leaf *"
  "test_solve_cuda *"
  "test_solve_lu_cuda *"
)
{
  echo "commit $(cat "$CARRY/COMMIT" 2>/dev/null), $(date -u +%FT%TZ), $("$san" --version | tail -1)"
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
} | tee "$summary"
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-4} OMP_WAIT_POLICY=passive
start=$SECONDS
status=0
for tool in ${TOOLS:-memcheck}; do
  for entry in "${entries[@]}"; do
    read -r test filter <<< "$entry"
    [[ $test =~ ${ENTRIES:-.} && -x $B/$test ]] || continue
    line="$tool $test${filter:+ [$filter]}"
    if [[ -n ${BUDGET:-} ]] && ((SECONDS - start >= BUDGET)); then
      echo "$line: not run (budget of ${BUDGET} s spent)" | tee -a "$summary"
      continue
    fi
    log=$out/san_${tool}_$test.log
    t0=$SECONDS
    timeout "${TIMEOUT:-300}" "$san" --tool "$tool" --error-exitcode 97 --print-limit 20 \
      "$B/$test" --gtest_brief=1 --gtest_filter="$filter" > "$log" 2>&1
    rc=$?
    errors=$(grep -oE 'ERROR SUMMARY: [0-9]+' "$log" | tail -1 | grep -oE '[0-9]+$')
    # What ran: a test skipped (no GPU) checks nothing.
    ran=$(grep -E '^\[  (PASSED|SKIPPED) ' "$log" | sed -E 's/^\[ *([A-Z]+) *\] ([0-9]+) tests?.*/\2 \L\1/' |
      paste -sd, -)
    case $rc in
      0) result="clean${ran:+ ($ran)}" ;;
      97) result="${errors:-some} errors"; status=1 ;;
      124) result="timed out (not checked)" ;;
      *) result="test failed (exit $rc)"; status=1 ;;
    esac
    echo "$line: $result, $((SECONDS - t0)) s" | tee -a "$summary"
  done
done
echo "overall sanitizer: $([[ $status == 0 ]] && echo clean || echo FOUND)" | tee -a "$summary"
if [[ -n ${OUT:-} ]]; then
  cp "$summary" "$OUT/summary_sanitize.txt"
  tar -czf "$OUT/sanitize.tar.gz" -C "$out" .
fi
exit $status
