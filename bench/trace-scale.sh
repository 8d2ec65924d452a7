#!/bin/bash
# Trace analysis at scale: synthetic traces of loopback request-response
# runs (build/bench/wb-bigtrace: the events a traced run records per
# request, two server/client CPU pairs) of each size in SIZES, analysed
# by `wakebench trace timeline` and `trace attribute` (with the server
# log) and, on the same events exported with `wakebench trace export
# --format trace.dat`, by `trace-cmd report` (its text to /dev/null) and
# by timeline and attribute again: that trace.dat beside the trace's
# meta.txt is the directory trace record writes (rows "(trace.dat)").
# Wall time and peak RSS (GNU time) of each, REPS runs alternating,
# medians; the timeline/attribute CSVs are written for real (page cache).
# Also the instruction counts of one timeline and one trace-cmd report
# run at the first size (valgrind --tool=callgrind: exact and repeatable,
# whatever else the machine does), when INSTR=1 (INSTR_TC=0: wakebench's
# alone, on both layouts; trace-cmd's takes minutes there).
# The traces, the trace.dat files and every output live in SCALE_DIR
# (default /dev/shm: memory), so that neither side waits for the disk:
# trace-cmd's text goes to /dev/null, wakebench's CSVs (2.2 GB at 100 M
# events) to tmpfs; on the disk the kernel's writeback of those CSVs
# competed with the analysis (timeline at 100 M events: 17.2 s with the
# trace and its CSVs on /tmp's ext4, 7.4-9.6 s on tmpfs).
# Each size is run at each CPU count in CPUS: 4 is the two pairs alone,
# 512 the same pairs on a big host's trace (wb-bigtrace's idle CPUs, a
# timer wake every 50-150 ms each, on top of the size's events).
#   usage: [SIZES="10000000 100000000"] [CPUS="4 512"] [REPS=3] [INSTR=0] [SCALE_DIR=/dev/shm] bench/trace-scale.sh
. "$(dirname "$0")/lib.sh"
SCALE=$(mktemp -d "${SCALE_DIR:-/dev/shm}/wbscale.XXXXXX") || exit 1
trap 'rm -rf "$SCALE"; bench_cleanup' EXIT
SIZES=${SIZES:-10000000 100000000}
CPUS=${CPUS:-4 512}
REPS=${REPS:-3}
GEN="$top/${O:-build}/bench/wb-bigtrace"
MED="$top/${O:-build}/bench/wb-median"
[ -x "$MED" ] || make -s -C "$top" "${MED#$top/}" >&2 || exit 1
[ -x "$GEN" ] || make -s -C "$top" "${O:-build}/bench/wb-bigtrace" >&2 || exit 1
command -v trace-cmd >/dev/null || { echo "bench: trace-cmd not installed (make deps)" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "bench: /usr/bin/time not installed (make deps)" >&2; exit 1; }

measure() {	# measure CMD...: prints "seconds peak_kb"
	/usr/bin/time -f '%e %M' -o "$BTMP/time" "$@" >/dev/null 2>"$BTMP/err" ||
		{ echo "bench: $* failed: $(tail -2 "$BTMP/err")" >&2; exit 1; }
	cat "$BTMP/time"
}
echo "$(date -u) cpuidle driver: $(cat /sys/devices/system/cpu/cpuidle/current_driver 2>/dev/null || echo none), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "Trace analysis at scale: synthetic loopback traces, median of $REPS runs; ratio: the median"
echo "of each rep's trace-cmd time over the wakebench time measured next to it [its 95 % CI, or min-max]"
printf '%-12s %5s %-26s %10s %12s  %s\n' events cpus tool seconds peak_rss_kb ratio
for nc in $(for n in $SIZES; do for c in $CPUS; do echo "$n:$c"; done; done); do
	n=${nc%:*} c=${nc#*:}
	d="$SCALE/t$n"
	rm -rf "$SCALE"/t*
	"$GEN" "$d" "$n" 1 "$c" > "$BTMP/gen.out" || exit 1
	"$WB" trace export "$d" --format trace.dat --out "$d.dat" > "$BTMP/export.out" ||
		{ echo "bench: export failed" >&2; exit 1; }
	# the same pages as trace record writes them now: meta.txt + trace.dat
	D="$d-dat"
	mkdir "$D" && cp "$d/meta.txt" "$D/" && ln "$d.dat" "$D/trace.dat" || exit 1
	: > "$BTMP/rows"
	# a fresh analysis: the previous rep's outputs are removed untimed
	# (replacing 2.2 GB of them freed their pages inside the timed run)
	fresh() { for x in "$d" "$D"; do rm -f "$x"/cstate-cpu*.csv "$x"/{wakeups,irq,residency,markers,attribution,attribution-summary,breakdown}.csv; done; }
	for r in $(seq "$REPS"); do
		fresh
		read -r s m <<< "$(measure "$WB" trace timeline "$d")"; echo "tl $s $m $r" >> "$BTMP/rows"
		read -r s m <<< "$(measure trace-cmd report -i "$d.dat")"; echo "tc $s $m $r" >> "$BTMP/rows"
		fresh
		read -r s m <<< "$(measure "$WB" trace attribute "$d" --requests "$d/server.csv" --cpu 0)"
		echo "at $s $m $r" >> "$BTMP/rows"
		read -r s m <<< "$(measure "$WB" trace timeline "$D")"; echo "td $s $m $r" >> "$BTMP/rows"
		read -r s m <<< "$(measure "$WB" trace attribute "$D" --requests "$d/server.csv" --cpu 0)"
		echo "ad $s $m $r" >> "$BTMP/rows"
	done
	med() { awk -v t="$1" -v c="$2" '$1 == t { print $c }' "$BTMP/rows" | median; }
	# each rep's trace-cmd time over the wakebench time next to it
	paired() {
		awk -v t="$1" '{ v[$1, $4] = $2; r[$4] = 1 }
			END { for (k in r) if (v[t, k] > 0) print v["tc", k] / v[t, k] }' "$BTMP/rows" |
			"$MED" | awk '{ printf "%.1f [%.1f-%.1f]", $1, $2, $3 }'
	}
	for t in tl at td ad tc; do
		name=$(case $t in tl) echo "wakebench trace timeline";; at) echo "wakebench trace attribute";;
			td) echo "timeline (trace.dat)";; ad) echo "attribute (trace.dat)";; tc) echo "trace-cmd report";; esac)
		printf '%-12s %5s %-26s %10s %12s  %s\n' "$n" "$c" "$name" "$(med $t 2)" "$(med $t 3)" \
			"$([ $t = tc ] && echo 1 || paired $t)"
	done
	echo "  ($(cat "$BTMP/gen.out"); $(tail -1 "$BTMP/export.out"))"
	if [ "${INSTR:-0}" = 1 ] && [ "$n" = "${SIZES%% *}" ] && [ "$c" = "${CPUS%% *}" ] &&
		command -v valgrind >/dev/null; then
		echo 0 > "$BTMP/ir.tc"
		for t in tl td $([ "${INSTR_TC:-1}" = 1 ] && echo tc); do
			if [ $t != tc ]; then
				valgrind --tool=callgrind --callgrind-out-file="$BTMP/cg.$t" "$top/${O:-build}/bin/wakebench-trace" timeline \
					"$([ $t = tl ] && echo "$d" || echo "$D")" >/dev/null 2>"$BTMP/cg.err"
			else
				valgrind --tool=callgrind --callgrind-out-file="$BTMP/cg.$t" trace-cmd report -i "$d.dat" >/dev/null 2>"$BTMP/cg.err"
			fi
			sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$BTMP/cg.err" > "$BTMP/ir.$t"
		done
		echo "  instructions (callgrind): timeline $(cat "$BTMP/ir.tl"), on trace.dat $(cat "$BTMP/ir.td"), trace-cmd report $(cat "$BTMP/ir.tc"), ratio $(awk -v a="$(cat "$BTMP/ir.tc")" -v b="$(cat "$BTMP/ir.tl")" 'BEGIN { printf "%.1f", a / b }')"
	fi
	rm -rf "$d" "$d.dat" "$D"
done
