#!/bin/bash
# wakebench wake's datapoint rate at short launch distances: the launch
# distance, not the tool, must limit it (issue 34: >= 95 % of the ideal
# rate at --ldist 0,100). A datapoint takes its launch distance, then its
# wake latency, then whatever the tool does before it arms the next one
# (the idle-state counters, the statistics, the row of wake.csv). The
# ideal rate is 1 / (mean distance + mean latency): the mean distance is
# (MIN + MAX) / 2 (the draws' mean is within 0.2 us of it at 20 000
# datapoints), the mean latency wake.csv's; the achieved rate is the
# datapoints over the time from the first launch to the last wake. Run
# on the machine as it is and, when tests/tools/wb-sysfsfake is built, on
# the sysfs of a Granite Rapids (pepc's gnr0, 5 states: its counters are
# files the tool reads as it would kernfs', so their cost counts, but
# they never move: no state is entered).
#   usage: bench/wake-rate.sh [REPS] [COUNT] [CPU] [MIN,MAX]
. "$(dirname "$0")/lib.sh"
REPS=${1:-3}
COUNT=${2:-20000}
CPU=${3:-0}
LD=${4:-0,100}
SENDER=$((CPU == 0 ? 1 : 0))
MEAN_LD=$(awk -v l="$LD" 'BEGIN { split(l, a, ","); print (a[1] + a[2]) / 2 }')
FAKE=
if [ -x "$top/${O:-build}/tests/wb-sysfsfake" ]; then
	FAKE=$(mktemp -d /dev/shm/wbrate.XXXXXX 2>/dev/null || mktemp -d)
	trap 'rm -rf "$FAKE"; bench_cleanup' EXIT
	"$top/${O:-build}/tests/wb-sysfsfake" "$top/tests/fixtures/sysfs/gnr0/inlinefiles.txt" \
		"$FAKE/gnr0" "$top/tests/fixtures/sysfs/gnr0/cpuinfo" || FAKE=
fi

# rate LABEL [SYSFS]: one run, its line
rate() {
	WAKEBENCH_SYSFS=${2:-${WAKEBENCH_SYSFS:-}} "$WB" wake --cpu "$CPU" --sender-cpu "$SENDER" \
		--source timer --states all --ldist "$LD" --count "$COUNT" -q \
		--out "$BTMP/r" --force 2>/dev/null || { echo "bench: wakebench wake failed" >&2; exit 1; }
	awk -F, -v l="$1" -v r=$rep -v ld="$MEAN_LD" 'NR == 1 { next }
		{ if (pw) gap += $4 - pw; pw = $5; lat += $6; n++; if (n == 1) first = $4; last = $5 }
		END { lat /= n * 1e3; per = (last - first) / n / 1e3
			printf "%4s %-6s %6d %10.2f %10.2f %10.2f %10.0f %10.0f %7.3f\n", r, l, n,
				gap / (n - 1) / 1e3 - ld, lat, per, 1e6 / per, 1e6 / (ld + lat),
				(ld + lat) / per }' "$BTMP/r/wake.csv"
}

echo "wakebench wake --source timer --ldist $LD --count $COUNT on CPU $CPU, $REPS reps, load $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%4s %-6s %6s %10s %10s %10s %10s %10s %7s\n' rep sysfs n tool_us lat_us per_pt_us rate_hz ideal_hz ratio
for rep in $(seq "$REPS"); do
	rate real
	[ -n "$FAKE" ] && rate gnr0 "$FAKE/gnr0"
done
echo "tool_us: the mean time from a wake to the next launch beyond the drawn distance; load at the end $(cut -d' ' -f1-3 /proc/loadavg)"
