# Shared look for every wakebench figure. Called with
#   gnuplot -e "out='PATH-WITHOUT-EXT'; fmt='png|svg'; ..." common.gp FIG.gp
# w: canvas width in pixels (figures with many bars pass a wider one).
if (!exists('w')) w = 900
if (fmt eq 'svg') {
	set terminal svg size w,540 dynamic noenhanced font 'Helvetica,13' background rgb 'white'
	set output out.'.svg'
} else {
	set terminal pngcairo size w,540 noenhanced font 'Helvetica,12'
	set output out.'.png'
}
set datafile separator whitespace
set grid ytics lc rgb '#dddddd'
set key outside right top box opaque width 1.5
set border 3
set tics nomirror
