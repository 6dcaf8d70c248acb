#!/usr/bin/env bash
# --partition metis through the real mmspmv and mmsolve: on 1 to 4 ranks against the one-process
# tool (y within 1e-14, iterations within 2, x within 1000 tol), the output in the file's order
# (gathered and a file a rank), stdin, gzip, x and y0 files, empty rows and a dense row, fewer
# rows than ranks; -v and the record (edge cut, the halo METIS saves on a scrambled grid);
# rectangular matrices refused (exit 2, one message).
source "$(dirname "$0")/common.bash"
require_mpi
if [[ $(mpi_run 1 mmspmv "$CORPUS/karate.mtx" --x ones -q --partition metis 2>&1 || true) == \
  *"built without METIS"* ]]; then
  echo "skip: built without METIS (Debian: libmetis-dev), no --partition metis test"
  exit 0
fi
cd "$TMP"
mkdir -p dst
C=$CORPUS

# close A B [BOUND]: ||B - A|| <= BOUND ||A|| (2-norm over the finite entries, the same NaN and
# infinities; BOUND 1e-14 by default).
close() {
  "$PY" - "$@" <<'PYEOF'
import sys, numpy as np, scipy.io
a = np.asarray(scipy.io.mmread(sys.argv[1])).ravel()
b = np.asarray(scipy.io.mmread(sys.argv[2])).ravel()
bound = float(sys.argv[3]) if len(sys.argv) > 3 else 1e-14
assert a.shape == b.shape, (a.shape, b.shape)
fa, fb = np.isfinite(a), np.isfinite(b)
assert (fa == fb).all() and (np.isnan(a) == np.isnan(b)).all()
d = np.linalg.norm(a[fa] - b[fb]) / max(np.linalg.norm(a[fa]), 1e-300)
assert d <= bound, (sys.argv[2], d)
PYEOF
}
# spmv_same FILE NPS ARGS...: y of every NP equals one process's (bit for bit on one rank).
spmv_same() {
  local a=$1 nps=$2
  shift 2
  expect_exit 0 mmspmv --device cpu "$a" "$@" -o want.mtx
  for np in $nps; do
    expect_exit 0 mpi_run "$np" mmspmv "$a" "$@" --partition metis -o y.mtx
    if [[ $np == 1 ]]; then same_files y.mtx want.mtx; else
      close want.mtx y.mtx && pass "$a $* on $np ranks" || fail "$a $* on $np ranks: y differs"
    fi
  done
}

# 1. The corpus's square matrices: general, symmetric, skew, pattern, hermitian (3 rows: fewer
#    than 4 ranks), complex, an array; and empty rows with a dense row.
spmv_same "$C/west0479.mtx" "1 2 3 4" --x random --seed 4
spmv_same "$C/bcsstk13.mtx" "2 4" --x random --seed 4
spmv_same "$C/skew_fp64.mtx" "3" --x random
spmv_same "$C/dwt_992.mtx" "2" --x range
spmv_same "$C/c.mtx" "4" --x random
spmv_same "$C/young1c.mtx" "3" --x random
spmv_same "$C/full.mtx" "4" --x range
awk 'BEGIN {
  n = 300; srand(3); k = 0
  for (j = 1; j <= n; j++) e[k++] = 7 " " j " " j / 7          # row 7 dense
  for (i = 1; i <= n; i++) if (i % 5 != 2 && i != 7)         # rows 2, 7, 12, ... otherwise empty
    for (t = 0; t < 3; t++) e[k++] = i " " int(rand() * n) + 1 " " rand()
  print "%%MatrixMarket matrix coordinate real general"
  print n, n, k
  for (j = 0; j < k; j++) print e[j]
}' > E.mtx
spmv_same E.mtx "1 2 3 4" --x random --seed 2

# 2. Read by rank 0 (stdin, gzip); x and y0 files with alpha, beta; single precision.
A=$C/bcsstk13.mtx
expect_exit 0 mmspmv --device cpu "$A" --x range -o want.mtx
expect_exit 0 mpi_run 3 mmspmv - --x range --partition metis -o ystdin.mtx < "$A"
close want.mtx ystdin.mtx && pass "stdin" || fail "stdin"
gzip -c "$A" > A.mtx.gz
expect_exit 0 mpi_run 2 mmspmv A.mtx.gz --x range --partition metis -o ygz.mtx
close want.mtx ygz.mtx && pass "gzip" || fail "gzip"
mmgen vector --n 2003 --kind random --seed 5 -o x.mtx
mmgen vector --n 2003 --kind range -o y0.mtx
spmv_same "$A" "1 4" x.mtx --alpha 2.5 --beta -0.5 --y0 y0.mtx
expect_exit 0 mmspmv --device cpu "$A" --x random --precision single -o want.mtx
expect_exit 0 mpi_run 2 mmspmv "$A" --x random --precision single --partition metis -o y.mtx
close want.mtx y.mtx 1e-6 && pass "single precision" || fail "single precision"

# 3. A 2D Laplacian with its points numbered at random: row blocks put most neighbours on other
#    ranks, METIS's parts are patches of the grid. -v says the edge cut; the record says metis.
mmgen poisson2d --n 40 -o P.mtx
awk 'BEGIN {srand(7)}
  /^%/ {print; next}
  !h {print; h = 1; n = $1; for (i = 1; i <= n; i++) p[i] = i
      for (i = n; i > 1; i--) {j = int(rand() * i) + 1; t = p[i]; p[i] = p[j]; p[j] = t}; next}
  {print p[$1], p[$2], $3}' P.mtx > Q.mtx
spmv_same Q.mtx "3" --x random
for part in rows metis; do
  expect_exit 0 mpi_run 4 mmspmv Q.mtx --x ones -q -v --partition $part --timing "t_$part.jsonl"
done
expect_stderr "^mmspmv: --partition metis: 4 parts of the graph of A \+ A\^T \(1600 vertices, 3120 edges\) by METIS_PartGraphKway on rank 0: edge cut [0-9]+, "
for r in 0 1 2 3; do
  expect_stderr "^mmspmv: rank $r/4: rows [0-9]+\.\.[0-9]+ \([0-9]+\), [0-9]+ nonzeros .*halo [0-9]+ from [0-9]+ ranks.*neighbours [0-9 ]+;"
done
"$PY" - t_rows.jsonl t_metis.jsonl <<'PYEOF' && pass "the record; metis's halo" || fail "record: $(cat t_*.jsonl)"
import json, sys
rows, metis = (json.loads(open(f).read()) for f in sys.argv[1:])
assert rows["partition"] == "rows" and "edge_cut" not in rows, rows
assert metis["partition"] == "metis" and metis["ranks"] == 4, metis
assert metis["edge_cut"] > 0, metis
# ~3500 halo values a product by row blocks of a scrambled grid, ~200 by METIS's patches.
assert metis["halo_values"] * 5 < rows["halo_values"], (metis["halo_values"], rows["halo_values"])
assert metis["load_imbalance"] < 1.1 and metis["phases"]["partition"] > 0, metis
PYEOF
expect_exit 0 mpi_run 1 mmspmv Q.mtx --x ones -q -v --partition metis
expect_stderr "^mmspmv: --partition metis on one rank: one part, edge cut 0$"

# 4. --output-per-rank: the parts are the file's uniform blocks, in the file's order.
expect_exit 0 mmspmv --device cpu Q.mtx --x random -o want.mtx
expect_exit 0 mpi_run 3 mmspmv Q.mtx --x random --partition metis --output-per-rank -o dst/y.mtx
"$PY" - <<'PYEOF' && pass "per-rank files in the file's order" || fail "per-rank files"
import json, numpy as np, scipy.io
idx = json.load(open("dst/y.index.json"))
assert idx["rows"] == 1600 and idx["ranks"] == 3, idx
assert [(p["row_begin"], p["rows"]) for p in idx["parts"]] == [(0, 534), (534, 533), (1067, 533)]
y = np.concatenate([np.asarray(scipy.io.mmread("dst/" + p["path"])).ravel() for p in idx["parts"]])
want = np.asarray(scipy.io.mmread("want.mtx")).ravel()
assert np.linalg.norm(y - want) <= 1e-14 * np.linalg.norm(want)
PYEOF
rm -f dst/*

# 5. METIS needs a square matrix: a rectangular one is refused on every rank, one message.
expect_exit 2 mpi_run 3 mmspmv "$C/lp_afiro.mtx" --x ones --partition metis -o dst/y.mtx
expect_stderr "^mmspmv: --partition metis needs a square matrix \(METIS partitions the graph of A \+ A\^T\), not 27 x 51; use --partition rows$"
[[ $(wc -l < "$TMP/err") == 1 && -z $(ls -A dst) ]] && pass "one message, nothing written" ||
  fail "rectangular: $(cat "$TMP/err"; ls -A dst)"
expect_exit 2 mpi_run 2 mmspmv "$C/west0479.mtx" --x ones --partition bogus
expect_stderr "^mmspmv: --partition must be rows or metis, not 'bogus'$"

# 6. mmsolve: every method on the scrambled grid and generated systems, iterations within 2 of
#    one process and x within 1000 tol; two columns; x a file a rank in the file's order.
mmgen spd --n 800 --nnz-per-row 8 --seed 3 -o S.mtx
mmgen diagdom --n 300 --seed 4 -o D.mtx
for m in Q S D; do mmgen rhs "$m.mtx" --x random --seed 5 -o "b$m.mtx"; done
mpi_same_solve 1 2 3 4 -- Q.mtx bQ.mtx --method cg --precond jacobi --tol 1e-10 -- --partition metis
# (Not BiCGSTAB on the grid: its path there turns on the last bits of the reductions, 93-102
# iterations on 1-4 ranks against 98 for one process with row blocks too.)
mpi_same_solve 2 4 -- D.mtx bD.mtx --method bicgstab --tol 1e-10 -- --partition metis
mpi_same_solve 3 -- Q.mtx bQ.mtx --method gmres --tol 1e-10 -- --partition metis
mpi_same_solve 2 3 -- S.mtx bS.mtx --method cg --tol 1e-10 -- --partition metis
mpi_same_solve 4 -- D.mtx bD.mtx --method gmres --precond jacobi --tol 1e-10 -- --partition metis
# bcsstk13 (SPD, cond ~1e10, ~1500 iterations): METIS's numbering changes the order of every
# sum, which moves CG by a few iterations (1493 for one process; 1493 1492 1496 on 2-4 ranks,
# row blocks 1491 1492 1491): converged, within 0.5%.
mmgen rhs "$C/bcsstk13.mtx" -o b13.mtx
expect_exit 0 mmsolve --device cpu "$C/bcsstk13.mtx" b13.mtx --method cg --precond jacobi \
  --max-iter 20000 --tol 1e-12 -q
want=$(iters)
for np in 2 4; do
  expect_exit 0 mpi_run $np mmsolve "$C/bcsstk13.mtx" b13.mtx --method cg --precond jacobi \
    --max-iter 20000 --tol 1e-12 -q --partition metis
  got=$(iters)
  ((200 * (got - want) <= want && 200 * (want - got) <= want)) &&
    pass "bcsstk13 on $np: $got iterations, one process $want" ||
    fail "bcsstk13 on $np: $got iterations, one process $want"
done
mmgen rhs Q.mtx --x range -o bQ2.mtx
paste -d' ' <(grep -v '^%' bQ.mtx | tail -n +2) <(grep -v '^%' bQ2.mtx | tail -n +2) |
  awk 'BEGIN {print "%%MatrixMarket matrix array real general"; print 1600, 2}
       {a[NR] = $1; b[NR] = $2} END {for (i = 1; i <= NR; i++) print a[i]; for (i = 1; i <= NR; i++) print b[i]}' > B2.mtx
mpi_same_solve 3 -- Q.mtx B2.mtx --method cg --tol 1e-10 -- --partition metis
expect_exit 0 mpi_run 2 mmsolve Q.mtx bQ.mtx --method cg --tol 1e-10 --partition metis \
  --output-per-rank -o dst/x.mtx
expect_exit 0 mmsolve --device cpu Q.mtx bQ.mtx --method cg --tol 1e-10 -o one.mtx
"$PY" - <<'PYEOF' && pass "x a file a rank, in the file's order" || fail "per-rank x"
import json, numpy as np, scipy.io
idx = json.load(open("dst/x.index.json"))
assert [(p["row_begin"], p["rows"]) for p in idx["parts"]] == [(0, 800), (800, 800)], idx
x = np.concatenate([np.asarray(scipy.io.mmread("dst/" + p["path"])).ravel() for p in idx["parts"]])
want = np.asarray(scipy.io.mmread("one.mtx")).ravel()
assert np.linalg.norm(x - want) <= 1e-7 * np.linalg.norm(want)
PYEOF
expect_exit 0 mpi_run 3 mmsolve Q.mtx bQ.mtx --method cg --tol 1e-10 --partition metis -q \
  -v --timing t.jsonl
expect_stderr "^mmsolve: --partition metis: 3 parts of the graph"
"$PY" -c "import json; r = json.load(open('t.jsonl')); assert r['partition'] == 'metis' and r['edge_cut'] > 0, r" &&
  pass "mmsolve's record" || fail "mmsolve's record: $(cat t.jsonl)"

finish
