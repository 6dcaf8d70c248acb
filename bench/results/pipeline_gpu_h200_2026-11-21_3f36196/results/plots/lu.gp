set logscale xy
set grid xtics ytics lc rgb '#d0d0d0'
set format y '%g'
set format x '%g'
set datafile missing 'NaN'
set xlabel 'matrix side n (log)'
set xrange [106.667:19660.8]
set xtics (128, 256, 512, 1024, 2048, 4096, 8192, 16384)
set title 'lu: median compute time per variant'
set ylabel 'median compute time (s, log)'
set yrange [0.000141223:1.49651]
set terminal pngcairo size 1200,602 font 'Sans,11'
set output 'lu-time.png'
set key outside bottom center horizontal Left reverse box spacing 1.1 width 2 maxcols 3 maxrows 2
set bmargin 7.1
plot 'lu.dat' index 0 using 1:2 with linespoints lw 2 ps 1.4 lc rgb '#1f77b4' pt 1 dt 1 title 'cuda-blocked (gpu)', \
  'lu.dat' index 1 using 1:2 with linespoints lw 2 ps 1.4 lc rgb '#d62728' pt 2 dt 1 title 'cuda-hybrid (gpu)', \
  'lu.dat' index 2 using 1:2 with linespoints lw 2 ps 1.4 lc rgb '#2ca02c' pt 4 dt 1 title 'cusolver (gpu)', \
  'lu.dat' index 3 using 1:2 with linespoints lw 2 ps 1.4 lc rgb '#ff7f0e' pt 6 dt 2 title 'ref (cpu)'
set title 'lu: speedup over the serial CPU reference (same size)'
set ylabel 'speedup over ref (x, log)'
set yrange [0.0937666:66.5831]
set terminal pngcairo size 1200,602 font 'Sans,11'
set output 'lu-speedup.png'
set key outside bottom center horizontal Left reverse box spacing 1.1 width 2 maxcols 3 maxrows 2
set bmargin 7.1
plot 'lu.dat' index 0 using 1:4 with linespoints lw 2 ps 1.4 lc rgb '#1f77b4' pt 1 dt 1 title 'cuda-blocked (gpu)', \
  'lu.dat' index 1 using 1:4 with linespoints lw 2 ps 1.4 lc rgb '#d62728' pt 2 dt 1 title 'cuda-hybrid (gpu)', \
  'lu.dat' index 2 using 1:4 with linespoints lw 2 ps 1.4 lc rgb '#2ca02c' pt 4 dt 1 title 'cusolver (gpu)', \
  1 with lines lc rgb 'black' dt 3 lw 1.5 title 'ref = 1'
set title 'lu: achieved rate against the measured ceilings'
set ylabel 'GFLOP/s, log'
set yrange [0.687619:87363.5]
set terminal pngcairo size 1200,623 font 'Sans,11'
set output 'lu-rate.png'
set key outside bottom center horizontal Left reverse box spacing 1.1 width 2 maxcols 2 maxrows 3
set bmargin 8.4
plot 'lu.dat' index 0 using 1:3 with linespoints lw 2 ps 1.4 lc rgb '#1f77b4' pt 1 dt 1 title 'cuda-blocked (gpu)', \
  'lu.dat' index 1 using 1:3 with linespoints lw 2 ps 1.4 lc rgb '#d62728' pt 2 dt 1 title 'cuda-hybrid (gpu)', \
  'lu.dat' index 2 using 1:3 with linespoints lw 2 ps 1.4 lc rgb '#2ca02c' pt 4 dt 1 title 'cusolver (gpu)', \
  'lu.dat' index 3 using 1:3 with linespoints lw 2 ps 1.4 lc rgb '#ff7f0e' pt 6 dt 2 title 'ref (cpu)', \
  1339.75240664509 with lines lw 3 dt 5 lc rgb '#808080' title 'measured vendor GEMM, cpu: 1,340 GFLOP/s', \
  64713.69758419315 with lines lw 3 dt 5 lc rgb '#000000' title 'measured vendor GEMM, gpu: 64,714 GFLOP/s'
