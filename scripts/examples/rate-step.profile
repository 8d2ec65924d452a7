# wakebench client --rate-profile: a step load (issue 36).
# Each line: T_S RATE [step|ramp] -- from T_S seconds on, RATE requests
# per second; step holds it until the next line, ramp goes linearly to
# the next line's rate. The last rate holds to the end of the run.
# 1000/s for 2 s, a step to 5000/s for 2 s, back to 1000/s.
0 1000 step
2 5000 step
4 1000
