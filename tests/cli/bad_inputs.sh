#!/usr/bin/env bash
# Every tests/bad fixture through the real binaries: mmcheck validate names FILE:LINE (and
# <stdin>:LINE), exits 3; mmgen rhs exits 3 and writes nothing, an existing target untouched.
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

  # By path, and on standard input.
  code=0
  mmcheck validate "$f" >"$TMP/stdout" 2>"$TMP/err" || code=$?
  check_error "mmcheck validate $file" "$code" "mmcheck: $f:$line: " "$fragment"
  code=0
  mmcheck validate - <"$f" >"$TMP/stdout" 2>"$TMP/err" || code=$?
  check_error "mmcheck validate - < $file" "$code" "mmcheck: <stdin>:$line: " "$fragment"

  # No output and no temporary file after bad input.
  rm -f "$TMP/out/b.mtx"
  code=0
  mmgen rhs "$f" -o "$TMP/out/b.mtx" >"$TMP/stdout" 2>"$TMP/err" || code=$?
  check_error "mmgen rhs $file" "$code" "mmgen: $f:$line: " "$fragment"
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

# Every fixture is listed, and the suite is not empty.
for f in "$BAD"/*; do
  name=$(basename "$f")
  [[ $name == EXPECTED ]] && continue
  awk -F'\t' -v n="$name" '$1 == n { found = 1 } END { exit !found }' "$BAD/EXPECTED" && pass "$name listed" || fail "tests/bad/$name is not listed in EXPECTED"
done
((listed >= 36)) && pass "$listed fixtures" || fail "only $listed fixtures listed"

finish
