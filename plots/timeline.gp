# Figure 5: C-state timeline (SocWatch style): every trace given stacked
# on one time axis (ms since its first request), one row per traced CPU
# with idle events, coloured by state; requests and pre-queries marked
# above the row of the CPU that saw them, IRQs and the cause of each wake
# below. Only what occurs in the window is in the legend.
# fig5-ivs.dat: "ROW X0 X1 RGB"; fig5-marks.dat: "X ROW KIND".
load d.'/fig5.vars'
w = 1100
h = 170 + 75 * nrows; if (h < 380) h = 380
# rows of a host of hundreds of CPUs get thinner (15 px at 512): cairo
# draws at most 32767 pixels a side (the figure failed past 435 rows), and
# the PNG's memory is its area (150 MB at 75 px a row, 512 rows)
if (h > 8000) h = 8000
load plots.'/common.gp'
set title 'C-state timeline (time since each trace''s first request)'
set xlabel 'time since the first request (ms)'
set yrange [-0.7:nrows-0.3]
set ytics () scale 0
do for [r = 1:nrows] { set ytics add (rowname[r] nrows - r) }
set grid noytics
set xrange [x0:x1]
set style fill solid 1.0 noborder
set key outside right top Left reverse noopaque nobox
array mpt[8] = [9, 11, 2, 7, 5, 13, 3, 6]
array mlc[8] = ['#e6550d', '#756bb1', '#636363', '#d62728', '#8c564b', '#17becf', \
	'#bcbd22', '#7f7f7f']
array mdy[8] = [0.33, 0.33, -0.33, -0.33, -0.33, -0.33, -0.33, -0.33]
plot d.'/fig5-ivs.dat' using (($2+$3)/2):1:(($3-$2)/2):(0.22):4 with boxxyerror \
	lc rgb variable notitle, \
     for [i = 1:nstates] NaN with boxes lc rgb scolor[i] title sname[i], \
     for [k = 1:nkinds] d.'/fig5-marks.dat' using 1:($3 == k - 1 ? $2 + mdy[k] : NaN) \
	with points pt mpt[k] ps 1.1 lc rgb mlc[k] title (kcount[k] > 0 ? kname[k] : '')
