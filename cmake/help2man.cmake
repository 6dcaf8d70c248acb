# Writes one tool's man page from its --help and --version with help2man (run by install.cmake:
# cmake -DHELP2MAN=... -DTOOL=path/to/tool -DTOOLS=a,b,... -DOUT=page.1 -P help2man.cmake).
get_filename_component(name ${TOOL} NAME)

# The NAME line (whatis): what each tool does, in a few words.
set(summary_mmgen "generate Matrix Market matrices and vectors")
set(summary_mmadd "matrix sum C = alpha*A + beta*B of Matrix Market files")
set(summary_mmmul "matrix product C = alpha*A*B (GEMM, SpGEMM, SpMM)")
set(summary_mmtranspose "transpose or conjugate-transpose a Matrix Market matrix")
set(summary_mmspmv "sparse matrix-vector product y = alpha*A*x + beta*y0")
set(summary_mmlu "dense LU factorization with partial pivoting")
set(summary_mmsolve "solve A x = b by direct or iterative methods")
set(summary_mmjacobi "Jacobi iteration on a linear system or a heated-room grid")
set(summary_mmcheck "inspect, validate and compare Matrix Market files")
set(summary "${summary_${name}}")
if(NOT summary)
  set(summary "a tool of mmtools")
endif()

# SEE ALSO: the other tools.
string(REPLACE "," ";" tools "${TOOLS}")
list(REMOVE_ITEM tools ${name})
list(TRANSFORM tools APPEND " (1)")
list(JOIN tools ",\n.BR " see_also)
file(WRITE ${OUT}.h2m "[SEE ALSO]\n.BR ${see_also}\n")

set(ENV{LC_ALL} C)
execute_process(
  COMMAND ${HELP2MAN} --no-info --section=1 --name=${summary} --include=${OUT}.h2m
          --output=${OUT}.tmp ${TOOL}
  RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "help2man ${name}: ${err}")
endif()
file(READ ${OUT}.tmp page)
# Commands are neither justified nor hyphenated where they wrap; the rest of
# the page after them (exit status, see also) is lists, left-adjusted too.
string(REPLACE ".SH EXAMPLES\n" ".SH EXAMPLES\n.ad l\n.nh\n" page "${page}")
# --help ends with an "Exit status:" block, which help2man makes a subsection of EXAMPLES.
string(REPLACE ".SS \"Exit status:\"" ".SH \"EXIT STATUS\"" page "${page}")
file(WRITE ${OUT} "${page}")
file(REMOVE ${OUT}.tmp ${OUT}.h2m)
