# Figure 13: wult's signature plot for wakebench wake: latency against
# silent time (how long the CPU idled before the wake), a panel per
# result directory and source, points coloured by the state the CPU woke
# from; each state's kernel exit latency (horizontal) and target
# residency (vertical, where inside the silent times) as dashed lines of
# its colour.
# fig13.dat: per panel a block "SILENT_US LATENCY_US STATE"
load d.'/fig13.vars'
cols = npanels < 3 ? npanels : 3
rows = int((npanels + cols - 1) / cols)
w = 120 + 420 * cols
h = 110 + 320 * rows
load plots.'/common.gp'
set multiplot
set label 1 at screen 0.5, screen 1 - 16.0 / h center 'wakebench wake: latency against silent time'
set label 2 at screen 0.5, screen 1 - 34.0 / h center font ',10' \
	'dashed: each state''s exit latency (horizontal) and target residency (vertical), from the kernel'
set key inside top left noopaque nobox font ',10'
set logscale y
set xlabel 'silent time (µs)'
set ylabel 'latency (µs)'
do for [p = 1:npanels] {
	c = (p - 1) % cols
	r = int((p - 1) / cols)
	set lmargin at screen (80.0 + 420 * c) / w
	set rmargin at screen (80.0 + 420 * c + 330) / w
	set tmargin at screen 1 - (70.0 + 320 * r) / h
	set bmargin at screen 1 - (70.0 + 320 * r + 250) / h
	set title pname[p]
	unset arrow
	do for [s = 1:nstates] {
		if (sdir[s] == pdir[p] && sres[s] == sres[s] && sres[s] > 0 && sres[s] <= smax) {
			set arrow from first sres[s], graph 0 to first sres[s], graph 1 nohead dt 3 lc rgb col(s)
		}
	}
	plot for [s = 1:nstates] d.'/fig13.dat' index p-1 \
		using 1:($3 == s ? $2 : NaN) with points pt 7 ps 0.4 lc rgb col(s) \
		title (sdir[s] == pdir[p] ? sname[s] : ''), \
		for [s = 1:nstates] (sdir[s] == pdir[p] && slat[s] > 0 ? slat[s] : NaN) \
		with lines dt 2 lc rgb col(s) notitle
}
unset multiplot
