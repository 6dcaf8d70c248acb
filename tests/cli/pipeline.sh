# Makefile.pipeline end to end on a tiny selection with the binaries of $MM_BIN: the main job
# (two steps at a time) writes checked records, the report's tables and PNG plots, the
# corpus's spy plots beside the spmv numbers and where the time went; a second run does
# nothing; a changed input reruns only what depends on it; the TOP_MAX caps; the CPU lock of
# pipeline_step.sh; bad SCALE / DEVICE / TIMED_FIELD are refused.
source "$(dirname "$0")/common.bash"
cd "$TMP"
if ! command -v make > /dev/null; then echo "skip: no make here, Makefile.pipeline cannot run"; exit 0; fi
R=$TMP/results
# Sizes a 2-core machine runs in seconds; IMPLS keeps the variants to a few per experiment.
# DEVICE=cpu: the same selection everywhere; the GPU machine adds a DEVICE=cuda run below.
sel=(DEVICE=cpu SIZES="32 16 494_bus west0479" JOBS=2
     IMPLS="ref cpu cpu-blocked cpu-csr cpu-sym cpu-stencil ref-stencil")
pl() { make -f "$MM_ROOT/Makefile.pipeline" --no-print-directory NOBUILD=1 BIN="$MM_BIN" RESULTS="$R" "$@"; }

# ---- the main job ----------------------------------------------------------------------------
if pl "${sel[@]}" > run1.log 2>&1; then pass "main job exits 0"; else
  fail "main job failed: $(tail -20 run1.log)"; fi
grep -q '^\[add\] *cpu 32$' run1.log && grep -q '^\[check\] *spmv cpu-csr' run1.log &&
  pass "one progress line per step" || fail "progress lines missing: $(head -20 run1.log)"
# Every input first (JOBS at a time), then the timed runs.
awk '/^\[gen\]/ { g = NR } /^\[(add|mul|lu|transpose|spmv|jacobi|solve)\]/ && !t { t = NR }
  END { exit !(g && t && g < t) }' run1.log && pass "inputs made before the timed runs" ||
  fail "order: $(grep -n '^\[' run1.log | head -30)"
for exp in add mul lu transpose spmv jacobi jacobi-tol solve; do
  grep -q "^## $exp: " "$R/report.md" && pass "report has a section for $exp" ||
    fail "report lacks $exp"
done
# The scale experiment (part of the main job): mpirun over RANKS="1 2 4", a table row per run
# with its efficiency, cg n/a (with the reason) while mmsolve does not run distributed.
if [[ -n ${MM_MPIEXEC:-} ]]; then
  grep -q '^## scale: weak and strong scaling over MPI ranks' "$R/report.md" &&
    grep -Eq '^\| jacobi \| weak \| cpu \| 2 \| 60\^3 = 216,000 points \| [0-9.]+ (s|ms|us) \| [0-9.e+-]+ \| [0-9.e+-]+ \| ' "$R/report.md" &&
    grep -Eq '^\| spmv \| strong \| cpu \| 4 \| 262,144 rows \| ' "$R/report.md" &&
    grep -Eq '^\| cg \| strong \| cpu \| 4 \| |^- `cg` \(cpu; .*\): .*mmsolve' "$R/report.md" &&
    grep -q '^scale: parallel efficiency at 4 ranks (cpu): ' "$R/summary-experiments.md" &&
    pass "scale: table, cg run or n/a, summary line" ||
    fail "scale section: $(sed -n '/^## scale/,/^## [A-Z]/p' "$R/report.md" | head -30)"
else
  echo "skip: built without MPI, no scale runs to check"
fi
# A table row: size, variant, device, time, GFLOP/s, GB/s, vs ref, of peak.
grep -Eq '^\| 32 \| cpu-blocked \| cpu \| [0-9.]+ (s|ms|us) \| [0-9.e+-]+ \| [0-9.e+-]+ \| [0-9.e+-]+x \| [0-9]+% \|$' \
  "$R/report.md" && pass "mul table row with speedup and fraction of peak" ||
  fail "no complete mul row: $(grep -A4 '^## mul' "$R/report.md")"
grep -q '^| add | 2 | 2 | cpu (cpu) at 32 |' "$R/summary-experiments.md" &&
  grep -q '^| add | 2 | 2 | cpu (cpu) at 32 |' run1.log && pass "summary table printed" ||
  fail "summary: $(cat "$R/summary-experiments.md")"
grep -Eq '^\| copy \| .* GB/s \|' "$R/report.md" && grep -Eq '^\| gemm \| .* GFLOP/s \|' "$R/report.md" &&
  pass "measured ceilings in the report" || fail "ceilings missing"
# The records are the tools' own: a median matching the table's source.
rec=$R/timings/add/ref-32.jsonl
$PY - "$rec" <<'EOF' && pass "timing record is the tool's JSON with a compute median" || fail "bad record $rec"
import json, sys
r = json.loads(open(sys.argv[1]).read())
assert r["tool"] == "mmadd" and r["impl"] == "ref" and r["phases"]["compute"]["median"] > 0
assert r["inputs"][0]["rows"] == 32 and r["phases"]["compute"]["repeats"] == 3
EOF
# Timed add/mul/lu read integer-valued files (TIMED_FIELD=integer); their checks read reals.
grep -q '"path":"[^"]*/data/dense-int/32-a.mtx"' "$R/timings/mul/cpu-blocked-32.jsonl" &&
  grep -q '^%%MatrixMarket matrix array integer' "$R/data/dense-int/32-a.mtx" &&
  grep -q '^\$ .*mmmul [^ ]*/data/dense/197-a.mtx' "$R/logs/mul/check-cpu-blocked-197.log" &&
  grep -q '^%%MatrixMarket matrix array real' "$R/data/dense/197-a.mtx" &&
  pass "timed inputs integer, checked inputs real" || fail "inputs: $(head -c 300 "$R/timings/mul/cpu-blocked-32.jsonl")"
# Each step's seconds in steps.tsv, summed in the report.
grep -Eq "^$R/timings/lu/ref-32.jsonl"$'\t'"[0-9.]+"$'\t'"[0-9.]+$" "$R/steps.tsv" &&
  grep -Eq '^\| lu \(timed\) \| 4 \| [0-9.]+ \| [0-9.]+ \| [0-9.]+ \| [0-9.]+ \| [0-9.]+ \|$' "$R/report.md" &&
  grep -q '^Generated inputs: [0-9]* files' "$R/report.md" && pass "where the time went" ||
  fail "time section: $(sed -n '/## Where/,$p' "$R/report.md" | head -20)"
# cpu-sym takes only symmetric files: west0479 is general, so n/a (exit 3), not a failure.
grep -q '"status":"n/a"' "$R/timings/spmv/cpu-sym-west0479.jsonl" &&
  grep -q 'cpu-sym.*west0479' "$R/report.md" && pass "n/a recorded and reported" ||
  fail "cpu-sym on west0479 not n/a"
grep -q '^None\.$' "$R/report.md" && pass "no failures" || fail "failures: $(grep -A5 '^## Failures' "$R/report.md")"
nok=$(ls "$R"/check/*/*.ok | wc -l)
((nok >= 15)) && pass "$nok experiment checks" || fail "only $nok experiment checks"
grep -l '^ok' "$R"/check/spmv/cpu-csr-chk_plaw.ok > /dev/null && grep -q '^\$ .*mmcheck compare' \
  "$R/logs/spmv/check-cpu-csr-chk_plaw.log" && pass "spmv checked by mmcheck compare" ||
  fail "spmv check: $(cat "$R"/logs/spmv/check-cpu-csr-chk_plaw.log)"
if command -v gnuplot > /dev/null; then
  n=0
  for png in "$R"/plots/{add,mul,lu,transpose,spmv,jacobi,solve}-{time,rate}.png; do
    [[ $(head -c 8 "$png" | od -An -tx1 | tr -d ' \n') == 89504e470d0a1a0a ]] && n=$((n + 1)) ||
      fail "$png is not a PNG"
  done
  ((n == 14)) && pass "14 PNG plots" || true
  if [[ -n ${MM_MPIEXEC:-} ]]; then
    [[ $(head -c 8 "$R/plots/scale-efficiency.png" | od -An -tx1 | tr -d ' \n') == 89504e470d0a1a0a ]] &&
      grep -q '](plots/scale-efficiency.png)' "$R/report.md" && pass "scale efficiency plot" ||
      fail "no scale-efficiency.png"
  fi
  grep -q '](plots/mul-rate.png)' "$R/report.md" && pass "report links its plots" || fail "no plot links"
else
  echo "skip: no gnuplot here, plots not drawn (plots/*.gp written)"
fi

# The corpus's spy plots (mmcheck spy, made with the inputs), each linked in the spmv section
# beside that matrix's numbers; files the run did not time say so.
nspy=0 ncorpus=0
for f in "$CORPUS"/*.mtx; do
  ncorpus=$((ncorpus + 1))
  png=$R/plots/spy/$(basename "$f" .mtx).png
  [[ $(head -c 8 "$png" 2> /dev/null | od -An -tx1 | tr -d ' \n') == 89504e470d0a1a0a ]] &&
    nspy=$((nspy + 1)) || fail "$png is not a PNG"
done
((nspy == ncorpus && nspy > 0)) && pass "$nspy spy plots, one per corpus file" || true
"$PY" - "$R"/plots/spy/*.png <<'EOF' && pass "spy plots within SPY_SIZE (400)" || fail "spy plot sizes"
import struct, sys
for p in sys.argv[1:]:
    w, h = struct.unpack(">II", open(p, "rb").read()[16:24])
    assert max(w, h) <= 400 and min(w, h) > 0, (p, w, h)
EOF
sed -n '/^## spmv: /,/^## [a-z]/p' "$R/report.md" > spmv.md
grep -Eq '^\| 494_bus \| !\[494_bus\]\(plots/spy/494_bus\.png\) \| 494 x 494 \| 1,080 \| [a-z][a-z0-9-]*: [0-9.]+ (s|ms|us), [0-9.e+-]+ GB/s \|$' spmv.md &&
  grep -Eq '^\| west0479 \| !\[west0479\]\(plots/spy/west0479\.png\) \| 479 x 479 \| 1,910 \| [a-z][a-z0-9-]*: ' spmv.md &&
  grep -qxF '| c | ![c](plots/spy/c.png) | 3 x 3 | 5 | not timed |' spmv.md &&
  [[ $(grep -c '](plots/spy/' spmv.md) == "$ncorpus" ]] &&
  pass "report shows each spy plot beside its spmv numbers" ||
  fail "spy plots in the spmv section: $(grep 'plots/spy' spmv.md | head -5)"

# ---- incremental -------------------------------------------------------------------------------
pl "${sel[@]}" > run2.log 2>&1 || fail "second run failed: $(tail run2.log)"
if grep -E '^\[[a-z-]+\] ' run2.log; then fail "second run did work"; else pass "second run does nothing"; fi
pl -q "${sel[@]}" experiments check && pass "make -q: up to date" || fail "make -q: not up to date"
sleep 1
touch "$R/data/dense-int/16-a.mtx"
pl "${sel[@]}" experiments > run3.log 2>&1 || fail "third run failed"
grep -q '^\[add\] *ref 16$' run3.log && ! grep -q '^\[add\] *ref 32$' run3.log &&
  ! grep -q '^\[spmv\]' run3.log && pass "a changed input reruns only its steps" ||
  fail "third run: $(cat run3.log)"

# ---- caps: above TOP_MAX_<exp> only the variants in TOP_<exp> run ------------------------------
pl -n "${sel[@]}" RESULTS="$TMP/results-top" SIZES_transpose="16 32 64" TOP_MAX_transpose=16 \
  TOP_transpose=cpu-blocked transpose > top.log 2>&1 || fail "make -n with TOP_MAX: $(tail -5 top.log)"
# (-n prints the progress lines as their printf commands: "[transpose]" "ref 16".)
grep -q '"cpu-blocked 64"' top.log && grep -q '"ref 16"' top.log && grep -q '"ref-inplace 16"' top.log &&
  ! grep -Eq '"ref(-inplace)? (32|64)"' top.log && pass "TOP_MAX keeps only TOP variants above it" ||
  fail "TOP_MAX: $(grep '"\[transpose\]"' top.log)"

# ---- pipeline_step.sh: a CPU-timed step waits while generation holds the CPU lock shared ------
if command -v flock > /dev/null; then
  flock -s "$TMP/cpu.lock" sleep 2 &
  sleep 0.3
  "$MM_ROOT/scripts/pipeline_step.sh" --lock "$TMP/t.lock" --times "$TMP/t.tsv" "$TMP/gpu.ok" "$TMP/gpu.log" -- true
  "$MM_ROOT/scripts/pipeline_step.sh" --lock "$TMP/t.lock" --cpu-lock "$TMP/cpu.lock" --times "$TMP/t.tsv" \
    "$TMP/cpu.ok" "$TMP/cpu.log" -- true
  wait
  awk -F'\t' '$1 ~ /gpu.ok$/ && $3 < 1 { g = 1 } $1 ~ /cpu.ok$/ && $3 > 1 { c = 1 } END { exit !(g && c) }' \
    "$TMP/t.tsv" && grep -q '^ok' "$TMP/cpu.ok" && pass "CPU lock: the CPU-timed step waited, the other did not" ||
    fail "CPU lock waits: $(cat "$TMP/t.tsv")"
fi

# ---- the CUDA variants through the pipeline, where a GPU exists ------------------------------
if nvidia-smi -L > /dev/null 2>&1; then
  R=$TMP/results-cuda
  if pl DEVICE=cuda SIZES="32 16 494_bus" > cuda.log 2>&1; then pass "DEVICE=cuda run exits 0"; else
    fail "DEVICE=cuda run failed: $(grep -A2 FAILED cuda.log | head -20)"; fi
  grep -Eq '^\| 32 \| cuda-[a-z0-9-]+ \| gpu \|' "$R/report.md" && pass "gpu rows in the report" ||
    fail "no gpu rows: $(head -40 "$R/report.md")"
  grep -q '^None\.$' "$R/report.md" && pass "no failures on the GPU" ||
    fail "GPU failures: $(grep -A20 '^## Failures' "$R/report.md")"
  R=$TMP/results
else
  echo "skip: no GPU here, the DEVICE=cuda run is left out"
fi

# ---- refused settings ----------------------------------------------------------------------------
expect_exit 2 pl SCALE=huge experiments
expect_stderr "SCALE must be small or full, not 'huge'"
expect_exit 2 pl DEVICE=tpu experiments
expect_stderr "DEVICE must be auto, cpu, cuda or all"
expect_exit 2 pl TIMED_FIELD=complex experiments
expect_stderr "TIMED_FIELD must be integer or real"
finish
