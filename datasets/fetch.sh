#!/usr/bin/env bash
# Fetches matrices from the SuiteSparse Matrix Collection (or a mirror of its layout) into
# a folder with a MANIFEST: datasets/fetch.sh [--mirror URL] [--dest DIR] NAME|GROUP/NAME...
set -euo pipefail

PROG=fetch.sh
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(dirname "$HERE")
SITE=https://sparse.tamu.edu
mirror=${MM_FETCH_MIRROR:-$SITE}
dest=$HERE/fetched
timeout=${MM_FETCH_TIMEOUT:-5}
force=0
extras=0
quiet=0

usage() {
  cat <<EOF
usage: datasets/fetch.sh [--mirror URL] [--dest DIR] [--force] [--extras] [-q] NAME|GROUP/NAME...

Downloads each matrix from the SuiteSparse Matrix Collection as MM/GROUP/NAME.tar.gz,
unpacks NAME/NAME.mtx out of it into DIR, validates it and records it in DIR/MANIFEST:
file, group/name, header, rows, cols, nnz, sha256, licence, sha256 of the tarball.
Validation is by mmcheck validate, found as \$MM_FETCH_MMCHECK, \$MM_BIN/mmcheck, on PATH
or in build/bin; without one (or with MM_FETCH_MMCHECK=none) only the header is checked.
A matrix already in DIR whose checksum matches its MANIFEST row is not fetched again.

A bare NAME is looked up in datasets/MANIFEST (the bundled corpus), then in the
collection's index files/ssstats.csv (cached as DIR/ssstats.csv and downloaded again
once when a name is missing from the cached copy).

options:
  --mirror URL  where the collection lies (default $SITE, or \$MM_FETCH_MIRROR):
                http://, https://, file:///PATH or a folder PATH holding
                MM/GROUP/NAME.tar.gz and files/ssstats.csv
  --dest DIR    where the .mtx files and MANIFEST go (default datasets/fetched)
  --force       fetch again even when the file is there and matches its checksum
  --extras      also unpack the tarball's other files (NAME_b.mtx, ...) into DIR; they
                are not validated nor recorded. Without it they are left out.
  -q            no progress lines, errors only
  -h, --help    this text

Connections give up after \$MM_FETCH_TIMEOUT seconds (default 5) and are not retried:
with no network the script fails at once.

exit status: 0 all fetched or up to date; 2 usage error; 3 unknown name, matrix missing
from the mirror, corrupt tarball or invalid .mtx (nothing is left in DIR); 4 the site or
mirror cannot be reached or DIR cannot be written.

examples:
  datasets/fetch.sh HB/bcsstk01 Newman/karate
  datasets/fetch.sh --mirror /srv/suitesparse --dest /tmp/m bcsstk01
EOF
}

say() { ((quiet)) || echo "$@"; }
warn() { echo "$PROG: $*" >&2; }
die() {
  local code=$1
  shift
  warn "$@"
  exit "$code"
}

# ---- options ------------------------------------------------------------------------------
names=()
while (($#)); do
  case $1 in
    --mirror | --dest)
      (($# >= 2)) || die 2 "$1 needs a value (see --help)"
      if [[ $1 == --mirror ]]; then mirror=$2; else dest=$2; fi
      shift 2
      ;;
    --mirror=*) mirror=${1#*=} && shift ;;
    --dest=*) dest=${1#*=} && shift ;;
    --force) force=1 && shift ;;
    --extras) extras=1 && shift ;;
    -q) quiet=1 && shift ;;
    -h | --help) usage && exit 0 ;;
    --) shift && names+=("$@") && break ;;
    -*) die 2 "unknown option '$1' (see --help)" ;;
    *) names+=("$1") && shift ;;
  esac
done
((${#names[@]})) || die 2 "no matrix named (see --help)"
[[ $timeout =~ ^[0-9]+$ ]] && ((timeout > 0)) || die 2 "MM_FETCH_TIMEOUT must be a positive integer"

case $mirror in
  http://* | https://*) mirror_kind=http mirror_url=${mirror%/} ;;
  file://*)
    mirror_kind=local mirror_dir=${mirror#file://}
    mirror_dir=${mirror_dir#localhost}
    ;;
  *://*) die 2 "--mirror '$mirror': only http://, https://, file:// or a folder path" ;;
  *) mirror_kind=local mirror_dir=$mirror ;;
esac
if [[ $mirror_kind == local ]]; then
  [[ -d $mirror_dir ]] || die 4 "mirror folder '$mirror_dir' not found"
  mirror_dir=${mirror_dir%/}
elif ! command -v curl >/dev/null && ! command -v wget >/dev/null; then
  die 4 "fetching from $mirror needs curl or wget (apt-get install curl), or use --mirror DIR"
fi

mkdir -p -- "$dest" 2>/dev/null && [[ -w $dest ]] || die 4 "cannot write to '$dest'"
# One run at a time per folder, so that two runs never interleave their MANIFEST updates;
# the lock is on the folder itself, which leaves no lock file behind.
if command -v flock >/dev/null; then
  exec 9<"$dest"
  flock 9
fi
# Downloads and unpacking happen in a private folder inside DEST, so the final rename is
# atomic and an interrupted run leaves nothing that looks like a fetched matrix.
work=$(mktemp -d "$dest/.fetch.XXXXXX")
trap 'rm -rf -- "$work"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# ---- transport ----------------------------------------------------------------------------
unreachable() {
  die 4 "cannot reach $mirror ($1); no network? Fetch from a reachable copy of the" \
    "collection with --mirror URL|DIR (layout MM/GROUP/NAME.tar.gz, files/ssstats.csv)"
}

# get REL OUT: copies REL (a path under the mirror) to OUT. Returns 0, or 3 when the mirror
# has no such file; exits 4 when the mirror cannot be reached at all.
get() {
  local rel=$1 out=$2 code rc=0
  if [[ $mirror_kind == local ]]; then
    [[ -f $mirror_dir/$rel ]] || return 3
    cp -- "$mirror_dir/$rel" "$out" || die 4 "cannot copy $mirror_dir/$rel"
    return 0
  fi
  local url=$mirror_url/$rel
  if command -v curl >/dev/null; then
    # No --retry and a short connect timeout: offline, this fails in well under a second.
    # A stalled transfer (under 1 kB/s for a minute) is given up too.
    code=$(curl -sSL --connect-timeout "$timeout" --speed-limit 1024 --speed-time 60 \
      -o "$out" -w '%{http_code}' -- "$url" 2>"$work/err") || rc=$?
    if ((rc == 0)); then
      case $code in
        2??) return 0 ;;
        404 | 410) return 3 ;;
      esac
      unreachable "$url answered HTTP $code"
    fi
    unreachable "$(tail -n1 "$work/err")"
  fi
  wget -q --tries=1 --dns-timeout="$timeout" --connect-timeout="$timeout" --read-timeout=60 \
    -O "$out" -- "$url" 2>"$work/err" || rc=$?
  case $rc in
    0) return 0 ;;
    8) return 3 ;; # the server answered with an error: taken as "no such file"
    *) unreachable "wget exit $rc on $url" ;;
  esac
}

# ---- name resolution ----------------------------------------------------------------------
index=$dest/ssstats.csv
index_fresh=0

# index_ok FILE: the collection's ssstats.csv layout: a count, a date, then
# Group,Name,nrows,ncols,nnz,... rows (an HTML error page is refused).
index_ok() {
  awk -F, 'NR == 1 { ok = ($1 ~ /^[0-9]+\r?$/) } NR > 2 && NF >= 5 { rows++ }
           END { exit !(ok && rows > 0) }' "$1"
}

fetch_index() {
  local rc=0
  get files/ssstats.csv "$work/ssstats.csv" || rc=$?
  ((rc == 0)) || return 3
  index_ok "$work/ssstats.csv" || die 4 "$mirror/files/ssstats.csv is not the collection's index"
  mv -f -- "$work/ssstats.csv" "$index"
  index_fresh=1
}

# index_lookup NAME: every GROUP/NAME of the index with that name, one a line.
index_lookup() {
  awk -F, -v n="$1" '{ sub(/\r$/, ""); gsub(/"/, "") } NR > 2 && $2 == n { print $1 "/" $2 }' "$index"
}

# resolve NAME: sets resolved to GROUP/NAME; returns 3 for an unknown or ambiguous name.
# Runs in the main shell (not in $(...)), so that an unreachable mirror exits with 4.
resolved=
resolve() {
  local name=$1 hits
  hits=$(awk -F'\t' -v n="$name" '!/^#/ && split($2, p, "/") == 2 && p[2] == n { print $2 }' \
    "$HERE/MANIFEST")
  if [[ -z $hits ]]; then
    if [[ ! -s $index ]] && ! fetch_index; then
      warn "unknown matrix '$name': not bundled (datasets/MANIFEST), and $mirror has no" \
        "files/ssstats.csv to look it up in; name it as GROUP/NAME"
      return 3
    fi
    hits=$(index_lookup "$name")
    # The cached index may predate the matrix or come from another mirror: look once more
    # in a fresh one. In a subshell, so that being offline here means "unknown", not exit 4.
    if [[ -z $hits ]] && ((!index_fresh)); then
      index_fresh=1
      if (fetch_index) 2>/dev/null; then hits=$(index_lookup "$name"); fi
    fi
  fi
  if [[ -z $hits ]]; then
    warn "unknown matrix '$name': not in datasets/MANIFEST nor in the collection's index"
    return 3
  fi
  if (($(wc -l <<<"$hits") > 1)); then
    warn "ambiguous name '$name': one of ${hits//$'\n'/, }; name it as GROUP/NAME"
    return 3
  fi
  resolved=$hits
}

# ---- validation and the MANIFEST ----------------------------------------------------------
find_mmcheck() {
  local c
  for c in "${MM_BIN:+$MM_BIN/mmcheck}" "$(command -v mmcheck || true)" "$ROOT/build/bin/mmcheck"; do
    if [[ -n $c && -x $c ]]; then
      echo "$c"
      return 0
    fi
  done
  return 1
}
case ${MM_FETCH_MMCHECK:-} in
  "") mmcheck=$(find_mmcheck) || mmcheck= ;;
  none) mmcheck= ;;
  *)
    [[ -x $MM_FETCH_MMCHECK ]] || die 2 "MM_FETCH_MMCHECK=$MM_FETCH_MMCHECK is not executable"
    mmcheck=$MM_FETCH_MMCHECK
    ;;
esac

# header_ok FILE: the banner names a valid kind and a size line follows.
header_ok() {
  head -n1 -- "$1" | grep -Eiq '^%%MatrixMarket[ \t]+matrix[ \t]+(coordinate|array)[ \t]+(real|double|complex|integer|pattern)[ \t]+(general|symmetric|skew-symmetric|hermitian)[ \t]*\r?$' &&
    awk 'NR > 1 && !/^[ \t]*(%|\r?$)/ { ok = ($1 ~ /^[0-9]+$/ && $2 ~ /^[0-9]+\r?$/); exit }
         END { exit !ok }' "$1"
}

# check FILE NAME: validates an unpacked .mtx; prints how; returns 3 when it is invalid.
check() {
  local f=$1 name=$2 rc=0 line
  if [[ -n $mmcheck ]]; then
    "$mmcheck" validate "$f" >/dev/null 2>"$work/err" || rc=$?
    if ((rc == 0)); then
      echo "mmcheck validate"
      return 0
    fi
    if ((rc == 3)); then
      # Name the file as the user knows it, not by its temporary path.
      while IFS= read -r line; do warn "${line//"$f"/$name.mtx}"; done <"$work/err"
      return 3
    fi
    warn "mmcheck validate exit $rc on $name.mtx; checking the header only"
  fi
  if header_ok "$f"; then
    echo "header check"
    return 0
  fi
  warn "$name.mtx: not a Matrix Market file (bad banner or size line)"
  return 3
}

manifest=$dest/MANIFEST
manifest_head=$(printf '# file\tgroup/name\theader\trows\tcols\tnnz\tsha256\tlicence\ttar_sha256')

# manifest_put FILE ROW: replaces FILE's row (or adds it), rows sorted by file name.
manifest_put() {
  {
    echo "$manifest_head"
    {
      [[ -f $manifest ]] && awk -F'\t' -v f="$1" '!/^#/ && NF && $1 != f' "$manifest"
      printf '%s\n' "$2"
    } | LC_ALL=C sort -t $'\t' -k1,1
  } >"$work/MANIFEST"
  mv -f -- "$work/MANIFEST" "$manifest"
}

# ---- one matrix ---------------------------------------------------------------------------
valid_part() { [[ $1 =~ ^[A-Za-z0-9][A-Za-z0-9_.+-]*$ ]]; }

# fetch_one ARG: returns 0, 2 or 3 (4 exits at once: nothing else can be fetched either).
fetch_one() {
  local arg=$1 gn group name
  if [[ $arg == */* ]]; then gn=$arg; else
    valid_part "$arg" || {
      warn "'$arg' is not a matrix name"
      return 2
    }
    resolve "$arg" || return 3
    gn=$resolved
  fi
  group=${gn%%/*} name=${gn#*/}
  if ! valid_part "$group" || ! valid_part "$name"; then
    warn "'$arg' is not NAME or GROUP/NAME"
    return 2
  fi
  local mtx=$dest/$name.mtx row
  row=$([[ -f $manifest ]] && awk -F'\t' -v f="$name.mtx" '!/^#/ && $1 == f' "$manifest" || true)
  if [[ -n $row && -f $mtx ]] && ((!force)); then
    local had_gn had_sha
    had_gn=$(cut -f2 <<<"$row")
    had_sha=$(cut -f7 <<<"$row")
    if [[ $had_gn != "$gn" ]]; then
      warn "$mtx holds $had_gn, not $gn; fetch $gn with another --dest"
      return 3
    fi
    if [[ $(sha256sum <"$mtx" | cut -d' ' -f1) == "$had_sha" ]]; then
      say "$gn: up to date ($mtx)"
      return 0
    fi
    warn "$mtx does not match its MANIFEST checksum; fetching it again"
  fi

  local tb=$work/$name.tar.gz rc=0
  rm -rf -- "$work/x" "$tb"
  get "MM/$gn.tar.gz" "$tb" || rc=$?
  if ((rc)); then
    warn "$gn: no MM/$gn.tar.gz at $mirror (not in the collection, or a misspelt name)"
    return 3
  fi
  # The tarball holds NAME/NAME.mtx and maybe more (NAME_b.mtx, ...): list it first, so
  # that only known members are unpacked and a corrupt archive is caught before anything.
  if ! tar -tzf "$tb" >"$work/list" 2>"$work/err"; then
    warn "$gn: corrupt tarball from $mirror ($(tail -n1 "$work/err"))"
    return 3
  fi
  local main
  main=$(awk -v m="$name/$name.mtx" '$0 == m || $0 == "./" m { print; exit }' "$work/list")
  if [[ -z $main ]]; then
    warn "$gn: the tarball has no $name/$name.mtx"
    return 3
  fi
  mkdir "$work/x"
  if ! tar -xzf "$tb" -C "$work/x" --no-same-owner --no-same-permissions -- "$main" 2>"$work/err" ||
    [[ ! -f $work/x/$main || -L $work/x/$main ]]; then
    warn "$gn: cannot unpack $main ($(tail -n1 "$work/err"))"
    return 3
  fi
  local f=$work/x/$main how
  how=$(check "$f" "$name") || return 3

  local header size rows cols nnz
  header=$(head -n1 -- "$f" | cut -d' ' -f3- | tr -d '\r')
  size=$(awk '!/^[ \t]*(%|\r?$)/ { print $1, $2, $3; exit }' "$f" | tr -d '\r')
  read -r rows cols nnz <<<"$size"
  [[ -n ${nnz:-} ]] || nnz="(array)"
  row=$(printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\tCC-BY-4.0\t%s' "$name.mtx" "$gn" "$header" "$rows" \
    "$cols" "$nnz" "$(sha256sum <"$f" | cut -d' ' -f1)" "$(sha256sum <"$tb" | cut -d' ' -f1)")

  # The other files (right-hand sides, coordinates, node names) are for the user to ask for.
  local others=() o
  mapfile -t others < <(awk -v m="$main" -v d="${main%/*}/" \
    'index($0, d) == 1 && $0 != m && $0 !~ /\/$/' "$work/list")
  if ((${#others[@]})) && ((extras)); then
    tar -xzf "$tb" -C "$work/x" --no-same-owner --no-same-permissions -- "${others[@]}" 2>"$work/err" ||
      warn "$gn: cannot unpack the extra files ($(tail -n1 "$work/err"))"
    for o in "${others[@]}"; do
      if [[ -f $work/x/$o && ! -L $work/x/$o ]]; then mv -f -- "$work/x/$o" "$dest/${o##*/}"; fi
    done
  fi

  mv -f -- "$f" "$mtx" || die 4 "cannot write $mtx"
  manifest_put "$name.mtx" "$row"
  say "$gn -> $mtx ($rows x $cols, nnz $nnz, $how)"
  if ((${#others[@]})); then
    local list=("${others[@]##*/}")
    if ((extras)); then say "  extra files unpacked: ${list[*]}"; else
      say "  left out of the tarball: ${list[*]} (--extras unpacks them)"
    fi
  fi
  return 0
}

status=0
for n in "${names[@]}"; do
  rc=0
  fetch_one "$n" || rc=$?
  if ((rc > status)); then status=$rc; fi
done
exit "$status"
