#!/bin/bash
# wakebench wake --trace and --netns on this machine: what tracing costs
# a wake, and where a wake's microseconds go by source. Per repetition,
# alternating order: the three sources interleaved without and with
# --trace (the p50 of each source, and the ratio traced/untraced), then
# the packet source on loopback and with --netns, both traced (the split's
# means: launch to exit, kernel path and its NET_RX softirq part,
# scheduling, return to user). Root (tracefs, ip netns).
#   usage: bench/wake-split.sh [REPS] [COUNT] [CPU]
. "$(dirname "$0")/lib.sh"
REPS=${1:-3}
COUNT=${2:-2000}
CPU=${3:-1}
SENDER=$((CPU == 0 ? 1 : 0))
LD=50,1000

# run NAME ARGS...: one wake run into $BTMP/NAME
run() {
	local name=$1; shift
	"$WB" wake --cpu "$CPU" --sender-cpu "$SENDER" --ldist $LD --count "$COUNT" \
		-q --out "$BTMP/$name" --force "$@" 2>/dev/null ||
		{ echo "bench: wakebench wake $* failed" >&2; exit 1; }
}
# p50 SUMMARY SOURCE
p50() { awk -F, -v s="$2" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	$1 == s { print $(c["p50_us"]); exit }' "$1"; }
# split SUMMARY SOURCE: the means of the split
split() { awk -F, -v s="$2" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	$1 == s { printf "%s %s %s %s %s %s", $(c["launch_exit_us"]), $(c["hw_exit_us"]),
		$(c["kernel_us"]), $(c["softirq_us"]), $(c["sched_us"]), $(c["to_user_us"]); exit }' "$1"; }

echo "$(date -u) cpuidle driver: $(cat /sys/devices/system/cpu/cpuidle/current_driver 2>/dev/null || echo none), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "wakebench wake: CPU $CPU, sender CPU $SENDER, ldist $LD us, $COUNT datapoints per source, $REPS reps"
printf '%4s %-7s %10s %10s %8s\n' rep source p50_us traced_p50 ratio
for rep in $(seq "$REPS"); do
	if [ $((rep % 2)) = 1 ]; then run plain --source timer,ipi,packet; run traced --source timer,ipi,packet --trace
	else run traced --source timer,ipi,packet --trace; run plain --source timer,ipi,packet; fi
	for s in timer ipi packet; do
		a=$(p50 "$BTMP/plain/summary.csv" $s) b=$(p50 "$BTMP/traced/summary.csv" $s)
		printf '%4s %-7s %10s %10s %8.3f\n' "$rep" $s "$a" "$b" "$(awk -v a="$a" -v b="$b" 'BEGIN { print b / a }')"
	done
	if [ $((rep % 2)) = 1 ]; then run lo --source packet --trace; run ns --source packet --trace --netns
	else run ns --source packet --trace --netns; run lo --source packet --trace; fi
	for m in lo ns; do
		echo "$rep $m $(p50 "$BTMP/$m/summary.csv" packet) $(split "$BTMP/$m/summary.csv" packet)" >> "$BTMP/split"
	done
	echo "rep $rep/$REPS done" >&2
done
echo
echo "packet, traced: loopback (lo) against a veth pair from a namespace (ns); means in us"
printf '%4s %-3s %8s %11s %8s %8s %8s %8s %8s\n' rep via p50_us launch_exit hw_exit kernel softirq sched to_user
while read -r rep m p l h k x s u; do
	printf '%4s %-3s %8s %11s %8s %8s %8s %8s %8s\n' "$rep" "$m" "$p" "$l" "$h" "$k" "$x" "$s" "$u"
done < "$BTMP/split"
