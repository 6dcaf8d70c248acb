#!/usr/bin/env bash
# mmspmv under mpirun through the real binary: 1 to 4 ranks against the one-process tool on the
# corpus, stdin and gzip, x and y0 files, -v per rank, the timing record, --output-per-rank;
# bad inputs under 3 ranks (exit 3, one message, no output); a rank killed mid-run.
source "$(dirname "$0")/common.bash"
require_mpi
mkdir -p "$TMP/dst"
leftovers() { find "$TMP/dst" -name '.*.mmtmp.*' | wc -l; }
C=$CORPUS

# close LIST: on each line of LIST, files A B...: each B equals A within 1e-14 relative (2-norm
# over the finite entries; the same NaN and infinities where A has them): the ranks sum a row's
# diagonal and off-diagonal blocks apart, so the last bits may differ from the one-process sum.
close() {
  "$PY" - "$@" <<'PYEOF'
import sys, numpy as np, scipy.io
for line in open(sys.argv[1]):
  a, *bs = line.split()
  a = np.asarray(scipy.io.mmread(a)).ravel()
  for f in bs:
    b = np.asarray(scipy.io.mmread(f)).ravel()
    assert a.shape == b.shape, (f, a.shape, b.shape)
    fa, fb = np.isfinite(a), np.isfinite(b)
    assert (fa == fb).all() and (np.isnan(a) == np.isnan(b)).all(), f
    assert (a[~fa & ~np.isnan(a)] == b[~fb & ~np.isnan(b)]).all(), f  # the same infinities
    d = np.linalg.norm(a[fa] - b[fb]) / max(np.linalg.norm(a[fa]), 1e-300)
    assert d <= 1e-14, (f, d)
PYEOF
}

# 1. The corpus: general, symmetric, skew, pattern, hermitian, rectangular, NaN and infinities,
#    empty, array; the same y as the one-process tool. Two files on 1 to 4 ranks, the others on
#    one rank count each, 2, 3 and 4 in turn (mpirun costs half a second a run).
# The one-process side runs on the CPU, as the ranks do (on a GPU machine `auto` would pick a
# CUDA kernel, whose sums round differently).
k=0
: > "$TMP/pairs"
for name in west0479 bcsstk13 skew_fp64 dwt_992 c lp_afiro comments_west0067 empty full; do
  A="$C/$name.mtx"
  expect_exit 0 mmspmv --device cpu "$A" --x random --seed 4 -o "$TMP/want_$name.mtx"
  case $name in
    west0479) nps="1 2 3 4" ;;
    bcsstk13) nps="2 3 4" ;;
    *) nps=$((2 + k++ % 3)) ;;
  esac
  line="$TMP/want_$name.mtx"
  for np in $nps; do
    expect_exit 0 mpi_run $np mmspmv "$A" --x random --seed 4 -o "$TMP/y_${name}_$np.mtx"
    line+=" $TMP/y_${name}_$np.mtx"
    # One rank under mpirun multiplies exactly as one process (no halo: one block).
    [[ $np == 1 ]] && same_files "$TMP/y_${name}_1.mtx" "$TMP/want_$name.mtx"
  done
  echo "$line" >> "$TMP/pairs"
done
close "$TMP/pairs" && pass "the corpus on 1 to 4 ranks as one process" ||
  fail "the corpus differs from one process"

# 2. Standard input and gzip (read by rank 0, scattered); x and y0 files; single precision.
A="$C/bcsstk13.mtx"
expect_exit 0 mmspmv --device cpu "$A" --x range -o "$TMP/want.mtx"
if mpi_run 3 mmspmv - --x range -o "$TMP/ystdin.mtx" < "$A"; then pass "stdin"; else fail "stdin"; fi
gzip -c "$A" > "$TMP/A.mtx.gz"
expect_exit 0 mpi_run 2 mmspmv "$TMP/A.mtx.gz" --x range -v -o "$TMP/ygz.mtx"
expect_stderr "rank 1/2: .*read by rank 0 \(gzip\), rows scattered"
echo "$TMP/want.mtx $TMP/ystdin.mtx $TMP/ygz.mtx" > "$TMP/pairs"
close "$TMP/pairs" && pass "stdin, gzip" || fail "stdin, gzip"
mmgen vector --n 2003 --kind random --seed 5 -o "$TMP/x.mtx"
mmgen vector --n 2003 --kind range -o "$TMP/y0.mtx"
expect_exit 0 mmspmv --device cpu "$A" "$TMP/x.mtx" --alpha 2.5 --beta -0.5 --y0 "$TMP/y0.mtx" -o "$TMP/want.mtx"
expect_exit 0 mpi_run 4 mmspmv "$A" "$TMP/x.mtx" --alpha 2.5 --beta -0.5 --y0 "$TMP/y0.mtx" \
  --impl ref -o "$TMP/y.mtx"
echo "$TMP/want.mtx $TMP/y.mtx" > "$TMP/pairs"
close "$TMP/pairs" && pass "x, y0, alpha, beta" || fail "x, y0, alpha, beta"
expect_exit 0 mmspmv --device cpu "$A" --x random --precision single -o "$TMP/want.mtx"
expect_exit 0 mpi_run 2 mmspmv "$A" --x random --precision single -o "$TMP/y.mtx"
mmcheck compare "$TMP/y.mtx" "$TMP/want.mtx" --json > "$TMP/cmp.json" || true
"$PY" -c "import json; r = json.load(open('$TMP/cmp.json')); assert r['rel_frobenius_error'] < 1e-6, r" &&
  pass "single precision" || fail "single precision: $(cat "$TMP/cmp.json")"

# 3. -v: one line a rank (rows, nonzeros, halo, neighbours, how it was read); the record.
expect_exit 0 mpi_run 3 mmspmv "$C/west0479.mtx" --x ones -q -v --repeat 3 --timing "$TMP/t.jsonl"
for r in 0 1 2; do
  expect_stderr "rank $r/3: rows [0-9]+\.\.[0-9]+ \([0-9]+\), [0-9]+ nonzeros .*halo [0-9]+ from [0-9]+ ranks.*neighbours [0-9 ]+; parallel read of bytes"
done
"$PY" - "$TMP/t.jsonl" <<'PYEOF' && pass "timing record" || fail "timing record: $(cat "$TMP/t.jsonl")"
import json, sys
lines = open(sys.argv[1]).read().splitlines()
assert len(lines) == 1, lines  # one record, from rank 0
r = json.loads(lines[0])
assert r["tool"] == "mmspmv" and r["ranks"] == 3 and r["transport"] == "mpi", r
assert r["impl"] == "cpu-csr" and r["flops"] == 2 * 1910, r
for p in ("read", "partition", "exchange", "write"):
    assert r["phases"][p] >= 0, p
assert r["phases"]["compute"]["repeats"] == 3
assert 1.0 <= r["load_imbalance"] < 1.5, r["load_imbalance"]
assert r["inputs"][0]["nnz"] == 1910 and r["inputs"][0]["rows"] == 479
PYEOF

# 4. --output-per-rank: a file a rank and the index, together y; one process makes one part.
expect_exit 0 mpi_run 3 mmspmv "$C/bcsstk13.mtx" --x ones --output-per-rank -o "$TMP/dst/y.mtx"
expect_exit 0 mmspmv --device cpu "$C/bcsstk13.mtx" --x ones -o "$TMP/want.mtx"
"$PY" - "$TMP/dst" "$TMP/want.mtx" <<'PYEOF' && pass "per-rank files" || fail "per-rank files"
import json, os, sys, numpy as np, scipy.io
d = sys.argv[1]
idx = json.load(open(os.path.join(d, "y.index.json")))
assert idx["rows"] == 2003 and idx["ranks"] == 3 and len(idx["parts"]) == 3, idx
parts = [np.asarray(scipy.io.mmread(os.path.join(d, p["path"]))).ravel() for p in idx["parts"]]
assert [p["path"] for p in idx["parts"]] == ["y.rank0.mtx", "y.rank1.mtx", "y.rank2.mtx"]
assert [len(x) for x in parts] == [p["rows"] for p in idx["parts"]]
assert [p["row_begin"] for p in idx["parts"]] == [0, parts[0].size, parts[0].size + parts[1].size]
y = np.concatenate(parts)
want = np.asarray(scipy.io.mmread(sys.argv[2])).ravel()
assert np.linalg.norm(y - want) <= 1e-14 * np.linalg.norm(want)
assert not os.path.exists(os.path.join(d, "y.mtx"))
PYEOF
rm -f "$TMP"/dst/*
expect_exit 0 mmspmv "$C/west0479.mtx" --x ones --output-per-rank -o "$TMP/dst/y.mtx"
[[ -f $TMP/dst/y.rank0.mtx && -f $TMP/dst/y.index.json && ! -e $TMP/dst/y.rank1.mtx ]] &&
  pass "one process: one part" || fail "one process per-rank: $(ls "$TMP/dst")"
expect_exit 2 mmspmv "$C/west0479.mtx" --x ones --output-per-rank
expect_stderr "output-per-rank needs -o PATH"
rm -f "$TMP"/dst/*

# 5. Bad inputs under 3 ranks: exit 3 (2 for usage, 4 for a missing GPU), exactly one message,
#    no output and no temporary left, an existing target untouched.
one_message() {
  local n
  n=$(grep -c '^mmspmv: ' "$TMP/err" || true)
  [[ $n == 1 && $(wc -l < "$TMP/err") == 1 ]] && pass "one message" || fail "$n messages: $(cat "$TMP/err")"
}
no_output() {
  [[ ! -e $TMP/dst/y.mtx && $(leftovers) == 0 ]] && pass "no output left" ||
    fail "output left: $(ls -A "$TMP/dst")"
}
mmgen sparse --rows 3000 --cols 3000 --nnz-per-row 4 --seed 2 -o "$TMP/big.mtx"
awk 'NR == 11000 {$2 = "x"} {print}' "$TMP/big.mtx" > "$TMP/bad.mtx"  # in the last rank's bytes
expect_exit 3 mpi_run 3 mmspmv "$TMP/bad.mtx" --x ones -o "$TMP/dst/y.mtx"
expect_stderr "^mmspmv: .*bad.mtx:11000: expected an integer column index, found 'x'$"
one_message
no_output
expect_exit 3 mpi_run 3 mmspmv "$MM_ROOT/tests/bad/index_row_past.mtx" --x ones -o "$TMP/dst/y.mtx"
one_message
no_output
expect_exit 3 mpi_run 3 mmspmv "$TMP/missing.mtx" --x ones -o "$TMP/dst/y.mtx"
expect_stderr "missing.mtx: cannot open: No such file or directory"
one_message
no_output
mmgen vector --n 7 -o "$TMP/x7.mtx"
expect_exit 3 mpi_run 3 mmspmv "$C/west0479.mtx" "$TMP/x7.mtx" -o "$TMP/dst/y.mtx"
expect_stderr "x7.mtx: x must be a vector of length 479"
one_message
no_output
echo "old" > "$TMP/dst/keep.mtx"
expect_exit 3 mpi_run 3 mmspmv "$TMP/bad.mtx" --x ones -o "$TMP/dst/keep.mtx"
[[ $(cat "$TMP/dst/keep.mtx") == old ]] && pass "target untouched" || fail "target changed"
rm -f "$TMP/dst/keep.mtx"
expect_exit 3 mpi_run 3 mmspmv "$TMP/bad.mtx" --x ones --output-per-rank -o "$TMP/dst/y.mtx"
[[ -z $(ls -A "$TMP/dst") ]] && pass "no part left" || fail "parts left: $(ls -A "$TMP/dst")"
expect_exit 2 mpi_run 3 mmspmv "$C/west0479.mtx" --x bogus
one_message
expect_exit 2 mpi_run 3 mmspmv "$C/west0479.mtx" --x ones --impl cpu-sym
one_message
# The budget (--max-memory, each rank's): checked from the header on every rank before the
# body is parsed; over it, exit 4 with one message naming the rank and its plan.
expect_exit 4 mpi_run 3 mmspmv "$TMP/big.mtx" --x ones --max-memory 64K -o "$TMP/dst/y.mtx"
expect_stderr "^mmspmv: rank 0 of 3: needs [0-9.]+ kB, 65.5 kB available \(--max-memory to change\)$"
one_message
no_output
expect_exit 4 mpi_run 2 mmspmv "$TMP/big.mtx" --x ones --max-memory 64K -v -o "$TMP/dst/y.mtx"
expect_stderr "its entries routed to their rows' ranks .*y gathered on rank 0"
no_output
expect_exit 0 mpi_run 3 mmspmv "$TMP/big.mtx" --x ones --max-memory 8M -o "$TMP/dst/y.mtx"
rm -f "$TMP/dst/y.mtx"
if ! nvidia-smi -L >/dev/null 2>&1; then  # GPU ranks without a GPU (mpi_gpu.sh runs them)
  expect_exit 4 mpi_run 2 mmspmv "$C/west0479.mtx" --x ones --device cuda
  one_message
fi

# 6. A rank killed mid-run: mpirun ends the job (no hang), nothing written.
mmgen poisson2d --n 300 -o "$TMP/p.mtx"
mpi_run 3 mmspmv "$TMP/p.mtx" --x ones --repeat 1000000 -o "$TMP/dst/y.mtx" 2>/dev/null &
job=$!
ranks=""
for _ in $(seq 100); do  # the ranks: command lines that start with the tool (mpirun's do not)
  ranks=$(pgrep -f "^[^ ]*mmspmv $TMP/p.mtx " || true)
  [[ $(echo "$ranks" | wc -w) -ge 3 ]] && break
  sleep 0.1
done
sleep 1
victim=$(echo "$ranks" | sed -n 2p)
if [[ -n $victim ]]; then
  kill -9 "$victim"
  ended=0
  for _ in $(seq 300); do  # 30 s at most
    if ! kill -0 "$job" 2>/dev/null; then ended=1; break; fi
    sleep 0.1
  done
  if ((ended)); then
    pass "killed rank: the job ended"
    status=0
    wait "$job" || status=$?
    [[ $status != 0 ]] && pass "killed rank: exit $status" || fail "killed rank: exit 0"
  else
    fail "killed rank: the job still runs after 30 s"
    pkill -9 -P "$job" || true
    kill -9 "$job" || true
  fi
  no_output
else
  fail "killed rank: no rank found to kill (ranks: $ranks)"
  kill "$job" || true
fi

finish
