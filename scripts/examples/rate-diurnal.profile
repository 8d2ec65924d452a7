# wakebench client --rate-profile: a day compressed into 24 s (issue 36).
# One point an "hour": a diurnal curve between 500/s at night and
# 4500/s at the afternoon peak, linear between the points (ramp).
# Scale the times with a copy of the file; the rates are requests/s.
0 1086 ramp
1 768 ramp
2 568 ramp
3 500 ramp
4 568 ramp
5 768 ramp
6 1086 ramp
7 1500 ramp
8 1982 ramp
9 2500 ramp
10 3018 ramp
11 3500 ramp
12 3914 ramp
13 4232 ramp
14 4432 ramp
15 4500 ramp
16 4432 ramp
17 4232 ramp
18 3914 ramp
19 3500 ramp
20 3018 ramp
21 2500 ramp
22 1982 ramp
23 1500 ramp
24 1086
