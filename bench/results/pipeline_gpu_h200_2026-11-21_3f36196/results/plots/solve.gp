set logscale xy
set grid xtics ytics lc rgb '#d0d0d0'
set format y '%g'
set format x '%g'
set datafile missing 'NaN'
set xlabel 'unknowns n (log)'
set xrange [134.167:1.2e+06]
set title 'solve: median compute time per variant'
set ylabel 'median compute time (s, log)'
set yrange [5.96e-05:0.35045]
set terminal pngcairo size 1200,623 font 'Sans,11'
set output 'solve-time.png'
set key outside bottom center horizontal Left reverse box spacing 1.1 width 2 maxcols 3 maxrows 3
set bmargin 8.4
plot 'solve.dat' index 0 using 1:2 with points lw 2 ps 1.4 lc rgb '#1f77b4' pt 1 dt 1 title 'bicgstab-cuda (gpu)', \
  'solve.dat' index 1 using 1:2 with points lw 2 ps 1.4 lc rgb '#d62728' pt 2 dt 1 title 'cg-cuda (gpu)', \
  'solve.dat' index 2 using 1:2 with points lw 2 ps 1.4 lc rgb '#2ca02c' pt 4 dt 1 title 'gmres-cuda (gpu)', \
  'solve.dat' index 3 using 1:2 with points lw 2 ps 1.4 lc rgb '#ff7f0e' pt 6 dt 1 title 'lu-cuda-blocked (gpu)', \
  'solve.dat' index 4 using 1:2 with points lw 2 ps 1.4 lc rgb '#9467bd' pt 8 dt 1 title 'lu-cusolver (gpu)', \
  'solve.dat' index 5 using 1:2 with points lw 2 ps 1.4 lc rgb '#8c564b' pt 10 dt 2 title 'bicgstab-ref (cpu)', \
  'solve.dat' index 6 using 1:2 with points lw 2 ps 1.4 lc rgb '#e377c2' pt 12 dt 2 title 'cg-ref (cpu)', \
  'solve.dat' index 7 using 1:2 with points lw 2 ps 1.4 lc rgb '#17becf' pt 3 dt 2 title 'gmres-ref (cpu)', \
  'solve.dat' index 8 using 1:2 with points lw 2 ps 1.4 lc rgb '#7f7f7f' pt 5 dt 2 title 'lu-ref (cpu)'
set title 'solve: speedup over the serial CPU reference (same size)'
set ylabel 'speedup over ref (x, log)'
set yrange [0.0232237:136.84]
set terminal pngcairo size 1200,602 font 'Sans,11'
set output 'solve-speedup.png'
set key outside bottom center horizontal Left reverse box spacing 1.1 width 2 maxcols 3 maxrows 2
set bmargin 7.1
plot 'solve.dat' index 0 using 1:4 with points lw 2 ps 1.4 lc rgb '#1f77b4' pt 1 dt 1 title 'bicgstab-cuda (gpu)', \
  'solve.dat' index 1 using 1:4 with points lw 2 ps 1.4 lc rgb '#d62728' pt 2 dt 1 title 'cg-cuda (gpu)', \
  'solve.dat' index 2 using 1:4 with points lw 2 ps 1.4 lc rgb '#2ca02c' pt 4 dt 1 title 'gmres-cuda (gpu)', \
  'solve.dat' index 3 using 1:4 with points lw 2 ps 1.4 lc rgb '#ff7f0e' pt 6 dt 1 title 'lu-cuda-blocked (gpu)', \
  'solve.dat' index 4 using 1:4 with points lw 2 ps 1.4 lc rgb '#9467bd' pt 8 dt 1 title 'lu-cusolver (gpu)', \
  1 with lines lc rgb 'black' dt 3 lw 1.5 title 'ref = 1'
set title 'solve: achieved rate against the measured ceilings'
set ylabel 'GFLOP/s (dense LU) or GB/s (others), log'
set yrange [0.122605:87363.5]
set terminal pngcairo size 1200,707 font 'Sans,11'
set output 'solve-rate.png'
set key outside bottom center horizontal Left reverse box spacing 1.1 width 2 maxcols 2 maxrows 7
set bmargin 13.6
plot 'solve.dat' index 0 using 1:3 with points lw 2 ps 1.4 lc rgb '#1f77b4' pt 1 dt 1 title 'bicgstab-cuda (gpu, GB/s)', \
  'solve.dat' index 1 using 1:3 with points lw 2 ps 1.4 lc rgb '#d62728' pt 2 dt 1 title 'cg-cuda (gpu, GB/s)', \
  'solve.dat' index 2 using 1:3 with points lw 2 ps 1.4 lc rgb '#2ca02c' pt 4 dt 1 title 'gmres-cuda (gpu, GB/s)', \
  'solve.dat' index 3 using 1:3 with points lw 2 ps 1.4 lc rgb '#ff7f0e' pt 6 dt 1 title 'lu-cuda-blocked (gpu, GFLOP/s)', \
  'solve.dat' index 4 using 1:3 with points lw 2 ps 1.4 lc rgb '#9467bd' pt 8 dt 1 title 'lu-cusolver (gpu, GFLOP/s)', \
  'solve.dat' index 5 using 1:3 with points lw 2 ps 1.4 lc rgb '#8c564b' pt 10 dt 2 title 'bicgstab-ref (cpu, GB/s)', \
  'solve.dat' index 6 using 1:3 with points lw 2 ps 1.4 lc rgb '#e377c2' pt 12 dt 2 title 'cg-ref (cpu, GB/s)', \
  'solve.dat' index 7 using 1:3 with points lw 2 ps 1.4 lc rgb '#17becf' pt 3 dt 2 title 'gmres-ref (cpu, GB/s)', \
  'solve.dat' index 8 using 1:3 with points lw 2 ps 1.4 lc rgb '#7f7f7f' pt 5 dt 2 title 'lu-ref (cpu, GFLOP/s)', \
  153.36741327229922 with lines lw 3 dt 4 lc rgb '#808080' title 'measured copy bandwidth, cpu: 153.4 GB/s', \
  1339.75240664509 with lines lw 3 dt 5 lc rgb '#808080' title 'measured vendor GEMM, cpu: 1,340 GFLOP/s', \
  4139.967164007578 with lines lw 3 dt 4 lc rgb '#000000' title 'measured copy bandwidth, gpu: 4,140 GB/s', \
  64713.69758419315 with lines lw 3 dt 5 lc rgb '#000000' title 'measured vendor GEMM, gpu: 64,714 GFLOP/s'
