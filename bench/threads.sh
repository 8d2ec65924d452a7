#!/bin/bash
# More than one core of load: the client with --threads 1 (on $CCPU) and
# --threads N (on CPUS, default every CPU) against one server on $SCPU
# (epoll; it answers a read's requests with one send), fixed gaps, --wait
# spin, one TCP connection per thread, each rate REPS times with the
# thread counts alternating. Per cell the medians of: the achieved rate,
# the share of requests answered, the share sent more than 100 us late
# (from the summary's late counter at --late-us 100) and the service
# p50/p99 (exact, merged over the threads). On a machine with as many
# CPUs as threads + 1 the threads have cores of their own; on this
# 2-vCPU VM the second thread shares CPU 1 with the server, which the
# table shows as it is.
#   usage: [CPUS=0-1] [THREADS=2] bench/threads.sh [REPS] [SECONDS] [RATES...]
. "$(dirname "$0")/lib.sh"
REPS=${1:-3}
SECS=${2:-1}
shift 2 2>/dev/null
RATES=${*:-250000 500000 1000000 1500000 2000000}
CPUS=${CPUS:-0-$(($(nproc) - 1))}
N=${THREADS:-2}
MED="$top/${O:-build}/bench/wb-median"
[ -x "$MED" ] || make -s -C "$top" "${MED#$top/}" >&2 || exit 1
wb_server
: > "$BTMP/rows"
for rep in $(seq "$REPS"); do
	for rate in $RATES; do
		if [ $((rep % 2)) = 1 ]; then order="1 $N"; else order="$N 1"; fi
		for t in $order; do
			cpu=$([ "$t" = 1 ] && echo "$CCPU" || echo "$CPUS")
			"$WB" client --server 127.0.0.1:$PORT --threads "$t" --cpu "$cpu" --dist fixed \
				--rate "$rate" --duration "$SECS" --warmup 1000 --wait spin --late-us 100 \
				--timeout-ms 5000 --raw none -q --out "$BTMP/c" --force 2>/dev/null
			s="$BTMP/c/summary.csv"
			echo "$t $rate $(csv_col "$s" rate_achieved) $(csv_col "$s" count) $(csv_col "$s" unanswered)" \
				"$(csv_col "$s" late_sends) $(csv_col "$s" svc_p50_us) $(csv_col "$s" svc_p99_us)" >> "$BTMP/rows"
		done
	done
	echo "rep $rep/$REPS done" >&2
done
stop_all
echo "$(date -u) cpuidle driver: $(cat /sys/devices/system/cpu/cpuidle/current_driver 2>/dev/null || echo none), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "Client threads: server on cpu $SCPU; 1 thread on cpu $CCPU, $N on $CPUS; fixed gaps, ${SECS}s runs, median of $REPS"
printf '%-8s %-9s %12s %12s %12s %10s %10s\n' threads rate achieved answered_pct late100_pct svc_p50_us svc_p99_us
for rate in $RATES; do
	for t in 1 $N; do
		col() { awk -v t=$t -v r=$rate "\$1 == t && \$2 == r { $1 }" "$BTMP/rows" | "$MED" | cut -d' ' -f1; }
		printf '%-8s %-9s %12.0f %12.3f %12.3f %10.1f %10.1f\n' $t $rate "$(col 'print $3')" \
			"$(col 'print ($4 > 0 ? 100 * ($4 - $5) / $4 : 0)')" "$(col 'print ($4 > 0 ? 100 * $6 / $4 : 0)')" \
			"$(col 'print $7')" "$(col 'print $8')"
	done
done
