#!/usr/bin/env bash
# The memory budget through the real binaries: inputs too large for the machine refused from
# their header (exit 4, "needs X, Y available (--max-memory to change)") in well under a second
# and without growing (each run under an address-space limit of a few hundred MB, so that an
# allocation would fail instead), --max-memory refusals on every tool, bad sizes, runs that fit.
source "$(dirname "$0")/common.bash"
cd "$TMP"
gpu=$(nvidia-smi -L >/dev/null 2>&1 && echo 1 || true)

# What a tool has mapped once it waits for its input (the FIFO 'probe'), in kB: its libraries
# (the CUDA ones are most of a GB) before it allocates anything of its own.
mkfifo probe
mapped() {  # CMD... reading probe
  local pid i vm
  OMP_NUM_THREADS=2 OPENBLAS_NUM_THREADS=1 "$@" >/dev/null 2>&1 &
  pid=$!
  for ((i = 0; i < 100; i++)); do
    [[ $(cat "/proc/$pid/wchan" 2>/dev/null) == wait_for_partner ]] && break
    sleep 0.05
  done
  vm=$(awk '/^VmSize/ {print $2}' "/proc/$pid/status" 2>/dev/null || true)
  timeout 5 bash -c ': >probe' || true # the reader sees an empty file and ends
  wait "$pid" || true
  echo "${vm:-0}"
}
declare -A base
base[mmspmv]=$(mapped mmspmv probe --x ones --device cpu)
base[mmtranspose]=$(mapped mmtranspose probe --device cpu)
base[mmlu]=$(mapped mmlu probe --device cpu)
base[mmjacobi]=$(mapped mmjacobi probe probe --max-iter 1 --device cpu)
base[mmcheck]=$(mapped mmcheck validate probe)
echo "mapped at start (kB): $(for t in "${!base[@]}"; do printf '%s %s  ' "$t" "${base[$t]}"; done)"
# Runs TOOL ARGS... under an address-space limit of 400 MB above what it maps at start: the
# budget (which counts the limit) is then about 400 MB on any machine, and a large allocation
# would fail rather than succeed.
limited() {
  (ulimit -v $((base[$1] + 400000)) && OMP_NUM_THREADS=2 OPENBLAS_NUM_THREADS=1 exec "$@")
}

# expect_refused TOOL BUDGET CMD...: exit 4 in the budget's form, fast, with nothing written.
# Fast: within 10 s, before any work the budget forbids (reading a 3e11-row file, a product):
# CUDA's start-up alone took 2.1 s once under the GPU suite's 12 parallel jobs.
expect_refused() {
  local tool=$1 budget=$2 t0 ms
  shift 2
  rm -f target.mtx
  t0=$(date +%s%N)
  expect_exit 4 "$@"
  ms=$((($(date +%s%N) - t0) / 1000000))
  expect_stderr "^$tool: needs [0-9.]+ (bytes|[kMG]B)( of device memory)?, $budget available \(--max-memory to change\)$"
  ((ms < 10000)) && pass "refused in $ms ms" || fail "$*: took $ms ms to refuse"
  [[ ! -e target.mtx ]] && pass "nothing written" || fail "$*: wrote target.mtx"
}

# ---- a valid file declaring 3e9 x 3e9 with 2 entries -----------------------------------------
printf '%%%%MatrixMarket matrix coordinate real general\n3000000000 3000000000 2\n1 1 1.5\n3000000000 3000000000 2\n' >huge.mtx
any='[0-9.]+ [kMG]B'
# spmv's y and x and a transpose's CSC pointers are dimension-sized: refused from the header.
expect_refused mmspmv "$any" limited mmspmv huge.mtx --x ones --device cpu -o target.mtx
expect_refused mmspmv "$any" limited mmspmv - --x ones --device cpu -o target.mtx <huge.mtx
expect_refused mmtranspose "$any" limited mmtranspose huge.mtx --device cpu -o target.mtx
# The default budget is what is available: far below what y alone needs (2.4 TB at 3e11 rows;
# 3e9 rows need 72 GB, which a large machine has: the GPU host of two H200s ran it).
printf '%%%%MatrixMarket matrix coordinate real general\n300000000000 300000000000 2\n1 1 1.5\n300000000000 300000000000 2\n' >huger.mtx
expect_exit 4 mmspmv huger.mtx --x ones --device cpu -v
expect_stderr '^mmspmv: needs [0-9.]+ GB, [0-9.]+ [kMG]B available \(--max-memory to change\): huger.mtx as read 48 bytes, .*huger.mtx as CSR [0-9.]+ GB, x [0-9.]+ GB, y 2400.0 GB'
# The plan raised above what the limit allows: the allocation fails all the same, reported in
# the same way (exit 4), never a crash.
if [[ $asan_built ]]; then
  echo "skip: an ASan build ends the process at a failed allocation: the plan raised above the limit is not run"
else
  expect_exit 4 limited mmspmv huge.mtx --x ones --device cpu --max-memory 1T -o target.mtx
  expect_stderr '^mmspmv: out of memory: an allocation failed \(the plan checked needs [0-9.]+ GB, 1099.5 GB available; --max-memory to change\)$'
fi
# Validation is in proportion to the entries: the same file is valid within the limit.
expect_exit 0 limited mmcheck validate huge.mtx
grep -q '^huge.mtx: valid (coordinate real general, 3000000000 x 3000000000, 2 stored entries' out &&
  pass "validate: the huge file is valid" || fail "validate: $(cat out)"

# A dense array header of 10^5 x 10^5 (80 GB a copy): LU refused from the header.
printf '%%%%MatrixMarket matrix array real general\n100000 100000\n1\n' >dense.mtx
expect_refused mmlu "$any" limited mmlu dense.mtx --device cpu -o target.mtx
# The heated room of 5000^3 points (1 TB a grid): refused before the grid is allocated.
expect_refused mmjacobi "$any" limited mmjacobi --poisson3d 5000 --max-iter 1 --device cpu -o target.mtx
expect_refused mmjacobi "$any" limited mmjacobi --poisson3d 5000 --max-iter 1 --device cpu -q

# ---- --max-memory on every tool, small inputs ---------------------------------------------------
mmgen poisson2d --n 30 -o A.mtx
mmgen rhs A.mtx --x random -o b.mtx
mmgen dense --n 40 --lo -1 --hi 1 -o D.mtx
mmgen spd --n 40 --format array -o S.mtx
mmgen vector --n 900 -o x.mtx
mmlu S.mtx -o LU.mtx --pivots piv.mtx
k1='1.0 kB'
expect_refused mmgen "$k1" mmgen sparse --n 1000 --max-memory 1K -o target.mtx
expect_refused mmgen "$k1" mmgen rhs A.mtx --max-memory 1K -o target.mtx
expect_refused mmadd "$k1" mmadd A.mtx A.mtx --max-memory 1K -o target.mtx
expect_refused mmadd "$k1" mmadd D.mtx D.mtx --max-memory 1K -o target.mtx
expect_refused mmmul "$k1" mmmul A.mtx A.mtx --max-memory 1K -o target.mtx
expect_refused mmmul "$k1" mmmul D.mtx D.mtx --max-memory 1K -o target.mtx
expect_refused mmtranspose "$k1" mmtranspose A.mtx --max-memory 1K -o target.mtx
expect_refused mmtranspose "$k1" mmtranspose D.mtx --max-memory 1K -o target.mtx
expect_refused mmspmv "$k1" mmspmv A.mtx x.mtx --max-memory 1K -o target.mtx
expect_refused mmlu "$k1" mmlu D.mtx --max-memory 1K -o target.mtx
expect_refused mmsolve "$k1" mmsolve A.mtx b.mtx --max-memory 1K -o target.mtx
expect_refused mmsolve "$k1" mmsolve A.mtx b.mtx --method cg --max-memory 1K -o target.mtx
expect_refused mmjacobi "$k1" mmjacobi A.mtx b.mtx --max-iter 1 --max-memory 1K -o target.mtx
expect_refused mmjacobi "$k1" mmjacobi --poisson2d 30 --max-iter 1 --max-memory 1K -o target.mtx
for cmd in "info A.mtx" "validate A.mtx" "compare A.mtx A.mtx" "residual A.mtx x.mtx b.mtx" \
  "lu S.mtx LU.mtx piv.mtx" "spy A.mtx"; do
  # shellcheck disable=SC2086
  expect_refused mmcheck "$k1" mmcheck $cmd --max-memory 1K -o target.mtx
done
# -v names the plan's items.
expect_exit 4 mmspmv A.mtx x.mtx --max-memory 1K -v
expect_stderr '^mmspmv: needs .* available \(--max-memory to change\): A.mtx as read [0-9.]+ kB, A.mtx read window [0-9.]+ kB, A.mtx as CSR [0-9.]+ kB, x [0-9.]+ kB, y [0-9.]+ kB'

# A bad size is a usage error (exit 2) naming the option, on every tool.
for size in 8X 0 -1G 1.5.5G 8GG 99999999999T; do
  expect_exit 2 mmspmv A.mtx x.mtx --max-memory="$size"
  expect_stderr "^mmspmv: --max-memory '$size': "
done
expect_exit 2 mmspmv A.mtx x.mtx --max-memory ""
expect_stderr "^mmspmv: --max-memory '': not a size"
for tool in mmgen mmadd mmmul mmtranspose mmlu mmsolve mmjacobi mmcheck; do
  expect_exit 2 "$tool" --max-memory 12Q
  expect_stderr "^$tool: --max-memory '12Q': unknown unit"
done

# ---- runs that fit the budget give what they give without one -----------------------------------
fits() {  # NAME CMD...: the output with --max-memory 64M equals the one without
  local name=$1
  shift
  expect_exit 0 "$@" -o "$name-free.mtx"
  expect_exit 0 "$@" --max-memory 64M -o "$name-64M.mtx"
  same_files "$name-free.mtx" "$name-64M.mtx"
}
fits gen mmgen sparse --n 1000 --seed 3
fits rhs mmgen rhs A.mtx
fits add mmadd A.mtx A.mtx
fits mul mmmul D.mtx D.mtx
fits transpose mmtranspose A.mtx
fits spmv mmspmv A.mtx x.mtx
fits lu mmlu D.mtx
fits solve mmsolve A.mtx b.mtx --method cg
fits jacobi mmjacobi A.mtx b.mtx --max-iter 5
fits room mmjacobi --poisson2d 30 --max-iter 5
fits info mmcheck info A.mtx
expect_exit 0 mmspmv A.mtx --x ones --max-memory 1.5G -q
expect_exit 0 mmcheck validate A.mtx --max-memory 1M

# ---- the device's budget (a GPU machine) ------------------------------------------------------
if [[ $gpu ]]; then
  # A 200^3 room: one grid of 64 MB on the host (-q: nothing to write), two on the GPU: over a
  # 100 MB budget on the device only.
  expect_refused mmjacobi '104.9 MB' mmjacobi --poisson3d 200 --max-iter 1 --device cuda -q --max-memory 100M
  expect_stderr 'needs 128.0 MB of device memory, 104.9 MB available'
  expect_exit 0 mmjacobi --poisson3d 200 --max-iter 1 --device cuda -q --max-memory 200M
  # The device plan of a product: refused before anything is sent to the GPU.
  expect_refused mmspmv "$k1" mmspmv A.mtx x.mtx --device cuda --max-memory 1K -o target.mtx
else
  expect_exit 4 mmspmv A.mtx x.mtx --device cuda --max-memory 64M -o target.mtx
  expect_stderr "no usable GPU"
fi

finish
