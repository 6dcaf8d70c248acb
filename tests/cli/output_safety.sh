#!/usr/bin/env bash
# Output safety through the real binaries: no partial file on failure, an existing target
# untouched, interrupted runs clean up, a closed pipe ends quietly, a full device is exit 4.
source "$(dirname "$0")/common.bash"
mkdir -p "$TMP/dst"
big=(sparse --rows 400000 --cols 400000 --nnz-per-row 16 --seed 5)

leftovers() { find "$TMP/dst" -name '.*.mmtmp.*' | wc -l; }
# writing PID: PID holds a file in $TMP/dst open with data in it (named or not: O_TMPFILE).
writing() {
  local fd
  for fd in /proc/"$1"/fd/*; do
    [[ $(readlink "$fd" 2>/dev/null) == "$TMP/dst/"* && $(stat -L -c %s "$fd" 2>/dev/null || echo 0) -gt 0 ]] && return 0
  done
  return 1
}

# A good run replaces the target atomically.
echo "old contents" > "$TMP/dst/a.mtx"
expect_exit 0 mmgen identity --n 3 -o "$TMP/dst/a.mtx"
expect_exit 0 mmcheck validate "$TMP/dst/a.mtx"

# Bad input: exit 3, target untouched, nothing left behind.
printf '%%%%MatrixMarket matrix coordinate real general\n2 2 1\n3 1 1\n' > "$TMP/bad.mtx"
cp "$TMP/dst/a.mtx" "$TMP/keep.mtx"
expect_exit 3 mmgen rhs "$TMP/bad.mtx" -o "$TMP/dst/a.mtx"
expect_stderr "bad.mtx:3: row index 3 out of range 1..2"
same_files "$TMP/dst/a.mtx" "$TMP/keep.mtx"
expect_exit 3 mmgen rhs "$TMP/bad.mtx" -o "$TMP/dst/new.mtx"
[[ ! -e $TMP/dst/new.mtx && $(leftovers) == 0 ]] && pass "no output and no temporary after bad input" ||
  fail "bad input left $(ls -A "$TMP/dst")"

# File too large (as a full disk would be): exit 4, target untouched, temporary removed.
expect_exit 4 bash -c "ulimit -f 64; exec mmgen ${big[*]} -o '$TMP/dst/a.mtx'"
expect_stderr "cannot write .*a.mtx"
same_files "$TMP/dst/a.mtx" "$TMP/keep.mtx"
[[ $(leftovers) == 0 ]] && pass "no temporary after a failed write" || fail "temporary left after a failed write"

# Standard output on a full device: exit 4 with a message.
expect_exit 4 bash -c "exec mmgen identity --n 100000 > /dev/full"
expect_stderr "No space left on device"

# Killed mid-write (SIGTERM, SIGINT): target untouched, temporary removed.
for sig in TERM INT; do
  mmgen "${big[@]}" --threads 1 -o "$TMP/dst/a.mtx" 2>/dev/null &
  pid=$!
  for _ in $(seq 100); do writing "$pid" && break; sleep 0.02; done
  kill -"$sig" "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  same_files "$TMP/dst/a.mtx" "$TMP/keep.mtx"
  [[ $(leftovers) == 0 ]] && pass "SIG$sig: no temporary left" || fail "SIG$sig: temporary left behind"
done

# A closed pipe ends the tool quietly: exit 0, nothing on stderr.
set +o pipefail
mmgen "${big[@]}" 2>"$TMP/pipe.err" | head -c 1000 > /dev/null
status=${PIPESTATUS[0]}
set -o pipefail
[[ $status == 0 && ! -s $TMP/pipe.err ]] && pass "closed pipe: exit 0, quiet" ||
  fail "closed pipe: exit $status, stderr: $(cat "$TMP/pipe.err")"

finish
