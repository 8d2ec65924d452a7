# Figure 4: the measured send gaps (differences of the requests' sent
# times, warm-up excluded) against the target distribution, one panel per
# distribution and mean gap, one series per run or sweep point; the bin
# width in each panel's title.
# fig4.dat: per panel a target block then one block per series,
# "BIN_CENTRE_US SHARE"; fig4.vars: npanels, ptitle[], pfirst[] (block
# index of the target), pcount[], pnolaw[] (no single target law),
# names[] (per block, from 1).
load d.'/fig4.vars'
cols = npanels > 1 ? 2 : 1
rows = int((npanels + 1) / 2)
# a panel at least as wide as its legend's names (about 6 px a character)
pw = 500; if (pw < 6 * maxlab + 200) pw = 6 * maxlab + 200
w = cols * pw + 100
h = 380 * rows + 60
load plots.'/common.gp'
set multiplot layout rows, cols title 'Inter-arrival: measured send gaps against the target distribution'
set xlabel 'gap (µs)'
set ylabel 'share of gaps per bin'
set key inside top right Left reverse noopaque nobox font ',10'
set style fill transparent solid 0.25 border
do for [p = 1:npanels] {
	set title ptitle[p]
	t = pfirst[p]
	# bursts, a rate profile, a replayed trace: no single law to draw,
	# a note says so (the target's name)
	if (pnolaw[p]) {
		set label 1 names[t + 1] at graph 0.97, graph 0.8 right font ',10'
		plot for [s = 1:pcount[p]] d.'/fig4.dat' index t + s using 1:2 with histeps lw 2 \
			lc rgb col(s) title names[t + s + 1]
		unset label 1
	} else {
		plot for [s = 1:pcount[p]] d.'/fig4.dat' index t + s using 1:2 with histeps lw 2 \
			lc rgb col(s) title names[t + s + 1], \
		     d.'/fig4.dat' index t using 1:2 with linespoints pt 7 ps 0.5 lw 1.5 dt 2 \
			lc rgb '#444444' title names[t + 1]
	}
}
unset multiplot
