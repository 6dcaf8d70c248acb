#!/usr/bin/env bash
# Every tests/bad fixture through the real binaries: mmcheck validate names FILE:LINE (and
# <stdin>:LINE), exits 3; mmgen rhs exits 3 and writes nothing, an existing target untouched.
# Every tests/warn fixture: read with one warning (validate, mmspmv), refused with --strict.
source "$(dirname "$0")/common.bash"
BAD="$MM_ROOT/tests/bad"
mkdir -p "$TMP/out"

leftovers() { find "$TMP/out" -name '.*.mmtmp.*' | wc -l; }

# check_error WHAT CODE PREFIX FRAGMENT: the last run ($TMP/err, exit status CODE) exited 3
# and its standard error is one line that starts with PREFIX and contains FRAGMENT.
check_error() {
  local what=$1 code=$2 prefix=$3 fragment=$4 err
  err=$(cat "$TMP/err")
  if [[ $code != 3 ]]; then
    fail "$what -> exit $code, expected 3; stderr: ${err:0:300}"
  elif [[ $(wc -l <"$TMP/err") != 1 ]]; then
    fail "$what -> stderr is not one line: ${err:0:300}"
  elif [[ $err != "$prefix"* ]]; then
    fail "$what -> stderr does not start with '$prefix': ${err:0:300}"
  elif [[ $err != *"$fragment"* ]]; then
    fail "$what -> stderr lacks '$fragment': ${err:0:300}"
  else
    pass "$what -> exit 3, $prefix..."
  fi
}

listed=0
while IFS=$'\t' read -r file line fragment; do
  [[ -z $file || $file == \#* ]] && continue
  listed=$((listed + 1))
  f="$BAD/$file"
  at=":$line"
  [[ $line == 0 ]] && at=""  # a read error names no line

  # By path, and on standard input.
  code=0
  mmcheck validate "$f" >"$TMP/stdout" 2>"$TMP/err" || code=$?
  check_error "mmcheck validate $file" "$code" "mmcheck: $f$at: " "$fragment"
  code=0
  mmcheck validate - <"$f" >"$TMP/stdout" 2>"$TMP/err" || code=$?
  check_error "mmcheck validate - < $file" "$code" "mmcheck: <stdin>$at: " "$fragment"

  # No output and no temporary file after bad input.
  rm -f "$TMP/out/b.mtx"
  code=0
  mmgen rhs "$f" -o "$TMP/out/b.mtx" >"$TMP/stdout" 2>"$TMP/err" || code=$?
  check_error "mmgen rhs $file" "$code" "mmgen: $f$at: " "$fragment"
  if [[ ! -e $TMP/out/b.mtx && $(leftovers) == 0 ]]; then pass "mmgen rhs $file left nothing"; else
    fail "mmgen rhs $file left: $(ls -A "$TMP/out")"; fi

  # An existing target stays byte for byte as it was.
  printf '%%%%MatrixMarket matrix array real general\n%% keep me: %s\n1 1\n42\n' "$file" >"$TMP/keep.mtx"
  cp "$TMP/keep.mtx" "$TMP/out/b.mtx"
  code=0
  mmgen rhs "$f" -o "$TMP/out/b.mtx" >"$TMP/stdout" 2>"$TMP/err" || code=$?
  [[ $code == 3 ]] && pass "mmgen rhs $file over an existing b.mtx -> exit 3" ||
    fail "mmgen rhs $file over an existing b.mtx -> exit $code, expected 3"
  same_files "$TMP/out/b.mtx" "$TMP/keep.mtx"
  [[ $(leftovers) == 0 ]] && pass "no temporary after mmgen rhs $file" || fail "temporary left after mmgen rhs $file"
done <"$BAD/EXPECTED"

# tests/warn: what SciPy and SuiteSparse read (a value on a pattern entry line) is read with one
# warning naming FILE:LINE, by mmcheck validate and by a compute tool; --strict refuses it.
WARN="$MM_ROOT/tests/warn"
# run CODE CMD...: expect_exit with stdout to $TMP/stdout ($TMP/out is a folder here).
run() { EXPECT_OUT="$TMP/stdout" expect_exit "$@"; }
nwarn=0
while IFS=$'\t' read -r file line count fragment; do
  [[ -z $file || $file == \#* ]] && continue
  nwarn=$((nwarn + 1))
  f="$WARN/$file"
  [[ $count == 1 ]] && lines="1 entry line of a pattern file carries" ||
    lines="$count entry lines of a pattern file carry"
  run 0 mmcheck validate "$f"
  expect_stderr "^mmcheck: warning: $f: $lines a value after the indices, ignored \\(first: entry [0-9]+ at \\([0-9]+,[0-9]+\\), line $line\\)\$"
  [[ $(wc -l <"$TMP/err") == 1 ]] && pass "one warning for $file" || fail "$file: $(cat "$TMP/err")"
  grep -q "^$f: valid (coordinate pattern .*, 1 warning)\$" "$TMP/stdout" && pass "$file valid, 1 warning" ||
    fail "$file summary: $(cat "$TMP/stdout")"
  code=0
  mmcheck validate --strict "$f" >"$TMP/stdout" 2>"$TMP/err" || code=$?
  check_error "mmcheck validate --strict $file" "$code" "mmcheck: $f:$line: " "$fragment"
  code=0
  mmcheck validate --strict - <"$f" >"$TMP/stdout" 2>"$TMP/err" || code=$?
  check_error "mmcheck validate --strict - < $file" "$code" "mmcheck: <stdin>:$line: " "$fragment"
  # A compute tool reads it like the file without the values, warning once.
  awk '/^%/ { print; next } !size { print; size = 1; next } { print $1, $2 }' "$f" >"$TMP/plain.mtx"
  run 0 mmcheck validate --strict "$TMP/plain.mtx"
  run 0 mmspmv "$f" --x ones -o "$TMP/y.mtx"
  expect_stderr "^mmspmv: warning: $f:$line: $lines a value after the indices, ignored\$"
  [[ $(wc -l <"$TMP/err") == 1 ]] && pass "mmspmv warns once" || fail "mmspmv: $(cat "$TMP/err")"
  run 0 mmspmv "$TMP/plain.mtx" --x ones -o "$TMP/y_plain.mtx"
  same_files "$TMP/y.mtx" "$TMP/y_plain.mtx"
  run 0 mmspmv - --x ones -q <"$f"
  expect_stderr "^mmspmv: warning: <stdin>:$line: "
done <"$WARN/EXPECTED"
((nwarn >= 2)) && pass "$nwarn tests/warn fixtures" || fail "only $nwarn tests/warn fixtures"
run 2 mmcheck info --strict "$WARN/pattern_value.mtx"
expect_stderr '--strict does not apply to mmcheck info'

# Every fixture is listed, and the suite is not empty.
for f in "$BAD"/*; do
  name=$(basename "$f")
  [[ $name == EXPECTED ]] && continue
  awk -F'\t' -v n="$name" '$1 == n { found = 1 } END { exit !found }' "$BAD/EXPECTED" && pass "$name listed" || fail "tests/bad/$name is not listed in EXPECTED"
done
((listed >= 36)) && pass "$listed fixtures" || fail "only $listed fixtures listed"

finish
