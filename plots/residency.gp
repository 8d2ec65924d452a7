# Figure 6: per traced CPU, the share of time in C0 and the idle entries
# per second, one bar per trace: the differences a pre-query makes are
# there, not in the ~97 % idle bar. CPUs without idle events are left out.
# fig6.dat: I "cpuN" C0_PCT(trace 1..n) ENTRIES_PER_S(trace 1..n)
load d.'/fig6.vars'
w = 1000
h = 460
load plots.'/common.gp'
set multiplot layout 1,2 title 'Residency: time in C0 and idle entries per trace'
set style fill solid 0.85 border -1
set key at screen 0.5, screen 0.9 center top horizontal maxrows 1 noopaque nobox
set tmargin 5
bw = 0.8 / ntraces
set xrange [-0.6:ncpus-0.4]
set xtics 1 scale 0
set yrange [0:*]
set ylabel 'time in C0 (%)'
plot d.'/fig6.dat' using 1:(NaN):xtic(2) notitle, \
     for [t = 1:ntraces] '' using ($1 + (t - (ntraces + 1) / 2.0) * bw):(column(2 + t)):(bw) \
	with boxes lc rgb col(t) title names[t]
set key off
set ylabel 'idle entries per second'
plot d.'/fig6.dat' using 1:(NaN):xtic(2) notitle, \
     for [t = 1:ntraces] '' using ($1 + (t - (ntraces + 1) / 2.0) * bw):(column(2 + ntraces + t)):(bw) \
	with boxes lc rgb col(t) notitle
unset multiplot
