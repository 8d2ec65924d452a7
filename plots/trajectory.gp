# Figure 8: adaptive pre-query timing: the lead/delay (left axis) and the
# window's average response time (right axis) against the window number.
# data: prequery-trajectory.csv (window,value_us,step_us,window_avg_ns,best_us)
set datafile separator ','
set title title
set xlabel 'window'
set ylabel 'pre-query lead / delay (µs)'
set y2label 'window average (µs)'
set y2tics
set key top right
plot data using 1:2 every ::1 with linespoints pt 7 ps 0.6 lw 2 lc rgb '#3182bd' title 'lead/delay', \
     data using 1:5 every ::1 with lines dt 2 lw 1 lc rgb '#31a354' title 'best', \
     data using 1:($4/1000) every ::1 axes x1y2 with linespoints pt 5 ps 0.5 lc rgb '#e6550d' title 'window average'
