# Figure 9: latency grouped by the C-state the server core was in when the
# request arrived, and by whether a pre-query woke it.
# data: "label count p50 p90 p99"
set title title
set ylabel 'latency (µs)'
set style data histograms
set style histogram clustered gap 2
set style fill solid 0.8 border -1
set xtics scale 0 rotate by -20 font ',10'
set bmargin 6
set yrange [0:*]
plot data using 3:xtic(stringcolumn(1).' (n='.stringcolumn(2).')') title 'p50' lc rgb '#31a354', \
     '' using 4 title 'p90' lc rgb '#3182bd', '' using 5 title 'p99' lc rgb '#e6550d'
