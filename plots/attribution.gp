# Figure 9: latency by the C-state the server core was in when the
# request arrived and by pre-query class (none, woke, awake, together),
# one panel per trace; p50, p90 and p99 on a log axis. A p99 of fewer
# than minp99 requests is not drawn (it would be one or two requests).
# fig9.dat: per trace a block "I LABEL N P50 P90 P99"
load d.'/fig9.vars'
cols = npanels > 1 ? 2 : 1
rows = int((npanels + 1) / 2)
w = cols == 1 ? 1000 : 1500
# vertical labels, about 6 px a character
lpx = 6 * maxlab + 20
h = (330 + lpx) * rows + 60
load plots.'/common.gp'
set multiplot layout rows, cols title 'Latency ('.metric.') by C-state at arrival and pre-query'. \
	(hidden > 0 ? sprintf(' (p99 left out below %d requests)', minp99) : '')
set style fill solid 0.85 border -1
set logscale y
set ylabel metric.' (µs, log)'
set xtics scale 0 rotate by 90 right font ',10'
set key inside top left horizontal noopaque nobox
# the same bottom margin in every panel: their axes line up
set bmargin lpx / 15.0
bw = 0.26
array sc[3] = ['#31a354', '#3182bd', '#e6550d']
do for [p = 1:npanels] {
	set title ptitle[p]
	set xrange [-0.6:pcount[p]-0.4]
	plot d.'/fig9.dat' index p-1 using 1:(NaN):xtic(2) notitle, \
	     for [k = 1:3] '' index p-1 using ($1 + (k - 2) * bw):(column(3 + k)):(bw) with boxes \
		lc rgb sc[k] title (p == 1 ? word('p50 p90 p99', k) : '')
}
unset multiplot
