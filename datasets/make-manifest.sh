#!/usr/bin/env bash
# Writes datasets/MANIFEST: one line per bundled matrix (tab-separated) with its
# collection group/name (from the file's own SuiteSparse header where it has one),
# banner, size line, sha256 and licence. Run after adding a file to datasets/corpus/.
set -euo pipefail
cd "$(dirname "$0")"
{
  printf "# file\tgroup/name\theader\trows\tcols\tnnz\tsha256\tlicence\n"
  for f in corpus/*.mtx; do
    name=$(grep -m1 -E '^%.*name: ' "$f" | sed 's/.*name: *//' || true)
    [[ -n $name ]] || name="SuiteSparse test file (no collection entry)"
    header=$(head -1 "$f" | cut -d' ' -f3- | tr -d '\r')
    size=$(awk '!/^[ \t]*(%|\r?$)/ {print $1, $2, $3; exit}' "$f")
    read -r rows cols nnz <<<"$size"
    [[ -n ${nnz:-} ]] || nnz="(array)"
    printf "%s\t%s\t%s\t%s\t%s\t%s\t%s\tCC-BY-4.0\n" "$(basename "$f")" "$name" "$header" "$rows" "$cols" "$nnz" \
      "$(sha256sum "$f" | cut -d' ' -f1)"
  done
} > MANIFEST
