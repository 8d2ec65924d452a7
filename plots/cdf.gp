# Figure 3: latency CDF (left) and percentile spectrum to p99.99 (right)
# of several runs. files: space-separated data files "latency_us fraction
# nines", names: their labels.
set multiplot layout 1,2 title title
set title 'CDF'
set xlabel 'latency (µs)'
set ylabel 'fraction of requests'
set logscale x
set key inside bottom right
plot for [i=1:words(files)] word(files, i) using 1:2 with lines lw 2 title word(names, i)
unset logscale x
set title 'percentile spectrum'
set xlabel 'percentile'
set ylabel 'latency (µs)'
set logscale y
set xtics ('p50' 0.301, 'p90' 1, 'p99' 2, 'p99.9' 3, 'p99.99' 4) font ',10'
set xrange [0:4.3]
set key inside top left
plot for [i=1:words(files)] word(files, i) using 3:1 with lines lw 2 title word(names, i)
unset multiplot
