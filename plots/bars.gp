# Figure 1: latency without and with pre-query per configuration, one
# panel per statistic (avg, p50, p99: an average beside a p99 of
# milliseconds would vanish on one axis). Bars: medians; error bars: the
# medians' order-statistic interval, labelled with its real coverage.
# fig1.dat: I "LABEL" N_OFF N_ON, then avg, p50, p99 each as
#   OFF_MED OFF_LO OFF_HI ON_MED ON_LO ON_HI   (columns 5-10, 11-16, 17-22)
load d.'/fig1.vars'
w = 300 + 60 * npairs; if (w < 900) w = 900
# three panels of 220 px, the title and key, and the labels (vertical,
# about 7 px a character) below
lpx = 6 * maxlab + 30
h = 3 * 220 + 110 + lpx
load plots.'/common.gp'
set multiplot layout 3,1 margins 0.09, 0.98, lpx * 1.0 / h, 1 - 100.0 / h spacing 0, 0.035 \
	title 'Latency without and with pre-query (bars: medians; error bars: '.cilabel.')'
set style fill solid 0.85 border -1
set errorbars lc rgb '#333333'
set xrange [-0.6:npairs-0.4]
set yrange [0:*]
set key at screen 0.5, screen 1 - 45.0 / h center top horizontal maxrows 1 noopaque nobox
set xtics 1 scale 0 format ''
bw = 0.36
stat(k) = 5 + 6 * k
# labels under the last panel only
do for [k = 0:2] {
	if (k == 2) {
		set xtics rotate by 90 right font ',10'
	}
	set ylabel word('average p50 p99', k + 1).' (µs)'
	c = stat(k)
	if (k < 2) {
		plot d.'/fig1.dat' using ($1-bw/2):c:c+1:c+2:(bw) with boxerrorbars lc rgb '#9ecae1' \
			title (k == 0 ? 'without pre-query' : ''), \
		     '' using ($1+bw/2):c+3:c+4:c+5:(bw) with boxerrorbars lc rgb '#e6550d' \
			title (k == 0 ? 'with pre-query' : '')
	} else {
		plot d.'/fig1.dat' using ($1-bw/2):c:c+1:c+2:(bw):xtic(2) with boxerrorbars \
			lc rgb '#9ecae1' notitle, \
		     '' using ($1+bw/2):c+3:c+4:c+5:(bw) with boxerrorbars lc rgb '#e6550d' notitle
	}
}
unset multiplot
