# Figure 7: latency against offered load, bars: the median's order-statistic CI, one line per
# pre-query setting. files/names: "rate p50 lo hi p99 lo hi" per setting.
set title title
set xlabel 'offered load (requests/s)'
set ylabel 'latency (µs)'
set logscale x
set key outside right top
plot for [i=1:words(files)] word(files, i) using 1:2:3:4 with yerrorlines lw 2 pt 7 title word(names, i).' p50', \
     for [i=1:words(files)] word(files, i) using 1:5:6:7 with yerrorlines lw 1 dt 2 pt 5 title word(names, i).' p99'
