# mmmul through the real binary: every mode and implementation against SciPy/NumPy
# (A@B written by scipy.io.mmwrite, compared with mmcheck compare), pipes and '-',
# the timing record's work formula, usage errors and refused inputs.
source "$(dirname "$0")/common.bash"
# CUDA implementations run where a GPU exists (the GPU machine), CPU ones everywhere.
gpu=$(nvidia-smi -L >/dev/null 2>&1 && echo 1 || true)

# ---- help, implementations, usage and device errors -----------------------------------------
expect_exit 0 mmmul --help
grep -q '^  \$ mmmul .* -o C.mtx' "$TMP/out" && pass "--help has examples" || fail "--help lacks examples"
grep -q 'flops = 2\*m\*n\*k' "$TMP/out" && pass "--help states the GEMM formula" || fail "--help lacks the formula"
expect_exit 0 mmmul --list-impls
for section in gemm spgemm spmm dsmm; do
  grep -q "^$section (" "$TMP/out" && pass "--list-impls has $section" || fail "--list-impls lacks $section"
done
for impl in cpu-blocked openblas ref cpu-spgemm; do
  grep -q "^$impl " "$TMP/out" && pass "--list-impls has $impl" || fail "--list-impls lacks $impl"
done
# Experimental variants: listed by --all only, marked, still selectable by name; names say what
# runs (cuda-tf32 is the single-precision TF32 kernel, cuda-dmma the FP64 one). Binaries built
# without CUDA list no CUDA implementation at all.
expect_exit 2 mmmul --all
expect_stderr "--all goes with --list-impls"
mmmul --list-impls >"$TMP/listed"
if grep -q '^cublas ' "$TMP/listed"; then
  expect_exit 0 mmmul --list-impls --mode gemm
  ! grep -q "experimental" "$TMP/out" && grep -q "^cuda-dmma " "$TMP/out" && grep -q "^cuda-wmma " "$TMP/out" &&
    ! grep -q "^cuda-dmma-bk16 \|^cuda-dmma-884 \|^cuda-tensor \|^cuda-tf32 " "$TMP/out" &&
    pass "--list-impls: cuda-dmma and cuda-wmma, no experimental ones" || fail "--list-impls: $(cat "$TMP/out")"
  expect_exit 0 mmmul --list-impls --all --mode gemm
  for impl in cuda-dmma-bk16 cuda-dmma-884 cublas-fp64-emulated; do
    grep -Eq "^$impl +cuda .*\[experimental\]$" "$TMP/out" && pass "--all marks $impl experimental" ||
      fail "--all: $impl not marked: $(cat "$TMP/out")"
  done
  [[ $(grep -c "\[experimental\]" "$TMP/out") == 3 ]] && pass "--all: three experimental GEMMs" ||
    fail "--all: $(grep "experimental" "$TMP/out")"
  # The names' column widens to the longest name listed: every device word in one column.
  [[ $(sed -E 's/^([^ ]+ +)cuda .*/\1/;t;d' "$TMP/out" | awk '{print length($0)}' | sort -u | wc -l) == 1 ]] &&
    pass "--all: the device words in one column" || fail "--all: columns: $(cat "$TMP/out")"
  expect_exit 0 mmmul --list-impls --precision single --mode gemm
  grep -Eq "^cuda-tf32 +cuda .*TF32" "$TMP/out" && grep -q "^cublas-tf32 " "$TMP/out" &&
    ! grep -q "^cuda-tensor \|^cuda-dmma\|^cuda-n128-tf32 \|^cuda-wmma-tf32 " "$TMP/out" &&
    pass "--precision single lists cuda-tf32 beside cublas-tf32" ||
    fail "--list-impls --precision single: $(cat "$TMP/out")"
  # cuda-tf32's 128x128 tile and the wmma kernel it replaced: kept for the comparison.
  expect_exit 0 mmmul --list-impls --all --precision single --mode gemm
  for impl in cuda-n128-tf32 cuda-wmma-tf32; do
    grep -Eq "^$impl +cuda .*\[experimental\]$" "$TMP/out" && pass "--all marks $impl experimental" ||
      fail "--all --precision single: $impl not marked: $(cat "$TMP/out")"
  done
  if [[ -z $gpu ]]; then
    expect_exit 4 mmmul "$CORPUS/west0067.mtx" "$CORPUS/west0067.mtx" --mode gemm --impl cuda-dmma-bk16 -q
    expect_stderr "cuda-dmma-bk16 needs a GPU"
  fi
  # The old name that meant two kernels is gone in both precisions, not quietly mapped.
  for p in single double; do
    expect_exit 2 mmmul "$CORPUS/west0067.mtx" "$CORPUS/west0067.mtx" --mode gemm --impl cuda-tensor --precision $p -q
    expect_stderr "unknown --impl 'cuda-tensor' for gemm"
  done
  expect_exit 2 mmmul "$CORPUS/west0067.mtx" "$CORPUS/west0067.mtx" --mode gemm --impl cuda-tf32 -q
  expect_stderr "unknown --impl 'cuda-tf32' for gemm; one of: .*cuda-dmma.*\(experimental: cuda-dmma-bk16, cuda-dmma-884, cublas-fp64-emulated\)"
else
  echo "skip: these binaries were built without CUDA (no CUDA implementation listed)"
fi
expect_exit 2 mmmul "$CORPUS/west0067.mtx"
expect_exit 2 mmmul "$CORPUS/west0067.mtx" "$CORPUS/west0067.mtx" "$CORPUS/west0067.mtx"
expect_exit 2 mmmul "$CORPUS/west0067.mtx" "$CORPUS/west0067.mtx" --mode bogus
expect_stderr "--mode must be"
expect_exit 2 mmmul "$CORPUS/west0067.mtx" "$CORPUS/west0067.mtx" --impl cpu-blocked
expect_stderr "unknown --impl 'cpu-blocked' for spgemm; one of: cpu-spgemm, ref"
expect_exit 2 mmmul - - <"$CORPUS/west0067.mtx"
if [[ -z $gpu ]]; then
  expect_exit 4 mmmul "$CORPUS/west0067.mtx" "$CORPUS/west0067.mtx" --device cuda -o "$TMP/cuda.mtx"
  [[ ! -e $TMP/cuda.mtx ]] && pass "--device cuda wrote nothing" || fail "--device cuda left an output"
  if [[ $cuda_built ]]; then
    expect_exit 4 mmmul "$CORPUS/west0067.mtx" "$CORPUS/west0067.mtx" --mode gemm --impl cuda-naive -o "$TMP/cuda.mtx"
    expect_stderr "needs a GPU"
  else  # built without CUDA: the name is not known at all
    expect_exit 2 mmmul "$CORPUS/west0067.mtx" "$CORPUS/west0067.mtx" --mode gemm --impl cuda-naive -o "$TMP/cuda.mtx"
    expect_stderr "unknown --impl 'cuda-naive'"
  fi
else  # an implementation of the other device than --device names is a usage error
  expect_exit 2 mmmul "$CORPUS/west0067.mtx" "$CORPUS/west0067.mtx" --device cuda --impl cpu-spgemm -o "$TMP/cuda.mtx"
  expect_stderr "runs on the cpu, not on --device cuda"
  [[ ! -e $TMP/cuda.mtx ]] && pass "the refused --impl wrote nothing" || fail "the refused --impl left an output"
fi

# ---- refused inputs: exit 3, nothing written, an existing target untouched -------------------
expect_exit 3 mmmul "$CORPUS/lp_afiro.mtx" "$CORPUS/lp_afiro.mtx" -o "$TMP/none.mtx"
expect_stderr 'inner dimensions differ: A \(.*lp_afiro\.mtx\) is 27x51, B \(.*lp_afiro\.mtx\) is 27x51'
[[ ! -e $TMP/none.mtx ]] && pass "mismatch wrote nothing" || fail "mismatch left an output"
echo "keep me" >"$TMP/target.mtx"
expect_exit 3 mmmul "$CORPUS/full.mtx" "$CORPUS/lp_afiro.mtx" -o "$TMP/target.mtx"
[[ $(cat "$TMP/target.mtx") == "keep me" ]] && pass "existing target untouched" || fail "target overwritten"
printf '%%%%MatrixMarket matrix coordinate real general\n2 2 1\n1 3 1\n' >"$TMP/bad.mtx"
expect_exit 3 mmmul "$TMP/bad.mtx" "$CORPUS/cage5.mtx" -o "$TMP/target.mtx"
expect_stderr 'bad\.mtx:3: column index 3 out of range'
expect_exit 3 mmmul "$CORPUS/cage5.mtx" "$TMP/bad.mtx" -o "$TMP/target.mtx"
[[ $(cat "$TMP/target.mtx") == "keep me" ]] && pass "target untouched after a malformed B" || fail "target overwritten"

# ---- inputs SciPy will multiply --------------------------------------------------------------
mmgen dense --rows 70 --cols 300 --lo -1 --hi 1 --seed 1 -o "$TMP/D1.mtx"
mmgen dense --rows 300 --cols 45 --lo -1 --hi 1 --seed 2 -o "$TMP/D2.mtx"
mmgen sparse --rows 45 --cols 300 --nnz-per-row 12 --lo -1 --hi 1 --seed 3 -o "$TMP/S1.mtx"
mmgen sparse --rows 300 --cols 80 --nnz-per-row 6 --lo -1 --hi 1 --seed 4 -o "$TMP/S2.mtx"
"$PY" - "$CORPUS" "$TMP" <<'EOF'
import sys, numpy as np, scipy.io as sio, scipy.sparse as sp
corpus, tmp = sys.argv[1], sys.argv[2]
def rd(p): return sio.mmread(p)
def csr(p): return sp.csr_matrix(rd(p))
def save(name, m): sio.mmwrite(f"{tmp}/{name}", m, precision=17)
afiro = csr(f"{corpus}/lp_afiro.mtx")
save("afiroT.mtx", afiro.T.tocoo())
for name in ["bcsstk13", "west0479", "young1c", "dwt_992"]:
    a = csr(f"{corpus}/{name}.mtx")
    save(f"sq_{name}.mtx", (a @ a).tocoo())
save("sq_afiro.mtx", (afiro.T @ afiro).tocoo())
d1, d2, s1, s2 = rd(f"{tmp}/D1.mtx"), rd(f"{tmp}/D2.mtx"), csr(f"{tmp}/S1.mtx"), csr(f"{tmp}/S2.mtx")
save("gemm.mtx", 2.5 * (d1 @ d2))
save("spmm.mtx", np.asarray(s1 @ d2))
save("dsmm.mtx", np.asarray(d1 @ s2.toarray()))
save("spgemm_rect.mtx", (s1 @ s2).tocoo())
EOF
[[ -s $TMP/sq_bcsstk13.mtx && -s $TMP/gemm.mtx ]] && pass "SciPy wrote the references" || fail "SciPy failed"

# ---- sparse x sparse against SciPy, every implementation ------------------------------------
for impl in cpu-spgemm ref; do
  for name in bcsstk13 west0479 young1c dwt_992; do
    expect_exit 0 mmmul "$CORPUS/$name.mtx" "$CORPUS/$name.mtx" --impl "$impl" -o "$TMP/C.mtx"
    expect_exit 0 mmcheck compare "$TMP/C.mtx" "$TMP/sq_$name.mtx" --rtol 1e-12 --atol 1e-3
  done
  expect_exit 0 mmmul "$TMP/afiroT.mtx" "$CORPUS/lp_afiro.mtx" --impl "$impl" -o "$TMP/C.mtx"
  expect_exit 0 mmcheck compare "$TMP/C.mtx" "$TMP/sq_afiro.mtx" --rtol 1e-13
  expect_exit 0 mmmul "$TMP/S1.mtx" "$TMP/S2.mtx" --impl "$impl" -o "$TMP/C.mtx"
  expect_exit 0 mmcheck compare "$TMP/C.mtx" "$TMP/spgemm_rect.mtx" --rtol 1e-12 --atol 1e-14
done
head -1 "$TMP/C.mtx" | grep -q 'coordinate real general' && pass "SpGEMM writes a coordinate file" ||
  fail "SpGEMM output: $(head -1 "$TMP/C.mtx")"
# bcsstk13's entries reach 1e10: the absolute tolerance above is 1e-3 against products of 1e20.
# Single precision, through pipes and '-' on either side.
cat "$CORPUS/west0479.mtx" | mmmul - "$CORPUS/west0479.mtx" --precision single | mmcheck compare - "$TMP/sq_west0479.mtx" --rtol 1e-5 --atol 1e-2 >/dev/null &&
  pass "single-precision SpGEMM through a pipe" || fail "single-precision SpGEMM through a pipe"
mmmul "$CORPUS/west0479.mtx" - <"$CORPUS/west0479.mtx" >"$TMP/C.mtx" && mmcheck compare "$TMP/C.mtx" "$TMP/sq_west0479.mtx" --rtol 1e-12 --atol 1e-9 >/dev/null &&
  pass "B from standard input" || fail "B from standard input"

# ---- the CUDA products against SciPy (where a GPU exists) -------------------------------------
if [[ -n $gpu ]]; then
  for impl in cusparse cuda-gustavson; do
    for name in bcsstk13 west0479 dwt_992; do
      # The GPU sums each entry in another order than SciPy: where bcsstk13's terms of 1e20
      # cancel, the difference is eps times the terms (about 1e4), not eps times the result.
      atol=1e-3
      [[ $name == bcsstk13 ]] && atol=1e6
      expect_exit 0 mmmul "$CORPUS/$name.mtx" "$CORPUS/$name.mtx" --impl "$impl" -o "$TMP/C.mtx"
      expect_exit 0 mmcheck compare "$TMP/C.mtx" "$TMP/sq_$name.mtx" --rtol 1e-12 --atol $atol
    done
    expect_exit 0 mmmul "$TMP/afiroT.mtx" "$CORPUS/lp_afiro.mtx" --impl "$impl" -o "$TMP/C.mtx"
    expect_exit 0 mmcheck compare "$TMP/C.mtx" "$TMP/sq_afiro.mtx" --rtol 1e-13
    expect_exit 0 mmmul "$TMP/S1.mtx" "$TMP/S2.mtx" --impl "$impl" -o "$TMP/C.mtx"
    expect_exit 0 mmcheck compare "$TMP/C.mtx" "$TMP/spgemm_rect.mtx" --rtol 1e-12 --atol 1e-14
    mmmul "$CORPUS/west0479.mtx" "$CORPUS/west0479.mtx" --impl "$impl" --precision single |
      mmcheck compare - "$TMP/sq_west0479.mtx" --rtol 1e-5 --atol 1e-2 >/dev/null &&
      pass "$impl: single-precision SpGEMM" || fail "$impl: single-precision SpGEMM"
  done
  # Complex values: cuSPARSE only (the hand-written kernel takes real ones, and is not listed).
  expect_exit 0 mmmul "$CORPUS/young1c.mtx" "$CORPUS/young1c.mtx" --impl cusparse -o "$TMP/C.mtx"
  expect_exit 0 mmcheck compare "$TMP/C.mtx" "$TMP/sq_young1c.mtx" --rtol 1e-12 --atol 1e-9
  expect_exit 2 mmmul "$CORPUS/young1c.mtx" "$CORPUS/young1c.mtx" --impl cuda-gustavson -o "$TMP/C.mtx"
  expect_stderr "unknown --impl 'cuda-gustavson' for spgemm"
  # --device alone picks the first CUDA SpGEMM, named in the record with the GPU.
  expect_exit 0 mmmul "$CORPUS/west0479.mtx" "$CORPUS/west0479.mtx" --device cuda -o "$TMP/C.mtx" --timing "$TMP/gpu_sp.jsonl"
  expect_exit 0 mmcheck compare "$TMP/C.mtx" "$TMP/sq_west0479.mtx" --rtol 1e-12 --atol 1e-9
  first=$(mmmul --list-impls --mode spgemm | awk '$2 == "cuda" {print $1; exit}')
  "$PY" -c "import json,sys; r=json.loads(open('$TMP/gpu_sp.jsonl').readline()); sys.exit(0 if r['impl']=='$first' and 'NVIDIA' in r['device'] and r['mode']=='spgemm' else 1)" &&
    pass "--device cuda SpGEMM: $first on the GPU" || fail "--device cuda SpGEMM record: $(cat "$TMP/gpu_sp.jsonl")"
  for impl in cusparse cuda-csr; do
    expect_exit 0 mmmul "$TMP/S1.mtx" "$TMP/D2.mtx" --impl "$impl" -o "$TMP/C.mtx"
    expect_exit 0 mmcheck compare "$TMP/C.mtx" "$TMP/spmm.mtx" --rtol 1e-12 --atol 1e-13
  done
  expect_exit 0 mmmul "$TMP/D1.mtx" "$TMP/S2.mtx" --impl cusparse -o "$TMP/C.mtx"
  expect_exit 0 mmcheck compare "$TMP/C.mtx" "$TMP/dsmm.mtx" --rtol 1e-12 --atol 1e-13
fi

# ---- dense x dense (every GEMM implementation), sparse x dense, dense x sparse ---------------
gemm_impls() {  # precision: the implementations listed for it that can run here
  mmmul --list-impls --all --mode gemm --precision "$1" | awk -v gpu="$gpu" 'NR > 1 && ($2 == "cpu" || gpu) {print $1}'
}
doubles=" $(gemm_impls double | tr '\n' ' ') " singles=" $(gemm_impls single | tr '\n' ' ') "
for impl in $(echo $doubles $singles | tr ' ' '\n' | awk '!seen[$0]++'); do
  if [[ $doubles == *" $impl "* ]]; then
    expect_exit 0 mmmul "$TMP/D1.mtx" "$TMP/D2.mtx" --alpha 2.5 --impl "$impl" -o "$TMP/C.mtx"
    expect_exit 0 mmcheck compare "$TMP/C.mtx" "$TMP/gemm.mtx" --rtol 1e-12 --atol 1e-12
  fi
  [[ $singles == *" $impl "* ]] || continue  # a double-only kernel (FP64 tensor cores)
  expect_exit 0 mmmul "$TMP/D1.mtx" "$TMP/D2.mtx" --alpha 2.5 --impl "$impl" --precision single -o "$TMP/C.mtx"
  # The *-tf32 ones round single-precision inputs to TF32 (u = 2^-11): with k = 300 and alpha 2.5
  # an element errs by about 0.8u*sqrt(300/9)*2.5 = 6e-3 (worst case 2u*300*2.5 = 0.73); the
  # unit tests check it exactly on inputs TF32 represents.
  if [[ $impl == *-tf32 ]]; then rtol=2e-2 atol=0.1; else rtol=1e-4 atol=1e-4; fi
  expect_exit 0 mmcheck compare "$TMP/C.mtx" "$TMP/gemm.mtx" --rtol "$rtol" --atol "$atol"
done
if [[ -n $gpu ]]; then  # the GPU by --device alone, named in the timing record with its phases
  expect_exit 0 mmmul "$TMP/D1.mtx" "$TMP/D2.mtx" --alpha 2.5 --device cuda -o "$TMP/C.mtx" --timing "$TMP/gpu.jsonl"
  expect_exit 0 mmcheck compare "$TMP/C.mtx" "$TMP/gemm.mtx" --rtol 1e-12 --atol 1e-12
  "$PY" -c "import json,sys; r=json.loads(open('$TMP/gpu.jsonl').readline()); sys.exit(0 if r['impl']=='cublas' and 'h2d' in r['phases'] and 'NVIDIA' in r['device'] else 1)" &&
    pass "--device cuda: cublas, h2d phase and the GPU named" || fail "--device cuda record: $(cat "$TMP/gpu.jsonl")"
  expect_exit 0 mmmul "$TMP/D1.mtx" "$TMP/D2.mtx" --alpha 2.5 --device auto --impl cuda-regblock --precision single -o "$TMP/C.mtx"
  expect_exit 0 mmcheck compare "$TMP/C.mtx" "$TMP/gemm.mtx" --rtol 1e-4 --atol 1e-4
fi
head -1 "$TMP/C.mtx" | grep -q 'array real general' && pass "GEMM writes an array file" || fail "GEMM output"
for impl in cpu ref; do
  expect_exit 0 mmmul "$TMP/S1.mtx" "$TMP/D2.mtx" --impl "$impl" -o "$TMP/C.mtx"
  expect_exit 0 mmcheck compare "$TMP/C.mtx" "$TMP/spmm.mtx" --rtol 1e-12 --atol 1e-13
  expect_exit 0 mmmul "$TMP/D1.mtx" "$TMP/S2.mtx" --impl "$impl" -o "$TMP/C.mtx"
  expect_exit 0 mmcheck compare "$TMP/C.mtx" "$TMP/dsmm.mtx" --rtol 1e-12 --atol 1e-13
done
# --mode converts: two coordinate files multiplied densely, two arrays sparsely.
mmgen dense --rows 45 --cols 300 --lo -1 --hi 1 --seed 9 | mmmul - "$TMP/D2.mtx" --mode spgemm -o "$TMP/C.mtx"
"$PY" -c "import scipy.io as s; s.mmwrite('$TMP/ref9.mtx', s.mmread('/dev/stdin') @ s.mmread('$TMP/D2.mtx'), precision=17)" \
  < <(mmgen dense --rows 45 --cols 300 --lo -1 --hi 1 --seed 9)
head -1 "$TMP/C.mtx" | grep -q coordinate && mmcheck compare "$TMP/C.mtx" "$TMP/ref9.mtx" --rtol 1e-12 --atol 1e-13 >/dev/null &&
  pass "--mode spgemm on arrays" || fail "--mode spgemm on arrays"
mmmul "$CORPUS/west0479.mtx" "$CORPUS/west0479.mtx" --mode gemm -o "$TMP/C.mtx"
head -1 "$TMP/C.mtx" | grep -q array && mmcheck compare "$TMP/C.mtx" "$TMP/sq_west0479.mtx" --rtol 1e-12 --atol 1e-9 >/dev/null &&
  pass "--mode gemm on coordinate files" || fail "--mode gemm on coordinate files"

# ---- the timing record: work by the stated formulas --------------------------------------------
expect_exit 0 mmmul "$TMP/D1.mtx" "$TMP/D2.mtx" -q --repeat 3 --warmup 1 --timing "$TMP/t.jsonl"
[[ ! -s $TMP/out ]] && pass "-q writes no matrix" || fail "-q wrote output"
expect_exit 0 mmmul "$CORPUS/west0479.mtx" "$CORPUS/west0479.mtx" -q --timing "$TMP/t.jsonl"
expect_exit 0 mmmul "$TMP/S1.mtx" "$TMP/D2.mtx" -q --timing "$TMP/t.jsonl"
expect_exit 0 mmmul "$TMP/D1.mtx" "$TMP/S2.mtx" -q --timing "$TMP/t.jsonl" --threads 1
while read -r verdict msg; do
  if [[ $verdict == PASS ]]; then pass "$msg"; else fail "$msg"; fi
done < <("$PY" - "$TMP" "$CORPUS" <<'EOF'
import json, sys, scipy.io as sio, scipy.sparse as sp
tmp, corpus = sys.argv[1], sys.argv[2]
recs = [json.loads(l) for l in open(f"{tmp}/t.jsonl")]
w = sp.csr_matrix(sio.mmread(f"{corpus}/west0479.mtx"))
s1, s2 = sp.csr_matrix(sio.mmread(f"{tmp}/S1.mtx")), sp.csr_matrix(sio.mmread(f"{tmp}/S2.mtx"))
w.sum_duplicates()
want = [("gemm", 2 * 70 * 45 * 300), ("spgemm", 2 * sum(w.indptr[k + 1] - w.indptr[k] for k in w.indices)),
        ("spmm", 2 * s1.nnz * 45), ("dsmm", 2 * 70 * s2.nnz)]
for r, (mode, flops) in zip(recs, want):
    ok = r["tool"] == "mmmul" and r.get("mode") == mode and abs(r["flops"] - flops) <= 1e-9 * flops
    print("PASS" if ok else "FAIL", f"{mode} record: flops {r.get('flops')} (formula {flops}), impl {r.get('impl')}")
print("PASS" if recs[0]["phases"]["compute"]["repeats"] == 3 else "FAIL", "gemm record has 3 repeats")
print("PASS" if len(recs) == 4 else "FAIL", f"{len(recs)} records")
EOF
)

finish
