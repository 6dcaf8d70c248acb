#!/usr/bin/env bash
# Installs missing dependencies, configures and builds mmtools into ${BUILD_DIR:-build}.
# Extra arguments go to CMake's configure step (for example -DMM_WITH_CUDA=OFF).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build}
"$root/scripts/install-deps.sh"
# nvcc is not always on PATH; CMake finds it through CUDACXX.
if [[ -z "${CUDACXX:-}" && -x /usr/local/cuda/bin/nvcc ]] && ! command -v nvcc >/dev/null; then
  export CUDACXX=/usr/local/cuda/bin/nvcc
fi
gen=()
[[ -f "$build/CMakeCache.txt" ]] || { command -v ninja >/dev/null && gen=(-G Ninja); }
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE="${BUILD_TYPE:-Release}" "${gen[@]}" "$@" >/dev/null
cmake --build "$build" -j "$(nproc)"
