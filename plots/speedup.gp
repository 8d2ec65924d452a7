# Figure 2: speedup (latency without / with pre-query) per configuration.
# data: label speedup_avg speedup_p50 speedup_p99
set title title
set ylabel 'speedup (without ÷ with pre-query)'
set style data histograms
set style histogram clustered gap 2
set style fill solid 0.8 border -1
set xtics rotate by -40 scale 0 font ',10'
set bmargin 8
set yrange [0:*]
set arrow 1 from graph 0, first 1 to graph 1, first 1 nohead dt 2 lc rgb '#555555'
plot data using 2:xtic(1) title 'avg' lc rgb '#3182bd', \
     '' using 3 title 'p50' lc rgb '#31a354', \
     '' using 4 title 'p99' lc rgb '#e6550d'
