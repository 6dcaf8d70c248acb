#!/usr/bin/env bash
# Builds and runs mtx_io_bench (plus a SciPy mmread baseline) and records the results: JSON
# lines and a draft Markdown table under RESULTS, which git ignores; a summary worth keeping
# is written from them into bench/results/ by hand (bench/results/README.md).
#
# Usage: bench/run_io_bench.sh [mtx_io_bench options, e.g. --gzip --repeat 5]
# Environment: BUILD_DIR (build-bench), MTX_IO_DIR (scratch folder, /tmp),
#              SCIPY=0 to skip the SciPy baseline, RESULTS (results/bench).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
build=${BUILD_DIR:-build-bench}
scratch=${MTX_IO_DIR:-/tmp}
results=${RESULTS:-results/bench}

if [ ! -f "$build/build.ninja" ]; then
  cmake -S . -B "$build" -G Ninja -DMM_WITH_CUDA=OFF -DCMAKE_BUILD_TYPE=Release
fi
cmake --build "$build" -j1 --target mtx_io_bench

date=$(date +%F)
commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
# Uncommitted changes to the reader/writer (or this benchmark) make the commit id inexact.
measured=(lib/mm/mtx_read.cpp lib/mm/mtx_write.cpp lib/mm/mtx_header.cpp lib/mm/io.cpp
          lib/mm/mtx.hpp lib/mm/io.hpp bench/mtx_io_bench.cpp)
local_changes=$(git status --porcelain -- "${measured[@]}" 2>/dev/null | awk '{print $2}' | paste -sd' ' -)
cpu=$(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //')
cores=$(nproc)
mkdir -p "$results"
base="$results/mtx_io_${date}_${commit}"
jsonl="$base.jsonl"
md="$base.md"
table=$(mktemp)
trap 'rm -f "$table" "$scratch/mtx_io_bench.mtx"' EXIT
rm -f "$jsonl"

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
"$build/bin/mtx_io_bench" --dir "$scratch" --keep --commit "$commit" --jsonl "$jsonl" "$@" >"$table"

scipy_md=""
if [ "${SCIPY:-1}" != 0 ] && /usr/bin/python3 -c 'import scipy.io' 2>/dev/null; then
  echo "run_io_bench: SciPy mmread on the same file (one run, page cache warm)" >&2
  scipy_md=$(/usr/bin/python3 - "$scratch/mtx_io_bench.mtx" "$jsonl" "$commit" <<'EOF'
import json, os, sys, time
import scipy, scipy.io
path, jsonl, commit = sys.argv[1:4]
recs = [json.loads(l) for l in open(jsonl)]
t = time.perf_counter()
m = scipy.io.mmread(path)
s = time.perf_counter() - t
size = os.path.getsize(path)
nnz = recs[0]["nnz"]
assert m.nnz == nnz, (m.nnz, nnz)
rec = {"bench": "mtx_io", "op": "read", "impl": f"scipy.io.mmread {scipy.__version__}",
       "threads": 1, "commit": commit, "file_bytes": size, "nnz": nnz, "page_cache": "warm",
       "warmup": 0, "repeats": 1, "seconds": {"min": s, "median": s, "max": s},
       "mb_per_s": size / 1e6 / s, "formula": "mb_per_s = file_bytes / 1e6 / median seconds"}
with open(jsonl, "a") as f:
    f.write(json.dumps(rec) + "\n")
ours = {r["threads"]: r["mb_per_s"] for r in recs
        if r["op"] == "read" and r["impl"] == "mm::read_mtx"}
print("| impl | threads | seconds | MB/s | mm::read_mtx 1 thread / this | mm::read_mtx all threads / this |")
print("|---|---:|---:|---:|---:|---:|")
print(f"| {rec['impl']} | 1 | {s:.3f} | {rec['mb_per_s']:.1f} | "
      f"{ours[1] / rec['mb_per_s']:.2f} | {ours[max(ours)] / rec['mb_per_s']:.2f} |")
EOF
)
fi
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

{
  echo "# mtx_io_bench: Matrix Market read/write throughput"
  echo
  echo "- date: $date"
  echo "- commit: $commit${local_changes:+ (uncommitted changes in: $local_changes)}"
  echo "- device: $cpu, $cores cores (nproc)"
  echo "- command: bench/run_io_bench.sh $*"
  echo "- scratch folder: $scratch ($(df -T "$scratch" | awk 'NR==2 {print $2}'))"
  echo "- load average (1/5/15 min) before: $load_before; after: $load_after"
  echo
  echo "Page cache warm (the file was just written, and each timed op gets one untimed"
  echo "warm-up run); writes go to the page cache, without fsync. Medians of the runs shown."
  echo "MB/s = file bytes / 1e6 / median seconds, for every row (gzip rows count the"
  echo "uncompressed bytes). A load average near or above the core count means other work"
  echo "shared the machine: absolute numbers are then noisy; the ratios within one run"
  echo "count more."
  echo
  cat "$table"
  if [ -n "$scipy_md" ]; then
    echo
    echo "Well-known library baseline, SciPy (same file, one run after the runs above):"
    echo
    echo "$scipy_md"
  fi
} >"$md"

cat "$md"
echo "run_io_bench: wrote $md and $jsonl" >&2
