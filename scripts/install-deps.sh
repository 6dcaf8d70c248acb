#!/usr/bin/env bash
# Installs the Debian packages that the build, the tests and the pipeline need.
# As root it installs what is missing; otherwise it prints the apt-get line and
# exits 1 when something is missing.
set -euo pipefail
pkgs=(cmake make g++ ninja-build pkg-config
      libboost-program-options-dev libgtest-dev libgmock-dev zlib1g-dev libpng-dev nlohmann-json3-dev
      libopenblas-dev liblapacke-dev libsuitesparse-dev
      gnuplot-nox python3 python3-numpy python3-scipy curl
      help2man groff-base   # the man pages: generated at build time, rendered by the install test
      libopenmpi-dev openmpi-bin  # the tools under mpirun (issue 15); -DMM_WITH_MPI=OFF builds without
      libmetis-dev)  # --partition metis under mpirun; -DMM_WITH_METIS=OFF builds without
# Optional extras: clang and its runtime for the libFuzzer target (MM_FUZZ=ON).
if [[ "${MM_FUZZ:-0}" == 1 ]]; then pkgs+=(clang libclang-rt-14-dev); fi

missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[[ ${#missing[@]} -eq 0 ]] && exit 0

line="apt-get install -y --no-install-recommends ${missing[*]}"
if [[ $(id -u) -ne 0 ]]; then
  echo "mmtools: missing Debian packages; as root run:" >&2
  echo "  apt-get update && $line" >&2
  exit 1
fi
echo "mmtools: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -q >/dev/null
apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null
