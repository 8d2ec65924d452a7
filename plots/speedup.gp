# Figure 2: speedup from pre-query (median without / median with) per
# configuration, ordered by distribution and mean gap. Hatched bars: the
# two medians' intervals overlap, the difference is not significant.
# fig2.dat: I "LABEL" SP_AVG SP_P50 SP_P99 OV_AVG OV_P50 OV_P99
# (OV: 1 overlap, 0 not, -1 unknown: single runs have no interval), then
# per metric the paired effect PMED PLO PHI (wakebench stats: the median
# of the ratios of runs of the same rep and its CI, coverage at least
# 95 %; NaN: none),
# drawn as a dot with whiskers on its bar; with wakebench report
# --reference, per metric the reference speedup REF (NaN: none), drawn as
# an open diamond, its sources (refsrc) named under the title.
load d.'/fig1.vars'
if (!exists('npaired')) npaired = 0
if (!exists('nref')) nref = 0
lpx = 6 * maxlab + 30
# what the dots and diamonds are: title lines of their own (one line
# would not fit the figure's width), the sources on the last
sub = (npaired > 0 ? 'dots: the paired effect and its CI (at least 95 %)' : '') . \
	(nref > 0 ? (npaired > 0 ? '; ' : '') . 'open diamonds: reference values' : '')
src = nref > 0 ? 'reference: ' . refsrc : ''
tpx = (strlen(sub) > 0 ? 18 : 0) + (nref > 0 ? 18 : 0)
# six key entries need a second row
kpx = npaired > 0 && nref > 0 ? 18 : 0
w = 300 + 60 * npairs; if (w < 900) w = 900
# room for the sources' line (about 7 pixels a character)
if (w < 7 * strlen(src) + 40) w = 7 * strlen(src) + 40
h = 420 + lpx + tpx + kpx
load plots.'/common.gp'
set label 1 at screen 0.5, screen 1 - 18.0 / h center 'Speedup from pre-query (ratio of medians; '. \
	(cilabel eq 'single runs, no interval' ? 'single runs: no interval, significance unknown)' : \
	 'hatched: the intervals overlap, not significant)')
if (strlen(sub) > 0) set label 2 at screen 0.5, screen 1 - 36.0 / h center sub
if (nref > 0) set label 3 at screen 0.5, screen 1 - (18.0 + tpx) / h center src \
	textcolor rgb '#4a1486'
set ylabel 'speedup (without ÷ with pre-query)'
set lmargin at screen 0.09
set rmargin at screen 0.98
set bmargin at screen lpx * 1.0 / h
set tmargin at screen 1 - (80.0 + tpx + kpx) / h
set key at screen 0.5, screen 1 - (35.0 + tpx) / h center top horizontal maxrows 1 noopaque nobox
set xrange [-0.6:npairs-0.4]
set yrange [0:*]
set xtics 1 scale 0 rotate by 90 right font ',10'
set arrow 1 from graph 0, first 1 to graph 1, first 1 nohead dt 2 lc rgb '#555555'
bw = 0.26
array sc[3] = ['#3182bd', '#31a354', '#e6550d']
solid(v, ov) = ov == 1 ? NaN : v
hatch(v, ov) = ov == 1 ? v : NaN
plot d.'/fig2.dat' using 1:(NaN):xtic(2) with points notitle, \
     for [k=1:3] d.'/fig2.dat' using ($1+(k-2)*bw):(solid(column(2+k), column(5+k))):(bw) \
	with boxes fs solid 0.85 border -1 lc rgb sc[k] notitle, \
     for [k=1:3] d.'/fig2.dat' using ($1+(k-2)*bw):(hatch(column(2+k), column(5+k))):(bw) \
	with boxes fs pattern 4 border rgb sc[k] lc rgb sc[k] notitle, \
     for [k=1:3] d.'/fig2.dat' using ($1+(k-2)*bw):(column(6+3*k)):(column(7+3*k)):(column(8+3*k)) \
	with yerrorbars pt 7 ps 0.6 lw 1.5 lc rgb '#000000' notitle, \
     for [k=1:3] NaN with boxes fs solid 0.85 border -1 lc rgb sc[k] title word('avg p50 p99', k), \
     NaN with boxes fs pattern 4 border rgb '#555555' lc rgb '#555555' title 'intervals overlap', \
     NaN with yerrorbars pt 7 ps 0.6 lw 1.5 lc rgb '#000000' \
	title (npaired > 0 ? 'paired ratio and CI' : ''), \
     for [k=1:(nref > 0 ? 3 : 0)] d.'/fig2.dat' using ($1+(k-2)*bw):(column(17+k)) \
	with points pt 12 ps 2.2 lw 2.5 lc rgb '#4a1486' notitle, \
     NaN with points pt 12 ps 2.2 lw 2.5 lc rgb '#4a1486' title (nref > 0 ? 'reference value' : '')
