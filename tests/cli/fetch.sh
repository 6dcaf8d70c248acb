# datasets/fetch.sh against a local mirror built here out of datasets/corpus (the
# collection's layout: MM/GROUP/NAME.tar.gz and files/ssstats.csv), served as a folder, as
# file:// and over http:// (python3 -m http.server); bad tarballs, unknown names, no network.
source "$(dirname "$0")/common.bash"
FETCH="$MM_ROOT/datasets/fetch.sh"
export MM_FETCH_MMCHECK="$MM_BIN/mmcheck"
[[ -x $MM_FETCH_MMCHECK ]] || export MM_FETCH_MMCHECK=none
unset MM_FETCH_MIRROR MM_FETCH_TIMEOUT
server=
trap '[[ -z $server ]] || kill "$server" 2>/dev/null; rm -rf "$TMP"' EXIT

# ---- the mirror -----------------------------------------------------------------------------
M="$TMP/mirror"
mkdir -p "$M/files" "$TMP/src"
# tarball GROUP NAME FILE [EXTRA...]: MM/GROUP/NAME.tar.gz holding NAME/NAME.mtx (a copy of
# FILE) and each EXTRA as NAME/NAME_<basename>.
tarball() {
  local group=$1 name=$2 file=$3
  shift 3
  rm -rf "$TMP/src/$name" && mkdir -p "$TMP/src/$name" "$M/MM/$group"
  cp "$file" "$TMP/src/$name/$name.mtx"
  for x in "$@"; do cp "$x" "$TMP/src/$name/${name}_$(basename "$x")"; done
  tar -czf "$M/MM/$group/$name.tar.gz" -C "$TMP/src" "$name"
}
tarball HB west0479 "$CORPUS/west0479.mtx" "$CORPUS/full.mtx"
tarball Newman karate "$CORPUS/karate.mtx"
tarball MMTest pts5ldd03 "$CORPUS/pts5ldd03.mtx" # only the index knows its group
tarball A dup "$CORPUS/cage5.mtx"
tarball B dup "$CORPUS/cage5.mtx"
tarball Bad badmtx "$MM_ROOT/tests/bad/mangle1.mtx"
mkdir -p "$TMP/src/nomtx" && cp "$CORPUS/karate.mtx" "$TMP/src/nomtx/nomtx_b.mtx" # an extra, no main file
tar -czf "$M/MM/Bad/nomtx.tar.gz" -C "$TMP/src" nomtx
printf 'not a gzip file\n%.0s' {1..50} >"$M/MM/Bad/corrupt.tar.gz"
head -c "$(($(stat -c %s "$M/MM/HB/west0479.tar.gz") / 2))" "$M/MM/HB/west0479.tar.gz" >"$M/MM/Bad/trunc.tar.gz"
{
  echo 5
  echo "01-Jan-2024 00:00:00"
  echo "HB,west0479,479,479,1910,1,0,0,0,0.0,0.0,chemical process simulation problem,1910"
  echo "Newman,karate,34,34,156,1,1,0,0,1,1,undirected graph,156"
  echo "MMTest,pts5ldd03,161,161,745,1,0,0,0,0,0,test,745"
  echo "A,dup,37,37,233,1,0,0,0,0,0,test,233"
  echo "B,dup,37,37,233,1,0,0,0,0,0,test,233"
} >"$M/files/ssstats.csv"

sha() { sha256sum <"$1" | cut -d' ' -f1; }
row() { awk -F'\t' -v f="$2" '$1 == f' "$1"; }
# bundled_row FILE GROUP/NAME: datasets/MANIFEST's row for FILE with the group set to
# GROUP/NAME (for corpus files that the mirror files under a made-up group).
bundled_row() { awk -F'\t' -v f="$1" -v g="$2" 'BEGIN { OFS = "\t" } $1 == f { $2 = g; print }' \
  "$MM_ROOT/datasets/MANIFEST"; }
# fetched_ok DEST FILE GROUP/NAME MIRROR_TARBALL: the file is the corpus original, and its
# MANIFEST row has datasets/MANIFEST's columns and the tarball's checksum.
fetched_ok() {
  local dest=$1 f=$2 gn=$3 tb=$4 got
  same_files "$dest/$f" "$CORPUS/$f"
  got=$(row "$dest/MANIFEST" "$f")
  if [[ $(cut -f1-8 <<<"$got") == "$(bundled_row "$f" "$gn")" ]]; then pass "$f: MANIFEST row"; else
    fail "$f: MANIFEST row '$got', expected '$(bundled_row "$f" "$gn")'"; fi
  if [[ $(cut -f9 <<<"$got") == "$(sha "$tb")" ]]; then pass "$f: tarball sha256"; else
    fail "$f: tarball sha256 '$(cut -f9 <<<"$got")' is not $(sha "$tb")"; fi
}
# only_files DIR NAME...: DIR holds exactly these entries (hidden ones included).
only_files() {
  local dir=$1 got want
  shift
  got=$(ls -A "$dir" | sort | tr '\n' ' ')
  want=$(if (($#)); then printf '%s\n' "$@" | sort | tr '\n' ' '; fi)
  if [[ $got == "$want" ]]; then pass "$dir holds: $want"; else fail "$dir holds '$got', expected '$want'"; fi
}
ms() { date +%s%3N; }
free_port() { "$PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# ---- usage --------------------------------------------------------------------------------------
expect_exit 0 "$FETCH" --help
grep -q -- '--mirror URL' "$TMP/out" && pass "--help names --mirror" || fail "--help lacks --mirror"
expect_exit 2 "$FETCH"
expect_exit 2 "$FETCH" --bogus HB/west0479
expect_exit 2 "$FETCH" --mirror "$M" --dest "$TMP/u" ../x
expect_exit 2 "$FETCH" --mirror "$M" --dest "$TMP/u" HB/../x
expect_exit 2 "$FETCH" --mirror ftp://example.org HB/west0479

# ---- a plain folder mirror: GROUP/NAME, a bundled NAME, a NAME only the index knows ----------
D="$TMP/plain"
expect_exit 0 "$FETCH" --mirror "$M" --dest "$D" HB/west0479
grep -q 'left out of the tarball: west0479_full.mtx' "$TMP/out" && pass "extra file named as left out" ||
  fail "no note about the extra file: $(cat "$TMP/out")"
fetched_ok "$D" west0479.mtx HB/west0479 "$M/MM/HB/west0479.tar.gz"
expect_exit 0 "$FETCH" --mirror "$M" --dest "$D" karate pts5ldd03
fetched_ok "$D" karate.mtx Newman/karate "$M/MM/Newman/karate.tar.gz"
fetched_ok "$D" pts5ldd03.mtx MMTest/pts5ldd03 "$M/MM/MMTest/pts5ldd03.tar.gz"
only_files "$D" MANIFEST ssstats.csv west0479.mtx karate.mtx pts5ldd03.mtx
[[ $(grep -c . "$D/MANIFEST") == 4 && $(head -1 "$D/MANIFEST") == "$(head -1 "$MM_ROOT/datasets/MANIFEST")"$'\ttar_sha256' ]] &&
  pass "MANIFEST: the bundled header plus tar_sha256, 3 rows" || fail "MANIFEST: $(cat "$D/MANIFEST")"

# A second run does nothing: no file rewritten, and the (unreachable) mirror is not asked.
before=$(stat -c '%i %Y' "$D"/* | tr '\n' ' ')
dead="http://127.0.0.1:$(free_port)"
expect_exit 0 "$FETCH" --mirror "$dead" --dest "$D" HB/west0479 karate MMTest/pts5ldd03
[[ $(grep -c 'up to date' "$TMP/out") == 3 ]] && pass "second run: 3 up to date" || fail "second run: $(cat "$TMP/out")"
[[ $(stat -c '%i %Y' "$D"/* | tr '\n' ' ') == "$before" ]] && pass "second run rewrote nothing" ||
  fail "second run touched files"

# A file that no longer matches its checksum is fetched again; --extras unpacks the others.
echo "1 1 5" >>"$D/karate.mtx"
expect_exit 0 "$FETCH" --mirror "file://$M" --dest "$D" karate
expect_stderr 'karate.mtx does not match its MANIFEST checksum'
same_files "$D/karate.mtx" "$CORPUS/karate.mtx"
expect_exit 0 "$FETCH" --mirror "file://$M" --dest "$D" --force --extras west0479
same_files "$D/west0479_full.mtx" "$CORPUS/full.mtx"
fetched_ok "$D" west0479.mtx HB/west0479 "$M/MM/HB/west0479.tar.gz"

# ---- file:// and the header check (no mmcheck) ---------------------------------------------------
F="$TMP/fileurl"
MM_FETCH_MMCHECK=none expect_exit 0 "$FETCH" --mirror "file://$M/" --dest "$F" Newman/karate west0479
grep -q 'header check' "$TMP/out" && pass "header check without mmcheck" || fail "no header check: $(cat "$TMP/out")"
fetched_ok "$F" karate.mtx Newman/karate "$M/MM/Newman/karate.tar.gz"
fetched_ok "$F" west0479.mtx HB/west0479 "$M/MM/HB/west0479.tar.gz"

# ---- refused: unknown and ambiguous names, missing matrices, bad tarballs; nothing left -----------
B="$TMP/bad"
mkdir -p "$B"
expect_exit 3 "$FETCH" --mirror "$M" --dest "$B" nosuchmatrix
expect_stderr "unknown matrix 'nosuchmatrix'"
expect_exit 3 "$FETCH" --mirror "$M" --dest "$B" dup
expect_stderr "ambiguous name 'dup': one of A/dup, B/dup"
rm -f "$B/ssstats.csv" # the index cached by the look-ups; the rest must leave nothing at all
expect_exit 3 "$FETCH" --mirror "$M" --dest "$B" HB/nosuchmatrix
expect_stderr 'no MM/HB/nosuchmatrix.tar.gz at'
for bad in corrupt trunc; do
  expect_exit 3 "$FETCH" --mirror "$M" --dest "$B" "Bad/$bad"
  expect_stderr "Bad/$bad: corrupt tarball"
done
expect_exit 3 "$FETCH" --mirror "$M" --dest "$B" Bad/nomtx
expect_stderr 'the tarball has no nomtx/nomtx.mtx'
expect_exit 3 "$FETCH" --mirror "$M" --dest "$B" Bad/badmtx
if [[ $MM_FETCH_MMCHECK == none ]]; then expect_stderr 'badmtx.mtx: not a Matrix Market file'; else
  expect_stderr "^fetch.sh: mmcheck: badmtx.mtx:1: unknown object 'junk'"; fi
MM_FETCH_MMCHECK=none expect_exit 3 "$FETCH" --mirror "$M" --dest "$B" Bad/badmtx
expect_stderr 'badmtx.mtx: not a Matrix Market file'
only_files "$B"
# One bad name among good ones: the good ones are fetched, the exit status still says 3.
expect_exit 3 "$FETCH" --mirror "$M" --dest "$B" Bad/corrupt HB/west0479
same_files "$B/west0479.mtx" "$CORPUS/west0479.mtx"
# A corrupt tarball in place of a fetched matrix leaves the fetched one alone.
cp "$M/MM/Bad/corrupt.tar.gz" "$TMP/corrupt.tar.gz"
mkdir -p "$TMP/m2/MM/HB" && cp "$TMP/corrupt.tar.gz" "$TMP/m2/MM/HB/west0479.tar.gz"
expect_exit 3 "$FETCH" --mirror "$TMP/m2" --dest "$B" --force HB/west0479
same_files "$B/west0479.mtx" "$CORPUS/west0479.mtx"
only_files "$B" MANIFEST west0479.mtx
expect_exit 4 "$FETCH" --mirror "$TMP/no/such/folder" --dest "$B" HB/west0479

# ---- unreachable: a closed port, and the real site from a machine without network -------------
# timed_exit CODE SECONDS CMD...: expect_exit, and it took under SECONDS.
timed_exit() {
  local code=$1 limit=$2 t0 t1
  shift 2
  t0=$(ms)
  expect_exit "$code" "$@"
  t1=$(ms)
  if ((t1 - t0 < limit * 1000)); then pass "took $((t1 - t0)) ms (< $limit s)"; else
    fail "took $((t1 - t0)) ms, more than $limit s"; fi
}
timed_exit 4 5 "$FETCH" --mirror "$dead" --dest "$TMP/dead" HB/west0479
expect_stderr "cannot reach $dead .*--mirror"
timed_exit 4 5 "$FETCH" --mirror "$dead" --dest "$TMP/dead" pts5ldd03 # the index, first
only_files "$TMP/dead"
t0=$(ms)
rc=0
"$FETCH" --dest "$TMP/net" HB/west0479 >"$TMP/out" 2>"$TMP/err" || rc=$?
t1=$(ms)
if ((rc == 0)); then
  echo "skip: the network is up here (the real site answered), so the offline case is not tested"
  expect_exit 0 "$MM_BIN/mmcheck" validate "$TMP/net/west0479.mtx"
else
  [[ $rc == 4 ]] && pass "default site offline -> exit 4" || fail "default site offline -> exit $rc: $(cat "$TMP/err")"
  expect_stderr 'cannot reach https://sparse.tamu.edu .*no network.*--mirror'
  ((t1 - t0 < 10000)) && pass "offline failure took $((t1 - t0)) ms" || fail "offline failure took $((t1 - t0)) ms"
fi

# ---- http:// from python3 -m http.server ----------------------------------------------------------
port=$(free_port)
"$PY" -m http.server "$port" --bind 127.0.0.1 --directory "$M" >"$TMP/http.log" 2>&1 &
server=$!
up=0
for _ in $(seq 50); do
  if "$PY" -c "import urllib.request as u; u.urlopen('http://127.0.0.1:$port/files/ssstats.csv', timeout=1)" 2>/dev/null; then
    up=1
    break
  fi
  sleep 0.1
done
if ((!up)); then
  echo "skip: python3 -m http.server did not start on 127.0.0.1:$port: $(head -c 300 "$TMP/http.log")"
elif ! command -v curl >/dev/null && ! command -v wget >/dev/null; then
  echo "skip: neither curl nor wget here, so no http:// test"
else
  H="$TMP/http"
  expect_exit 0 "$FETCH" --mirror "http://127.0.0.1:$port/" --dest "$H" HB/west0479 pts5ldd03
  fetched_ok "$H" west0479.mtx HB/west0479 "$M/MM/HB/west0479.tar.gz"
  fetched_ok "$H" pts5ldd03.mtx MMTest/pts5ldd03 "$M/MM/MMTest/pts5ldd03.tar.gz"
  expect_exit 3 "$FETCH" --mirror "http://127.0.0.1:$port" --dest "$H" Newman/nosuchmatrix
  expect_stderr 'no MM/Newman/nosuchmatrix.tar.gz at'
  expect_exit 3 "$FETCH" --mirror "http://127.0.0.1:$port" --dest "$H" Bad/trunc
  only_files "$H" MANIFEST ssstats.csv west0479.mtx pts5ldd03.mtx
fi

finish
