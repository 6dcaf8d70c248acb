set logscale xy
set grid xtics ytics lc rgb '#d0d0d0'
set format y '%g'
set format x '%g'
set datafile missing 'NaN'
set xlabel 'stored nonzeros of A (log)'
set xrange [25:3.86547e+07]
set title 'spmv: median compute time per variant'
set ylabel 'median compute time (s, log)'
set yrange [5.48148e-08:0.0749944]
set terminal pngcairo size 1200,602 font 'Sans,11'
set output 'spmv-time.png'
set key outside bottom center horizontal Left reverse box spacing 1.1 width 2 maxcols 3 maxrows 2
set bmargin 7.1
plot 'spmv.dat' index 0 using 1:2 with points lw 2 ps 1.4 lc rgb '#1f77b4' pt 1 dt 1 title 'cuda-adaptive (gpu)', \
  'spmv.dat' index 1 using 1:2 with points lw 2 ps 1.4 lc rgb '#d62728' pt 2 dt 1 title 'cuda-scalar (gpu)', \
  'spmv.dat' index 2 using 1:2 with points lw 2 ps 1.4 lc rgb '#2ca02c' pt 4 dt 1 title 'cuda-vector (gpu)', \
  'spmv.dat' index 3 using 1:2 with points lw 2 ps 1.4 lc rgb '#ff7f0e' pt 6 dt 1 title 'cusparse (gpu)', \
  'spmv.dat' index 4 using 1:2 with points lw 2 ps 1.4 lc rgb '#9467bd' pt 8 dt 2 title 'ref (cpu)'
set title 'spmv: speedup over the serial CPU reference (same size)'
set ylabel 'speedup over ref (x, log)'
set yrange [0.00710773:529.023]
set terminal pngcairo size 1200,602 font 'Sans,11'
set output 'spmv-speedup.png'
set key outside bottom center horizontal Left reverse box spacing 1.1 width 2 maxcols 3 maxrows 2
set bmargin 7.1
plot 'spmv.dat' index 0 using 1:4 with points lw 2 ps 1.4 lc rgb '#1f77b4' pt 1 dt 1 title 'cuda-adaptive (gpu)', \
  'spmv.dat' index 1 using 1:4 with points lw 2 ps 1.4 lc rgb '#d62728' pt 2 dt 1 title 'cuda-scalar (gpu)', \
  'spmv.dat' index 2 using 1:4 with points lw 2 ps 1.4 lc rgb '#2ca02c' pt 4 dt 1 title 'cuda-vector (gpu)', \
  'spmv.dat' index 3 using 1:4 with points lw 2 ps 1.4 lc rgb '#ff7f0e' pt 6 dt 1 title 'cusparse (gpu)', \
  1 with lines lc rgb 'black' dt 3 lw 1.5 title 'ref = 1'
set title 'spmv: achieved rate against the measured ceilings'
set ylabel 'GB/s, log'
set yrange [0.0802981:5588.96]
set terminal pngcairo size 1200,644 font 'Sans,11'
set output 'spmv-rate.png'
set key outside bottom center horizontal Left reverse box spacing 1.1 width 2 maxcols 2 maxrows 4
set bmargin 9.7
plot 'spmv.dat' index 0 using 1:3 with points lw 2 ps 1.4 lc rgb '#1f77b4' pt 1 dt 1 title 'cuda-adaptive (gpu)', \
  'spmv.dat' index 1 using 1:3 with points lw 2 ps 1.4 lc rgb '#d62728' pt 2 dt 1 title 'cuda-scalar (gpu)', \
  'spmv.dat' index 2 using 1:3 with points lw 2 ps 1.4 lc rgb '#2ca02c' pt 4 dt 1 title 'cuda-vector (gpu)', \
  'spmv.dat' index 3 using 1:3 with points lw 2 ps 1.4 lc rgb '#ff7f0e' pt 6 dt 1 title 'cusparse (gpu)', \
  'spmv.dat' index 4 using 1:3 with points lw 2 ps 1.4 lc rgb '#9467bd' pt 8 dt 2 title 'ref (cpu)', \
  153.36741327229922 with lines lw 3 dt 4 lc rgb '#808080' title 'measured copy bandwidth, cpu: 153.4 GB/s', \
  4139.967164007578 with lines lw 3 dt 4 lc rgb '#000000' title 'measured copy bandwidth, gpu: 4,140 GB/s'
