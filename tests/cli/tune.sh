# --tune and --profile through the real binaries: `--tune help`, unknown keys and bad values
# refused with exit 2 naming what is allowed, tools without keys, and the timing record's
# "tuning" (the values a run used; with a GPU, the CUDA marching sweep's warps and chunks).
source "$(dirname "$0")/common.bash"
cd "$TMP"
gpu=$(nvidia-smi -L >/dev/null 2>&1 && echo 1 || true)

# json_check FILE EXPR MESSAGE: EXPR (Python, over r = the first record of FILE) is true.
json_check() {
  if "$PY" -c "
import json, sys; r = json.loads(open('$1').readline())
sys.exit(0 if ($2) else 1)"; then pass "$3"; else fail "$3: $(head -c 600 "$1")"; fi
}

# ---- --tune help -----------------------------------------------------------------------------
expect_exit 0 mmjacobi --tune help
grep -Eq '^  warps=8\|16 +default 8$' out && pass "--tune help lists warps=8|16, default 8" ||
  fail "--tune help lacks warps: $(cat out)"
grep -Eq '^  chunks=0\.\.65535 +default 0: the wave-fill rule$' out &&
  pass "--tune help lists chunks, default 0: the wave-fill rule" || fail "--tune help lacks chunks: $(cat out)"
grep -q '^jacobi stencil: ' out && pass "--tune help names the operation" || fail "no operation: $(cat out)"
[[ $(grep -c '^      [a-z]' out) -ge 2 ]] && pass "--tune help says what each key means" ||
  fail "--tune help lacks meanings: $(cat out)"
expect_exit 0 mmjacobi --help
grep -q -- '--tune KEY=VALUE' out && grep -q -- '--profile' out && pass "--help shows --tune and --profile" ||
  fail "--help lacks --tune or --profile"

# ---- refused keys and values -------------------------------------------------------------------
expect_exit 2 mmjacobi --poisson2d 8 --max-iter 3 --tune nosuch=1 -o never.mtx
expect_stderr "^mmjacobi: unknown --tune key 'nosuch' for mmjacobi; keys: warps, chunks"
[[ ! -e never.mtx ]] && pass "an unknown key wrote nothing" || fail "an unknown key left never.mtx"
expect_exit 2 mmjacobi --poisson2d 8 --max-iter 3 --tune warps=9
expect_stderr '^mmjacobi: --tune warps=9: warps takes 8\|16$'
expect_exit 2 mmjacobi --poisson2d 8 --max-iter 3 --tune chunks=-1
expect_stderr '^mmjacobi: --tune chunks=-1: chunks takes 0\.\.65535$'
expect_exit 2 mmjacobi --poisson2d 8 --max-iter 3 --tune chunks=many
expect_stderr 'chunks takes 0\.\.65535'
expect_exit 2 mmjacobi --poisson2d 8 --max-iter 3 --tune warps
expect_stderr "^mmjacobi: --tune takes KEY=VALUE \(or help\), not 'warps'$"
expect_exit 2 mmjacobi --poisson2d 8 --max-iter 3 --tune warps=8 --tune warps=16
expect_stderr '^mmjacobi: --tune warps given twice$'
# A bad value is refused for the system too, before anything is read.
expect_exit 2 mmjacobi nosuch.mtx nosuch_b.mtx --max-iter 3 --tune warps=12
expect_stderr 'warps takes 8\|16'
expect_exit 2 mmjacobi --poisson2d 8 --max-iter 3 --profile
expect_stderr '^mmjacobi: --profile: mmjacobi has nothing to profile$'

# Tools whose operations have no keys refuse every key, and say so under --tune help.
for tool in mmadd mmmul mmspmv mmtranspose; do
  expect_exit 0 $tool --tune help
  grep -qx "$tool has no tuning keys." out && pass "$tool --tune help: no keys" || fail "$tool --tune help: $(cat out)"
  expect_exit 2 $tool --tune foo=1 nosuch.mtx
  expect_stderr "^$tool: unknown --tune key 'foo': $tool has no tuning keys$"
done

# ---- the record ----------------------------------------------------------------------------------
mmjacobi --poisson3d 12 --max-iter 3 --device cpu -q --timing t_cpu.jsonl 2>/dev/null ||
  fail "mmjacobi --poisson3d on the CPU"
json_check t_cpu.jsonl "r['tuning'] == {} and r['impl'] == 'cpu-stencil'" "a CPU stencil record carries tuning {}"
# A key the chosen implementation does not use: run, warn, record what was used (nothing).
expect_exit 0 mmjacobi --poisson2d 16 --max-iter 3 --device cpu --tune chunks=4 -q --timing t_cpu2.jsonl
expect_stderr '^mmjacobi: warning: --tune chunks=4 not used by cpu-stencil$'
json_check t_cpu2.jsonl "r['tuning'] == {}" "an unused key is not recorded as used"
mmgen diagdom --n 50 --nnz-per-row 4 --seed 3 -o A.mtx
mmgen rhs A.mtx -o b.mtx
expect_exit 0 mmjacobi A.mtx b.mtx --max-iter 5 --device cpu -o x.mtx --timing t_sys.jsonl
json_check t_sys.jsonl "isinstance(r['tuning'], dict) and r['tuning'] == {}" "a system record carries tuning {}"
expect_exit 0 mmspmv A.mtx --x ones --device cpu -o y.mtx --timing t_spmv.jsonl
json_check t_spmv.jsonl "r['tuning'] == {} and 'profile' not in r" "an mmspmv record carries tuning {}"

if [[ $gpu ]]; then
  # N = 64 in double: one warp covers a row, so 16 warps take 16 rows of y; 62 planes in 3 chunks.
  expect_exit 0 mmjacobi --poisson3d 64 --max-iter 4 --device cuda --impl cuda-norm \
    --tune warps=16 --tune chunks=3 -q --timing t_gpu.jsonl
  json_check t_gpu.jsonl "r['tuning'] == {'warps': 16, 'chunks': 3}" "the record carries warps=16 chunks=3 as used"
  expect_exit 0 mmjacobi --poisson3d 64 --max-iter 4 --device cuda --impl cuda-norm -q --timing t_gpu2.jsonl
  json_check t_gpu2.jsonl "r['tuning']['warps'] == 8 and r['tuning']['chunks'] >= 1 and len(r['tuning']) == 2" \
    "the record carries the default warps and the chunks the wave-fill rule chose"
  # Defaults match the same run with them given: same grid.
  chunks=$("$PY" -c "import json; print(json.loads(open('t_gpu2.jsonl').readline())['tuning']['chunks'])")
  mmjacobi --poisson3d 64 --max-iter 4 --device cuda --impl cuda-norm -o d.mtx 2>/dev/null
  mmjacobi --poisson3d 64 --max-iter 4 --device cuda --impl cuda-norm --tune warps=8 --tune chunks="$chunks" \
    -o e.mtx 2>/dev/null
  same_files d.mtx e.mtx
  # 2D: chunks only; warps is not used (warned about).
  expect_exit 0 mmjacobi --poisson2d 256 --max-iter 4 --device cuda --impl cuda-norm --tune warps=16 \
    --tune chunks=5 -q --timing t_gpu3.jsonl
  expect_stderr '^mmjacobi: warning: --tune warps=16 not used by cuda-norm$'
  json_check t_gpu3.jsonl "r['tuning'] == {'chunks': 5}" "a 2D record carries the chunks only"
  expect_exit 0 mmjacobi --poisson3d 64 --max-iter 4 --device cuda --impl cuda-coalesced --tune chunks=3 \
    -q --timing t_gpu4.jsonl
  expect_stderr 'warning: --tune chunks=3 not used by cuda-coalesced'
  json_check t_gpu4.jsonl "r['tuning'] == {}" "cuda-coalesced records no tuning"
else
  echo "skip: the CUDA records' warps and chunks need a GPU (nvidia-smi finds none here)"
fi
finish
