# CLI tests of mmgen: determinism, gzip output, closed pipes, usage errors, rhs vs SciPy.
source "$MM_ROOT/tests/cli/common.bash"

# --- byte-identical output: twice, and at 1 vs 2 threads -------------------------------
for args in "sparse --rows 3000 --cols 2000 --nnz-per-row 7" "powerlaw --n 5000" \
  "spd --n 4000 --field integer" "diagdom --n 3000 --field complex" "dense --rows 130 --cols 70" \
  "spd --n 80 --format array" "banded --n 900 --bandwidth 4 --symmetry symmetric" \
  "vector --n 1000 --kind random"; do
  name=${args%% *}
  # shellcheck disable=SC2086
  mmgen $args --seed 42 -o "$TMP/$name.a.mtx"
  # shellcheck disable=SC2086
  mmgen $args --seed 42 -o "$TMP/$name.b.mtx" --threads 1
  # shellcheck disable=SC2086
  mmgen $args --seed 42 --threads 2 >"$TMP/$name.c.mtx"
  same_files "$TMP/$name.a.mtx" "$TMP/$name.b.mtx"
  same_files "$TMP/$name.a.mtx" "$TMP/$name.c.mtx"
  # shellcheck disable=SC2086
  mmgen $args --seed 43 -o "$TMP/$name.d.mtx"
  if cmp -s "$TMP/$name.a.mtx" "$TMP/$name.d.mtx"; then fail "$name: seeds 42 and 43 agree"; else
    pass "$name: another seed, another matrix"; fi
done

# --- structure checked by SciPy ---------------------------------------------------------
mmgen poisson2d --n 30 -o "$TMP/p2.mtx"
mmgen poisson3d --n 9 --symmetry symmetric -o "$TMP/p3.mtx"
mmgen spd --n 500 --nnz-per-row 12 -o "$TMP/spd.mtx"
mmgen sparse --rows 2000 --cols 1000 --density 0.02 --seed 5 -o "$TMP/sp.mtx"
if $PY - "$TMP" <<'EOF'; then pass "poisson, spd and sparse structure (SciPy)"; else fail "structure (SciPy)"; fi
import sys, numpy as np, scipy.io, scipy.sparse as sp
t = sys.argv[1]
p2 = sp.csr_matrix(scipy.io.mmread(f"{t}/p2.mtx"))
n = 30
assert p2.shape == (n * n, n * n) and p2.nnz == 5 * n * n - 4 * n, (p2.shape, p2.nnz)
assert (p2 != p2.T).nnz == 0 and set(p2.diagonal()) == {4.0}
p3 = sp.csr_matrix(scipy.io.mmread(f"{t}/p3.mtx"))  # symmetric file, expanded by SciPy
n = 9
assert p3.nnz == 7 * n**3 - 6 * n * n and set(p3.diagonal()) == {6.0}
assert abs(p3.sum(axis=1)).min() == 0  # interior rows sum to zero
s = sp.csr_matrix(scipy.io.mmread(f"{t}/spd.mtx"))
assert (s != s.T).nnz == 0
off = abs(s).sum(axis=1).A1 - abs(s.diagonal())
assert (s.diagonal() > off).all()
assert np.linalg.eigvalsh(s.toarray()).min() > 0  # positive definite
a = sp.csr_matrix(scipy.io.mmread(f"{t}/sp.mtx"))
assert a.shape == (2000, 1000) and abs(a.nnz / 2e6 - 0.02) < 0.001, a.nnz
EOF

# --- gzip output round trip -------------------------------------------------------------
mmgen sparse --n 20000 --seed 9 -o "$TMP/g.mtx"
mmgen sparse --n 20000 --seed 9 -o "$TMP/g.mtx.gz"
gzip -dc "$TMP/g.mtx.gz" >"$TMP/g.unzipped.mtx"
same_files "$TMP/g.mtx" "$TMP/g.unzipped.mtx"

# --- a closed pipe downstream ends the tool quietly --------------------------------------
status=0
mmgen sparse --n 300000 --nnz-per-row 10 2>"$TMP/pipe.err" | head -c 100 >"$TMP/head.out" ||
  status=${PIPESTATUS[0]}
if [[ $status == 0 && ! -s "$TMP/pipe.err" && $(wc -c <"$TMP/head.out") == 100 ]]; then
  pass "mmgen | head -c 100 ends quietly"
else
  fail "mmgen | head -c 100: status $status, stderr: $(head -c 300 "$TMP/pipe.err")"
fi

# --- usage errors: exit 2, a message, nothing written -------------------------------------
expect_exit 2 mmgen
expect_stderr "no KIND"
expect_exit 2 mmgen nosuchkind --n 3
expect_stderr "unknown kind 'nosuchkind'"
expect_exit 2 mmgen sparse --n 10 --format array -o "$TMP/never.mtx"
expect_stderr "--format array does not apply to sparse"
expect_exit 2 mmgen sparse --n 10 --density 1.5
expect_exit 2 mmgen sparse --n 10 --density 0.5 --nnz-per-row 2
expect_exit 2 mmgen sparse --n 10 --bandwidth 2
expect_stderr "--bandwidth does not apply to sparse"
expect_exit 2 mmgen poisson2d
expect_stderr "needs --n"
expect_exit 2 mmgen spd --n 10 --field complex
expect_exit 2 mmgen banded --rows 3 --cols 4 --symmetry symmetric
expect_exit 2 mmgen dense --n 3 --field pattern
expect_exit 2 mmgen sparse --rows abc
expect_exit 2 mmgen sparse --rows -5
expect_stderr "--rows must be >= 0"
expect_exit 2 mmgen sparse --n 5 --seed -1
expect_stderr "--seed must be a whole number"
expect_exit 2 mmgen sparse --n 10 --x random
expect_exit 2 mmgen vector --n 3 --format coordinate
expect_exit 2 mmgen rhs
expect_stderr "rhs needs the matrix"
expect_exit 2 mmgen rhs "$CORPUS/west0067.mtx" --n 4
expect_exit 2 mmgen rhs "$CORPUS/west0067.mtx" --x zeros
if [[ ! -e "$TMP/never.mtx" ]]; then pass "usage error writes nothing"; else fail "never.mtx written"; fi
expect_exit 0 mmgen --help
if grep -q "Examples:" "$TMP/out" && grep -q "poisson2d" "$TMP/out"; then pass "--help"; else
  fail "--help lacks examples"; fi

# --- -v and the timing record ----------------------------------------------------------
expect_exit 0 mmgen poisson2d --n 10 -v -o "$TMP/v.mtx" --timing "$TMP/t.jsonl"
expect_stderr "poisson2d 100 x 100, 460 entries"
if $PY - "$TMP/t.jsonl" <<'EOF'; then pass "timing record"; else fail "timing record"; fi
import json, sys
r = [json.loads(l) for l in open(sys.argv[1])]
assert len(r) == 1 and r[0]["tool"] == "mmgen" and r[0]["impl"] == "poisson2d"
assert {"generate", "write", "total"} <= set(r[0]["phases"]) and r[0]["output"]["nnz"] == 460
EOF

# --- rhs: b = A x checked against SciPy ----------------------------------------------------
for m in 494_bus west0479 c bcsstk13 full_symmetric lp_afiro; do
  mmgen rhs "$CORPUS/$m.mtx" --x random --seed 3 -o "$TMP/b_$m.mtx" --x-out "$TMP/x_$m.mtx"
  if $PY - "$CORPUS/$m.mtx" "$TMP/b_$m.mtx" "$TMP/x_$m.mtx" <<'EOF'; then
import sys, numpy as np, scipy.io
a, b, x = (scipy.io.mmread(p) for p in sys.argv[1:4])
a = np.asarray(a.todense()) if hasattr(a, "todense") else np.asarray(a)
b, x = np.asarray(b).ravel(), np.asarray(x).ravel()
assert b.shape == (a.shape[0],) and x.shape == (a.shape[1],)
assert ((x >= 0) & (x < 1)).all() and len(set(x)) > 1
ref = a @ x
# rtol 1e-12 against the size of the terms summed (b entries may cancel to ~0).
scale = np.abs(a) @ np.abs(x)
assert (np.abs(b - ref) <= 1e-12 * scale + 1e-300).all(), np.max(np.abs(b - ref) / (scale + 1e-300))
EOF
    pass "rhs $m: b == A @ x (SciPy, rtol 1e-12)"
  else fail "rhs $m: b differs from A @ x"; fi
done
mmgen rhs "$CORPUS/west0067.mtx" -o "$TMP/b1.mtx"
mmgen rhs "$CORPUS/west0067.mtx" --x ones >"$TMP/b2.mtx"
same_files "$TMP/b1.mtx" "$TMP/b2.mtx"

# --- rhs on a malformed matrix: exit 3, file and line named, nothing written ----------------
printf '%%%%MatrixMarket matrix coordinate real general\n3 3 2\n1 1 1.0\n4 2 2.0\n' >"$TMP/bad.mtx"
echo "keep me" >"$TMP/b_keep.mtx"
expect_exit 3 mmgen rhs "$TMP/bad.mtx" -o "$TMP/b_keep.mtx" --x-out "$TMP/x_none.mtx"
expect_stderr "bad.mtx:4:"
if [[ $(cat "$TMP/b_keep.mtx") == "keep me" ]]; then pass "existing target untouched"; else
  fail "b_keep.mtx was changed"; fi
if [[ ! -e "$TMP/x_none.mtx" ]]; then pass "no x output"; else fail "x_none.mtx written"; fi
if compgen -G "$TMP/.*.mmtmp.*" >/dev/null; then fail "temporary files left"; else
  pass "no temporary files left"; fi

finish
