# Figure 10: where the microseconds of a wake go: the mean hardware exit
# (idle exit to the cause's first handler), kernel path (handler to the
# server thread's wakeup) and scheduling (wakeup to receive) stacked, per
# state at arrival and pre-query class, each trace's bars together
# (without and with pre-query side by side).
# fig10.dat: "X LABEL HW_EXIT KERNEL SCHED WAKE COMPLETE"
# fig10.vars ymax > 0: the axis stops there (1.5 x the tallest idle-state
# bar) so a few stalled C0 requests do not squash the wakes; the ncut bars
# past it are cut at the top and carry their value.
load d.'/fig10.vars'
w = 300 + 70 * nbars; if (w < 900) w = 900
lpx = 6 * maxlab + 30
h = 460 + lpx
load plots.'/common.gp'
set label 1 at screen 0.5, screen 1 - 16.0 / h center \
	'Wake breakdown: mean segments per state at arrival and pre-query class'
set label 10 at screen 0.5, screen 1 - 34.0 / h center font ',10' \
	'hardware exit: idle exit to the first handler; kernel path: handler to the thread''s wakeup; scheduling: wakeup to receive'
set key at screen 0.5, screen 1 - 46.0 / h center top horizontal maxrows 1 noopaque nobox
set lmargin at screen 0.08
set rmargin at screen 0.98
set tmargin at screen 1 - 105.0 / h
set bmargin at screen lpx * 1.0 / h
set ylabel 'mean time (µs)'
set style fill solid 0.85 border -1
set xrange [-0.7:xmax+0.7]
if (!exists('ymax')) ymax = 0
if (!exists('ncut')) ncut = 0
if (ymax > 0) {
	set yrange [0:ymax]
	set label 11 at screen 0.5, screen 1 - 72.0 / h center font ',10' \
		sprintf('axis cut at %.1f µs (1.5 x the tallest idle-state or the median bar): %d bar%s past it labelled with %s value', \
			ymax, ncut, ncut == 1 ? '' : 's', ncut == 1 ? 'its' : 'their')
	set tmargin at screen 1 - 125.0 / h
} else {
	set yrange [0:*]
}
# where a cut bar's value goes: inside the plot, below its cut top
cut(v) = (ymax > 0 && v > ymax) ? 0.95 * ymax : NaN
set xtics scale 0 rotate by 90 right font ',10'
do for [t = 1:ntraces] {
	set label t+1 at first tx[t], graph 1.03 center tname[t] font ',12'
}
plot d.'/fig10.dat' using 1:(NaN):xtic(2) notitle, \
     '' using 1:($3+$4+$5):(0.7) with boxes lc rgb '#9ecae1' notitle, \
     '' using 1:($3+$4):(0.7) with boxes lc rgb '#3182bd' notitle, \
     '' using 1:3:(0.7) with boxes lc rgb '#e6550d' notitle, \
     '' using 1:(cut($3+$4+$5)):(sprintf('%.0f µs', $3+$4+$5)) \
	with labels boxed font ',10' notitle, \
     NaN with boxes lc rgb '#e6550d' title 'hardware exit', \
     NaN with boxes lc rgb '#3182bd' title 'kernel path', \
     NaN with boxes lc rgb '#9ecae1' title 'scheduling'
