#!/usr/bin/env bash
# One step of Makefile.pipeline: runs a tool, classifies its exit status, writes TARGET.
#
#   pipeline_step.sh [--lock FILE] [--cpu-lock FILE] [--times TSV] [--timing] [--allow-nc]
#                    TARGET LOG -- CMD... [--check CHECK...]
#
# --timing: CMD gets '--timing TARGET.part' and TARGET is that timing record.
# --check: after CMD succeeds, CHECK (an mmcheck command) must exit 0; TARGET says 'ok'.
# --lock: CMD runs under flock(1) on FILE, so that timed runs never overlap under make -j.
# --cpu-lock: CMD also holds FILE exclusively (data generation holds it shared), so that
#   nothing else uses the CPU while a CPU-timed run runs.
# --times: appends 'TARGET<tab>seconds CMD ran<tab>seconds waited for the locks' to TSV.
# --allow-nc: exit 1 (a solver or iteration that did not converge) still keeps the record;
#   the record itself says "converged": false and the report shows it.
# Exit 3 (bad input) means the implementation does not take this input (a symmetric-only
# kernel on a general matrix, a size limit): TARGET records 'n/a' with the tool's reason, so
# reruns skip it. Any other failure (exit 2 is a usage error: the pipeline's own fault) writes
# TARGET.failed (read by the report) and exits 1.
set -uo pipefail
lock="" cpu_lock="" times="" timing=0 allow_nc=0
while [[ $# -gt 0 && $1 == --* ]]; do
  case $1 in
    --lock) lock=$2; shift 2 ;;
    --cpu-lock) cpu_lock=$2; shift 2 ;;
    --times) times=$2; shift 2 ;;
    --timing) timing=1; shift ;;
    --allow-nc) allow_nc=1; shift ;;
    *) echo "pipeline_step.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
target=$1 log=$2
shift 2
[[ ${1:-} == -- ]] && shift
cmd=() check=()
while [[ $# -gt 0 && $1 != --check ]]; do cmd+=("$1"); shift; done
[[ ${1:-} == --check ]] && { shift; check=("$@"); }

mkdir -p "$(dirname "$target")" "$(dirname "$log")"
rm -f "$target.part" "$target.failed"
((timing)) && cmd+=(--timing "$target.part")
{ echo "\$ ${cmd[*]}"; } > "$log"
now() { date +%s.%N; }
t0=$(now)
# The locks are held on descriptors 8 and 9 (not passed to the command) until the command
# ends; the check runs after.
if command -v flock > /dev/null; then
  [[ -n $lock ]] && exec 8>> "$lock" && flock 8
  [[ -n $cpu_lock ]] && exec 9>> "$cpu_lock" && flock 9
fi
t1=$(now)
"${cmd[@]}" >> "$log" 2>&1 8>&- 9>&-
rc=$?
t2=$(now)
exec 8>&- 9>&-
[[ -n $times ]] && awk -v t="$target" -v a="$t0" -v b="$t1" -v c="$t2" \
  'BEGIN { printf "%s\t%.3f\t%.3f\n", t, c - b, b - a }' >> "$times"
# The tool's last message (under mpirun, Open MPI's report of the exit follows it; else the
# log's last line), quoted for JSON (backslashes and quotes escaped, tabs dropped).
reason() {
  { grep -v '^\$ ' "$log" | grep -E '^mm[a-z]+: ' || grep -v '^\$ ' "$log"; } | tail -1 |
    tr -d '\t\r' | sed 's/\\/\\\\/g; s/"/\\"/g' | cut -c1-300
}
fail() {
  echo "exit $1: $(reason)" > "$target.failed"
  echo "             FAILED (exit $1): $(reason) [log: $log]" >&2
  rm -f "$target.part"
  exit 1
}

if [[ $rc == 3 ]]; then
  echo "             n/a: $(reason)"
  if ((timing)); then
    printf '{"status":"n/a","exit":%d,"reason":"%s"}\n' "$rc" "$(reason)" > "$target"
  else
    echo "n/a: $(reason)" > "$target"
  fi
  rm -f "$target.part"
  exit 0
fi
if [[ $rc == 1 && $allow_nc == 1 && -s $target.part ]]; then
  echo "             not converged: $(reason)"
elif [[ $rc != 0 ]]; then
  fail "$rc"
fi
if [[ ${#check[@]} -gt 0 ]]; then
  echo "\$ ${check[*]}" >> "$log"
  "${check[@]}" >> "$log" 2>&1 || fail "$? from ${check[1]:-check}"
fi
if ((timing)); then
  mv "$target.part" "$target"
else
  echo "ok: $(reason)" > "$target"
fi
