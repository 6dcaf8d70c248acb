#!/usr/bin/env bash
# Builds the libFuzzer targets (clang, ASan + UBSan) and fuzzes each for its share of SECONDS,
# from the corpus kept in tests/fuzz/corpus/<target>/ plus seeds made from the bundled
# matrices and the bad fixtures; prints one summary row per target for README's runs table.
#
#   tests/fuzz/run.sh SECONDS [TARGET...]     (TARGET: reader stream array header; default all)
#   tests/fuzz/run.sh build                   (only build $FUZZ_DIR/bin, to carry elsewhere)
#
# Environment:
#   JOBS=N      fuzzing processes per target (libFuzzer -fork=N; default 1). CPU time is
#               SECONDS x JOBS: one CPU-hour is `run.sh 3600` or `JOBS=16 run.sh 225`.
#   SPLIT=each  every target fuzzes SECONDS (default: SECONDS shared evenly, one after another)
#   MERGE=1     replace tests/fuzz/corpus/<target>/ by the minimised corpus of the run
#   FUZZ_DIR    work folder outside the repository or ignored by git (default /tmp/mmfuzz):
#               bin (with the libomp it needs), seeds, the run's new inputs,
#               artifacts/<run>/<target>/ (findings), logs
#   CXX         clang++ (default)
#   NO_BUILD=1  use the targets already in $FUZZ_DIR/bin (built here, run on another machine)
# Exit status: 0 when no target found anything, 1 otherwise (the artifacts are listed).
set -euo pipefail
usage() { sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
[[ $# -ge 1 && ($1 == build || ($1 =~ ^[0-9]+$ && $1 -gt 0)) ]] || usage
total=$1
shift
targets=("$@")
((${#targets[@]})) || targets=(reader stream array header)
root=$(cd "$(dirname "$0")/../.." && pwd)
work=${FUZZ_DIR:-/tmp/mmfuzz}
jobs=${JOBS:-1}
cxx=${CXX:-clang++}
mkdir -p "$work"
work=$(cd "$work" && pwd)
case $work/ in "$root"/*)
  git -C "$root" check-ignore -q "$work" ||
    { echo "run.sh: FUZZ_DIR must be outside the repository or ignored by git" >&2; exit 2; } ;;
esac
for t in "${targets[@]}"; do
  [[ -f $root/tests/fuzz/fuzz_mtx_$t.cpp ]] || { echo "run.sh: no target '$t'" >&2; usage; }
done
if [[ $total == build ]]; then
  per=0
elif [[ ${SPLIT:-total} == each ]]; then
  per=$total
else
  per=$((total / ${#targets[@]}))
fi
[[ $total == build ]] || ((per >= 10)) || { echo "run.sh: $per s a target is too short" >&2; exit 2; }

# Longest input a target tries: short inputs keep the executions fast and the corpus small;
# 1-byte chunks still cut them in many pieces.
max_len() { case $1 in header) echo 256 ;; array) echo 512 ;; *) echo 384 ;; esac; }

# ---- build: the reader's sources instrumented for coverage, each target linked with libFuzzer.
build() {
  local flags=(-std=c++20 -O1 -g -fno-omit-frame-pointer -fopenmp -Wall -Wextra
    -fsanitize=address,undefined -fno-sanitize-recover=undefined "-I$root/lib")
  local obj=$work/build/obj src pids=()
  mkdir -p "$obj" "$work/bin"
  for src in "$root"/lib/mm/io.cpp "$root"/lib/mm/mtx_*.cpp; do
    "$cxx" "${flags[@]}" -fsanitize=fuzzer-no-link -c "$src" -o "$obj/$(basename "$src" .cpp).o" &
    pids+=($!)
  done
  for p in "${pids[@]}"; do wait "$p"; done
  pids=()
  for t in "${targets[@]}"; do
    "$cxx" "${flags[@]}" -fsanitize=fuzzer "$root/tests/fuzz/fuzz_mtx_$t.cpp" "$obj"/*.o -lz \
      -Wl,-rpath,'$ORIGIN/lib' -o "$work/bin/fuzz_mtx_$t" &
    pids+=($!)
  done
  for p in "${pids[@]}"; do wait "$p"; done
  # clang's OpenMP runtime beside the binaries, so that bin/ runs on a machine without clang.
  local omp
  omp=$(ldd "$work/bin/fuzz_mtx_${targets[0]}" | awk '/libomp/ { print $3 }')
  mkdir -p "$work/bin/lib"
  [[ -z $omp ]] || cp -L "$omp" "$work/bin/lib/"
}

# ---- seeds: the bundled matrices and the bad fixtures, in each target's input format.
seed() {
  local - t=$1 dir=$work/seeds/$1 f n=0 b
  set +o pipefail  # head closes the pipes early
  rm -rf "$dir" && mkdir -p "$dir"
  local files=("$root"/datasets/corpus/*.mtx "$root"/tests/bad/*.mtx)
  case $t in
    reader)
      for f in "${files[@]}"; do
        for b in '\x00' '\x17'; do { printf "$b"; head -c 383 "$f"; } > "$dir/$((n++))"; done
      done ;;
    stream)  # gzip at level 1 in memfd and pipe, two members, truncated, raw gzip files
      for f in "${files[@]}"; do
        for b in '\x00\x00' '\x13\x00' '\x80\x80' '\xa0\x05'; do
          { printf "$b"; head -c 382 "$f"; } > "$dir/$((n++))"
        done
      done
      for f in "$root"/tests/bad/*.gz; do { printf '\xc0\x00'; head -c 382 "$f"; } > "$dir/$((n++))"; done
      { printf '\xc0\x00'; head -c 3000 "$root/datasets/corpus/lp_afiro.mtx" | gzip -c | head -c 382; } \
        > "$dir/$((n++))" ;;
    array)  # every field and symmetry, 3 x 3 (rows 3: byte 1 bits 4-6; cols 3: byte 2)
      for b in 0 1 2 3 4 5 6 7 8 9 10 11 15; do
        printf "\\x00\\x$(printf %x $((48 + b)))\\x03"'1\n-2.5e3\n%% c\n\n+7\n0\n1e-400\nnan\n-inf\n.5\n4.\n' \
          > "$dir/$((n++))"
        printf "\\x05\\x$(printf %x $((176 + b)))\\x3b"'1 2\n3 4\n5 6\n7 8\n9 10\n11 12\n13 14\n15 16\n17 18\n' \
          > "$dir/$((n++))"
      done
      for f in "$root"/tests/bad/*array*.mtx "$root"/datasets/corpus/full*.mtx; do
        { printf '\x00\x30\x03'; sed -n '3,$p' "$f" | head -c 509; } > "$dir/$((n++))"
      done ;;
    header)
      for f in "${files[@]}"; do
        { printf '\x00'; head -n 4 "$f" | head -c 255; } > "$dir/$((n++))"
        { printf '\x01'; head -n 2 "$f" | head -c 255; } > "$dir/$((n++))"
      done ;;
  esac
}

commas() { sed ':a;s/\B[0-9]\{3\}\>/,&/;ta' <<<"$1"; }
# Units and KB of a folder.
corpus_size() {
  local d=$1
  echo "$(find "$d" -type f | wc -l) units, $((($(find "$d" -type f -printf '%s\n' | awk '{ s += $1 } END { print s + 0 }') + 1023) / 1024)) KB"
}

commit=$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)
[[ -n $(git -C "$root" status --porcelain -- lib tests/fuzz 2>/dev/null) ]] && commit+="+changes"
stamp=$(date -u +%Y%m%d-%H%M%S)
if [[ ${NO_BUILD:-0} == 1 ]]; then
  for t in "${targets[@]}"; do
    [[ -x $work/bin/fuzz_mtx_$t ]] || { echo "run.sh: NO_BUILD=1 but no $work/bin/fuzz_mtx_$t" >&2; exit 2; }
  done
else
  echo "run.sh: building into $work/bin with $cxx"
  build
fi
[[ $total != build ]] || exit 0
mkdir -p "$work/logs" "$work/tmp"
# libFuzzer's fork folders and the targets' scratch folders (fork jobs end without running
# exit handlers, so theirs stay): kept under FUZZ_DIR, emptied after each target.
export TMPDIR=$work/tmp
rows=()
found=0
for t in "${targets[@]}"; do
  seed "$t"
  bin=$work/bin/fuzz_mtx_$t new=$work/corpus/$t art=$work/artifacts/$stamp/$t
  log=$work/logs/$stamp-$t.log
  mkdir -p "$new" "$art" "$root/tests/fuzz/corpus/$t"
  echo "run.sh: fuzz_mtx_$t for $per s x $jobs process(es), log $log"
  start=$(date +%s)
  # -fork keeps going past a finding (saved under $art) and spreads over JOBS processes.
  (cd "$work/logs" && "$bin" -fork="$jobs" -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 \
    -max_total_time="$per" -timeout=10 -rss_limit_mb=2048 -max_len="$(max_len "$t")" \
    -dict="$root/tests/fuzz/mtx.dict" -artifact_prefix="$art/" -print_final_stats=1 \
    "$new" "$root/tests/fuzz/corpus/$t" "$work/seeds/$t") > "$log" 2>&1 || true
  secs=$(($(date +%s) - start))
  rm -rf "${TMPDIR:?}"/mmfuzz.*
  last=$(grep -E '^#[0-9]+: cov:' "$log" | tail -1 || true)
  execs=$(sed -E 's/^#([0-9]+):.*/\1/' <<<"$last")
  cov=$(sed -E 's/.* cov: ([0-9]+) ft: ([0-9]+) .*/cov \1, ft \2/' <<<"$last")
  # The corpus at the end, minimised: what MERGE=1 keeps.
  merged=$work/merged/$t
  rm -rf "$merged" && mkdir -p "$merged"
  "$bin" -merge=1 -max_len="$(max_len "$t")" -rss_limit_mb=2048 -timeout=10 \
    "$merged" "$root/tests/fuzz/corpus/$t" "$new" "$work/seeds/$t" > "$log.merge" 2>&1 ||
    echo "run.sh: merging $t failed, see $log.merge" >&2
  if [[ ${MERGE:-0} == 1 ]]; then
    rm -f "$root/tests/fuzz/corpus/$t"/*
    cp "$merged"/* "$root/tests/fuzz/corpus/$t"/ 2>/dev/null || true
  fi
  arts=$(find "$art" -type f | wc -l)
  ((arts == 0)) || found=1
  rows+=("| $(date -u '+%Y-%m-%d %H:%M') | $commit | fuzz_mtx_$t | $secs s x $jobs | \
$(commas "${execs:-0}") | $(commas $((${execs:-0} / (secs > 0 ? secs : 1)))) | \
$(corpus_size "$merged") ($cov) | $( ((arts == 0)) && echo none || echo "$arts in $art") |")
done

echo
echo "| date (UTC) | commit | target | duration x processes | executions | exec/s | corpus at end (minimised) | findings |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- |"
printf '%s\n' "${rows[@]}"
if ((found)); then
  echo
  echo "Findings (reproduce: $work/bin/fuzz_mtx_TARGET FILE):"
  find "$work/artifacts/$stamp" -type f
  exit 1
fi
