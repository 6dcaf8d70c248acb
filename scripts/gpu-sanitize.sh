#!/usr/bin/env bash
# The CUDA kernels under NVIDIA's compute-sanitizer, on the lent GPU machine with the carried
# build (scripts/pack-for-device.sh): the unit tests that run every CUDA implementation against
# the reference on small, awkward shapes, each under each of TOOLS. A kernel that reads or
# writes out of bounds (memcheck), races on shared memory (racecheck), reads global memory
# nothing wrote (initcheck) or misuses a barrier (synccheck) is reported even where its result
# happened to come out right. One line an entry and tool in summary_sanitize.txt:
#   <tool> <test> [<filter>]: clean | N errors | test failed (exit E)
#     | timed out (not checked: F of C cases finished) | no CUDA call (host-only cases)
# and the sanitizer's report in san_<tool>_<test>_<k>.log, k the entry's number (in
# $OUT/sanitize.tar.gz on the device tool's machine). Exit 1 if any entry found errors or failed.
#   TOOLS="memcheck racecheck" (default memcheck); TIMEOUT=S a run (default 300); ENTRIES=regex
#   picks entries by test name; BUDGET=S starts no entry after S seconds (default: none);
#   SPLIT=0 leaves a faulting entry's cases unsplit (by default each then runs alone); JOBS=N
#   entries side by side (default a quarter of the cores: the sanitizer's cost is mostly on the
#   host, and the small cases leave the GPU idle).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
# MM_CARRY and MM_SANITIZE_OUT: another carried build and work folder (tests/cli/gpu_sanitize.sh).
ROOT=$root CARRY=${MM_CARRY:-$root/.carry}
# shellcheck source=scripts/device-env.sh
source "$root/scripts/device-env.sh"
san=${SANITIZER:-$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)}
[[ -x $san ]] || { echo "gpu-sanitize: no compute-sanitizer ($san)" >&2; exit 2; }
out=${MM_SANITIZE_OUT:-/tmp/mm-sanitize-out}
rm -rf "$out" && mkdir -p "$out"
summary=$out/summary_sanitize.txt
# The entries, most telling first: a test program and its filter (the CUDA cases on small
# shapes; the corpus and the large rooms stay out: under the sanitizer a launch is 10-100x
# slower). TOOL[,TOOL]: before the test keeps an entry to those tools: the cases racecheck did
# not finish one of in 470 s, or that take minutes under memcheck, are memcheck's; the first
# entries were cut small for every tool (on the H200 racecheck finished stencil's, GEMM's,
# transpose's and Jacobi's in 4-136 s, the LU leaf's small solves in 47-140, the time-tiled
# sweep's one tile and one pass in 5; the LU leaf's one panel not in 185, so it is memcheck's;
# the time-tiled small rooms, every level, in 271 s beside seven memcheck entries, so they come
# last of every tool's, with the default TIMEOUT). A program whose cases take minutes under
# memcheck is split over several entries, so that they run side by side (the time-tiled
# bit-for-bit case took 191 s in single alone, so each precision is an entry); the last of
# test_lu_cuda_leaf's takes what the others leave (host-only cases: no CUDA call).
entries=(
  "test_jacobi_timetile *OneTileOnePassMatchesRef*"
  "test_stencil *CudaSmallGridsByHand*"
  "test_lu_cuda_leaf *SmallSolve*"
  "test_gemm *CudaImplsOnSmallShapes*"
  "test_add *CudaDenseImplsOnSmallShapes*"
  "test_transpose *CudaInPlaceImplsMatchRef*"
  "test_jacobi *CudaMatchesRefOnAwkwardShapes*"
  "test_spgemm *CudaImplsMatchRefOnAwkwardShapes*:*CudaSpgemmOnEveryRowBin*:*CudaSpmmOnWideAndNarrowB*"
  "test_solve_lu_cuda *"
  "test_jacobi_timetile *SmallRoomsEveryLevel*"
  "memcheck:test_lu_cuda_leaf *EveryLeafPathOnOnePanel*"
  "memcheck:test_jacobi_timetile TimeTileTypes/0.MatchesCudaNormBitForBit:*TwoDimensionsAreCudaNorms*"
  "memcheck:test_jacobi_timetile TimeTileTypes/1.MatchesCudaNormBitForBit"
  "memcheck:test_stencil *CudaMatchesRef*"
  "memcheck:test_spmv *CudaImplsMatchRefOnAwkwardShapes*:*CudaTuningsMatchRef*"
  "memcheck:test_transpose *CudaOutOfPlaceImplsMatchRef*:*CudaSparseImplsMatchRefOnAwkwardShapes*"
  "memcheck:test_add *CudaDenseImplsMatchRef*"
  "memcheck:test_add *CudaSparseImplsMatchRef*"
  "memcheck:test_add *CudaMixedImplsMatchRefInBothOrders*"
  "memcheck:test_gemm *CudaImplsMatchRef*"
  "memcheck:test_lu *CudaImplsMatchRef*:*CudaZeroPivotSameColumnAsCpu*"
  "memcheck:test_lu_cuda_leaf *EveryLeafPathMatchesRef*"
  "memcheck:test_lu_cuda_leaf *TiedPivots*:*ZeroPivot*"
  "memcheck:test_lu_cuda_leaf *WidePanels*:*InverseUpdate*"
  "memcheck:test_lu_cuda_leaf *SplitUpdate*:*FourWide*:*RepeatedRuns*"
  "memcheck:test_lu_cuda_leaf -*EveryLeafPath*:*SmallSolve*:*TiedPivots*:*ZeroPivot*:*WidePanels*:*InverseUpdate*:*SplitUpdate*:*FourWide*:*RepeatedRuns*"
  "memcheck:test_solve_cuda *"
)
{
  echo "commit $(cat "$CARRY/COMMIT" 2>/dev/null), $(date -u +%FT%TZ), $("$san" --version | tail -1)"
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
} | tee "$summary"
njobs=${JOBS:-$(($(nproc) / 4))}
((njobs >= 1)) || njobs=1
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-$((njobs > 1 ? 2 : 4))} OMP_WAIT_POLICY=passive
# One run of TEST's cases FILTER under TOOL into LOG: clean (what ran), N errors, timed out (not
# checked: how many of its cases finished first, so that a smaller entry can be made of those),
# no CUDA call, or test failed (exit E: the test's own assertion, not the sanitizer's).
check() {  # tool test filter log
  local rc errors ran
  timeout "${TIMEOUT:-300}" "$san" --tool "$1" --error-exitcode 97 --print-limit 20 \
    "$B/$2" --gtest_filter="$3" > "$4" 2>&1
  rc=$?
  errors=$(grep -oE 'ERROR SUMMARY: [0-9]+' "$4" | tail -1 | grep -oE '[0-9]+$')
  # What ran (gtest's closing counts, not its lines naming each case skipped): a test skipped
  # (no GPU) checks nothing.
  ran=$(grep -E '^\[  (PASSED|SKIPPED) +\] [0-9]+ tests?' "$4" |
    sed -E 's/^\[ *([A-Z]+) *\] ([0-9]+) tests?.*/\2 \L\1/' | paste -sd, -)
  case $rc in
    0) echo "clean${ran:+ ($ran)}" ;;
    97) # the first error and the kernel it was in
        echo "${errors:-some} errors, first: $(grep -E '^========= [A-Z]' "$4" |
          grep -vE 'COMPUTE-SANITIZER|ERROR SUMMARY|Target application' | head -1 | cut -c11-) in $(
          grep -m1 -E '^=========     at ' "$4" | sed -E 's/^=========     at (void )?//; s/<unnamed>:://g; s/[(<].*//')" ;;
    124) echo "timed out (not checked: $(grep -cE '^\[ +OK \]' "$4") of $(
          "$B/$2" --gtest_list_tests --gtest_filter="$3" | grep -c '^  ') cases finished)" ;;
    # Cases that make no CUDA call (a plan's limits, on the host): the sanitizer ends the
    # program with an error of its own after they pass. Nothing was there to check, and nothing
    # was found.
    *) if [[ $ran == *passed* ]] && grep -q 'terminated before first instrumented API call' "$4" &&
         ! grep -q '^\[  FAILED  \]' "$4"; then
         echo "no CUDA call ($ran)"
       else
         echo "test failed (exit $rc)"
       fi ;;
  esac
}
# One entry under one tool, its lines into $out/line_<k>.txt (and onto stdout as they come);
# its status (0 clean, not checked or nothing to check, 1 found) into $out/status_<k>.
run_entry() {  # k tool test filter line
  local k=$1 tool=$2 test=$3 filter=$4 line=$5 result t0 i case
  t0=$SECONDS
  result=$(check "$tool" "$test" "$filter" "$out/san_${tool}_${test}_$k.log")
  [[ $result == clean* || $result == timed* || $result == "no CUDA call"* ]]
  echo $(($? != 0)) > "$out/status_$k"
  echo "$line: $result, $((SECONDS - t0)) s" | tee "$out/line_$k.txt"
  # An error ends the process's CUDA context, and every later case of the entry fails with
  # it: each case then runs alone, so that each fault is found and named.
  if [[ $result == *errors* && ${SPLIT:-1} != 0 ]]; then
    i=0
    while read -r case; do
      i=$((i + 1))
      t0=$SECONDS
      echo "  $case: $(check "$tool" "$test" "$case" "$out/san_${tool}_${test}_${k}_$i.log"), $((SECONDS - t0)) s" |
        tee -a "$out/line_$k.txt"
    done < <("$B/$test" --gtest_list_tests --gtest_filter="$filter" | awk '/^[^ ]/{s=$1} /^  /{print s $1}')
  fi
}
start=$SECONDS
k=0
# Each entry under each tool before the next entry: the small entries every tool checks come
# before the ones that take minutes under memcheck, so that a BUDGET spends itself on them last.
for entry in "${entries[@]}"; do
  for tool in ${TOOLS:-memcheck}; do
    read -r test filter <<< "$entry"
    if [[ $test == *:* ]]; then
      [[ ,${test%%:*}, == *,$tool,* ]] || continue
      test=${test#*:}
    fi
    [[ $test =~ ${ENTRIES:-.} && -x $B/$test ]] || continue
    k=$((k + 1))
    line="$tool $test${filter:+ [$filter]}"
    # At most $njobs entries at once; none started once the budget is spent.
    while (($(jobs -rp | wc -l) >= njobs)); do wait -n; done
    if [[ -n ${BUDGET:-} ]] && ((SECONDS - start >= BUDGET)); then
      echo "$line: not run (budget of ${BUDGET} s spent)" | tee "$out/line_$k.txt"
      continue
    fi
    run_entry "$k" "$tool" "$test" "$filter" "$line" &
  done
done
wait
# The summary in the entries' order, whatever order they finished in.
status=0
for ((i = 1; i <= k; i++)); do
  cat "$out/line_$i.txt" >> "$summary"
  [[ $(cat "$out/status_$i" 2>/dev/null) == 1 ]] && status=1
done
echo "overall sanitizer: $([[ $status == 0 ]] && echo clean || echo FOUND) ($k entries, $njobs at once, $((SECONDS - start)) s)" | tee -a "$summary"
finish "$summary" summary_sanitize.txt sanitize.tar.gz "$out" $status
