# Figure 3: latency CDF (left) and percentile spectrum (right), one curve
# per run, and per sweep point the median across its repetitions of each
# quantile. A curve ends at p = 1 - 1/n, the last quantile its n requests
# support. Colour: the configuration but the pre-query; dash: the
# pre-query setting. The legend has its own column, outside both plots.
# fig3.dat: per curve a block "LATENCY_US FRACTION NINES"
load d.'/fig3.vars'
# two plots of 360 px, then the legend's own column (about 8 px a
# character at this font): nothing of it is cut, whatever the names
w = int(880 + 8 * maxlab + 70)
h = 120 + 19 * ncurves; if (h < 540) h = 540
load plots.'/common.gp'
set multiplot
set label 1 at screen 455.0 / w, screen 1 - 16.0 / h center 'Latency distribution'. \
	(behind > 0 ? sprintf(' (%d runs behind schedule left out)', behind) : '')
set key at screen 870.0 / w, screen 1 - 60.0 / h left top Left reverse noopaque nobox samplen 3
set tmargin at screen 1 - 60.0 / h
set bmargin at screen 60.0 / h
set lmargin at screen 70.0 / w
set rmargin at screen 420.0 / w
set title 'CDF'
set xlabel 'latency (µs)'
set ylabel 'fraction of requests'
set logscale x
set autoscale xfix
set yrange [0:1]
plot for [i=1:ncurves] d.'/fig3.dat' index i-1 using 1:2 with lines lw 2 \
	lc rgb col(color[i]) dt dash[i] title names[i]
unset logscale x
set key off
unset label 1
set lmargin at screen 500.0 / w
set rmargin at screen 850.0 / w
set title 'percentile spectrum'
set xlabel 'percentile'
set ylabel 'latency (µs)'
set logscale y
set autoscale y
set xtics ('p50' 0.301, 'p90' 1, 'p99' 2, 'p99.9' 3, 'p99.99' 4, 'p99.999' 5, 'p99.9999' 6) font ',10'
set xrange [0:maxnines]
plot for [i=1:ncurves] d.'/fig3.dat' index i-1 using 3:1 with lines lw 2 \
	lc rgb col(color[i]) dt dash[i] notitle
unset multiplot
