# Figure 10: where the microseconds of a wake go: the mean hardware exit
# (idle exit to the cause's first handler), kernel path (handler to the
# server thread's wakeup) and scheduling (wakeup to receive) stacked, per
# state at arrival and pre-query class, each trace's bars together
# (without and with pre-query side by side).
# fig10.dat: "X LABEL HW_EXIT KERNEL SCHED WAKE COMPLETE"
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
set yrange [0:*]
set xtics scale 0 rotate by 90 right font ',10'
do for [t = 1:ntraces] {
	set label t+1 at first tx[t], graph 1.03 center tname[t] font ',12'
}
plot d.'/fig10.dat' using 1:(NaN):xtic(2) notitle, \
     '' using 1:($3+$4+$5):(0.7) with boxes lc rgb '#9ecae1' notitle, \
     '' using 1:($3+$4):(0.7) with boxes lc rgb '#3182bd' notitle, \
     '' using 1:3:(0.7) with boxes lc rgb '#e6550d' notitle, \
     NaN with boxes lc rgb '#e6550d' title 'hardware exit', \
     NaN with boxes lc rgb '#3182bd' title 'kernel path', \
     NaN with boxes lc rgb '#9ecae1' title 'scheduling'
