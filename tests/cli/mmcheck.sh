# mmcheck through the real binary: corpus validation, info against SciPy, exit codes of
# compare / residual / lu, an LU from scipy.linalg.lu_factor accepted by `mmcheck lu`, and spy
# pictures of the corpus decoded and compared with SciPy's pattern.
source "$(dirname "$0")/common.bash"

# ---- validate: every corpus file is valid -------------------------------------------------
for f in "$CORPUS"/*.mtx; do expect_exit 0 mmcheck validate "$f"; done
expect_exit 0 mmcheck validate "$CORPUS/bayer10.mtx"
expect_stderr '^mmcheck: warning: .*bayer10\.mtx: 23332 explicit zero entries \(first: entry 618 at \(351,52\)\)$'

printf '%%%%MatrixMarket matrix coordinate real symmetric\n3 3 4\n1 1 1\n2 1 0\n1 2 5\n2 1 3\n' >"$TMP/warn.mtx"
expect_exit 0 mmcheck validate "$TMP/warn.mtx"
expect_stderr 'warn\.mtx: 2 duplicate entries \(first: entry 3 at \(1,2\)\)'
expect_stderr 'warn\.mtx: 1 explicit zero entry \(first: entry 2 at \(2,1\)\)'
expect_stderr 'warn\.mtx: 1 entry above the diagonal in a symmetric file \(first: entry 3 at \(1,2\)\)'
grep -q 'warn.mtx: valid (coordinate real symmetric, 3 x 3, 4 stored entries, 3 warnings)' "$TMP/out" &&
  pass "validate summary line" || fail "validate summary: $(cat "$TMP/out")"

printf '%%%%MatrixMarket matrix coordinate real general\n3 3 2\n1 1 1\n4 1 2\n' >"$TMP/bad.mtx"
expect_exit 3 mmcheck validate "$TMP/bad.mtx"
expect_stderr '^mmcheck: .*bad\.mtx:4: row index 4 out of range 1\.\.3$'
expect_exit 3 mmcheck info "$TMP/bad.mtx"

# ---- usage errors -------------------------------------------------------------------------------
expect_exit 2 mmcheck
expect_exit 2 mmcheck bogus "$CORPUS/c.mtx"
expect_stderr "unknown command 'bogus'"
expect_exit 2 mmcheck info
expect_exit 2 mmcheck info "$CORPUS/c.mtx" "$CORPUS/c.mtx"
expect_exit 2 mmcheck compare "$CORPUS/c.mtx"
expect_exit 2 mmcheck residual "$CORPUS/c.mtx" "$CORPUS/c.mtx"
expect_exit 2 mmcheck lu "$CORPUS/c.mtx"
expect_exit 2 mmcheck info "$CORPUS/c.mtx" --rtol 1
expect_exit 2 mmcheck validate "$CORPUS/c.mtx" --json
expect_exit 0 mmcheck --help
for sub in info validate compare residual lu spy; do
  grep -q "^  \$ mmcheck $sub " "$TMP/out" && pass "--help has a $sub example" || fail "--help lacks a $sub example"
done

# ---- info --json on every corpus file against SciPy ---------------------------------------------
mkdir -p "$TMP/info"
for f in "$CORPUS"/*.mtx; do
  expect_exit 0 mmcheck info --json "$f"
  cp "$TMP/out" "$TMP/info/$(basename "$f" .mtx).json"
done
# SciPy 1.10's mmread keeps explicit zeros and duplicates in its COO result and appends the
# mirror of every off-diagonal entry of symmetric kinds, so its .nnz is our nnz_expanded, and
# mminfo's entry count is the size line's (nnz_stored; rows*cols for arrays, our nnz_expanded).
# tocsr() sums duplicates but keeps zeros: the structure behind nnz_distinct, row lengths and
# bandwidth. Non-finite values arrive in our JSON as strings ("inf"), which float() reads.
while read -r verdict msg; do
  if [[ $verdict == PASS ]]; then pass "$msg"; else fail "$msg"; fi
done < <("$PY" - "$CORPUS" "$TMP/info" <<'EOF'
import glob, json, os, sys
import numpy as np, scipy.io as sio, scipy.sparse as sp
corpus, out = sys.argv[1], sys.argv[2]
def check(name, what, got, want):
    ok = got == want or (isinstance(want, float) and np.isclose(float(got), want, rtol=1e-12, atol=0))
    print("PASS" if ok else "FAIL", f"{name}: {what} {got!r}" + ("" if ok else f", scipy {want!r}"))
for path in sorted(glob.glob(os.path.join(corpus, "*.mtx"))):
    name = os.path.basename(path)
    j = json.load(open(os.path.join(out, name[:-4] + ".json")))
    rows, cols, entries, fmt, field, symm = sio.mminfo(path)
    a = sio.mmread(path)
    check(name, "rows", j["rows"], rows)
    check(name, "cols", j["cols"], cols)
    if fmt == "coordinate":
        check(name, "nnz_stored", j["nnz_stored"], entries)
        check(name, "nnz_expanded", j["nnz_expanded"], a.tocoo().nnz)
        c = a.tocsr()
        c.sum_duplicates()
    else:
        check(name, "nnz_expanded", j["nnz_expanded"], entries)
        c = sp.csr_matrix(a.shape, dtype=a.dtype)  # every position of an array is an entry
        c = sp.csr_matrix((a.ravel(), (np.repeat(np.arange(rows), cols), np.tile(np.arange(cols), rows))), shape=a.shape)
    check(name, "nnz_distinct", j["nnz_distinct"], c.nnz)
    lens = np.diff(c.indptr)
    check(name, "row min", j["row_length"]["min"], int(lens.min()) if rows else 0)
    check(name, "row max", j["row_length"]["max"], int(lens.max()) if rows else 0)
    check(name, "row mean", j["row_length"]["mean"], float(lens.mean()))
    check(name, "row stddev", j["row_length"]["stddev"], float(lens.std()))
    check(name, "empty rows", j["empty_rows"], int((lens == 0).sum()))
    k = c.tocoo()
    check(name, "lower bandwidth", j["bandwidth"]["lower"], int(max(0, (k.row - k.col).max(initial=0))))
    check(name, "upper bandwidth", j["bandwidth"]["upper"], int(max(0, (k.col - k.row).max(initial=0))))
    if rows == cols:
        sym = (c != c.T).nnz == 0
        herm = (c != c.conj().T).nnz == 0
        skew = (c != -c.T).nnz == 0
        kind = "symmetric" if sym else "hermitian" if herm else "skew-symmetric" if skew else "none"
    else:
        kind = "none"
    check(name, "numeric_symmetry", j["numeric_symmetry"], kind)
    absc = abs(c)
    off = absc.copy().tolil()
    off.setdiag(0)
    offsum = np.asarray(off.tocsr().sum(axis=1)).ravel()
    diag = np.zeros(rows)
    diag[: min(rows, cols)] = absc.diagonal()
    dom = "strict" if np.all(diag > offsum) else "weak" if np.all(diag >= offsum) else "none"
    check(name, "diagonal_dominance", j["diagonal_dominance"], dom)
    if field == "pattern" or c.nnz == 0:
        check(name, "value_range", j["value_range"], None)
    else:
        v = np.abs(c.data) if field == "complex" else c.data.astype(float)
        check(name, "value min", float(j["value_range"]["min"]), float(np.nanmin(v)))
        check(name, "value max", float(j["value_range"]["max"]), float(np.nanmax(v)))
    vb = 16 if field == "complex" else 8
    check(name, "csr32 bytes", j["memory_bytes"]["csr32"], (rows + 1) * 4 + c.nnz * (4 + vb))
    check(name, "dense bytes", j["memory_bytes"]["dense"], rows * cols * vb)
EOF
)

# ---- info from standard input and from a .gz file ------------------------------------------------
expect_exit 0 mmcheck info "$CORPUS/young1c.mtx"
tail -n +2 "$TMP/out" >"$TMP/info_file.txt"
expect_exit 0 mmcheck info - <"$CORPUS/young1c.mtx"
tail -n +2 "$TMP/out" >"$TMP/info_stdin.txt"
same_files "$TMP/info_file.txt" "$TMP/info_stdin.txt"
gzip -c "$CORPUS/young1c.mtx" >"$TMP/young1c.mtx.gz"
expect_exit 0 mmcheck info "$TMP/young1c.mtx.gz"
tail -n +2 "$TMP/out" >"$TMP/info_gz.txt"
same_files "$TMP/info_file.txt" "$TMP/info_gz.txt"
grep -qx 'nnz_expanded: 4089' "$TMP/info_gz.txt" && pass "gz info nnz" || fail "gz info: $(cat "$TMP/info_gz.txt")"

# ---- compare: 0 equal, 1 different, 3 shapes differ -----------------------------------------------
# 494_bus written by SciPy as a general file: same matrix, other symmetry and formatting.
"$PY" -c "import scipy.io as s; s.mmwrite('$TMP/bus_general.mtx', s.mmread('$CORPUS/494_bus.mtx'), symmetry='general')"
expect_exit 0 mmcheck compare "$CORPUS/494_bus.mtx" "$TMP/bus_general.mtx"
expect_exit 0 mmcheck compare "$CORPUS/west0479.mtx" "$CORPUS/west0479.mtx"
expect_exit 1 mmcheck compare "$CORPUS/west0067.mtx" "$CORPUS/comments_west0067.mtx"  # nan and an extra entry
expect_exit 3 mmcheck compare "$CORPUS/west0067.mtx" "$CORPUS/west0479.mtx"
expect_stderr 'shapes differ: 67 x 67 and 479 x 479'
printf '%%%%MatrixMarket matrix array real general\n2 2\n1\n0\n0\n2\n' >"$TMP/d.mtx"
printf '%%%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1.000001\n2 2 2\n' >"$TMP/s.mtx"
expect_exit 1 mmcheck compare "$TMP/d.mtx" "$TMP/s.mtx"  # |a-b| = 1e-6 > 1e-9 * |b|
expect_exit 0 mmcheck compare "$TMP/d.mtx" "$TMP/s.mtx" --rtol 1e-5
expect_exit 0 mmcheck compare "$TMP/d.mtx" "$TMP/s.mtx" --rtol 0 --atol 1e-5
expect_exit 1 mmcheck compare "$TMP/d.mtx" "$TMP/s.mtx" --rtol 1e-7 --json
"$PY" -c "
import json; j = json.load(open('$TMP/out'))
assert j['only_in_a'] == 2 and j['only_in_b'] == 0 and j['mismatches'] == 1, j
assert j['first_mismatch']['row'] == 1 and j['first_mismatch']['col'] == 1, j
assert abs(j['max_abs_error'] - 1e-6) < 1e-12 and j['pass'] is False, j
" && pass "compare --json fields" || fail "compare --json: $(cat "$TMP/out")"

# ---- residual: A = [2 1; 1 3], x = (1, 1), A x = (3, 4) --------------------------------------------
printf '%%%%MatrixMarket matrix coordinate real symmetric\n2 2 3\n1 1 2\n2 1 1\n2 2 3\n' >"$TMP/A.mtx"
printf '%%%%MatrixMarket matrix array real general\n2 1\n1\n1\n' >"$TMP/x.mtx"
printf '%%%%MatrixMarket matrix array real general\n2 1\n3\n4\n' >"$TMP/b.mtx"
printf '%%%%MatrixMarket matrix array real general\n2 1\n3\n4.001\n' >"$TMP/b_off.mtx"
printf '%%%%MatrixMarket matrix array real general\n3 1\n3\n4\n5\n' >"$TMP/b3.mtx"
expect_exit 0 mmcheck residual "$TMP/A.mtx" "$TMP/x.mtx" "$TMP/b.mtx"
grep -qx 'relative_residual: 0' "$TMP/out" && pass "exact residual is 0" || fail "residual: $(cat "$TMP/out")"
expect_exit 1 mmcheck residual "$TMP/A.mtx" "$TMP/x.mtx" "$TMP/b_off.mtx"
expect_exit 0 mmcheck residual "$TMP/A.mtx" "$TMP/x.mtx" "$TMP/b_off.mtx" --tol 1e-3
expect_exit 3 mmcheck residual "$TMP/A.mtx" "$TMP/x.mtx" "$TMP/b3.mtx"
expect_exit 1 mmcheck residual "$TMP/A.mtx" "$TMP/x.mtx" "$TMP/b_off.mtx" --json
"$PY" -c "
import json, math; j = json.load(open('$TMP/out'))
want = 0.001 / (math.sqrt(15) * math.sqrt(2) + math.sqrt(9 + 4.001**2))
assert math.isclose(j['relative_residual'], want, rel_tol=1e-9), (j, want)
" && pass "residual value" || fail "residual --json: $(cat "$TMP/out")"

# ---- lu: [1 2 3; 4 5 6; 7 8 10] = P^T L U with ipiv (3, 3, 3), by hand ------------------------------
printf '%%%%MatrixMarket matrix array real general\n3 3\n1\n4\n7\n2\n5\n8\n3\n6\n10\n' >"$TMP/luA.mtx"
printf '%%%%MatrixMarket matrix array real general\n3 3\n7\n%s\n%s\n8\n%s\n0.5\n10\n%s\n-0.5\n' \
  0.14285714285714285 0.5714285714285714 0.8571428571428571 1.5714285714285714 >"$TMP/LU.mtx"
printf '%%%%MatrixMarket matrix array real general\n3 3\n7\n%s\n%s\n8\n%s\n0.5\n10\n%s\n-0.25\n' \
  0.14285714285714285 0.5714285714285714 0.8571428571428571 1.5714285714285714 >"$TMP/LU_bad.mtx"
printf '%%%%MatrixMarket matrix array integer general\n3 1\n3\n3\n3\n' >"$TMP/piv.mtx"
printf '%%%%MatrixMarket matrix array integer general\n3 1\n3\n2\n3\n' >"$TMP/piv_wrong.mtx"
printf '%%%%MatrixMarket matrix array integer general\n3 1\n3\n0\n3\n' >"$TMP/piv_zero.mtx"
printf '%%%%MatrixMarket matrix array integer general\n3 1\n3\n4\n3\n' >"$TMP/piv_big.mtx"
printf '%%%%MatrixMarket matrix array integer general\n2 1\n3\n3\n' >"$TMP/piv_short.mtx"
expect_exit 0 mmcheck lu "$TMP/luA.mtx" "$TMP/LU.mtx" "$TMP/piv.mtx"
expect_exit 1 mmcheck lu "$TMP/luA.mtx" "$TMP/LU_bad.mtx" "$TMP/piv.mtx"
expect_exit 1 mmcheck lu "$TMP/luA.mtx" "$TMP/LU.mtx" "$TMP/piv_wrong.mtx"
expect_exit 3 mmcheck lu "$TMP/luA.mtx" "$TMP/LU.mtx" "$TMP/piv_zero.mtx"
expect_stderr 'piv_zero\.mtx: pivot 2 is 0, out of range 1\.\.3'
expect_exit 3 mmcheck lu "$TMP/luA.mtx" "$TMP/LU.mtx" "$TMP/piv_big.mtx"
expect_exit 3 mmcheck lu "$TMP/luA.mtx" "$TMP/LU.mtx" "$TMP/piv_short.mtx"
expect_exit 3 mmcheck lu "$TMP/luA.mtx" "$TMP/A.mtx" "$TMP/piv.mtx"  # LU of another shape

# SciPy's getrf (lu_factor): LU packed like ours, 0-based ipiv in LAPACK's order.
"$PY" - "$CORPUS" "$TMP" <<'EOF'
import sys, numpy as np, scipy.io as sio, scipy.linalg as la
corpus, tmp = sys.argv[1], sys.argv[2]
for name in ["west0479", "cage5"]:
    a = sio.mmread(f"{corpus}/{name}.mtx").toarray()
    lu, piv = la.lu_factor(a)
    sio.mmwrite(f"{tmp}/{name}_LU.mtx", lu)
    sio.mmwrite(f"{tmp}/{name}_piv.mtx", (piv + 1).reshape(-1, 1).astype(np.int64), field="integer")
    bad = piv.copy()
    swapped = np.flatnonzero(bad != np.arange(len(bad)))
    if len(swapped):
        bad[swapped[0]] = swapped[0]  # undo the first swap
    else:
        bad[0] = 1  # no pivoting happened (cage5): add a swap of rows 1 and 2
    sio.mmwrite(f"{tmp}/{name}_piv_bad.mtx", (bad + 1).reshape(-1, 1).astype(np.int64), field="integer")
EOF
for name in west0479 cage5; do
  expect_exit 0 mmcheck lu "$CORPUS/$name.mtx" "$TMP/${name}_LU.mtx" "$TMP/${name}_piv.mtx"
  expect_exit 1 mmcheck lu "$CORPUS/$name.mtx" "$TMP/${name}_LU.mtx" "$TMP/${name}_piv_bad.mtx"
done
expect_exit 0 mmcheck lu "$CORPUS/west0479.mtx" "$TMP/west0479_LU.mtx" "$TMP/west0479_piv.mtx" --json
"$PY" -c "
import json; j = json.load(open('$TMP/out'))
assert j['n'] == 479 and j['pass'] and j['relative_error'] < 1e-14, j
" && pass "scipy LU of west0479: relative error small" || fail "lu --json: $(cat "$TMP/out")"

# ---- spy: PNG pictures of the corpus, checked pixel by pixel against SciPy's pattern ----------
# spy_check MTX PNG SIZE...: each PNG decoded here (chunks, CRCs, zlib, the five filters); its
# sides at most SIZE, the longer one SIZE when the matrix has more rows or columns than that;
# inside the gray frame, a pixel is dark exactly where SciPy's expanded pattern (nonzero values
# of an array file) puts an entry, whole-pixel cells or blocks alike.
spy_check() {
  "$PY" - "$@" <<'EOF'
import struct, sys, zlib
import numpy as np, scipy.io as sio, scipy.sparse as sp

def decode(path):
    b = open(path, "rb").read()
    assert b[:8] == b"\x89PNG\r\n\x1a\n", "no PNG signature"
    pos, chunks = 8, []
    while pos < len(b):
        n, kind = struct.unpack(">I4s", b[pos:pos + 8])
        data = b[pos + 8:pos + 8 + n]
        crc, = struct.unpack(">I", b[pos + 8 + n:pos + 12 + n])
        assert zlib.crc32(kind + data) == crc, f"bad CRC in {kind}"
        chunks.append((kind, data))
        pos += 12 + n
    assert chunks[0][0] == b"IHDR" and chunks[-1][0] == b"IEND", "IHDR first, IEND last"
    w, h, depth, color, comp, filt, inter = struct.unpack(">IIBBBBB", chunks[0][1])
    assert (depth, color, comp, filt, inter) == (8, 0, 0, 0, 0), "8-bit gray, not interlaced"
    raw = zlib.decompress(b"".join(d for k, d in chunks if k == b"IDAT"))
    assert len(raw) == h * (w + 1), "IDAT holds the rows"
    img, prev = np.zeros((h, w), np.uint8), [0] * w
    for y in range(h):
        f, row = raw[y * (w + 1)], list(raw[y * (w + 1) + 1:(y + 1) * (w + 1)])
        assert f <= 4, f"filter {f}"
        for x in range(w):
            a = row[x - 1] if x else 0
            c = prev[x - 1] if x else 0
            up = prev[x]
            if f == 1: row[x] = (row[x] + a) & 255
            elif f == 2: row[x] = (row[x] + up) & 255
            elif f == 3: row[x] = (row[x] + (a + up) // 2) & 255
            elif f == 4:
                p = a + up - c
                pa, pb, pc = abs(p - a), abs(p - up), abs(p - c)
                row[x] = (row[x] + (a if pa <= pb and pa <= pc else up if pb <= pc else c)) & 255
        img[y], prev = row, row
    return img

args = sys.argv[1:]
mtx = args[0]
rows, cols, entries, fmt, field, symm = sio.mminfo(mtx)
a = sio.mmread(mtx)
a = sp.coo_matrix(a) if fmt == "array" else a.tocoo()
if fmt == "array":
    a.eliminate_zeros()
for png, size in zip(args[1::2], map(int, args[2::2])):
    name = f"{png.split('/')[-1]} (size {size})"
    try:
        img = decode(png)
        h, w = img.shape
        assert w <= size and h <= size, f"{w} x {h} over {size}"
        if max(rows, cols) > size:
            assert max(w, h) == size, f"{w} x {h}: the longer side is not {size}"
        top = np.flatnonzero(img[0] == 150)
        if rows == 0 or cols == 0:
            assert len(top) == 0 and h < 40 and (img == 0).any(), "caption alone"
            print("PASS", name, f"{w} x {h}, caption alone")
            continue
        fx, fw = top[0], len(top)
        fh = int(np.argmin(img[:, fx] == 150)) or h
        plot = img[1:fh - 1, fx + 1:fx + fw - 1]
        ph, pw = plot.shape
        cell = pw // cols if pw % cols == 0 and ph == rows * (pw // cols) else 0
        want = np.zeros((ph, pw), bool)
        if cell:
            for dy in range(cell):
                for dx in range(cell):
                    want[a.row * cell + dy, a.col * cell + dx] = True
        else:
            want[a.row * ph // rows, a.col * pw // cols] = True
        assert abs(ph / pw - rows / cols) <= rows / cols / min(ph, pw) + 1e-12, "aspect ratio"
        bad = int(((plot < 255) != want).sum())
        assert bad == 0, f"{bad} plot pixels differ from the pattern"
        assert (img[fh:] == 0).any(), "no caption"
        print("PASS", name, f"{w} x {h}, plot {pw} x {ph}, " + (f"{cell} px an entry" if cell else "blocks"))
    except Exception as e:
        print("FAIL", name, e)
EOF
}
mkdir -p "$TMP/spy"
for f in "$CORPUS"/*.mtx; do
  n=$(basename "$f" .mtx)
  expect_exit 0 mmcheck spy "$f" -o "$TMP/spy/$n.png"
  expect_exit 0 mmcheck spy "$f" -o "$TMP/spy/$n-300.png" --size 300
  while read -r verdict msg; do
    if [[ $verdict == PASS ]]; then pass "spy $msg"; else fail "spy $msg"; fi
  done < <(spy_check "$f" "$TMP/spy/$n.png" 1000 "$TMP/spy/$n-300.png" 300)
done
# Block shading by fraction: the same dark pixels as by count, other shades.
expect_exit 0 mmcheck spy "$CORPUS/bcsstk13.mtx" --shade fraction --size 300 -o "$TMP/spy/frac.png"
spy_check "$CORPUS/bcsstk13.mtx" "$TMP/spy/frac.png" 300 | grep -q '^PASS' && pass "spy --shade fraction" ||
  fail "spy --shade fraction: $(spy_check "$CORPUS/bcsstk13.mtx" "$TMP/spy/frac.png" 300)"
cmp -s "$TMP/spy/frac.png" "$TMP/spy/bcsstk13-300.png" && fail "fraction and log shades alike" ||
  pass "fraction and log shades differ"

# 0 x 0: a picture of the caption alone (a refusal would break `for f in *.mtx` loops, and a
# 0 x 0 matrix is a valid file); 1 x 1: one black cell.
printf '%%%%MatrixMarket matrix coordinate real general\n0 0 0\n' >"$TMP/zero.mtx"
printf '%%%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 5\n' >"$TMP/one.mtx"
expect_exit 0 mmcheck spy "$TMP/zero.mtx" -o "$TMP/spy/zero.png"
expect_exit 0 mmcheck spy "$TMP/one.mtx" -o "$TMP/spy/one.png" --size 64
while read -r verdict msg; do
  if [[ $verdict == PASS ]]; then pass "spy $msg"; else fail "spy $msg"; fi
done < <(spy_check "$TMP/zero.mtx" "$TMP/spy/zero.png" 1000; spy_check "$TMP/one.mtx" "$TMP/spy/one.png" 64)

# Standard input, gzip and standard output give the same bytes as the file...
gzip -c "$CORPUS/west0479.mtx" >"$TMP/w.mtx.gz"
expect_exit 0 mmcheck spy - -o "$TMP/spy/stdin.png" <"$CORPUS/west0479.mtx"
same_files "$TMP/spy/stdin.png" "$TMP/spy/west0479.png"
expect_exit 0 mmcheck spy "$TMP/w.mtx.gz" -o "$TMP/spy/gz.png"
same_files "$TMP/spy/gz.png" "$TMP/spy/west0479.png"
expect_exit 0 mmcheck spy "$CORPUS/west0479.mtx"
same_files "$TMP/out" "$TMP/spy/west0479.png"
# ... but a PNG is not written onto a terminal.
if script -qec "mmcheck spy '$CORPUS/west0479.mtx'" /dev/null >"$TMP/tty.txt" 2>&1; then
  fail "spy onto a terminal exited 0"
else
  grep -q 'give -o FILE.png or redirect standard output' "$TMP/tty.txt" && pass "spy refuses a terminal" ||
    fail "spy onto a terminal: $(head -c 300 "$TMP/tty.txt")"
fi

# Failures leave nothing: an unwritable -o exits 4, bad input exits 3 with the target untouched.
expect_exit 4 mmcheck spy "$CORPUS/west0479.mtx" -o "$TMP/no/such/dir/a.png"
expect_stderr '^mmcheck: cannot create a file beside .*/no/such/dir/a\.png'
touch "$TMP/notadir"
expect_exit 4 mmcheck spy "$CORPUS/west0479.mtx" -o "$TMP/notadir/a.png"
[[ ! -e $TMP/no && -f $TMP/notadir ]] && pass "unwritable -o left nothing" || fail "unwritable -o left files"
cp "$TMP/spy/one.png" "$TMP/spy/keep.png"
expect_exit 3 mmcheck spy "$TMP/bad.mtx" -o "$TMP/spy/keep.png"
same_files "$TMP/spy/keep.png" "$TMP/spy/one.png"
[[ -z $(find "$TMP/spy" -name '.*mmtmp*') ]] && pass "no temporary left in spy/" || fail "temporary left in spy/"

expect_exit 2 mmcheck spy "$CORPUS/c.mtx" --size 31 -o "$TMP/x.png"
expect_stderr 'expected 32\.\.4096 pixels'
expect_exit 2 mmcheck spy "$CORPUS/c.mtx" --size 4097 -o "$TMP/x.png"
expect_exit 2 mmcheck spy "$CORPUS/c.mtx" --shade linear -o "$TMP/x.png"
expect_stderr "expected log or fraction"
expect_exit 2 mmcheck spy "$CORPUS/c.mtx" "$CORPUS/c.mtx" -o "$TMP/x.png"
expect_exit 2 mmcheck info "$CORPUS/c.mtx" --size 100
[[ ! -e $TMP/x.png ]] && pass "usage errors wrote nothing" || fail "a usage error wrote x.png"

# ---- timing record and -o --------------------------------------------------------------------------
expect_exit 0 mmcheck info "$CORPUS/cage5.mtx" --timing "$TMP/t.jsonl" -o "$TMP/info.txt"
"$PY" -c "
import json; r = json.loads(open('$TMP/t.jsonl').readline())
assert r['tool'] == 'mmcheck' and r['impl'] == 'info' and r['inputs'][0]['nnz'] == 233, r
assert 'read' in r['phases'] and 'compute' in r['phases'], r
" && pass "timing record" || fail "timing record: $(cat "$TMP/t.jsonl")"
grep -qx 'rows: 37' "$TMP/info.txt" && pass "-o writes the report" || fail "-o: $(cat "$TMP/info.txt")"

finish
