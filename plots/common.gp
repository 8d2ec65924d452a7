# Shared look for every wakebench figure. A figure's script sets w and h
# (canvas pixels; defaults 900 x 540) from its data's counts, then loads
# this with
#   gnuplot -e "out='PATH-WITHOUT-EXT'; fmt='png|svg'; d='DATADIR'; plots='DIR'" FIG.gp
# d holds the figure's data (figN.dat) and variables (figN.vars) written
# by wakebench-figdata; every label in them is data, never gnuplot code.
if (!exists('w')) w = 900
if (!exists('h')) h = 540
if (fmt eq 'svg') {
	set terminal svg size w,h dynamic noenhanced font 'Helvetica,13' background rgb 'white'
	set output out.'.svg'
} else {
	set terminal pngcairo size w,h noenhanced font 'Helvetica,12'
	set output out.'.png'
}
set datafile separator whitespace
set datafile missing 'NaN'
set grid ytics lc rgb '#dddddd'
set key outside right top box opaque width 1.5
set border 3
set tics nomirror
# series colours (colour-blind safe first, then more)
array pal[12] = ['#0072b2', '#e69f00', '#009e73', '#cc79a7', '#56b4e9', '#d55e00', \
	'#000000', '#b8860b', '#7f7f7f', '#8c564b', '#17becf', '#bcbd22']
col(i) = pal[(int(i) - 1) % 12 + 1]
