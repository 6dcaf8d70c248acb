set logscale xy
set grid xtics ytics lc rgb '#d0d0d0'
set format y '%g'
set format x '%g'
set datafile missing 'NaN'
set xlabel 'matrix side n (log)'
set xrange [106.667:9830.4]
set xtics (128, 256, 512, 1024, 2048, 4096, 8192)
set title 'mul: median compute time per variant'
set ylabel 'median compute time (s, log)'
set yrange [8.05926e-06:0.920347]
set terminal pngcairo size 1200,644 font 'Sans,11'
set output 'mul-time.png'
set key outside bottom center horizontal Left reverse box spacing 1.1 width 2 maxcols 3 maxrows 4
set bmargin 9.7
plot 'mul.dat' index 0 using 1:2 with linespoints lw 2 ps 1.4 lc rgb '#1f77b4' pt 1 dt 1 title 'cublas (gpu)', \
  'mul.dat' index 1 using 1:2 with linespoints lw 2 ps 1.4 lc rgb '#d62728' pt 2 dt 1 title 'cuda-dmma-884 (gpu)', \
  'mul.dat' index 2 using 1:2 with linespoints lw 2 ps 1.4 lc rgb '#2ca02c' pt 4 dt 1 title 'cuda-dmma-bk16 (gpu)', \
  'mul.dat' index 3 using 1:2 with linespoints lw 2 ps 1.4 lc rgb '#ff7f0e' pt 6 dt 1 title 'cuda-naive (gpu)', \
  'mul.dat' index 4 using 1:2 with linespoints lw 2 ps 1.4 lc rgb '#9467bd' pt 8 dt 1 title 'cuda-regblock (gpu)', \
  'mul.dat' index 5 using 1:2 with linespoints lw 2 ps 1.4 lc rgb '#8c564b' pt 10 dt 1 title 'cuda-tensor (gpu)', \
  'mul.dat' index 6 using 1:2 with linespoints lw 2 ps 1.4 lc rgb '#e377c2' pt 12 dt 1 title 'cuda-tiled16 (gpu)', \
  'mul.dat' index 7 using 1:2 with linespoints lw 2 ps 1.4 lc rgb '#17becf' pt 3 dt 1 title 'cuda-tiled32 (gpu)', \
  'mul.dat' index 8 using 1:2 with linespoints lw 2 ps 1.4 lc rgb '#7f7f7f' pt 5 dt 1 title 'cuda-wmma (gpu)', \
  'mul.dat' index 9 using 1:2 with linespoints lw 2 ps 1.4 lc rgb '#bcbd22' pt 7 dt 2 title 'ref (cpu)'
set title 'mul: speedup over the serial CPU reference (same size)'
set ylabel 'speedup over ref (x, log)'
set yrange [0.740741:9309.14]
set terminal pngcairo size 1200,644 font 'Sans,11'
set output 'mul-speedup.png'
set key outside bottom center horizontal Left reverse box spacing 1.1 width 2 maxcols 3 maxrows 4
set bmargin 9.7
plot 'mul.dat' index 0 using 1:4 with linespoints lw 2 ps 1.4 lc rgb '#1f77b4' pt 1 dt 1 title 'cublas (gpu)', \
  'mul.dat' index 1 using 1:4 with linespoints lw 2 ps 1.4 lc rgb '#d62728' pt 2 dt 1 title 'cuda-dmma-884 (gpu)', \
  'mul.dat' index 2 using 1:4 with linespoints lw 2 ps 1.4 lc rgb '#2ca02c' pt 4 dt 1 title 'cuda-dmma-bk16 (gpu)', \
  'mul.dat' index 3 using 1:4 with linespoints lw 2 ps 1.4 lc rgb '#ff7f0e' pt 6 dt 1 title 'cuda-naive (gpu)', \
  'mul.dat' index 4 using 1:4 with linespoints lw 2 ps 1.4 lc rgb '#9467bd' pt 8 dt 1 title 'cuda-regblock (gpu)', \
  'mul.dat' index 5 using 1:4 with linespoints lw 2 ps 1.4 lc rgb '#8c564b' pt 10 dt 1 title 'cuda-tensor (gpu)', \
  'mul.dat' index 6 using 1:4 with linespoints lw 2 ps 1.4 lc rgb '#e377c2' pt 12 dt 1 title 'cuda-tiled16 (gpu)', \
  'mul.dat' index 7 using 1:4 with linespoints lw 2 ps 1.4 lc rgb '#17becf' pt 3 dt 1 title 'cuda-tiled32 (gpu)', \
  'mul.dat' index 8 using 1:4 with linespoints lw 2 ps 1.4 lc rgb '#7f7f7f' pt 5 dt 1 title 'cuda-wmma (gpu)', \
  1 with lines lc rgb 'black' dt 3 lw 1.5 title 'ref = 1'
set title 'mul: achieved rate against the measured ceilings'
set ylabel 'GFLOP/s, log'
set yrange [1.53515:87439.6]
set terminal pngcairo size 1200,686 font 'Sans,11'
set output 'mul-rate.png'
set key outside bottom center horizontal Left reverse box spacing 1.1 width 2 maxcols 2 maxrows 6
set bmargin 12.3
plot 'mul.dat' index 0 using 1:3 with linespoints lw 2 ps 1.4 lc rgb '#1f77b4' pt 1 dt 1 title 'cublas (gpu)', \
  'mul.dat' index 1 using 1:3 with linespoints lw 2 ps 1.4 lc rgb '#d62728' pt 2 dt 1 title 'cuda-dmma-884 (gpu)', \
  'mul.dat' index 2 using 1:3 with linespoints lw 2 ps 1.4 lc rgb '#2ca02c' pt 4 dt 1 title 'cuda-dmma-bk16 (gpu)', \
  'mul.dat' index 3 using 1:3 with linespoints lw 2 ps 1.4 lc rgb '#ff7f0e' pt 6 dt 1 title 'cuda-naive (gpu)', \
  'mul.dat' index 4 using 1:3 with linespoints lw 2 ps 1.4 lc rgb '#9467bd' pt 8 dt 1 title 'cuda-regblock (gpu)', \
  'mul.dat' index 5 using 1:3 with linespoints lw 2 ps 1.4 lc rgb '#8c564b' pt 10 dt 1 title 'cuda-tensor (gpu)', \
  'mul.dat' index 6 using 1:3 with linespoints lw 2 ps 1.4 lc rgb '#e377c2' pt 12 dt 1 title 'cuda-tiled16 (gpu)', \
  'mul.dat' index 7 using 1:3 with linespoints lw 2 ps 1.4 lc rgb '#17becf' pt 3 dt 1 title 'cuda-tiled32 (gpu)', \
  'mul.dat' index 8 using 1:3 with linespoints lw 2 ps 1.4 lc rgb '#7f7f7f' pt 5 dt 1 title 'cuda-wmma (gpu)', \
  'mul.dat' index 9 using 1:3 with linespoints lw 2 ps 1.4 lc rgb '#bcbd22' pt 7 dt 2 title 'ref (cpu)', \
  1339.75240664509 with lines lw 3 dt 5 lc rgb '#808080' title 'measured vendor GEMM, cpu: 1,340 GFLOP/s', \
  64713.69758419315 with lines lw 3 dt 5 lc rgb '#000000' title 'measured vendor GEMM, gpu: 64,714 GFLOP/s'
