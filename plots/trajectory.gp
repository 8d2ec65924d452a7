# Figure 8: adaptive pre-query timing. Top: the lead (or the midtier's
# delay) used during each window and the best lead so far; bottom: the
# window's average response time, beside the lead it was measured with.
# The window with the lowest average is ringed in both panels.
# fig8.dat: per trajectory a block "WINDOW LEAD_US AVG_US BEST_US"
load d.'/fig8.vars'
# the plots 700 px wide, the legend in its own column
w = int(800 + 8 * (maxlab + 15) + 70)
h = 640
load plots.'/common.gp'
set multiplot
set label 1 at screen 440.0 / w, screen 1 - 16.0 / h center 'Adaptive pre-query timing (ringed: the window with the lowest average)'
set key at screen 800.0 / w, screen 1 - 50.0 / h left top Left reverse noopaque nobox samplen 3
set lmargin at screen 90.0 / w
set rmargin at screen 780.0 / w
set tmargin at screen 1 - 50.0 / h
set bmargin at screen 0.53
set xrange [0.5:maxwindow+0.5]
# whole windows: integer ticks, at most about 20 of them
xstep = maxwindow <= 20 ? 1 : int(maxwindow / 20) + 1
set xtics xstep format ''
set ylabel 'lead used (µs)'
plot for [i = 1:ntraj] d.'/fig8.dat' index i-1 using 1:2 with linespoints pt 7 ps 0.7 lw 2 \
	lc rgb col(i) title names[i].' (lead)', \
     for [i = 1:ntraj] d.'/fig8.dat' index i-1 using 1:4 with steps dt 2 lw 1 \
	lc rgb col(i) title names[i].' (best so far)', \
     for [i = 1:ntraj] '+' using (bestw[i]):(bestlead[i]) every ::0::0 with points pt 6 ps 2.5 \
	lw 2 lc rgb col(i) notitle
unset label 1
set key off
set tmargin at screen 0.49
set bmargin at screen 60.0 / h
set format x '%g'
set xlabel 'window'
set ylabel 'window average (µs)'
plot for [i = 1:ntraj] d.'/fig8.dat' index i-1 using 1:3 with linespoints pt 5 ps 0.7 lw 2 \
	lc rgb col(i) notitle, \
     for [i = 1:ntraj] d.'/fig8.dat' index i-1 using 1:($1 == bestw[i] ? $3 : NaN) \
	with points pt 6 ps 2.5 lw 2 lc rgb col(i) notitle
unset multiplot
