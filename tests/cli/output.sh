#!/usr/bin/env bash
# Output files through the real binaries, on both of the writer's paths: the unnamed file
# (O_TMPFILE) linked into place on commit, which a kill -9 mid-write leaves no trace of, and
# the named temporary renamed on commit, taken where the filesystem lacks O_TMPFILE (forced
# here by preloading $MM_NO_TMPFILE, whose open() refuses O_TMPFILE with EOPNOTSUPP).
source "$(dirname "$0")/common.bash"
: "${MM_NO_TMPFILE:?set by CTest: the path of the mm_no_tmpfile shim}"
[[ -f $MM_NO_TMPFILE ]] || { echo "FAIL: $MM_NO_TMPFILE missing: build the target mm_no_tmpfile" >&2; exit 1; }
D=$TMP/dst
mkdir -p "$D"
# A matrix that takes about a second to write (200 MB plain, 96 MB gzip at ~4 s), one thread.
big=(sparse --rows 400000 --cols 400000 --nnz-per-row 16 --seed 5 --threads 1)
mmgen identity --n 4 -o "$TMP/old.mtx"

if $PY -c "import os, sys; os.close(os.open(sys.argv[1], os.O_TMPFILE | os.O_WRONLY))" "$D" 2>/dev/null; then
  have_tmpfile=1
else
  have_tmpfile=
  echo "note: the filesystem of $D has no O_TMPFILE: both runs below take the fallback"
fi

# What is in $D, one line ("a.mtx b.mtx"; empty for none).
listing() { ls -A "$D" | tr '\n' ' ' | sed 's/ $//'; }
expect_listing() {
  if [[ $(listing) == "$1" ]]; then pass "$2: $D holds '${1}'"; else
    fail "$2: $D holds '$(listing)', expected '$1'"; fi
}
# The open descriptor of PID in $D with at least MIN bytes written: prints its link's target
# ("$D/#123 (deleted)" for an unnamed file, "$D/.a.mtx.mmtmp.XXXXXX" for the fallback's).
open_in_dst() {
  local fd min=$2 t
  for fd in /proc/"$1"/fd/*; do
    t=$(readlink "$fd" 2>/dev/null) || continue
    if [[ $t == "$D/"* ]] && (($(stat -L -c %s "$fd" 2>/dev/null || echo 0) >= min)); then
      echo "$t"
      return 0
    fi
  done
  return 1
}

# run_cases MODE: MODE is "unnamed" (the tools as they are) or "fallback" (the shim preloaded).
run_cases() {
  local mode=$1 pre=() target pid st t named sig
  [[ $mode == fallback ]] && pre=(env "LD_PRELOAD=$MM_NO_TMPFILE")
  rm -rf "$D" && mkdir -p "$D"

  # A new file and a replaced one get the mode of a newly created file (the umask's), as
  # before: the replaced file's own mode (0600 here) is not kept.
  expect_exit 0 bash -c "umask 027; exec ${pre[*]} mmgen identity --n 3 -o '$D/a.mtx'"
  [[ $(stat -c %a "$D/a.mtx") == 640 ]] && pass "$mode: umask 027 -> mode 640" ||
    fail "$mode: umask 027 gave mode $(stat -c %a "$D/a.mtx")"
  chmod 600 "$D/a.mtx"
  expect_exit 0 bash -c "umask 022; exec ${pre[*]} mmgen identity --n 5 -o '$D/a.mtx'"
  [[ $(stat -c %a "$D/a.mtx") == 644 ]] && pass "$mode: replaced under umask 022 -> mode 644" ||
    fail "$mode: replaced under umask 022 gave mode $(stat -c %a "$D/a.mtx")"
  expect_exit 0 mmcheck info "$D/a.mtx"
  grep -q '^rows: 5$' "$TMP/out" && pass "$mode: the replacement was read back" ||
    fail "$mode: mmcheck info of the replacement: $(cat "$TMP/out")"
  expect_listing "a.mtx" "$mode: after two writes"

  # .gz output is compressed and reads back as the plain one; "-" is standard output.
  expect_exit 0 "${pre[@]}" mmgen sparse --rows 300 --cols 200 --nnz-per-row 3 --seed 2 -o "$D/s.mtx.gz"
  expect_exit 0 "${pre[@]}" mmgen sparse --rows 300 --cols 200 --nnz-per-row 3 --seed 2 -o -
  cp "$TMP/out" "$TMP/s.mtx"
  [[ $(head -c 2 "$D/s.mtx.gz" | od -An -tx1 | tr -d ' ') == 1f8b ]] && pass "$mode: .gz is gzip" ||
    fail "$mode: $D/s.mtx.gz has no gzip magic"
  gzip -dc "$D/s.mtx.gz" > "$TMP/s_gz.mtx"
  same_files "$TMP/s_gz.mtx" "$TMP/s.mtx"
  rm -f "$D/s.mtx.gz"

  # A full disk (a file size limit here) is exit 4: the target untouched, nothing left.
  cp "$TMP/old.mtx" "$D/a.mtx"
  expect_exit 4 bash -c "ulimit -f 64; exec ${pre[*]} mmgen ${big[*]} -o '$D/a.mtx'"
  expect_stderr "cannot write .*a.mtx: File too large"
  same_files "$D/a.mtx" "$TMP/old.mtx"
  expect_listing "a.mtx" "$mode: after a failed write"

  # No directory to write in; a directory where the file should go (the name is refused at
  # the rename, and the temporary name linked for it removed).
  expect_exit 4 "${pre[@]}" mmgen identity --n 3 -o "$D/missing/a.mtx"
  expect_stderr "cannot create a file beside .*missing/a.mtx: No such file or directory"
  mkdir "$D/sub.mtx"
  expect_exit 4 "${pre[@]}" mmgen identity --n 3 -o "$D/sub.mtx"
  expect_stderr "cannot rename output to .*sub.mtx: Is a directory"
  expect_listing "a.mtx sub.mtx" "$mode: after refused targets"
  rmdir "$D/sub.mtx"

  # Mid-write, the unnamed file has no name in $D; the fallback's temporary has one.
  "${pre[@]}" mmgen "${big[@]}" -o "$D/a.mtx" 2>/dev/null &
  pid=$!
  t=
  for _ in $(seq 500); do t=$(open_in_dst "$pid" 1) && break; sleep 0.01; done
  named=$(find "$D" -name '.a.mtx.mmtmp.*' | wc -l)
  wait "$pid" || true
  if [[ $mode == unnamed && -n $have_tmpfile ]]; then
    [[ $t == "$D/#"*" (deleted)" && $named == 0 ]] && pass "unnamed: mid-write the file has no name ($t)" ||
      fail "unnamed: mid-write the output was '$t', $named named temporaries in $D"
  else
    [[ $t == "$D/.a.mtx.mmtmp."* && $named == 1 ]] && pass "$mode: mid-write the named temporary $t" ||
      fail "$mode: mid-write the output was '$t', $named named temporaries in $D"
  fi
  expect_listing "a.mtx" "$mode: after a complete big write"

  # Killed mid-write: SIGTERM (both paths) and SIGKILL (the unnamed file), replacing an
  # existing target (plain, gzip) and creating a new one. The target keeps its old content
  # or stays absent, and nothing else is left in $D.
  for sig in TERM KILL; do
    [[ $sig == KILL && ! ($mode == unnamed && -n $have_tmpfile) ]] && continue
    for target in a.mtx a.mtx.gz new.mtx; do
      rm -rf "$D" && mkdir -p "$D"
      [[ $target != new.mtx ]] && cp "$TMP/old.mtx" "$D/$target"
      "${pre[@]}" mmgen "${big[@]}" -o "$D/$target" 2>/dev/null &
      pid=$!
      # Kill once a few MB are written: well inside the write, whatever the machine's speed.
      t=
      for _ in $(seq 1000); do t=$(open_in_dst "$pid" $((4 << 20))) && break; sleep 0.005; done
      kill -"$sig" "$pid" 2>/dev/null || true
      st=0
      wait "$pid" 2>/dev/null || st=$?
      if [[ -z $t || $st == 0 ]]; then
        fail "$mode SIG$sig $target: not killed mid-write (open file '$t', exit $st)"
        continue
      fi
      if [[ $target == new.mtx ]]; then
        expect_listing "" "$mode: SIG$sig mid-write of a new target (exit $st)"
      else
        same_files "$D/$target" "$TMP/old.mtx"
        expect_listing "$target" "$mode: SIG$sig mid-write of $target (exit $st)"
      fi
    done
  done
}

run_cases unnamed
run_cases fallback

# The fallback's limit, which the unnamed file removes: a kill -9 leaves its temporary.
rm -rf "$D" && mkdir -p "$D"
LD_PRELOAD=$MM_NO_TMPFILE mmgen "${big[@]}" -o "$D/a.mtx" 2>/dev/null &
pid=$!
for _ in $(seq 1000); do open_in_dst "$pid" $((4 << 20)) >/dev/null && break; sleep 0.005; done
kill -KILL "$pid" 2>/dev/null || true
wait "$pid" 2>/dev/null || true
[[ $(find "$D" -name '.a.mtx.mmtmp.*' | wc -l) == 1 && ! -e $D/a.mtx ]] &&
  pass "fallback: kill -9 leaves its named temporary (why O_TMPFILE is preferred)" ||
  fail "fallback: after kill -9 $D holds '$(listing)'"

# A device or FIFO as the target is written in place, never replaced by a plain file (root
# could otherwise turn /dev/null into a regular file).
mmgen identity --n 3 -o /dev/null
[[ -c /dev/null ]] && pass "-o /dev/null leaves /dev/null a device" || fail "-o /dev/null replaced it"
mkfifo "$TMP/fifo"
cat "$TMP/fifo" > "$TMP/from_fifo" &
reader=$!
mmgen identity --n 3 -o "$TMP/fifo"
wait "$reader"
[[ -p $TMP/fifo ]] && cmp -s "$TMP/from_fifo" <(mmgen identity --n 3) &&
  pass "-o FIFO: written through the FIFO, which stays one" || fail "-o FIFO: $(ls -l "$TMP/fifo")"

finish
