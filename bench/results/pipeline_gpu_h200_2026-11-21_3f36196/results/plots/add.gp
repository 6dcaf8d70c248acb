set logscale xy
set grid xtics ytics lc rgb '#d0d0d0'
set format y '%g'
set format x '%g'
set datafile missing 'NaN'
set xlabel 'matrix side n (log)'
set xrange [833.333:12000]
set xtics (1000, 2000, 4000, 8000, 10000)
set title 'add: median compute time per variant'
set ylabel 'median compute time (s, log)'
set yrange [6.4237e-06:0.0624228]
set terminal pngcairo size 1200,602 font 'Sans,11'
set output 'add-time.png'
set key outside bottom center horizontal Left reverse box spacing 1.1 width 2 maxcols 3 maxrows 2
set bmargin 7.1
plot 'add.dat' index 0 using 1:2 with linespoints lw 2 ps 1.4 lc rgb '#1f77b4' pt 1 dt 1 title 'cublas (gpu)', \
  'add.dat' index 1 using 1:2 with linespoints lw 2 ps 1.4 lc rgb '#d62728' pt 2 dt 1 title 'cuda-naive (gpu)', \
  'add.dat' index 2 using 1:2 with linespoints lw 2 ps 1.4 lc rgb '#2ca02c' pt 4 dt 1 title 'cuda-seq (gpu)', \
  'add.dat' index 3 using 1:2 with linespoints lw 2 ps 1.4 lc rgb '#ff7f0e' pt 6 dt 1 title 'cuda-shared (gpu)', \
  'add.dat' index 4 using 1:2 with linespoints lw 2 ps 1.4 lc rgb '#9467bd' pt 8 dt 1 title 'cuda-vec (gpu)', \
  'add.dat' index 5 using 1:2 with linespoints lw 2 ps 1.4 lc rgb '#8c564b' pt 10 dt 2 title 'ref (cpu)'
set title 'add: speedup over the serial CPU reference (same size)'
set ylabel 'speedup over ref (x, log)'
set yrange [0.0132855:347.655]
set terminal pngcairo size 1200,602 font 'Sans,11'
set output 'add-speedup.png'
set key outside bottom center horizontal Left reverse box spacing 1.1 width 2 maxcols 3 maxrows 2
set bmargin 7.1
plot 'add.dat' index 0 using 1:4 with linespoints lw 2 ps 1.4 lc rgb '#1f77b4' pt 1 dt 1 title 'cublas (gpu)', \
  'add.dat' index 1 using 1:4 with linespoints lw 2 ps 1.4 lc rgb '#d62728' pt 2 dt 1 title 'cuda-naive (gpu)', \
  'add.dat' index 2 using 1:4 with linespoints lw 2 ps 1.4 lc rgb '#2ca02c' pt 4 dt 1 title 'cuda-seq (gpu)', \
  'add.dat' index 3 using 1:4 with linespoints lw 2 ps 1.4 lc rgb '#ff7f0e' pt 6 dt 1 title 'cuda-shared (gpu)', \
  'add.dat' index 4 using 1:4 with linespoints lw 2 ps 1.4 lc rgb '#9467bd' pt 8 dt 1 title 'cuda-vec (gpu)', \
  1 with lines lc rgb 'black' dt 3 lw 1.5 title 'ref = 1'
set title 'add: achieved rate against the measured ceilings'
set ylabel 'GB/s, log'
set yrange [0.384475:5852.94]
set terminal pngcairo size 1200,644 font 'Sans,11'
set output 'add-rate.png'
set key outside bottom center horizontal Left reverse box spacing 1.1 width 2 maxcols 2 maxrows 4
set bmargin 9.7
plot 'add.dat' index 0 using 1:3 with linespoints lw 2 ps 1.4 lc rgb '#1f77b4' pt 1 dt 1 title 'cublas (gpu)', \
  'add.dat' index 1 using 1:3 with linespoints lw 2 ps 1.4 lc rgb '#d62728' pt 2 dt 1 title 'cuda-naive (gpu)', \
  'add.dat' index 2 using 1:3 with linespoints lw 2 ps 1.4 lc rgb '#2ca02c' pt 4 dt 1 title 'cuda-seq (gpu)', \
  'add.dat' index 3 using 1:3 with linespoints lw 2 ps 1.4 lc rgb '#ff7f0e' pt 6 dt 1 title 'cuda-shared (gpu)', \
  'add.dat' index 4 using 1:3 with linespoints lw 2 ps 1.4 lc rgb '#9467bd' pt 8 dt 1 title 'cuda-vec (gpu)', \
  'add.dat' index 5 using 1:3 with linespoints lw 2 ps 1.4 lc rgb '#8c564b' pt 10 dt 2 title 'ref (cpu)', \
  153.36741327229922 with lines lw 3 dt 4 lc rgb '#808080' title 'measured copy bandwidth, cpu: 153.4 GB/s', \
  4139.967164007578 with lines lw 3 dt 4 lc rgb '#000000' title 'measured copy bandwidth, gpu: 4,140 GB/s'
