# --tune and --profile through the real binaries: `--tune help`, unknown keys and bad values
# refused with exit 2 naming what is allowed, tools without keys, and the timing record's
# "tuning" (the values a run used; with a GPU, the CUDA marching sweep's warps and chunks, and
# cuda-blocked LU's keys and --profile in mmlu and mmsolve --method lu).
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
grep -Eq '^  warps=8\|16\|32 +default 8; tma: ' out && pass "--tune help lists warps=8|16|32, default 8" ||
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
expect_stderr "^mmjacobi: unknown --tune key 'nosuch' for mmjacobi; keys: warps, chunks, norm, ahead, stages, order, split, l2, launch, plan"
[[ ! -e never.mtx ]] && pass "an unknown key wrote nothing" || fail "an unknown key left never.mtx"
expect_exit 2 mmjacobi --poisson2d 8 --max-iter 3 --tune warps=9
expect_stderr '^mmjacobi: --tune warps=9: warps takes 8\|16\|32$'
expect_exit 2 mmjacobi --poisson2d 8 --max-iter 3 --tune chunks=-1
expect_stderr '^mmjacobi: --tune chunks=-1: chunks takes 0\.\.65535$'
expect_exit 2 mmjacobi --poisson2d 8 --max-iter 3 --tune chunks=many
expect_stderr 'chunks takes 0\.\.65535'
expect_exit 2 mmjacobi --poisson2d 8 --max-iter 3 --tune plan=best
expect_stderr '^mmjacobi: --tune plan=best: plan takes rule\|search$'
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
for tool in mmadd mmtranspose; do
  expect_exit 0 $tool --tune help
  grep -qx "$tool has no tuning keys." out && pass "$tool --tune help: no keys" || fail "$tool --tune help: $(cat out)"
  expect_exit 2 $tool --tune foo=1 nosuch.mtx
  expect_stderr "^$tool: unknown --tune key 'foo': $tool has no tuning keys$"
done

# mmmul: cpu-blocked's micro-kernel is a key (it was three implementations, blocked-avx512 etc.).
expect_exit 0 mmmul --tune help
grep -Eq '^  microkernel=auto\|portable\|avx2\|avx512 +default auto' out && pass "mmmul --tune help: microkernel" ||
  fail "mmmul --tune help: $(cat out)"
expect_exit 2 mmmul nosuch.mtx nosuch.mtx --tune microkernel=avx3
expect_stderr 'microkernel takes auto\|portable\|avx2\|avx512'
! mmmul --list-impls --all --mode gemm | grep -q '^blocked-' && pass "no blocked-* aliases listed" ||
  fail "blocked-* still listed"
mmgen dense --rows 40 --cols 30 --seed 5 -o G1.mtx
mmgen dense --rows 30 --cols 50 --seed 6 -o G2.mtx
expect_exit 0 mmmul G1.mtx G2.mtx --impl cpu-blocked --device cpu -o Gbest.mtx --timing t_g.jsonl
json_check t_g.jsonl "r['tuning']['microkernel'].split()[0] in ('avx512', 'avx2', 'portable')" \
  "cpu-blocked records the micro-kernel it ran"
expect_exit 0 mmmul G1.mtx G2.mtx --impl cpu-blocked --device cpu --tune microkernel=portable \
  -o Gport.mtx --timing t_gp.jsonl
json_check t_gp.jsonl "r['tuning'] == {'microkernel': 'portable 4x4'}" "microkernel=portable is recorded"
expect_exit 0 mmcheck compare Gport.mtx Gbest.mtx --rtol 1e-13
expect_exit 0 mmmul G1.mtx G2.mtx --impl openblas --device cpu --tune microkernel=portable -q \
  --timing t_go.jsonl
expect_stderr '^mmmul: warning: --tune microkernel=portable not used by openblas$'
json_check t_go.jsonl "r['tuning'] == {}" "openblas records no tuning"

# The benches' --variants: each variant's keys over --tune's, parsed and checked as --tune's.
expect_exit 2 jacobi_bench --device cuda --variants ';warps=9'
expect_stderr '^jacobi_bench: --tune warps=9: warps takes 8\|16\|32$'
expect_exit 2 jacobi_bench --device cuda --tune warps=16 --variants 'nosuch=1'
expect_stderr "^jacobi_bench: unknown --tune key 'nosuch' for jacobi_bench"
expect_exit 2 lu_bench --device cuda --variants 'nb=512;leaf=nosuch'
expect_stderr '^lu_bench: --tune leaf=nosuch: leaf takes cluster\|grid$'

# jacobi_bench on the CPU: the context line, then a JSON line a row as each is measured (ref,
# cpu with and without the change, cpu single), each against the copy measured in the run.
expect_exit 0 jacobi_bench --device cpu --sizes 18 --updates 1e4 --repeat 1 --jsonl jbc.jsonl
if "$PY" -c "
import json, sys
lines = [json.loads(l) for l in open('jbc.jsonl')]
ctx, rows = lines[0], lines[1:]
want = [('ref', 'double', True), ('cpu', 'double', True), ('cpu', 'double', False), ('cpu', 'single', True)]
ok = 'copy_gbps' in ctx and [(r['impl'], r['precision'], r['norm']) for r in rows] == want
ok = ok and all(r['n'] == 18 and r['mlups'] > 0 and r['of_copy'] > 0 and r['copy_gbps'] == ctx['copy_gbps'] for r in rows)
sys.exit(0 if ok else 1)"; then
  pass "jacobi_bench --device cpu: a JSON line a row"
else fail "jacobi_bench --device cpu: $(cat jbc.jsonl)"; fi

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
# mmspmv's keys are the GPU kernels' (cuda-vector-k, -adaptive, -merge): listed, checked, unused on the CPU.
expect_exit 0 mmspmv --tune help
grep -Eq '^  lanes=0\|1\|2\|4\|8\|16\|32 +default 0: from the mean row length$' out &&
  pass "mmspmv --tune help lists lanes" || fail "mmspmv --tune help: $(cat out)"
expect_exit 2 mmspmv A.mtx --x ones --tune lanes=3
expect_stderr 'lanes takes 0\|1\|2\|4\|8\|16\|32'
expect_exit 0 mmspmv A.mtx --x ones --device cpu --tune items=4 -q --timing t_spmv2.jsonl
expect_stderr '^mmspmv: warning: --tune items=4 not used by cpu-csr$'
json_check t_spmv2.jsonl "r['tuning'] == {} and r['impl'] == 'cpu-csr'" "the CPU default records no tuning"
if [[ $gpu ]]; then
  # The default on the GPU: a kernel chosen from the row statistics, named in the record.
  mmgen poisson2d --n 60 -o P.mtx
  expect_exit 0 mmspmv P.mtx --x ones --device cuda -q --timing t_spmv3.jsonl
  # Rows of 5: cuda-vector-k, or on a memory-rich GPU (the H200) cuda-csr-stream.
  json_check t_spmv3.jsonl "(r['impl'] == 'cuda-vector-k' and r['tuning'] == {'lanes': 2, 'l2': 'keep-x'}) or (r['impl'] == 'cuda-csr-stream' and r['tuning'] == {'l2': 'keep-x'})" \
    "even rows: cuda-vector-k with 2 lanes for rows of 5 or cuda-csr-stream, x kept"
  # Power-law rows (cv 2.6): cuSPARSE, which takes no keys.
  mmgen powerlaw --rows 3000 --cols 3000 --nnz-per-row 8 --alpha 1.5 --seed 2 -o L.mtx
  expect_exit 0 mmspmv L.mtx --x ones --device cuda --tune lanes=4 -q --timing t_spmv4.jsonl
  expect_stderr '^mmspmv: warning: --tune lanes=4 not used by cusparse$'
  json_check t_spmv4.jsonl "r['impl'] == 'cusparse' and r['tuning'] == {}" "power-law rows: cuSPARSE"
  expect_exit 0 mmspmv L.mtx --x ones --device cuda --impl cuda-adaptive --tune l2=stream -q --timing t_spmv6.jsonl
  json_check t_spmv6.jsonl "r['impl'] == 'cuda-adaptive' and r['tuning'] == {'l2': 'stream'}" \
    "cuda-adaptive records l2 as asked"
  expect_exit 0 mmspmv L.mtx --x ones --device cuda --impl cuda-merge --tune items=6 -q --timing t_spmv5.jsonl
  json_check t_spmv5.jsonl "r['impl'] == 'cuda-merge' and r['tuning'] == {'items': 6, 'l2': 'keep-x'}" \
    "cuda-merge records its items"
fi

if [[ $gpu ]]; then
  # N = 64 in double: one warp covers a row, so 16 warps take 16 rows of y; 62 planes in 3 chunks.
  expect_exit 0 mmjacobi --poisson3d 64 --max-iter 4 --device cuda --impl cuda-norm \
    --tune warps=16 --tune chunks=3 -q --timing t_gpu.jsonl
  # The way of loading (3D, one row a thread) is recorded as used too: in double by the copy
  # engine (tma) with its ring's stages, unless given.
  # So is the direction along z (the device's: up or alternate, or zigzag where memory is rich and
  # the chunks are short, as here: chunks of 21 planes or fewer).
  # And the L2 policy of its stages: normal for a grid of 2 MB, on every GPU.
  # And the launch: a run without a tolerance as one CUDA graph.
  json_check t_gpu.jsonl "{k: v for k, v in r['tuning'].items() if k != 'order'} == {'warps': 16, 'chunks': 3, 'ahead': 'tma', 'stages': 3, 'l2': 'normal', 'launch': 'graph'} and r['tuning']['order'] in ('up', 'alternate', 'zigzag')" \
    "the record carries warps=16 chunks=3, the loads by TMA with 3 stages, the order, the L2 policy and the launch"
  expect_exit 0 mmjacobi --poisson3d 64 --max-iter 4 --device cuda --impl cuda-norm --tune ahead=off -q \
    --timing t_gpu1.jsonl
  json_check t_gpu1.jsonl "r['tuning']['ahead'] == 'off'" "ahead=off given is recorded as used"
  expect_exit 0 mmjacobi --poisson3d 64 --max-iter 4 --device cuda --impl cuda-norm -q --timing t_gpu2.jsonl
  json_check t_gpu2.jsonl "r['tuning']['warps'] in (8, 16) and r['tuning']['chunks'] >= 1 and r['tuning']['ahead'] == 'tma' and r['tuning']['stages'] == 3 and (r['tuning']['order'] in ('up', 'alternate') or (r['tuning']['order'] == 'zigzag' and r['tuning']['chunks'] > 1)) and r['tuning']['l2'] == 'normal' and r['tuning']['launch'] == 'graph' and len(r['tuning']) == 7" \
    "the record carries the device's warps (N = 64: 16, or 8 where memory is rich), the chunks the wave-fill rule chose, tma and its stages, a graph"
  # Defaults match the same run with them given: same grid.
  chunks=$("$PY" -c "import json; print(json.loads(open('t_gpu2.jsonl').readline())['tuning']['chunks'])")
  ahead=$("$PY" -c "import json; print(json.loads(open('t_gpu2.jsonl').readline())['tuning']['ahead'])")
  warps=$("$PY" -c "import json; print(json.loads(open('t_gpu2.jsonl').readline())['tuning']['warps'])")
  mmjacobi --poisson3d 64 --max-iter 4 --device cuda --impl cuda-norm -o d.mtx 2>/dev/null
  mmjacobi --poisson3d 64 --max-iter 4 --device cuda --impl cuda-norm --tune warps="$warps" --tune chunks="$chunks" \
    --tune ahead="$ahead" -o e.mtx 2>/dev/null
  same_files d.mtx e.mtx
  # Either direction along z: the same grid, the order recorded as given.
  for order in up alternate; do
    expect_exit 0 mmjacobi --poisson3d 64 --max-iter 4 --device cuda --impl cuda-norm --tune order=$order \
      -o "o_$order.mtx" --timing "t_o_$order.jsonl"
    json_check "t_o_$order.jsonl" "r['tuning']['order'] == '$order'" "order=$order is recorded as used"
  done
  same_files o_up.mtx o_alternate.mtx
  # The stages' loads evicted last from L2: the same grid, the policy recorded as given.
  expect_exit 0 mmjacobi --poisson3d 64 --max-iter 4 --device cuda --impl cuda-norm --tune l2=last \
    -o l2_last.mtx --timing t_l2.jsonl
  json_check t_l2.jsonl "r['tuning']['l2'] == 'last'" "l2=last is recorded as used"
  same_files d.mtx l2_last.mtx
  # The sweeps launched one by one rather than as one graph: the same grid, recorded as given; a
  # run with a tolerance reads its change as it goes, so it takes the stream whatever is given.
  expect_exit 0 mmjacobi --poisson3d 64 --max-iter 4 --device cuda --impl cuda-norm --tune launch=stream \
    -o l_stream.mtx --timing t_ls.jsonl
  json_check t_ls.jsonl "r['tuning']['launch'] == 'stream'" "launch=stream is recorded as used"
  same_files d.mtx l_stream.mtx
  # The plan searched on the GPU at upload: the same grid, the record naming the search, the
  # plans it timed and the plan kept; plan=rule is the default's plan, recorded as given; the
  # other sweeps do not take the key (warned about).
  expect_exit 0 mmjacobi --poisson3d 64 --max-iter 4 --device cuda --impl cuda-norm --tune plan=search \
    -o p_search.mtx --timing t_ps.jsonl
  json_check t_ps.jsonl "r['tuning']['plan'] == 'search' and r['tuning']['plans_tried'] >= 2 and r['tuning']['search_s'] > 0 and 1 <= r['tuning']['chunks'] and r['tuning']['stages'] in (3, 4)" \
    "plan=search records the search, the plans timed and the plan kept"
  same_files d.mtx p_search.mtx
  expect_exit 0 mmjacobi --poisson3d 64 --max-iter 4 --device cuda --impl cuda-norm --tune plan=rule \
    -q --timing t_pr.jsonl
  json_check t_pr.jsonl "r['tuning']['plan'] == 'rule' and r['tuning']['chunks'] == $chunks and 'plans_tried' not in r['tuning']" \
    "plan=rule records the rule's plan"
  expect_exit 0 mmjacobi --poisson3d 64 --max-iter 4 --device cuda --impl cuda-norm-ry2 --tune plan=search \
    -q --timing t_pn.jsonl
  expect_stderr '^mmjacobi: warning: --tune plan=search not used by cuda-norm-ry2$'
  expect_exit 0 mmjacobi --poisson3d 24 --tol 5e-2 --device cuda --impl cuda-timetile --tune launch=graph \
    -q --timing t_lt.jsonl
  json_check t_lt.jsonl "r['tuning']['launch'] == 'stream' and r['converged']" "a run with a tolerance records launch stream"
  # The system A b on the GPU: its launch, its only key (the others warned about).
  expect_exit 0 mmjacobi A.mtx b.mtx --max-iter 5 --device cuda -o x_g.mtx --timing t_jsg.jsonl
  json_check t_jsg.jsonl "r['tuning'] == {'launch': 'graph'}" "a CUDA system record carries its launch"
  expect_exit 0 mmjacobi A.mtx b.mtx --max-iter 5 --device cuda --tune launch=stream --tune warps=16 \
    -o x_s.mtx --timing t_jss.jsonl
  expect_stderr '^mmjacobi: warning: --tune warps=16 not used by cuda$'
  json_check t_jss.jsonl "r['tuning'] == {'launch': 'stream'}" "launch=stream on the system is recorded as used"
  same_files x_g.mtx x_s.mtx
  # 2D: chunks only; warps is not used (warned about).
  expect_exit 0 mmjacobi --poisson2d 256 --max-iter 4 --device cuda --impl cuda-norm --tune warps=16 \
    --tune chunks=5 -q --timing t_gpu3.jsonl
  expect_stderr '^mmjacobi: warning: --tune warps=16 not used by cuda-norm$'
  json_check t_gpu3.jsonl "r['tuning'] == {'chunks': 5, 'launch': 'graph'}" "a 2D record carries the chunks and the launch only"
  expect_exit 0 mmjacobi --poisson3d 64 --max-iter 4 --device cuda --impl cuda-coalesced --tune chunks=3 \
    -q --timing t_gpu4.jsonl
  expect_stderr 'warning: --tune chunks=3 not used by cuda-coalesced'
  json_check t_gpu4.jsonl "r['tuning'] == {'launch': 'graph'}" "cuda-coalesced records its launch only"
  # jacobi_bench --variants: cuda-norm's rows under each variant in one run, one after the other,
  # each recording what it used (here --tune's chunks=3 under both, warps=16 over the second).
  expect_exit 0 jacobi_bench --device cuda --set plain --sizes 64 --updates 1e6 --repeat 1 \
    --tune chunks=3 --variants ';warps=16' --jsonl jb.jsonl
  if "$PY" -c "
import json, sys
rows = [r for r in map(json.loads, open('jb.jsonl')) if r.get('impl') == 'cuda-norm' and r['precision'] == 'double' and r['norm_every_sweep']]
t = [r['tuning'] for r in rows]
sys.exit(0 if len(t) == 2 and t[0]['chunks'] == t[1]['chunks'] == 3 and t[0]['warps'] == $warps and t[1]['warps'] == 16 else 1)"; then
    pass "jacobi_bench --variants: a row for each, with the variant's tuning"
  else fail "jacobi_bench --variants: $(cat jb.jsonl)"; fi
else
  echo "skip: the CUDA records' warps and chunks need a GPU (nvidia-smi finds none here)"
fi

# ---- LU: mmlu and mmsolve --method lu (cuda-blocked's keys) ------------------------------------
lu_keys="nb leaf cluster leaf_smem cluster_rows cluster_max_rows reg_rows exchange graph trsm pdl"
for tool in mmlu mmsolve; do
  expect_exit 0 $tool --tune help
  grep -q '^lu: cuda-blocked' out && pass "$tool --tune help names lu's cuda-blocked" ||
    fail "$tool --tune help: $(cat out)"
  for key in $lu_keys; do
    grep -Eq "^  $key=[^ ]+ +default " out && pass "$tool --tune help lists $key with its default" ||
      fail "$tool --tune help lacks $key: $(cat out)"
  done
done
expect_exit 0 mmlu --tune help
grep -Eq '^  nb=0\.\.2048 +default 0: 1024 from n = 24576, 512 from 12288, 256 from 8192, 128 from 2048, else 64$' out &&
  pass "--tune help: nb's default" || fail "--tune help: nb: $(cat out)"
grep -Eq '^  leaf=cluster\|grid +default cluster$' out && pass "--tune help: leaf=cluster|grid" ||
  fail "--tune help: leaf: $(cat out)"
grep -Eq '^  reg_rows=auto\|0\.\.1048576 +default auto: 1025$' out && pass "--tune help: reg_rows" ||
  fail "--tune help: reg_rows: $(cat out)"
grep -Eq '^  trsm=warp\|cublas\|inverse\|split +default warp$' out && pass "--tune help: trsm=warp|cublas|inverse|split" ||
  fail "--tune help: trsm: $(cat out)"
grep -Eq '^  pdl=off\|on +default on$' out && pass "--tune help: pdl=off|on" ||
  fail "--tune help: pdl: $(cat out)"
grep -Eq '^  exchange=push\|sync +default push  \[experimental\]$' out &&
  pass "--tune help marks the sync exchange experimental" || fail "--tune help: exchange: $(cat out)"
[[ $(grep -c '\[experimental\]' out) == 1 ]] && pass "one experimental LU key" ||
  fail "experimental keys: $(grep experimental out)"

mmgen dense --n 300 --lo -1 --hi 1 --seed 4 -o L.mtx
mmgen rhs L.mtx -o Lb.mtx
expect_exit 2 mmlu L.mtx --tune leaf=foo -o never.mtx
expect_stderr '^mmlu: --tune leaf=foo: leaf takes cluster\|grid$'
expect_exit 2 mmlu L.mtx --tune nosuch=1 -o never.mtx
expect_stderr "^mmlu: unknown --tune key 'nosuch' for mmlu; keys: nb, leaf, cluster, leaf_smem, cluster_rows, cluster_max_rows, reg_rows, exchange, graph, trsm, pdl"
expect_exit 2 mmlu nosuch.mtx --tune nb=3000
expect_stderr '^mmlu: --tune nb=3000: nb takes 0\.\.2048$'
expect_exit 2 mmlu L.mtx --tune cluster=3
expect_stderr '^mmlu: --tune cluster=3: cluster takes 1\|2\|4\|8\|16$'
expect_exit 2 mmsolve L.mtx Lb.mtx --method lu --tune reg_rows=-3 -o never.mtx
expect_stderr '^mmsolve: --tune reg_rows=-3: reg_rows takes auto\|0\.\.1048576$'
expect_exit 2 mmsolve L.mtx Lb.mtx --method lu --tune graph=yes
expect_stderr 'graph takes auto\|on\|off'
expect_exit 2 mmsolve L.mtx Lb.mtx --tune nosuch=1
expect_stderr "^mmsolve: unknown --tune key 'nosuch' for mmsolve; keys: nb, leaf,"
[[ ! -e never.mtx ]] && pass "refused LU keys wrote nothing" || fail "a refused LU key left never.mtx"

# On the CPU: the keys are not used (warned), the record says so with {}.
expect_exit 0 mmlu L.mtx --device cpu --impl cpu-blocked --tune leaf=grid -q --timing t_lu.jsonl
expect_stderr '^mmlu: warning: --tune leaf=grid not used by cpu-blocked$'
json_check t_lu.jsonl "r['tuning'] == {} and 'profile' not in r and r['impl'] == 'cpu-blocked'" \
  "a CPU LU record carries tuning {}"
expect_exit 0 mmlu L.mtx --device cpu -q --profile --timing t_lu2.jsonl
expect_stderr '^mmlu: warning: --profile: lapack has no profile$'
json_check t_lu2.jsonl "r['tuning'] == {} and 'profile' not in r" "a CPU LU record has no profile"
expect_exit 0 mmsolve L.mtx Lb.mtx --method lu --device cpu --impl lapack --tune reg_rows=0 -q \
  --timing t_sv.jsonl
expect_stderr '^mmsolve: warning: --tune reg_rows=0 not used by lu/lapack$'
json_check t_sv.jsonl "r['tuning'] == {} and r['impl'] == 'lu/lapack'" "a CPU solve record carries tuning {}"
expect_exit 2 mmlu L.mtx --profile=3
expect_stderr '^mmlu: --profile takes 1 or 2'

if [[ $gpu ]]; then
  all="{'nb', 'leaf', 'cluster', 'leaf_smem', 'cluster_rows', 'cluster_max_rows', 'reg_rows', 'exchange', 'graph', 'trsm', 'pdl'}"
  expect_exit 0 mmlu L.mtx --device cuda --impl cuda-blocked -o LUd.mtx --pivots pd.mtx --timing t_lg.jsonl
  json_check t_lg.jsonl "set(r['tuning']) == $all and r['tuning']['nb'] == 64 and r['tuning']['leaf'] == 'cluster'
    and r['tuning']['cluster'] in (1, 2, 4, 8, 16) and r['tuning']['leaf_smem'] > 0
    and r['tuning']['cluster_rows'] == 64 and r['tuning']['cluster_max_rows'] == 256
    and r['tuning']['reg_rows'] == 1025 and r['tuning']['exchange'] == 'push'
    and r['tuning']['graph'] == 'on' and r['tuning']['trsm'] == 'warp' and r['tuning']['pdl'] == 'on'
    and 'profile' not in r" \
    "the defaults record every LU key resolved"
  expect_exit 0 mmlu L.mtx --device cuda --impl cuda-blocked --tune leaf=grid -o LUg.mtx --pivots pg.mtx \
    --timing t_lg2.jsonl
  json_check t_lg2.jsonl "r['tuning'] == {'nb': 64, 'leaf': 'grid', 'graph': 'on', 'trsm': 'warp', 'pdl': 'on'}" \
    "leaf=grid is recorded"
  expect_exit 0 mmcheck lu L.mtx LUg.mtx pg.mtx
  # The defaults given explicitly: the same factors.
  expect_exit 0 mmlu L.mtx --device cuda --impl cuda-blocked --tune nb=64 --tune leaf=cluster \
    --tune reg_rows=1025 --tune graph=on --tune exchange=push --tune cluster_rows=64 -o LUe.mtx
  same_files LUd.mtx LUe.mtx
  expect_exit 0 mmlu L.mtx --device cuda --impl cuda-blocked --tune leaf=grid --tune cluster=4 -q
  expect_stderr '^mmlu: warning: --tune cluster=4 not used by cuda-blocked$'
  expect_exit 0 mmlu L.mtx --device cuda --impl cusolver --tune nb=128 -q --timing t_lc.jsonl
  expect_stderr '^mmlu: warning: --tune nb=128 not used by cusolver$'
  json_check t_lc.jsonl "r['tuning'] == {}" "cusolver records no tuning"
  expect_exit 0 mmsolve L.mtx Lb.mtx --method lu --device cuda --impl cuda-blocked --tune reg_rows=0 \
    -o x.mtx --timing t_sg.jsonl
  json_check t_sg.jsonl "r['tuning']['reg_rows'] == 0 and set(r['tuning']) == $all and r['impl'] == 'lu/cuda-blocked'" \
    "mmsolve --method lu records reg_rows=0"
  expect_exit 0 mmcheck residual L.mtx x.mtx Lb.mtx
  # --profile: to stderr and into the record; the graph off while profiling.
  expect_exit 0 mmlu L.mtx --device cuda --impl cuda-blocked --profile -q --timing t_lp.jsonl
  expect_stderr '^lu profile n=300 nb=64 runs=1, ms per run: leaf '
  json_check t_lp.jsonl "r['profile']['level'] == 1 and r['profile']['runs'] == 1
    and r['profile']['ms_per_run']['leaf'] > 0 and r['profile']['leaf_us_per_column'][0]['columns_per_run'] == 300
    and 'push_leaf_clock' not in r['profile'] and r['tuning']['graph'] == 'off'
    and r['tuning']['pdl'] == 'off'" "--profile is in the record"
  expect_exit 0 mmlu L.mtx --device cuda --impl cuda-blocked --profile=2 --repeat 2 -q --timing t_lp2.jsonl
  expect_stderr '^lu push leaf clock: '
  json_check t_lp2.jsonl "r['profile']['level'] == 2 and r['profile']['runs'] == 2
    and r['profile']['push_leaf_clock']['columns'] == 600" "--profile=2 records the push leaf's clock"
  expect_exit 0 mmlu L.mtx --device cuda --impl cuda-blocked --profile=2 --tune reg_rows=1 -q \
    --timing t_lp3.jsonl
  expect_stderr '^lu register leaf clock: [0-9]+ leaves, 300 columns, ns per column: load [0-9]+ columns [0-9]+ store [0-9]+$'
  json_check t_lp3.jsonl "r['profile']['register_leaf_clock']['columns'] == 300
    and r['profile']['register_leaf_clock']['ns_per_column']['columns'] > 0
    and 'push_leaf_clock' not in r['profile']" "--profile=2 records the register leaf's clock"
  expect_exit 0 mmsolve L.mtx Lb.mtx --method lu --device cuda --impl cuda-blocked --profile -q \
    --timing t_sp.jsonl
  expect_stderr '^lu profile n=300 '
  json_check t_sp.jsonl "r['profile']['runs'] == 1" "mmsolve --method lu --profile is in the record"
else
  echo "skip: cuda-blocked LU's recorded keys and --profile need a GPU (nvidia-smi finds none here)"
fi
finish
