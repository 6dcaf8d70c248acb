# Every tool starts without opening cuBLAS or cuSOLVER: they are opened at their first call
# (mm::RuntimeLibrary, kernels/vendor/cuda_libraries.cu). Linked, cuBLAS's initialisers ran in
# every process, about 0.35 s of each run on the 2-core build machine. On a GPU, a run that
# calls them opens them and gives the same result as before.
source "$(dirname "$0")/common.bash"
gpu=$(nvidia-smi -L >/dev/null 2>&1 && echo 1 || true)

# LD_DEBUG=files names each library the dynamic linker opens, linked or dlopen'ed.
opened() { grep -Eo 'file=lib(cublas|cublasLt|cusolver)\.so[.0-9]*' "$TMP/ld" | sort -u | tr '\n' ' '; }
for t in mmgen mmadd mmmul mmtranspose mmspmv mmlu mmsolve mmjacobi mmcheck; do
  LD_DEBUG=files "$t" --help >/dev/null 2>"$TMP/ld" || fail "$t --help failed"
  [[ -z $(opened) ]] && pass "$t starts without cuBLAS or cuSOLVER" || fail "$t --help opened $(opened)"
done
# A CPU run of each tool that offers cuBLAS or cuSOLVER implementations, its result checked.
mmgen dense --n 40 --lo -1 --hi 1 --seed 3 -o "$TMP/A.mtx"
A="$TMP/A.mtx"
LD_DEBUG=files mmlu "$A" --device cpu -o "$TMP/lu.mtx" --pivots "$TMP/p.mtx" 2>"$TMP/ld"
[[ -z $(opened) ]] && pass "mmlu --device cpu: no cuBLAS or cuSOLVER" || fail "mmlu --device cpu opened $(opened)"
expect_exit 0 mmcheck lu "$A" "$TMP/lu.mtx" "$TMP/p.mtx"
LD_DEBUG=files mmmul "$A" "$A" --device cpu -o "$TMP/aa.mtx" 2>"$TMP/ld"
[[ -z $(opened) ]] && pass "mmmul --device cpu: no cuBLAS" || fail "mmmul --device cpu opened $(opened)"
mmmul "$A" "$A" --impl ref -o "$TMP/aa_ref.mtx"
expect_exit 0 mmcheck compare "$TMP/aa.mtx" "$TMP/aa_ref.mtx" --rtol 1e-12 --atol 1e-12

if [[ -z $cuda_built ]]; then
  echo "skip: built without CUDA (no cuBLAS to open)"
elif [[ -z $gpu ]]; then
  # --device cuda without a GPU: exit 4 before any library is opened
  LD_DEBUG=files mmlu "$A" --device cuda --impl cusolver -o "$TMP/lu_g.mtx" 2>"$TMP/ld" && st=0 || st=$?
  [[ $st == 4 && -z $(opened) ]] && pass "mmlu --device cuda, no GPU: exit 4, nothing opened" ||
    fail "mmlu --device cuda, no GPU: exit $st, opened $(opened)"
  echo "skip: no GPU here, so no run opens cuBLAS or cuSOLVER (the GPU machine runs that part)"
else
  LD_DEBUG=files mmlu "$A" --device cuda --impl cusolver -o "$TMP/lu_g.mtx" --pivots "$TMP/p_g.mtx" 2>"$TMP/ld"
  [[ $(opened) == *libcusolver.so* && $(opened) == *libcublas.so* ]] &&
    pass "mmlu --impl cusolver opens cuSOLVER and cuBLAS" || fail "mmlu --impl cusolver opened $(opened)"
  expect_exit 0 mmcheck lu "$A" "$TMP/lu_g.mtx" "$TMP/p_g.mtx"
  LD_DEBUG=files mmmul "$A" "$A" --device cuda --impl cublas -o "$TMP/aa_g.mtx" 2>"$TMP/ld"
  [[ $(opened) == *libcublas.so* ]] && pass "mmmul --impl cublas opens cuBLAS" || fail "mmmul --impl cublas opened $(opened)"
  expect_exit 0 mmcheck compare "$TMP/aa_g.mtx" "$TMP/aa_ref.mtx" --rtol 1e-12 --atol 1e-12
fi
finish
