# Figure 7: latency against offered load, one line per full configuration
# (everything but the mean gap), p50 and p99 in their own panels; error
# bars: the medians' order-statistic interval, each series shifted a
# little sideways so that the bars at one load do not hide each other.
# fig7.dat: per series a block "LOAD X P50 LO HI P99 LO HI N"
load d.'/fig7.vars'
# the plots 700 px wide, the legend in its own column
w = int(800 + 8 * maxlab + 70)
h = 760; if (h < 140 + 19 * nseries) h = 140 + 19 * nseries
load plots.'/common.gp'
set multiplot
set label 1 at screen 430.0 / w, screen 1 - 16.0 / h center 'Latency against load (medians; error bars: '.cilabel.')'
set key at screen 800.0 / w, screen 1 - 50.0 / h left top Left reverse noopaque nobox samplen 3
set lmargin at screen 80.0 / w
set rmargin at screen 780.0 / w
set tmargin at screen 1 - 50.0 / h
set bmargin at screen 0.53
set logscale x
set xrange [xmin:xmax]
set xlabel ''
set format x ''
set ylabel 'p50 latency (µs)'
set yrange [0:*]
plot for [i = 1:nseries] d.'/fig7.dat' index i-1 using 2:3:4:5 with yerrorlines lw 2 pt 7 \
	lc rgb col(i) title names[i]
unset label 1
set key off
set tmargin at screen 0.49
set bmargin at screen 60.0 / h
set format x '%g'
set xlabel 'offered load (requests/s)'
set ylabel 'p99 latency (µs, log)'
set logscale y
set yrange [*:*]
plot for [i = 1:nseries] d.'/fig7.dat' index i-1 using 2:6:7:8 with yerrorlines lw 2 pt 5 \
	lc rgb col(i) notitle
unset multiplot
