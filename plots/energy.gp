# Figure 11: the pre-query's other side: energy per request and power
# (RAPL, package and core zones summed as the client reports them)
# without and with pre-query; error bars: the medians' intervals.
# fig11.dat: I "LABEL" N_OFF N_ON, energy per request (µJ) as
#   OFF_MED LO HI ON_MED LO HI (columns 5-10), power (W) (11-16)
load d.'/fig11.vars'
w = 300 + 60 * npairs; if (w < 900) w = 900
lpx = 6 * maxlab + 30
h = 2 * 240 + 110 + lpx
load plots.'/common.gp'
set multiplot layout 2,1 margins 0.09, 0.98, lpx * 1.0 / h, 1 - 100.0 / h spacing 0, 0.04 \
	title 'Energy without and with pre-query (bars: medians; error bars: '.cilabel.')'
set style fill solid 0.85 border -1
set errorbars lc rgb '#333333'
set xrange [-0.6:npairs-0.4]
set yrange [0:*]
set key at screen 0.5, screen 1 - 45.0 / h center top horizontal maxrows 1 noopaque nobox
set xtics 1 scale 0 format ''
bw = 0.36
set ylabel 'energy per request (µJ)'
plot d.'/fig11.dat' using ($1-bw/2):5:6:7:(bw) with boxerrorbars lc rgb '#9ecae1' title 'without pre-query', \
     '' using ($1+bw/2):8:9:10:(bw) with boxerrorbars lc rgb '#e6550d' title 'with pre-query'
set xtics rotate by 90 right font ',10'
set ylabel 'power (W)'
plot d.'/fig11.dat' using ($1-bw/2):11:12:13:(bw):xtic(2) with boxerrorbars lc rgb '#9ecae1' notitle, \
     '' using ($1+bw/2):14:15:16:(bw) with boxerrorbars lc rgb '#e6550d' notitle
unset multiplot
