# scripts/gpu-sanitize.sh's logic, on any machine: a carried build of stand-in test programs (a
# gtest program's outline: two cases, PASSED or its own failure) under a stand-in sanitizer that
# runs them, or reports errors in one of them, or outlasts the timeout. What is checked: a line
# an entry in the entries' order whatever order they end in, the errors' first line and kernel,
# each case of a faulting entry run alone (not with SPLIT=0), a timeout or a budget not counted
# as a finding, a test's own failure counted, cases skipped counted, a program with no CUDA call
# not a finding, ENTRIES and TOOLS, the exit status, $OUT's files.
source "$(dirname "$0")/common.bash"
cd "$TMP"
script="$MM_ROOT/scripts/gpu-sanitize.sh"
mkdir -p carry/bin fake outdir
# The entries' test programs in the entries' order (a TOOL[,TOOL]: prefix dropped), from the
# script itself; each program once.
order=$(sed -n '/^entries=(/,/^)/p' "$script" | grep -oE '^  "([a-z,]+:)?test_[a-z_]+' |
  sed -E 's/^  "([a-z,]+:)?//')
mapfile -t programs < <(sort -u <<< "$order")
entries=$(wc -l <<< "$order")
((${#programs[@]} >= 10 && entries >= ${#programs[@]})) && pass "${#programs[@]} programs, $entries entries" ||
  fail "entries not read from the script: ${programs[*]}"
for p in "${programs[@]}"; do
  cat > "carry/bin/$p" << 'EOF'
#!/bin/bash
for a; do [[ $a == --gtest_list_tests ]] && { printf 'Fake.\n  One\n  Two\n'; exit 0; }; done
[[ ${FAKE_FAIL:-} == "${0##*/}" ]] && { echo "[  FAILED  ] 1 test"; exit 1; }
printf '[ RUN      ] Fake.One\n[       OK ] Fake.One (1 ms)\n[ RUN      ] Fake.Two\n'
[[ ${FAKE_SLOW:-} == "${0##*/}" ]] && sleep 30
if [[ ${FAKE_SKIP:-} == "${0##*/}" ]]; then  # gtest names each case skipped, then counts them
  printf '[  SKIPPED ] Fake.Two (0 ms)\n[  PASSED  ] 1 test.\n[  SKIPPED ] 1 test, listed below:\n'
  printf '[  SKIPPED ] Fake.Two\n'
  exit 0
fi
printf '[       OK ] Fake.Two (1 ms)\n'
echo "[  PASSED  ] 2 tests."
EOF
  chmod +x "carry/bin/$p"
done
# The sanitizer: --version, else its options skipped and the program run; FAKE_FAULT names the
# program it finds errors in, FAKE_NOCUDA one that makes no CUDA call (the sanitizer then ends it
# with its own error, exit 255, as compute-sanitizer 2025.3 does). FAKE_SLOW names the program
# whose second case outlasts the timeout, FAKE_SKIP the one whose second case is skipped.
cat > fake/sanitizer << 'EOF'
#!/bin/bash
[[ $1 == --version ]] && { echo "Version fake"; exit 0; }
while [[ $1 == --* ]]; do shift 2; done
sleep 0.$((RANDOM % 5))
prog=${1##*/}
"$@"
rc=$?
if [[ ${FAKE_FAULT:-} == "$prog" ]]; then
  echo "========= Invalid __global__ read of size 4 bytes"
  echo "=========     at void mm::fake_kernel<double>(int)+0x90"
  echo "========= ERROR SUMMARY: 3 errors"
  exit 97
fi
if [[ ${FAKE_NOCUDA:-} == "$prog" ]]; then
  echo "========= Error: Target application terminated before first instrumented API call"
  exit 255
fi
echo "========= ERROR SUMMARY: 0 errors"
exit $rc
EOF
printf '#!/bin/sh\necho "Fake GPU, 0.0"\n' > fake/nvidia-smi
chmod +x fake/sanitizer fake/nvidia-smi
export MM_CARRY=$TMP/carry MM_SANITIZE_OUT=$TMP/work SANITIZER=$TMP/fake/sanitizer PATH="$TMP/fake:$PATH"
# The device tool's machine sets OUT for what comes back: the stand-ins' summary is not for it.
unset OUT
summary=$TMP/work/summary_sanitize.txt
lines() { grep -cE "^$1 test_" "$summary" || true; }

# ---- every entry clean, three at once: the entries' order, exit 0, $OUT's files ---------------
expect_exit 0 env JOBS=3 OUT="$TMP/outdir" bash "$script"
[[ $(lines memcheck) == "$entries" ]] && pass "a line an entry" || fail "$(lines memcheck) lines: $(cat "$summary")"
got=$(grep -oE '^memcheck test_[a-z_]+' "$summary" | cut -d' ' -f2 || true)
[[ $got == "$order" ]] && pass "the summary in the entries' order" || fail "order: $got"
[[ $(grep -c ': clean (2 passed), [0-9]* s$' "$summary") == "$entries" ]] && pass "each clean, with what ran" ||
  fail "not all clean: $(cat "$summary")"
grep -qE "^overall sanitizer: clean \($entries entries, 3 at once, [0-9]+ s\)$" "$summary" &&
  pass "overall: clean, entries and jobs counted" || fail "overall: $(tail -1 "$summary")"
[[ -s outdir/summary_sanitize.txt && -s outdir/sanitize.tar.gz ]] && pass "summary and logs in \$OUT" ||
  fail "\$OUT: $(ls outdir)"
tar -tzf outdir/sanitize.tar.gz > logs
grep -q 'san_memcheck_test_gemm_[0-9]*\.log' logs && pass "a log an entry" || fail "logs: $(head logs)"

# ---- errors in one program: found, named, each case run alone; SPLIT=0 leaves them ------------
expect_exit 1 env FAKE_FAULT=test_gemm bash "$script"
grep -qE '^memcheck test_gemm \[[^]]*\]: 3 errors, first: Invalid __global__ read of size 4 bytes in mm::fake_kernel, [0-9]+ s$' \
  "$summary" && pass "the errors, the first and its kernel" || fail "errors: $(grep test_gemm "$summary")"
[[ $(grep -cE '^  Fake\.(One|Two): 3 errors' "$summary") == $(($(grep -c '^memcheck test_gemm' "$summary") * 2)) ]] &&
  pass "each case of the faulting entry run alone" || fail "cases: $(cat "$summary")"
grep -q '^overall sanitizer: FOUND' "$summary" && pass "overall: FOUND" || fail "overall: $(tail -1 "$summary")"
expect_exit 1 env FAKE_FAULT=test_gemm SPLIT=0 bash "$script"
grep -q '^  Fake' "$summary" && fail "SPLIT=0 split the cases" || pass "SPLIT=0: no case run alone"

# ---- a timeout is not a finding; a test's own failure is ----------------------------------------
expect_exit 0 env FAKE_SLOW=test_stencil TIMEOUT=2 ENTRIES=test_stencil bash "$script"
grep -qE '^memcheck test_stencil \[[^]]*\]: timed out \(not checked: 1 of 2 cases finished\), [0-9]+ s$' \
  "$summary" && pass "timed out, not checked, the cases finished first counted" ||
  fail "timeout: $(cat "$summary")"
expect_exit 1 env FAKE_FAIL=test_jacobi ENTRIES='test_jacobi$' bash "$script"
grep -qE '^memcheck test_jacobi \[[^]]*\]: test failed \(exit 1\)' "$summary" && pass "the test's own failure" ||
  fail "test failure: $(cat "$summary")"

# ---- cases skipped counted from gtest's totals; a program with no CUDA call is nothing found ---
expect_exit 0 env FAKE_SKIP=test_stencil ENTRIES=test_stencil bash "$script"
grep -qE '^memcheck test_stencil \[[^]]*\]: clean \(1 passed,1 skipped\), [0-9]+ s$' "$summary" &&
  pass "skipped cases counted once, not named" || fail "skipped: $(cat "$summary")"
expect_exit 0 env FAKE_NOCUDA=test_stencil ENTRIES=test_stencil bash "$script"
grep -qE '^memcheck test_stencil \[[^]]*\]: no CUDA call \(2 passed\), [0-9]+ s$' "$summary" &&
  grep -q '^overall sanitizer: clean' "$summary" && pass "no CUDA call: nothing to check, nothing found" ||
  fail "no CUDA call: $(cat "$summary")"
expect_exit 1 env FAKE_NOCUDA=test_stencil FAKE_FAIL=test_stencil ENTRIES=test_stencil bash "$script"
grep -qE '^memcheck test_stencil \[[^]]*\]: test failed \(exit 255\)' "$summary" &&
  pass "no CUDA call but a case failed: the test's failure" || fail "no CUDA call, failed: $(cat "$summary")"

# ---- ENTRIES, TOOLS, BUDGET ---------------------------------------------------------------------
expect_exit 0 env ENTRIES=test_add bash "$script"
[[ $(lines memcheck) == $(grep -c '^test_add$' <<< "$order") && $(grep -c test_add "$summary") == $(lines memcheck) ]] &&
  pass "ENTRIES picks test_add's entries" || fail "ENTRIES: $(cat "$summary")"
expect_exit 0 env TOOLS="memcheck racecheck" ENTRIES='test_jacobi$|test_spgemm' bash "$script"
[[ $(lines memcheck) == 2 && $(lines racecheck) == 2 ]] && pass "an entry a tool" || fail "TOOLS: $(cat "$summary")"
# An entry's TOOL[,TOOL]: prefix keeps it to those tools.
memcheck_only=$(sed -n '/^entries=(/,/^)/p' "$script" | grep -c '^  "memcheck:' || true)
expect_exit 0 env TOOLS="memcheck racecheck" bash "$script"
((memcheck_only > 0)) && [[ $(lines memcheck) == "$entries" && $(lines racecheck) == $((entries - memcheck_only)) ]] &&
  pass "memcheck: entries ($memcheck_only) not run under racecheck" || fail "tool prefix: $(cat "$summary")"
# Each entry under every tool before the next: the first entry's racecheck line comes before the
# second entry's memcheck line, and the last racecheck line before the first memcheck-only entry.
first=$(head -1 <<< "$order")
tools_order=$(grep -E '^(memcheck|racecheck) test_' "$summary" | head -3 | cut -d' ' -f1,2 | paste -sd' ')
[[ $tools_order == "memcheck $first racecheck $first memcheck "* ]] &&
  pass "an entry under each tool before the next" || fail "tools' order: $tools_order"
last_race=$(grep -nE '^racecheck test_' "$summary" | tail -1 | cut -d: -f1)
memcheck_first=$(grep -nE '^memcheck test_' "$summary" | sed -n "$((entries - memcheck_only + 1))p" | cut -d: -f1)
((last_race < memcheck_first)) && pass "the memcheck-only entries last" ||
  fail "racecheck line $last_race after memcheck-only line $memcheck_first"
expect_exit 0 env BUDGET=0 bash "$script"
[[ $(grep -c ': not run (budget of 0 s spent)$' "$summary") == "$entries" ]] && pass "nothing started past the budget" ||
  fail "budget: $(cat "$summary")"
finish
