# mmjacobi through the real binaries: mmgen systems solved (mmcheck residual), NumPy's own
# Jacobi and heated-room iterations as the oracle, exit codes, bad input and output safety.
source "$(dirname "$0")/common.bash"
cd "$TMP"
# CUDA implementations run where a GPU exists (the GPU machine), CPU ones everywhere.
gpu=$(nvidia-smi -L >/dev/null 2>&1 && echo 1 || true)
sys_impls="cpu ref${gpu:+ cuda}"
room_impls="cpu-stencil ref-stencil${gpu:+ cuda-norm cuda-norm-ry2 cuda-norm-ry4 cuda-norm-col cuda-partials cuda-coalesced cuda-naive}"
auto_sys=$([[ $gpu ]] && echo cuda || echo cpu)  # what --device auto runs A b on
echo "implementations tested: $sys_impls $room_impls"

# ---- help, implementations, usage and device errors ----------------------------------------------
expect_exit 0 mmjacobi --help
grep -q '^  \$ mmjacobi --poisson3d' "$TMP/out" && grep -q '^  \$ mmjacobi A.mtx b.mtx' "$TMP/out" && pass "--help has examples" ||
  fail "--help lacks examples"
expect_exit 0 mmjacobi --list-impls
for impl in ref cpu ref-stencil cpu-stencil; do
  grep -Eq "^$impl +cpu " out && pass "--list-impls lists $impl" || fail "--list-impls lacks $impl: $(cat out)"
done
if [[ $gpu ]]; then
  for impl in cuda cuda-norm cuda-partials cuda-coalesced cuda-naive; do
    grep -Eq "^$impl +cuda " out && pass "--list-impls lists $impl" || fail "--list-impls lacks $impl: $(cat out)"
  done
fi
# The march's research shapes: experimental, listed by --all only (and run below by name).
if grep -q '^cuda ' out; then
  ! grep -Eq "^cuda-norm-(ry2|ry4|col) |experimental" out && pass "--list-impls: no experimental ones" ||
    fail "--list-impls shows experimental ones: $(cat out)"
  expect_exit 0 mmjacobi --list-impls --all
  for impl in cuda-norm-ry2 cuda-norm-ry4 cuda-norm-col; do
    grep -Eq "^$impl +cuda .*\[experimental\]$" out && pass "--all marks $impl experimental" ||
      fail "--all: $impl not marked: $(cat out)"
  done
  grep -Eq "^cuda-norm +cuda .*[^]]$" out && pass "--all: cuda-norm unmarked" || fail "--all: $(cat out)"
fi
mmgen diagdom --n 400 --nnz-per-row 8 --seed 3 -o A.mtx
mmgen rhs A.mtx --x random --seed 4 -o b.mtx --x-out xt.mtx
expect_exit 2 mmjacobi
expect_exit 2 mmjacobi A.mtx b.mtx
expect_stderr 'give --max-iter K and/or --tol T'
expect_exit 2 mmjacobi A.mtx --max-iter 3
expect_exit 2 mmjacobi A.mtx b.mtx --max-iter 0
expect_exit 2 mmjacobi A.mtx b.mtx --max-iter 3 --check-every 0
expect_exit 2 mmjacobi A.mtx b.mtx --tol -1
expect_exit 2 mmjacobi A.mtx b.mtx --max-iter 3 --impl cpu-stencil
expect_stderr 'needs --poisson2d or --poisson3d'
expect_exit 2 mmjacobi A.mtx b.mtx --max-iter 3 --impl bogus
expect_exit 2 mmjacobi --poisson3d 2 --max-iter 3
expect_exit 2 mmjacobi --poisson3d 8 --poisson2d 8 --max-iter 3
expect_exit 2 mmjacobi --poisson2d 8 A.mtx --max-iter 3
expect_exit 2 mmjacobi --poisson2d 8 --max-iter 3 --impl cpu
expect_exit 2 mmjacobi A.mtx b.mtx --max-iter 3 --impl cuda-norm
if [[ $cuda_built ]]; then expect_stderr 'needs --poisson2d or --poisson3d'; else
  expect_stderr "unknown --impl 'cuda-norm'"; fi
if [[ $gpu ]]; then
  # --device cuda picks the CUDA implementations and names the GPU.
  expect_exit 0 mmjacobi A.mtx b.mtx --max-iter 3 --device cuda -o cuda.mtx --timing tc.jsonl -v
  "$PY" -c "
import json; r = json.loads(open('tc.jsonl').readline())
raise SystemExit(0 if r['impl'] == 'cuda' and r['iterations'] == 3 else 1)" &&
    pass "--device cuda runs the system on cuda" || fail "--device cuda system: $(cat tc.jsonl)"
  expect_exit 0 mmjacobi --poisson2d 8 --max-iter 3 --device cuda
  expect_stderr '\(cuda-norm on .+, median of [0-9]+\)'
  # A room larger than the GPU (two 4000^3 grids of doubles, 1.024 TB): refused by the memory
  # plan before either side allocates its grids, exit 4 naming need and budget (the host's
  # grid, 512 GB, is over the host's budget first), and nothing written.
  for impl in cuda-norm cuda-naive; do
    expect_exit 4 mmjacobi --poisson3d 4000 --max-iter 1 --device cuda --impl $impl -o big.mtx
    expect_stderr '^mmjacobi: needs [0-9.]+ GB( of device memory)?, [0-9.]+ GB available \(--max-memory to change\)$'
    # The host budget raised, the device's free memory refuses it (a room without output).
    expect_exit 4 mmjacobi --poisson3d 4000 --max-iter 1 --device cuda --impl $impl -q --max-memory 1T
    expect_stderr '^mmjacobi: needs 1024.0 GB of device memory, [0-9.]+ GB available \(--max-memory to change\)$'
    [[ ! -e big.mtx ]] && pass "a room too large wrote nothing" || fail "a room too large left big.mtx"
  done
else
  expect_exit 4 mmjacobi A.mtx b.mtx --max-iter 3 --device cuda -o cuda.mtx
  [[ ! -e cuda.mtx ]] && pass "--device cuda wrote nothing" || fail "--device cuda left cuda.mtx"
  expect_exit 4 mmjacobi --poisson2d 8 --max-iter 3 --device cuda
fi

# ---- systems from mmgen converge to the solution -------------------------------------------------
for impl in $sys_impls; do
  expect_exit 0 mmjacobi A.mtx b.mtx --tol 1e-13 --impl "$impl" -o "x_$impl.mtx"
  expect_stderr '^mmjacobi: [0-9]+ iterations, \|\|x_k - x_\{k-1\}\|\|_2 = .* \(converged: <= tol 1e-13\)$'
  expect_exit 0 mmcheck residual A.mtx "x_$impl.mtx" b.mtx --tol 1e-13
  expect_exit 0 mmcheck compare "x_$impl.mtx" xt.mtx --rtol 1e-10 --atol 1e-12
  expect_exit 0 mmjacobi A.mtx b.mtx --tol 1e-5 --impl "$impl" --precision single -o "xs_$impl.mtx"
  expect_exit 0 mmcheck residual A.mtx "xs_$impl.mtx" b.mtx --tol 1e-6
done
expect_exit 0 mmcheck compare x_cpu.mtx x_ref.mtx --rtol 1e-12 --atol 1e-14
# Pipes and '-': b from mmgen on standard input, x to standard output, checked downstream.
mmgen rhs A.mtx --x random --seed 4 | mmjacobi A.mtx - --tol 1e-13 --check-every 5 2>err.txt |
  mmcheck residual A.mtx - b.mtx --tol 1e-13 >/dev/null && pass "b and x through pipes" || fail "pipe: $(cat err.txt)"
grep -Eq '^mmjacobi: [0-9]*[05] iterations' err.txt && pass "--check-every 5 stops at a multiple of 5" ||
  fail "--check-every 5: $(cat err.txt)"
cat A.mtx | mmjacobi - b.mtx --tol 1e-13 -o x_stdin.mtx 2>/dev/null || fail "A from standard input"
same_files x_stdin.mtx "x_$auto_sys.mtx"
# A dense (array, symmetric) system from mmgen spd, whose diagonal dominates.
mmgen spd --n 60 --format array --seed 9 -o S.mtx
mmgen rhs S.mtx --x ones -o bs.mtx
expect_exit 0 mmjacobi S.mtx bs.mtx --tol 1e-13 -o xsd.mtx
expect_exit 0 mmcheck residual S.mtx xsd.mtx bs.mtx --tol 1e-13

# ---- NumPy's own Jacobi after k iterations equals ours within 1e-12 ------------------------------
mmgen diagdom --n 40 --nnz-per-row 6 --seed 11 -o Asmall.mtx
mmgen rhs Asmall.mtx --x random --seed 12 -o bsmall.mtx
"$PY" - <<'EOF'
import numpy as np, scipy.io as sio
rng = np.random.default_rng(5)
n = 25
a = rng.uniform(-1, 1, (n, n)) * (rng.uniform(size=(n, n)) < 0.3) + 1j * rng.uniform(-1, 1, (n, n)) * (rng.uniform(size=(n, n)) < 0.3)
np.fill_diagonal(a, np.abs(a).sum(axis=1) + 1 + 0.5j)
sio.mmwrite("Acx.mtx", a)  # complex array file
sio.mmwrite("bcx.mtx", (rng.uniform(-1, 1, n) + 1j * rng.uniform(-1, 1, n)).reshape(n, 1))
EOF
for impl in $sys_impls; do
  for sys in small cx; do
    if [[ $sys == small ]]; then a=Asmall.mtx b=bsmall.mtx; else a=Acx.mtx b=bcx.mtx; fi
    expect_exit 0 mmjacobi "$a" "$b" --max-iter 17 --impl "$impl" -o "xk_${sys}_$impl.mtx"
    expect_stderr '17 iterations, .* \(fixed count\)'
    grep -Eo '= [^ ]+' err | head -1 | cut -c3- >"norm_${sys}_$impl.txt"
    if "$PY" - "$a" "$b" "xk_${sys}_$impl.mtx" "norm_${sys}_$impl.txt" <<'EOF'; then
import sys, numpy as np, scipy.io as sio
a = sio.mmread(sys.argv[1]); a = a.toarray() if hasattr(a, "toarray") else np.asarray(a)
b = np.asarray(sio.mmread(sys.argv[2])).ravel()
ours = np.asarray(sio.mmread(sys.argv[3])).ravel()
d = np.diag(a)
r = a - np.diag(d)
x = np.zeros_like(b)
for _ in range(17):
    x_old = x
    x = (b - r @ x_old) / d
err = np.max(np.abs(x - ours)) / max(1.0, np.max(np.abs(x)))
change = np.linalg.norm(x - x_old)
ours_change = float(open(sys.argv[4]).read())
print(f"numpy jacobi: max rel diff {err:.3g}, change {change:.6g} vs ours {ours_change:.6g}")
sys.exit(0 if err <= 1e-12 and abs(change - ours_change) <= 1e-5 * change else 1)
EOF
      pass "numpy Jacobi == mmjacobi $impl on $sys after 17 iterations"
    else fail "numpy Jacobi differs from mmjacobi $impl on $sys"; fi
  done
done

# ---- the heated room against NumPy's own loop ----------------------------------------------------
for impl in $room_impls; do
  expect_exit 0 mmjacobi --poisson2d 21 --max-iter 60 --impl "$impl" -o room2_$impl.mtx --timing t2.jsonl
  expect_stderr '^mmjacobi: poisson2d N=21: 60 iterations, .* MLUP/s'
  expect_exit 0 mmjacobi --poisson3d 13 --max-iter 40 --impl "$impl" -o room3_$impl.mtx --precision single
done
if "$PY" - $room_impls <<'EOF'; then
import sys, numpy as np, scipy.io as sio
def room(dim, n, iters, dtype, heat=200.0):
    h = 2.0 / (n - 1)
    x = -1 + np.arange(n) * h
    eps = 1e-9 * h
    inr = lambda c, lo, hi: (c >= lo - eps) & (c <= hi + eps)
    shape = (n,) * dim  # [z][y][x] (3D), [y][x] (2D)
    u = np.full(shape, 20.0, dtype)
    inner = (slice(1, -1),) * dim
    u[inner] = 0
    if dim == 2:
        u[0, :] = 0  # y = -1
        f = np.outer(inr(x, -1, -0.5), inr(x, -1, -3 / 8)) * heat
    else:
        u[:, 0, :] = 0
        f = inr(x, -2 / 3, 0)[:, None, None] * inr(x, -1, -0.5)[None, :, None] * inr(x, -1, -3 / 8)[None, None, :] * heat
    src = (h * h * f).astype(dtype)
    for _ in range(iters):
        s = np.zeros_like(u[inner])
        for ax in range(dim):
            for d in (-1, 1):
                sl = [slice(1, -1)] * dim
                sl[ax] = slice(1 + d, n - 1 + d)
                s = s + u[tuple(sl)]
        new = u.copy()
        new[inner] = (s + src[inner]) / (2 * dim)
        u = new
    return u
ok = True
for impl in sys.argv[1:]:
    u2 = np.asarray(sio.mmread(f"room2_{impl}.mtx"))
    w2 = room(2, 21, 60, np.float64)
    e2 = np.max(np.abs(u2 - w2))
    u3 = np.asarray(sio.mmread(f"room3_{impl}.mtx"))
    w3 = room(3, 13, 40, np.float32).reshape(13 * 13, 13)
    e3 = np.max(np.abs(u3 - w3))
    print(f"{impl}: 2D shape {u2.shape} max diff {e2:.3g}; 3D shape {u3.shape} max diff {e3:.3g}")
    ok &= u2.shape == (21, 21) and e2 <= 1e-12 and u3.shape == (169, 13) and e3 <= 1e-4
    # The radiator matters: without it the grids differ by more than a degree somewhere.
    ok &= np.max(w2 - room(2, 21, 60, np.float64, 0.0)) > 1 and np.max(w3.ravel() - room(3, 13, 40, np.float32, 0.0).ravel()) > 1
raise SystemExit(0 if ok else 1)
EOF
  pass "heated room 2D and 3D equal NumPy's loop"
else fail "heated room differs from NumPy's loop"; fi
for impl in $room_impls; do same_files "room2_$impl.mtx" room2_ref-stencil.mtx; done
"$PY" - $room_impls <<'EOF' && pass "timing records: iterations, mlups, flops, bytes" || fail "timing records: $(cat t2.jsonl)"
import json, sys
r = [json.loads(l) for l in open('t2.jsonl')]
ok = all(x['iterations'] == 60 and x['mlups'] > 0 and x['grid']['interior'] == 361 and
         abs(x['flops'] - 6 * 361 * 60) < 1e-6 and abs(x['bytes'] - 16 * 361 * 60) < 1e-6 for x in r)
ok &= [x['impl'] for x in r] == sys.argv[1:]
raise SystemExit(0 if ok else 1)
EOF
expect_exit 0 mmjacobi --poisson3d 16 --tol 1e-3 --check-every 10 -q
[[ ! -s out ]] && pass "-q writes nothing" || fail "-q wrote $(wc -c <out) bytes"
expect_stderr 'iterations, .*converged: <= tol 0.001'

# ---- --time-tile K: cuda-timetile, K sweeps a pass (the 3D room on the GPU) ---------------------
expect_exit 2 mmjacobi --poisson3d 16 --max-iter 8 --time-tile 0
expect_stderr '^mmjacobi: --time-tile must be 1\.\.4 in double precision$'
expect_exit 2 mmjacobi --poisson3d 16 --max-iter 8 --time-tile -3
expect_exit 2 mmjacobi --poisson3d 16 --max-iter 8 --time-tile 5
expect_exit 2 mmjacobi --poisson3d 16 --max-iter 8 --time-tile 9 --precision single
expect_stderr '^mmjacobi: --time-tile must be 1\.\.8 in single precision$'
expect_exit 2 mmjacobi --poisson3d 16 --max-iter 8 --time-tile two
expect_exit 2 mmjacobi --poisson3d 16 --max-iter 8 --time-tile 4 --check-every 6
expect_stderr '^mmjacobi: --check-every 6 is not a multiple of --time-tile 4: the change is computed at the end of a pass of K sweeps$'
expect_exit 2 mmjacobi --poisson2d 16 --max-iter 8 --time-tile 2
expect_stderr '^mmjacobi: --time-tile: the time-tiled sweep is 3D only \(--poisson3d N\)$'
expect_exit 2 mmjacobi A.mtx b.mtx --max-iter 8 --time-tile 2
expect_exit 2 mmjacobi --poisson3d 16 --max-iter 8 --time-tile 2 --impl cuda-norm
expect_stderr '^mmjacobi: --time-tile runs cuda-timetile, not --impl cuda-norm$'
# No CPU implementation: a usage error, whether the CPU was asked for or chosen for want of a GPU.
expect_exit 2 mmjacobi --poisson3d 16 --max-iter 8 --time-tile 2 --device cpu -o tt_cpu.mtx
expect_stderr '^mmjacobi: --time-tile runs on the GPU \(cuda-timetile\); the CPU sweeps are not time-tiled \(--device cpu chose the CPU\)$'
[[ ! -e tt_cpu.mtx ]] && pass "--time-tile on the CPU wrote nothing" || fail "--time-tile on the CPU left tt_cpu.mtx"
if [[ $gpu ]]; then
  expect_exit 0 mmjacobi --list-impls
  grep -Eq '^cuda-timetile +cuda .*[^]]$' out && pass "--list-impls lists cuda-timetile" ||
    fail "--list-impls: cuda-timetile: $(cat out)"
  # The grid bit for bit cuda-norm's for every K, 12 sweeps in passes of K (12: a multiple of
  # each); the record: K, the change every 12, the flops of 12 sweeps, the bytes of 12 / K passes.
  rm -f tt.jsonl
  for prec in double single; do
    expect_exit 0 mmjacobi --poisson3d 33 --max-iter 12 --check-every 12 --impl cuda-norm \
      --precision $prec -o tt_norm_$prec.mtx
    for k in 1 2 3 4 $([[ $prec == single ]] && echo 6); do
      expect_exit 0 mmjacobi --poisson3d 33 --max-iter 12 --check-every 12 --time-tile $k \
        --precision $prec -o tt_${k}_$prec.mtx --timing tt.jsonl
      expect_stderr "^mmjacobi: poisson3d N=33: 12 iterations, .* MLUP/s \(cuda-timetile, $k sweeps a pass on .+, median of 1\)$"
      same_files tt_${k}_$prec.mtx tt_norm_$prec.mtx
    done
  done
  if "$PY" - <<'EOF'; then
import json
r = [json.loads(l) for l in open('tt.jsonl')]
interior = 31 ** 3
ok = [x['time_tile'] for x in r] == [1, 2, 3, 4, 1, 2, 3, 4, 6]
for x in r:
    v = 8 if x['precision'] == 'double' else 4
    passes = -(-12 // x['time_tile'])
    ok &= x['impl'] == 'cuda-timetile' and x['iterations'] == 12 and x['check_every'] == 12
    ok &= abs(x['flops'] - 8 * interior * 12) < 1e-6 and abs(x['bytes'] - 2 * v * interior * passes) < 1e-6
    ok &= x['tuning'].get('norm') == 'fused' and x['tuning'].get('chunks', 0) >= 1
raise SystemExit(0 if ok else 1)
EOF
    pass "--time-tile records: K, check_every, flops, bytes"
  else fail "--time-tile records: $(cat tt.jsonl)"; fi
  # The change: by a plain last sweep, cuda-norm's bit for bit; fused, within rounding.
  expect_exit 0 mmjacobi --poisson3d 33 --max-iter 12 --check-every 4 --time-tile 4 --tune norm=plain \
    -q --timing tt_plain.jsonl
  expect_exit 0 mmjacobi --poisson3d 33 --max-iter 12 --check-every 4 --time-tile 4 -q --timing tt_fused.jsonl
  expect_exit 0 mmjacobi --poisson3d 33 --max-iter 12 --check-every 4 --impl cuda-norm -q --timing tt_cn.jsonl
  if "$PY" - <<'EOF'; then
import json
p, f, c = (json.loads(open(n).readline()) for n in ('tt_plain.jsonl', 'tt_fused.jsonl', 'tt_cn.jsonl'))
print(p['final_norm'], f['final_norm'], c['final_norm'], p['bytes'], f['bytes'])
ok = p['final_norm'] == c['final_norm'] and abs(f['final_norm'] - c['final_norm']) <= 1e-10 * c['final_norm']
ok &= p['tuning']['norm'] == 'plain' and f['tuning']['norm'] == 'fused'
ok &= p['bytes'] == 2 * f['bytes']  # 3 checked passes: 3 tiled sweeps and a plain one each
raise SystemExit(0 if ok else 1)
EOF
    pass "--time-tile norms: plain == cuda-norm's, fused within rounding"
  else fail "--time-tile norms: $(cat tt_plain.jsonl tt_fused.jsonl tt_cn.jsonl)"; fi
  # A tolerance: the change every K unless --check-every says otherwise; cuda-norm's stop with
  # that --check-every.
  expect_exit 0 mmjacobi --poisson3d 40 --tol 5e-2 --time-tile 3 -q --timing tt_tol.jsonl
  expect_stderr '^mmjacobi: poisson3d N=40: [0-9]*[0369] iterations, .*converged'
  expect_exit 0 mmjacobi --poisson3d 40 --tol 5e-2 --check-every 3 --impl cuda-norm -q --timing tt_tol_cn.jsonl
  if "$PY" - <<'EOF'; then
import json
t, c = (json.loads(open(n).readline()) for n in ('tt_tol.jsonl', 'tt_tol_cn.jsonl'))
raise SystemExit(0 if t['check_every'] == 3 and t['iterations'] == c['iterations'] and t['converged'] else 1)
EOF
    pass "--time-tile 3 --tol: cuda-norm's stop with --check-every 3"
  else fail "--tol: $(cat tt_tol.jsonl tt_tol_cn.jsonl)"; fi
  # --impl cuda-timetile alone: the precision's default K, named in the record.
  expect_exit 0 mmjacobi --poisson3d 20 --max-iter 24 --impl cuda-timetile -q --timing tt_def.jsonl
  grep -q '"time_tile":[1-4][,}]' tt_def.jsonl && pass "--impl cuda-timetile: a default K" || fail "no K: $(cat tt_def.jsonl)"
fi

# ---- not converged: exit 1, still written, marked ------------------------------------------------
expect_exit 1 mmjacobi A.mtx b.mtx --tol 1e-30 --max-iter 5 -o xnc.mtx
expect_stderr 'NOT converged: tol 1e-30 not reached in --max-iter 5'
grep -q '^% mmjacobi: NOT CONVERGED: 5 iterations' xnc.mtx && pass "unconverged x marked" || fail "no mark in xnc.mtx"
expect_exit 0 mmcheck info xnc.mtx
expect_exit 1 mmjacobi --poisson2d 30 --tol 1e-30 --max-iter 3 -o rnc.mtx
grep -q '^% mmjacobi: NOT CONVERGED' rnc.mtx && pass "unconverged grid marked" || fail "no mark in rnc.mtx"

# ---- zero diagonal (exit 5 naming the row), dominance warning, bad input --------------------------
echo keep >target.mtx
printf '%%%%MatrixMarket matrix coordinate real general\n3 3 4\n1 1 2\n2 1 1\n2 3 1\n3 3 5\n' >zd.mtx
printf '%%%%MatrixMarket matrix array real general\n3 1\n1\n2\n3\n' >b3.mtx
expect_exit 5 mmjacobi zd.mtx b3.mtx --max-iter 3 -o target.mtx
expect_stderr 'zd\.mtx: zero on the diagonal in row 2'
printf '%%%%MatrixMarket matrix coordinate real general\n3 3 4\n1 1 1\n1 2 3\n2 2 1\n3 3 1\n' >nd.mtx
expect_exit 0 mmjacobi nd.mtx b3.mtx --max-iter 3 -o nd_x.mtx
expect_stderr 'warning: nd\.mtx is not strictly diagonally dominant \(first at row 1\)'
expect_exit 3 mmjacobi "$CORPUS/lp_afiro.mtx" b3.mtx --max-iter 3 -o target.mtx
expect_stderr 'must be square, found 27 x 51'
expect_exit 3 mmjacobi A.mtx b3.mtx --max-iter 3 -o target.mtx
expect_stderr 'b must be a vector of length 400'
expect_exit 3 mmjacobi A.mtx A.mtx --max-iter 3 -o target.mtx
printf '%%%%MatrixMarket matrix coordinate real general\n3 3 2\n1 1 1\n4 1 2\n' >bad.mtx
expect_exit 3 mmjacobi bad.mtx b3.mtx --max-iter 3 -o target.mtx
expect_stderr 'bad\.mtx:4: row index 4 out of range'
expect_exit 3 mmjacobi A.mtx missing.mtx --max-iter 3 -o target.mtx
[[ $(cat target.mtx) == keep ]] && pass "existing target untouched" || fail "target.mtx changed"
expect_exit 5 mmjacobi zd.mtx b3.mtx --max-iter 3 -o fresh.mtx --impl ref --precision single --tol 1 --repeat 2
[[ ! -e fresh.mtx && -z $(ls -A | grep -E '^\.?fresh') ]] && pass "no output file, no temporary left" ||
  fail "a refused run left $(ls -A | grep fresh)"
finish
