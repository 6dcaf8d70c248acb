set logscale xy
set grid xtics ytics lc rgb '#d0d0d0'
set format y '%g'
set format x '%g'
set datafile missing 'NaN'
set xlabel 'grid points a side N (log)'
set xrange [53.3333:614.4]
set xtics (64, 128, 256, 384, 512)
set title 'jacobi: median compute time per variant'
set ylabel 'median compute time (s, log)'
set yrange [0.00056109:1.58029]
set terminal pngcairo size 1200,623 font 'Sans,11'
set output 'jacobi-time.png'
set key outside bottom center horizontal Left reverse box spacing 1.1 width 2 maxcols 3 maxrows 3
set bmargin 8.4
plot 'jacobi.dat' index 0 using 1:2 with linespoints lw 2 ps 1.4 lc rgb '#1f77b4' pt 1 dt 1 title 'cuda-coalesced (gpu)', \
  'jacobi.dat' index 1 using 1:2 with linespoints lw 2 ps 1.4 lc rgb '#d62728' pt 2 dt 1 title 'cuda-naive (gpu)', \
  'jacobi.dat' index 2 using 1:2 with linespoints lw 2 ps 1.4 lc rgb '#2ca02c' pt 4 dt 1 title 'cuda-norm (gpu)', \
  'jacobi.dat' index 3 using 1:2 with linespoints lw 2 ps 1.4 lc rgb '#ff7f0e' pt 6 dt 1 title 'cuda-norm-col (gpu)', \
  'jacobi.dat' index 4 using 1:2 with linespoints lw 2 ps 1.4 lc rgb '#9467bd' pt 8 dt 1 title 'cuda-norm-ry2 (gpu)', \
  'jacobi.dat' index 5 using 1:2 with linespoints lw 2 ps 1.4 lc rgb '#8c564b' pt 10 dt 1 title 'cuda-norm-ry4 (gpu)', \
  'jacobi.dat' index 6 using 1:2 with linespoints lw 2 ps 1.4 lc rgb '#e377c2' pt 12 dt 1 title 'cuda-partials (gpu)', \
  'jacobi.dat' index 7 using 1:2 with linespoints lw 2 ps 1.4 lc rgb '#17becf' pt 3 dt 2 title 'ref-stencil (cpu)'
set title 'jacobi: speedup over the serial CPU reference (same size)'
set ylabel 'speedup over ref (x, log)'
set yrange [0.740741:252.275]
set terminal pngcairo size 1200,623 font 'Sans,11'
set output 'jacobi-speedup.png'
set key outside bottom center horizontal Left reverse box spacing 1.1 width 2 maxcols 3 maxrows 3
set bmargin 8.4
plot 'jacobi.dat' index 0 using 1:4 with linespoints lw 2 ps 1.4 lc rgb '#1f77b4' pt 1 dt 1 title 'cuda-coalesced (gpu)', \
  'jacobi.dat' index 1 using 1:4 with linespoints lw 2 ps 1.4 lc rgb '#d62728' pt 2 dt 1 title 'cuda-naive (gpu)', \
  'jacobi.dat' index 2 using 1:4 with linespoints lw 2 ps 1.4 lc rgb '#2ca02c' pt 4 dt 1 title 'cuda-norm (gpu)', \
  'jacobi.dat' index 3 using 1:4 with linespoints lw 2 ps 1.4 lc rgb '#ff7f0e' pt 6 dt 1 title 'cuda-norm-col (gpu)', \
  'jacobi.dat' index 4 using 1:4 with linespoints lw 2 ps 1.4 lc rgb '#9467bd' pt 8 dt 1 title 'cuda-norm-ry2 (gpu)', \
  'jacobi.dat' index 5 using 1:4 with linespoints lw 2 ps 1.4 lc rgb '#8c564b' pt 10 dt 1 title 'cuda-norm-ry4 (gpu)', \
  'jacobi.dat' index 6 using 1:4 with linespoints lw 2 ps 1.4 lc rgb '#e377c2' pt 12 dt 1 title 'cuda-partials (gpu)', \
  1 with lines lc rgb 'black' dt 3 lw 1.5 title 'ref = 1'
set title 'jacobi: achieved rate against the measured ceilings'
set ylabel 'GB/s, log'
set yrange [9.55114:5588.96]
set terminal pngcairo size 1200,665 font 'Sans,11'
set output 'jacobi-rate.png'
set key outside bottom center horizontal Left reverse box spacing 1.1 width 2 maxcols 2 maxrows 5
set bmargin 11.0
plot 'jacobi.dat' index 0 using 1:3 with linespoints lw 2 ps 1.4 lc rgb '#1f77b4' pt 1 dt 1 title 'cuda-coalesced (gpu)', \
  'jacobi.dat' index 1 using 1:3 with linespoints lw 2 ps 1.4 lc rgb '#d62728' pt 2 dt 1 title 'cuda-naive (gpu)', \
  'jacobi.dat' index 2 using 1:3 with linespoints lw 2 ps 1.4 lc rgb '#2ca02c' pt 4 dt 1 title 'cuda-norm (gpu)', \
  'jacobi.dat' index 3 using 1:3 with linespoints lw 2 ps 1.4 lc rgb '#ff7f0e' pt 6 dt 1 title 'cuda-norm-col (gpu)', \
  'jacobi.dat' index 4 using 1:3 with linespoints lw 2 ps 1.4 lc rgb '#9467bd' pt 8 dt 1 title 'cuda-norm-ry2 (gpu)', \
  'jacobi.dat' index 5 using 1:3 with linespoints lw 2 ps 1.4 lc rgb '#8c564b' pt 10 dt 1 title 'cuda-norm-ry4 (gpu)', \
  'jacobi.dat' index 6 using 1:3 with linespoints lw 2 ps 1.4 lc rgb '#e377c2' pt 12 dt 1 title 'cuda-partials (gpu)', \
  'jacobi.dat' index 7 using 1:3 with linespoints lw 2 ps 1.4 lc rgb '#17becf' pt 3 dt 2 title 'ref-stencil (cpu)', \
  153.36741327229922 with lines lw 3 dt 4 lc rgb '#808080' title 'measured copy bandwidth, cpu: 153.4 GB/s', \
  4139.967164007578 with lines lw 3 dt 4 lc rgb '#000000' title 'measured copy bandwidth, gpu: 4,140 GB/s'
