# Figure 1: average and p99 latency per configuration, without and with
# pre-query side by side, error bars: the median's order-statistic CI (its real coverage in the title). data: a table with columns
#   label off_avg lo hi pq_avg lo hi off_p99 lo hi pq_p99 lo hi
set title title
set ylabel 'latency (µs)'
set style data histograms
set style histogram errorbars gap 2 lw 1
set style fill solid 0.8 border -1
set xtics rotate by -40 scale 0 font ',10'
set bmargin 8
set yrange [0:*]
plot data using 2:3:4:xtic(1) title 'avg, pre-query off' lc rgb '#9ecae1', \
     '' using 5:6:7 title 'avg, with pre-query' lc rgb '#3182bd', \
     '' using 8:9:10 title 'p99, pre-query off' lc rgb '#fdae6b', \
     '' using 11:12:13 title 'p99, with pre-query' lc rgb '#e6550d'
