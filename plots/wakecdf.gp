# Figure 12: wakebench wake, per state (a panel per result directory and
# state): the latency CDF of each source (timer, ipi, packet); the state's
# kernel exit latency as a dashed line where the kernel gives one.
# fig12.dat: per curve a block "LATENCY_US FRACTION"
load d.'/fig12.vars'
cols = npanels < 3 ? npanels : 3
rows = int((npanels + cols - 1) / cols)
w = 120 + 420 * cols
h = 110 + 320 * rows
load plots.'/common.gp'
array scol[3] = ['#0072b2', '#e69f00', '#009e73']
set multiplot
set label 1 at screen 0.5, screen 1 - 16.0 / h center 'wakebench wake: latency CDF per state and source'
set label 2 at screen 0.5, screen 1 - 34.0 / h center font ',10' \
	'dashed: the kernel''s exit latency of the state (cpuidle latency)'
set key inside bottom right noopaque nobox font ',10'
set logscale x
set yrange [0:1]
set xlabel 'latency (µs)'
set ylabel 'fraction of wakes'
do for [p = 1:npanels] {
	c = (p - 1) % cols
	r = int((p - 1) / cols)
	set lmargin at screen (80.0 + 420 * c) / w
	set rmargin at screen (80.0 + 420 * c + 330) / w
	set tmargin at screen 1 - (70.0 + 320 * r) / h
	set bmargin at screen 1 - (70.0 + 320 * r + 250) / h
	set title pname[p]
	unset arrow
	if (plat[p] == plat[p] && plat[p] > 0) {
		set arrow from plat[p], graph 0 to plat[p], graph 1 nohead dt 2 lc rgb '#555555'
	}
	plot for [i = pfirst[p]:plast[p]] d.'/fig12.dat' index i-1 \
		using 1:2 with lines lw 2 lc rgb scol[csrc[i]] title cname[i]
}
unset multiplot
