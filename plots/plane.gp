# Figure 14: the latency-cost plane (issue 35). x: the cost per request
# (server-side CPU time, or RAPL energy where no point has a CPU time),
# y: p50 (top) and p99 (bottom) latency, both on log axes; one marker per
# sweep point with both medians' intervals as bars, numbered, the key on
# the right saying what differs within its sweep; filled markers: on the
# Pareto front (no other point of the sweep costs no more and is no
# slower), joined by a dashed line.
# fig14.dat: per series a block
#   COST LO HI P50 LO HI P99 LO HI FRONT_P50 FRONT_P99 "LABEL" ODD NUM
# (ODD rows, every other by cost, get their number below the marker)
# fig14-front.dat: per series its p50 front then its p99 front, "COST LAT"
load d.'/fig14.vars'
# the plots 760 px wide, the numbered key in its own column
kx = 800
w = int(kx + 6.5 * pmax + 30)
h = 960; if (h < 100 + 15 * npts) h = 100 + 15 * npts
load plots.'/common.gp'
set multiplot
set label 1 at screen 0.5, screen 1 - 16.0 / h center \
	'Latency against cost per request (medians; bars: '.cilabel.'; filled and joined: the Pareto front)'
do for [k = 1:npts] {
	set label 100 + k plab[k] at screen (kx + 10.0) / w, screen 1 - (60.0 + 15 * k) / h \
		left font ',9'
}
set key at screen (kx - 20.0) / w, screen 1 - 40.0 / h right top noopaque nobox samplen 2
if (nsrc < 2) set key off
set lmargin at screen 90.0 / w
set rmargin at screen (kx - 30.0) / w
if (xlog) set logscale x; else set xrange [0:*]
set offsets 0, graph 0.05, 0, 0
set logscale y
set tmargin at screen 1 - 60.0 / h
set bmargin at screen 0.53
set xlabel ''
set ylabel 'p50 latency (µs, log)'
plot for [i = 1:nsrc] d.'/fig14-front.dat' index 2*i-2 using 1:2 with lines lw 2 \
	lc rgb col(i) dt 2 notitle, \
     for [i = 1:nsrc] d.'/fig14.dat' index i-1 using 1:4:2:3:5:6 with xyerrorbars \
	pt 6 ps 1.3 lc rgb col(i) title sname[i], \
     for [i = 1:nsrc] d.'/fig14.dat' index i-1 using 1:($10 > 0 ? $4 : NaN) with points \
	pt 7 ps 1.3 lc rgb col(i) notitle, \
     for [i = 1:nsrc] d.'/fig14.dat' index i-1 using 1:($13 > 0 ? NaN : $4):(sprintf('%d', $14)) \
	with labels left offset 0.6, 0.6 font ',9' tc rgb '#333333' notitle, \
     for [i = 1:nsrc] d.'/fig14.dat' index i-1 using 1:($13 > 0 ? $4 : NaN):(sprintf('%d', $14)) \
	with labels left offset 0.6, -0.7 font ',9' tc rgb '#333333' notitle
unset label 1
do for [k = 1:npts] { unset label 100 + k }
set key off
set tmargin at screen 0.47
set bmargin at screen 70.0 / h
set xlabel xlabel
set ylabel 'p99 latency (µs, log)'
plot for [i = 1:nsrc] d.'/fig14-front.dat' index 2*i-1 using 1:2 with lines lw 2 \
	lc rgb col(i) dt 2 notitle, \
     for [i = 1:nsrc] d.'/fig14.dat' index i-1 using 1:7:2:3:8:9 with xyerrorbars \
	pt 6 ps 1.3 lc rgb col(i) notitle, \
     for [i = 1:nsrc] d.'/fig14.dat' index i-1 using 1:($11 > 0 ? $7 : NaN) with points \
	pt 7 ps 1.3 lc rgb col(i) notitle, \
     for [i = 1:nsrc] d.'/fig14.dat' index i-1 using 1:($13 > 0 ? NaN : $7):(sprintf('%d', $14)) \
	with labels left offset 0.6, 0.6 font ',9' tc rgb '#333333' notitle, \
     for [i = 1:nsrc] d.'/fig14.dat' index i-1 using 1:($13 > 0 ? $7 : NaN):(sprintf('%d', $14)) \
	with labels left offset 0.6, -0.7 font ',9' tc rgb '#333333' notitle
unset multiplot
