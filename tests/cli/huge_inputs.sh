# Inputs far larger than what they hold, through the real binaries, each run under a 300 MB
# virtual-memory limit and within a second: a 3e9 x 3e9 file with a few entries is described
# and validated by its entries; a .gz that expands to 200 MB of zero bytes, endless streams and
# a line without end are refused at once; a long line under the 1 MiB limit still reads.
source "$(dirname "$0")/common.bash"

# quick CODE CMD...: expect_exit CODE for CMD under `ulimit -v` VMEM_KB (300 MB unless set; none
# in an ASan build), in under LIMIT_MS (a second unless set).
quick() {
  local want=$1 t0 ms limit=${LIMIT_MS:-1000}
  shift
  t0=$(date +%s%N)
  if [[ $asan_built ]]; then  # no address-space limit (common.bash): the exit and time only
    expect_exit "$want" "$@"
  else
    expect_exit "$want" bash -c 'ulimit -v "$0" && exec "$@"' "${VMEM_KB:-300000}" "$@"
  fi
  ms=$((($(date +%s%N) - t0) / 1000000))
  if ((ms < limit)); then pass "in $ms ms: $*"; else fail "took $ms ms (over $limit): $*"; fi
}

# json_is KEY VALUE: the last output's JSON has KEY (a Python expression on j) equal to VALUE.
json_is() {
  local got
  got=$("$PY" -c 'import json, sys; j = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' \
    "$TMP/out" "$1")
  if [[ $got == "$2" ]]; then pass "$1 == $2"; else fail "$1 is $got, expected $2"; fi
}

# ---- hypersparse: 3e9 x 3e9 (24 GB of CSR row pointers), four entries, one duplicate -----------
# (1,1) = 2 + 1, (1,3e9) = 1, (3e9,1) = -5: rows 1 and 3e9 hold 2 and 1 entries.
big=3000000000
printf '%%%%MatrixMarket matrix coordinate real general\n%s %s 4\n1 1 2\n%s 1 -5\n1 %s 1\n1 1 1\n' \
  $big $big $big $big >"$TMP/huge.mtx"
quick 0 mmcheck info --json "$TMP/huge.mtx"
json_is 'j["rows"], j["cols"], j["nnz_stored"], j["nnz_distinct"]' "(3000000000, 3000000000, 4, 3)"
json_is 'j["empty_rows"]' 2999999998
json_is 'j["row_length"]["min"], j["row_length"]["max"], j["row_length"]["mean"]' "(0, 2, 1e-09)"
json_is 'abs(j["row_length"]["stddev"] / (((2 - 1e-9)**2 + (1 - 1e-9)**2 + 2999999998e-18) / 3e9)**0.5 - 1) < 1e-12' True
json_is 'j["bandwidth"]["lower"], j["bandwidth"]["upper"]' "(2999999999, 2999999999)"
json_is 'j["diagonal_dominance"], j["numeric_symmetry"]' "('none', 'none')"
json_is 'j["value_range"]["min"], j["value_range"]["max"]' "(-5.0, 3.0)"
json_is 'j["memory_bytes"]["csr64"], j["memory_bytes"]["int32_indices_fit"]' "(24000000056, False)"
quick 0 mmcheck info "$TMP/huge.mtx"
grep -qx 'empty_rows: 2999999998' "$TMP/out" && pass "info text: empty_rows" || fail "info text: $(cat "$TMP/out")"
quick 0 mmcheck validate "$TMP/huge.mtx"
grep -qx "$TMP/huge.mtx: valid (coordinate real general, 3000000000 x 3000000000, 4 stored entries, 1 warning)" \
  "$TMP/out" && pass "validate: valid, 1 warning" || fail "validate: $(cat "$TMP/out")"
expect_stderr 'huge\.mtx: 1 duplicate entry \(first: entry 4 at \(1,1\)\)$'

# The same through gzip and standard input; a symmetric one, expanded to its mirror.
gzip -c "$TMP/huge.mtx" >"$TMP/huge.mtx.gz"
quick 0 mmcheck info --json "$TMP/huge.mtx.gz"
json_is 'j["nnz_distinct"], j["empty_rows"]' "(3, 2999999998)"
quick 0 bash -c "mmcheck info --json - < '$TMP/huge.mtx'"
json_is 'j["nnz_distinct"], j["empty_rows"]' "(3, 2999999998)"
printf '%%%%MatrixMarket matrix coordinate real symmetric\n%s %s 2\n%s 1 2\n7 7 1\n' $big $big $big \
  >"$TMP/huge_sym.mtx"
quick 0 mmcheck info --json "$TMP/huge_sym.mtx"
json_is 'j["nnz_expanded"], j["empty_rows"], j["numeric_symmetry"]' "(3, 2999999997, 'symmetric')"
quick 0 mmcheck validate "$TMP/huge_sym.mtx"
# Arrays of no values, however wide or tall.
printf '%%%%MatrixMarket matrix array real general\n0 %s\n' $big >"$TMP/wide0.mtx"
quick 0 mmcheck info --json "$TMP/wide0.mtx"
json_is 'j["rows"], j["cols"], j["nnz_distinct"], j["empty_rows"]' "(0, 3000000000, 0, 0)"
printf '%%%%MatrixMarket matrix array real general\n%s 0\n' $big >"$TMP/tall0.mtx"
quick 0 mmcheck info --json "$TMP/tall0.mtx"
json_is 'j["rows"], j["nnz_distinct"], j["empty_rows"]' "(3000000000, 0, 3000000000)"

# ---- a .gz bomb: 200 MB of zero bytes in 0.2 MB; and an endless one -----------------------------
head -c 200M /dev/zero | gzip -1 >"$TMP/bomb.gz"
banner_msg="expected the banner '%%MatrixMarket matrix coordinate.*, found '\?{40}\.\.\.'$"
quick 3 mmcheck validate "$TMP/bomb.gz"
expect_stderr "^mmcheck: $TMP/bomb\.gz:1: $banner_msg"
quick 3 mmcheck info "$TMP/bomb.gz"
expect_stderr "bomb\.gz:1: expected the banner"
# Endless: what is judged cannot depend on the size (2 GB, or more). The time includes gzip
# compressing the zeros until the reader's first 64 KiB block of compressed input is full.
LIMIT_MS=3000 quick 3 bash -c 'cat /dev/zero | gzip -1 | mmcheck validate -'
expect_stderr "^mmcheck: <stdin>:1: $banner_msg"
quick 3 bash -c 'cat /dev/zero | mmcheck validate -'
expect_stderr "^mmcheck: <stdin>:1: $banner_msg"
# Another tool, the same reader; neither the address-space limit nor the second, as a CUDA
# build loads cuBLAS's libraries when it starts (hundreds of MB mapped, most of a second).
VMEM_KB=unlimited LIMIT_MS=5000 quick 3 mmtranspose "$TMP/bomb.gz" -o "$TMP/t.mtx"
expect_stderr "bomb\.gz:1: expected the banner"

# ---- lines without end: refused at 1 MiB, in the header and in the body --------------------------
head='%%%%MatrixMarket matrix coordinate real general\n'
(printf "$head"; head -c 3M /dev/zero) >"$TMP/noeol_header.mtx"
quick 3 mmcheck validate "$TMP/noeol_header.mtx"
expect_stderr "^mmcheck: $TMP/noeol_header\.mtx:2: line longer than 1 MiB$"
(printf "${head}3 3 2\n1 1 1\n"; head -c 3M /dev/zero | tr '\0' 7) >"$TMP/noeol_body.mtx"
quick 3 mmcheck validate "$TMP/noeol_body.mtx"
expect_stderr "^mmcheck: $TMP/noeol_body\.mtx:4: line longer than 1 MiB$"
quick 3 bash -c "{ printf '${head}3 3 2\n'; cat /dev/zero; } | mmcheck validate -"
expect_stderr "^mmcheck: <stdin>:3: line longer than 1 MiB$"
LIMIT_MS=3000 quick 3 bash -c "{ printf '${head}3 3 2\n'; cat /dev/zero; } | gzip -1 | mmcheck info -"
expect_stderr "^mmcheck: <stdin>:3: line longer than 1 MiB$"
# Endless comments before the size line: kept in memory, so bounded too.
quick 3 bash -c "{ printf '$head'; yes %; } | mmcheck validate -"
expect_stderr "^mmcheck: <stdin>:1048578: more than 1048576 comment lines before the size line$"

# ---- a long line under the limit reads: 1 MiB before its newline, header and body ------------------
long=$(head -c $((1024 * 1024 - 1)) /dev/zero | tr '\0' c)
printf "${head}%%%s\n3 3 2\n%%%s\n1 1 1\n2 2 2\n" "$long" "$long" >"$TMP/long_ok.mtx"
quick 0 mmcheck validate "$TMP/long_ok.mtx"
grep -q 'long_ok.mtx: valid (coordinate real general, 3 x 3, 2 stored entries, 0 warnings)' \
  "$TMP/out" && pass "a 1 MiB comment line reads" || fail "long comment: $(cat "$TMP/out")"
printf "${head}%%%sc\n3 3 0\n" "$long" >"$TMP/long_over.mtx"
quick 3 mmcheck validate "$TMP/long_over.mtx"
expect_stderr "long_over\.mtx:2: line longer than 1 MiB$"

finish
