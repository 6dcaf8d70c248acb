#!/usr/bin/env bash
# One GPU call for the FP32 SIMT GEMM work (issue 16): the GEMM tests on the GPU, then
# gemm_bench single at each size with the FP32 kernels beside cuBLAS, then the SASS summary of
# the carried object when the machine has cuobjdump. Run from a carry directory holding bin/
# (test_gemm, gemm_bench; or bin.tar.xz), lib/ and optionally gemm_sgemm.o; the checkout's
# root (for the test corpus) is its parent. Writes logs and tables under $OUT.
#   IMPLS="..." the single kernels timed (cublas is always first); SIZES="4096 8192 ..."
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:-/tmp/sgemm-out}
mkdir -p "$out"
[[ -f $here/bin.tar.xz && ! -d $here/bin ]] && tar -xJf "$here/bin.tar.xz" -C "$here"
export LD_LIBRARY_PATH="$here/lib:/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export MM_ROOT=${MM_ROOT:-$(cd "$here/.." && pwd)} MM_BIN="$here/bin"
IMPLS=${IMPLS:-cuda-sgemm cuda-regblock}
SIZES=${SIZES:-4096 8192 2048 1000}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit \
  --format=csv | tee "$out/smi.txt"
for t in test_gemm; do
  timeout 300 "$here/bin/$t" --gtest_brief=1 > "$out/$t.log" 2>&1
  echo "$t: exit $? $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$out/$t.log" | tr '\n' ' ')"
done
i=0
for n in $SIZES; do  # a size may come twice (run to run spread): each run its own files
  i=$((i + 1))
  # shellcheck disable=SC2086
  timeout 200 "$here/bin/gemm_bench" --device cuda --precision single --n "$n" --slow-n 0 \
    --single-impls $IMPLS --markdown "$out/bench_${i}_$n.md" > "$out/bench_${i}_$n.jsonl" \
    2> "$out/bench_${i}_$n.err"
  echo "gemm_bench n=$n: exit $?"
done
if [[ -f $here/gemm_sgemm.o ]] && command -v cuobjdump > /dev/null; then
  cuobjdump -sass "$here/gemm_sgemm.o" > "$out/sgemm.sass"
  # Per kernel: instruction counts of the kinds that matter (whole function, not only the loop).
  awk '/Function :/ {name=$3} /^ +\/\*[0-9a-f]+\*\/ / {
         for (i = 2; i <= NF; ++i) if ($i ~ /^[A-Z][A-Z0-9_.]+$/) { op=$i; break }
         c[name " " op]++ }
       END { for (k in c) print k, c[k] }' "$out/sgemm.sass" |
    grep -E " (FFMA|LDS|LDGSTS|LDL|STL|BAR|STG|IMAD|IADD3|ISETP|SEL|LEA)[. ]" | sort > "$out/sass_counts.txt"
  xz -9 "$out/sgemm.sass"
fi
for f in "$out"/bench_*.md; do grep -E '^\| single' "$f"; done
# The device tool fetches few files: everything in one archive beside the tables.
tar -cJf /tmp/sgemm-all.tar.xz -C "$out" . && mv /tmp/sgemm-all.tar.xz "$out/all.tar.xz"
