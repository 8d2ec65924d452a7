# Figure 5: C-state timeline (SocWatch style) of the traced CPUs over a
# window: one band per CPU coloured by state, request receives, pre-query
# receives and IRQs marked. ivs: "cpu x0_ms x1_ms stateidx"; states: the
# state names in index order; marks: "x_ms cpu kind(0 recv,1 pq,2 irq)".
set title title
set xlabel 'time since trace start (ms)'
set ylabel 'CPU'
set yrange [-0.6:ncpu-0.4]
set ytics 1
set xrange [x0:x1]
set style fill solid 1.0 noborder
set palette defined (0 '#bdbdbd', 1 '#31a354', 2 '#9ecae1', 3 '#3182bd', 4 '#08519c', 5 '#6a51a3')
set cbrange [0:5]
unset colorbox
set key outside right top
plot ivs using (($2+$3)/2):1:(($3-$2)/2):(0.3):4 with boxxyerror lc palette notitle, \
     for [i=1:words(states)] NaN with boxes lc palette cb (i-1) title word(states, i), \
     marks using 1:($3 == 0 ? $2 + 0.42 : 1/0) with points pt 9 ps 1.0 lc rgb '#e6550d' title 'request', \
     marks using 1:($3 == 1 ? $2 + 0.42 : 1/0) with points pt 11 ps 1.0 lc rgb '#756bb1' title 'pre-query', \
     marks using 1:($3 == 2 ? $2 - 0.42 : 1/0) with points pt 2 ps 0.6 lc rgb '#636363' title 'IRQ'
