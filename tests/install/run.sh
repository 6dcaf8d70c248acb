#!/usr/bin/env bash
# install.consumer: installs the built tree into a temporary prefix and checks what a user gets
# there: every tool and its man page (rendered), the headers, a find_package(mmtools) consumer
# built and run, and mmtools.pc (a second build of the consumer from pkg-config's flags).
# Needs the whole build (cmake --build BUILD); MM_BUILD is the build folder.
source "$(dirname "$0")/../cli/common.bash"
: "${MM_BUILD:?set by CTest}"
here=$(cd "$(dirname "$0")" && pwd)
P=$TMP/prefix
tools=(mmgen mmadd mmmul mmtranspose mmspmv mmlu mmsolve mmjacobi mmcheck)

# --- install ----------------------------------------------------------------------------------
if ! cmake --install "$MM_BUILD" --prefix "$P" >"$TMP/install.log" 2>&1; then
  fail "cmake --install: $(tail -n 5 "$TMP/install.log")"
  finish
fi
pass "cmake --install $MM_BUILD --prefix $P"
export PATH="$P/bin:$PATH"
version=$(sed -n 's/^CMAKE_PROJECT_VERSION:STATIC=//p' "$MM_BUILD/CMakeCache.txt")

# --- tools and man pages --------------------------------------------------------------------
with_man=1
grep -q '^HELP2MAN_EXECUTABLE:FILEPATH=.*NOTFOUND' "$MM_BUILD/CMakeCache.txt" && with_man=0
((with_man)) || echo "skip: the build found no help2man, so it has no man pages"
for t in "${tools[@]}"; do
  expect_exit 0 "$P/bin/$t" --version
  grep -qx "$t (mmtools) $version" "$TMP/out" && pass "$t --version" || fail "$t --version: $(cat "$TMP/out")"
  ((with_man)) || continue
  page=$P/share/man/man1/$t.1
  if grep -q '^\.SH EXAMPLES' "$page" && grep -q '^\.SH "EXIT STATUS"' "$page" &&
    grep -q "^$t \\\\- [[:alpha:]]" "$page"; then pass "$t.1: NAME, EXAMPLES, EXIT STATUS"; else
    fail "$t.1 missing or lacks NAME/EXAMPLES/EXIT STATUS"; fi
  # groff's warnings (-ww) name any markup help2man got wrong.
  expect_exit 0 groff -man -Tutf8 -ww -z "$page"
  [[ ! -s $TMP/err ]] && pass "$t.1 renders without warnings" || fail "$t.1: $(head -3 "$TMP/err")"
done
if ((with_man)); then
  if command -v man >/dev/null; then render=(man -l); else render=(groff -man -Tutf8); fi
  MANWIDTH=80 "${render[@]}" "$P/share/man/man1/mmspmv.1" >"$TMP/mmspmv.txt" 2>"$TMP/err" || true
  if grep -q 'mmspmv - sparse matrix-vector product' "$TMP/mmspmv.txt" &&
    grep -q '^EXIT STATUS' "$TMP/mmspmv.txt" && grep -q '\$ mmspmv A.mtx x.mtx -o y.mtx' "$TMP/mmspmv.txt"; then
    pass "${render[*]} mmspmv.1 renders"
  else fail "${render[*]} mmspmv.1: $(head -c 400 "$TMP/mmspmv.txt") $(head -c 200 "$TMP/err")"; fi
fi

# --- headers: the project's include layout, never a .cuh -------------------------------------
inc=$P/include/mmtools
for h in mm/matrix.hpp mm/mtx.hpp analysis/check.hpp kernels/spmv.hpp kernels/impl.hpp; do
  [[ -f $inc/$h ]] && pass "include/mmtools/$h" || fail "include/mmtools/$h missing"
done
[[ -z $(find "$P/include" -name '*.cuh') ]] && pass "no .cuh installed" || fail ".cuh installed"

# --- CMake package: a consumer built with find_package(mmtools) ------------------------------
corpus=$MM_ROOT/datasets/corpus
cxx=(); [[ -n ${MM_CXX:-} ]] && cxx=(-DCMAKE_CXX_COMPILER="$MM_CXX")
gen=(); command -v ninja >/dev/null && gen=(-G Ninja)
if cmake -S "$here/consumer" -B "$TMP/consumer" "${gen[@]}" "${cxx[@]}" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$P" >"$TMP/cfg.log" 2>&1 && cmake --build "$TMP/consumer" >"$TMP/build.log" 2>&1; then
  pass "consumer configured (find_package(mmtools)) and built"
else fail "consumer: $(tail -n 25 "$TMP/cfg.log" "$TMP/build.log")"; finish; fi
ls "$P"/lib*/cmake/mmtools/mmtoolsConfigVersion.cmake >/dev/null && pass "version file installed" ||
  fail "no mmtoolsConfigVersion.cmake"

# karate: symmetric pattern, 78 stored edges -> 156 entries of 1 once expanded.
[[ -f $P/include/mmtools/kernels/cuda/spmv_cuda.hpp ]] && backend=cuda || backend=cpu
expect_exit 0 "$TMP/consumer/consumer" "$corpus/karate.mtx"
grep -qx "$version $backend 34 34 156 156" "$TMP/out" && pass "consumer: karate A*1 sums to 156 ($backend)" ||
  fail "consumer on karate printed '$(cat "$TMP/out")', expected '$version $backend 34 34 156 156'"
# west0067 (real, unsymmetric): the library's sum against the installed mmspmv's.
expect_exit 0 "$TMP/consumer/consumer" "$corpus/west0067.mtx"
lib_sum=$(awk '{print $6}' "$TMP/out")
tool_sum=$(mmspmv "$corpus/west0067.mtx" --x ones --device cpu | awk '!/^%/ && n++ {s += $1} END {printf "%.17g", s}')
awk -v a="$lib_sum" -v b="$tool_sum" 'BEGIN {d = a - b; exit !(d * d <= 1e-24 * b * b && b != 0)}' &&
  pass "consumer sum $lib_sum == mmspmv's $tool_sum" || fail "consumer sum $lib_sum != mmspmv's $tool_sum"

# --- pkg-config -------------------------------------------------------------------------------
export PKG_CONFIG_PATH=$(dirname "$(find "$P" -name mmtools.pc)")
if pkg-config --cflags --libs mmtools >"$TMP/pc" 2>&1 && grep -q -- "-I.*include/mmtools " "$TMP/pc" &&
  grep -q -- "-lmmkernels -lmm" "$TMP/pc"; then pass "pkg-config --cflags --libs mmtools: $(cat "$TMP/pc")"; else
  fail "pkg-config mmtools: $(cat "$TMP/pc")"; fi
[[ $(pkg-config --modversion mmtools) == "$version" ]] && pass "pkg-config --modversion" ||
  fail "pkg-config --modversion: $(pkg-config --modversion mmtools)"
# The libraries are static: --static adds what they link.
read -ra flags <<<"$(pkg-config --static --cflags --libs mmtools)"
if "${MM_CXX:-c++}" -std=c++20 -O1 "$here/consumer/main.cpp" -o "$TMP/pc-consumer" "${flags[@]}" 2>"$TMP/err"; then
  expect_exit 0 "$TMP/pc-consumer" "$corpus/karate.mtx"
  grep -qx "$version $backend 34 34 156 156" "$TMP/out" && pass "pkg-config consumer runs" ||
    fail "pkg-config consumer printed '$(cat "$TMP/out")'"
else fail "c++ main.cpp \$(pkg-config --static --cflags --libs mmtools): $(head -c 800 "$TMP/err")"; fi

finish
