#!/usr/bin/env bash
# Makefile.pipeline's scale experiment: whether a tool runs distributed here, and each run.
#
#   pipeline_scale.sh probe OUT NAME -- MPIRUN... -np 2 TOOL ARGS...
#   pipeline_scale.sh run PROBE TARGET DEVICE RANKS -- pipeline_step.sh ARGS...
#
# probe: runs the command (a tiny problem on 2 ranks) with '--timing OUT.jsonl' appended and
# writes OUT: 'ok' when the tool ran as one job of 2 ranks (exit 0, or 1 for an iteration that
# did not converge, and exactly one record, from rank 0, naming "ranks": 2), else 'n/a: WHY':
# no mpirun; each rank ran alone and wrote its own record (NAME has no distributed path yet,
# or the tools were built without MPI); the tool's refusal (e.g. of --device cuda, GPU ranks
# not built yet). Prints one progress line.
# run: when PROBE says ok (and, for DEVICE cuda, RANKS GPUs are present), runs the step;
# otherwise writes TARGET as an n/a record with the reason (the report shows it), without
# running anything. Both exit 0 for n/a: a tool that cannot scale here is not a failure.
set -uo pipefail
say() { printf '%-12s %s\n' "" "$1"; }
na_record() { printf '{"status":"n/a","reason":"%s"}\n' "$(sed 's/\\/\\\\/g; s/"/\\"/g' <<< "$2")" > "$1"; }

case ${1:-} in
  probe)
    out=$2 name=$3
    shift 3
    [[ ${1:-} == -- ]] && shift
    rec=$out.jsonl log=$out.log
    mkdir -p "$(dirname "$out")"
    rm -f "$rec"
    # The launcher: the first word that is not env or an assignment (env VAR=... mpirun ...).
    launcher=""
    for w in "$@"; do
      [[ $w == env || $w == *=* ]] && continue
      launcher=$w
      break
    done
    rc=0
    if ! command -v "$launcher" > /dev/null; then
      echo "n/a: no $launcher here (set MPIRUN)" > "$out"
    else
      "$@" --timing "$rec" > "$log" 2>&1 || rc=$?
      lines=0
      [[ -f $rec ]] && lines=$(grep -c . "$rec")
      if [[ ($rc == 0 || $rc == 1) && $lines == 1 ]] && grep -q '"ranks":2[,}]' "$rec"; then
        echo ok > "$out"
      elif [[ ($rc == 0 || $rc == 1) && $lines -ge 2 ]]; then
        echo "n/a: each rank ran alone ($name has no distributed path yet, or was built without MPI)" > "$out"
      elif [[ $rc == 0 || $rc == 1 ]]; then
        echo "n/a: $name ran, but not distributed (no \"ranks\": 2 in its record)" > "$out"
      else
        why=$(grep -E '^mm[a-z]+: ' "$log" | tail -1 | tr -d '\t\r' | cut -c1-200)
        echo "n/a: $name exit $rc${why:+: $why}" > "$out"
      fi
    fi
    say "$(cat "$out")"
    ;;
  run)
    probe=$2 target=$3 device=$4 ranks=$5
    shift 5
    [[ ${1:-} == -- ]] && shift
    mkdir -p "$(dirname "$target")"
    status=$(cat "$probe" 2> /dev/null || echo "n/a: no probe $probe")
    if [[ $status != ok ]]; then
      na_record "$target" "${status#n/a: }"
      say "$status"
      exit 0
    fi
    if [[ $device == cuda ]]; then
      gpus=$(nvidia-smi -L 2> /dev/null | grep -c '^GPU' || true)
      if ((gpus < ranks)); then
        na_record "$target" "$ranks GPU ranks need $ranks GPUs, ${gpus:-0} here"
        say "n/a: $ranks GPU ranks need $ranks GPUs, ${gpus:-0} here"
        exit 0
      fi
    fi
    exec "$@"
    ;;
  *)
    echo "usage: pipeline_scale.sh probe OUT NAME -- CMD... | run PROBE TARGET DEVICE RANKS -- STEP..." >&2
    exit 2
    ;;
esac
