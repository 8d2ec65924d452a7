# Figure 6: residency per CPU and state, one cluster per state, one bar
# per run (e.g. without and with pre-query). data: "label run1 run2 ..."
# (percent of time); names: the runs.
set title title
set ylabel 'time in state (%)'
set style data histograms
set style histogram clustered gap 2
set style fill solid 0.8 border -1
set yrange [0:105]
set xtics scale 0
plot for [i=2:words(names)+1] data using i:xtic(1) title word(names, i-1)
