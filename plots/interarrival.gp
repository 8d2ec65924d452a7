# Figure 4: measured inter-arrival histogram against the target
# distribution. hist: "bin_center_us count"; target: "x_us expected".
set title title
set xlabel 'gap (µs)'
set ylabel 'gaps per bin'
set style fill solid 0.5 border -1
set key top right
plot hist using 1:2:(binw) with boxes lc rgb '#3182bd' title 'measured', \
     target using 1:2 with linespoints pt 7 ps 0.5 lw 2 lc rgb '#e6550d' title 'target '.dist
