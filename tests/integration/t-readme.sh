# Every command example of the Markdown documents (the ```sh blocks of
# README.md, of every guide in docs/*.md and of bench/RESULTS.md) and of
# the man pages (.nf/.fi and .EX/.EE blocks of EXAMPLE sections, and any
# such block elsewhere that starts with a wakebench command) is run, so
# the documentation cannot drift from the programs. The examples are read
# from the documents at run time: they are the source of truth, nothing
# is copied here.
#
# How an example runs:
# - Each document gets a scratch directory with a symlink build ->
#   $WB_TOP/$O (so build/bin/wakebench works) and $WB_TOP/$O/bin first in
#   PATH (so the man pages' bare 'wakebench' works); scripts/ is linked
#   too (the sweep spec). Examples of one document run in order in the
#   same directory, so a later one may use what an earlier one wrote.
# - A command that serves forever (wakebench server or midtier, also as
#   the COMMAND of 'wakebench cstate ... --'; memcached and redis-server,
#   also behind 'taskset -c N') is started in the background (a trailing
#   '&' in the document is dropped) and waited for until its ports listen. It keeps serving
#   the following examples until a later example starts another server
#   on one of its ports, or the document ends; then it gets SIGTERM and
#   must exit 0 (and leave its --log). A server without --port listens
#   on its default, 7000.
# - Everything else runs in the foreground under a timeout
#   (WB_README_TIMEOUT seconds, default 90) and must exit 0; files it
#   names with --out or --log, and the outputs of stats, report, trace
#   timeline and trace attribute, must exist afterwards.
# - Fixed ports (7000, 7001, 7100, ...) are replaced, consistently within
#   a document, by free ports; sweeps get a free --server-port.
# - Scaled down so that the whole test takes a couple of minutes (the
#   command actually run is printed): a client's --requests is capped at
#   WB_README_REQUESTS (100) and its --duration at WB_README_DURATION (1)
#   seconds, a wake's --count at the same cap (given to one that has
#   neither --count nor --duration) and its --duration likewise, a trace
#   command's --duration too; a sweep
#   runs WB_README_SWEEP_REPS (1)
#   repetitions of WB_README_SWEEP_REQUESTS (30) requests a run.
# - Needs root: trace record/timeline/attribute/export and trace-cmd
#   report (of the export) (and tracefs with
#   power:cpu_idle), cstate disable/enable/limit/hold/restore, network
#   namespaces. Without root these are reported SKIP, with the reason.
# - 'cstate disable/enable STATE...' naming states this machine does not
#   have (C6 on a VM) runs on a synthetic sysfs tree ($WAKEBENCH_SYSFS,
#   as t-cstate.sh does) with those states, and must restore them.
# - 'sweep --server-exec 'ip netns exec srv' ...' gets the namespaces srv
#   and cli, joined by a veth pair with 169.254.77.1/.2, made here (as
#   root, and only if neither exists) and removed afterwards.
# - Not run: 'make ...' (make deps, make check): CI runs those
#   (.ci/run), and make check runs this test. But 'make ... demo' (the
#   quick start) runs the demo itself, scripts/demo.sh, scaled down to
#   WB_README_DEMO_PAIRS (6) pairs of WB_README_DEMO_REQUESTS (50)
#   requests, and checks what it prints: the paired effect of avg, p50
#   and p99, each with its CI over the pairs (or [-] below 6) and a
#   verdict; no single run's ratio ("speedup"); no WARNING when every run
#   passed its gap and independence tests and kept its schedule, and
#   each WARNING naming the pair, the side and the test with its numbers;
#   the result directory describing itself, its runs in alternating pairs.
# WB_README_LIST=1 only lists the examples as they would run;
# WB_README_DOCS="README.md docs/tracing.md ..." runs only those
# documents (paths from the top of the tree).
# Each example is reported PASS/FAIL/SKIP/NOT RUN with its place
# (README.md:LINE, docs/x.md:LINE, man/x.1:LINE); a failure shows its
# output's tail. Every Markdown document with a ```sh block, and every
# man page with an EXAMPLE section, must yield examples: README.md at
# least 8 (its tour), the Markdown documents together at least 35 (what
# README.md alone had before the guides took most of it).
. "$(dirname "$0")/lib.sh"

TIMEOUT=${WB_README_TIMEOUT:-90}
MAXREQ=${WB_README_REQUESTS:-100}
MAXDUR=${WB_README_DURATION:-1}
SWREPS=${WB_README_SWEEP_REPS:-1}
SWREQ=${WB_README_SWEEP_REQUESTS:-30}
DEMOPAIRS=${WB_README_DEMO_PAIRS:-6}
DEMOREQ=${WB_README_DEMO_REQUESTS:-50}
ROOT=0; [ "$(id -u)" = 0 ] && ROOT=1
T=/sys/kernel/tracing
nfail=0 npass=0 nskip=0 nnot=0 failed=()

# ---------------------------------------------------------------------------
# Extraction: "LINE<TAB>TEXT" per line of each example block, a line
# "--" after each block.

readme_blocks() {	# FILE
	awk '/^```sh[[:space:]]*$/ { inb = 1; next }
	     inb && /^```/ { inb = 0; print "--"; next }
	     inb { print NR "\t" $0 }' "$1"
}

# roff: .nf/.fi or .EX/.EE blocks in EXAMPLE(S) sections, or anywhere if
# their first line is a wakebench command; escapes undone.
man_blocks() {	# FILE
	awk '
	function unesc(s) {
		gsub(/\\-/, "-", s); gsub(/\\\(aq/, "\047", s); gsub(/\\\(dq/, "\"", s)
		gsub(/\\\(em/, "--", s); gsub(/\\\(en/, "-", s); gsub(/\\&/, "", s)
		gsub(/\\e/, "\\", s)
		return s
	}
	/^\.SH/ { sec = $2; next }
	/^\.(nf|EX)([[:space:]]|$)/ { inb = 1; n = 0; next }
	inb && /^\.(fi|EE)([[:space:]]|$)/ {
		inb = 0
		if (sec ~ /^"?EXAMPLES?"?$/ || first ~ /^wakebench [a-z]/) {
			for (i = 1; i <= n; i++) print buf[i]
			print "--"
		}
		next
	}
	inb && /^\./ { next }
	inb { s = unesc($0); if (n == 0) first = s; buf[++n] = NR "\t" s }
	' "$1"
}

# Splits blocks into whole commands (continuation lines and multi-line
# quotes joined; comment lines dropped): one file per example in $2,
# named NNN, holding the command; NNN.at holds FILE:LINE.
split_examples() {	# DOCNAME OUTDIR  (blocks on stdin)
	local doc=$1 out=$2 n=0 acc= start= ln text
	mkdir -p "$out"
	emit() {
		n=$((n + 1))
		printf '%s' "$acc" > "$out/$(printf %03d $n)"
		echo "$doc:$start" > "$out/$(printf %03d $n).at"
		acc=
	}
	while IFS= read -r ln; do
		if [ "$ln" = "--" ]; then
			# An example that never parsed: kept, so that it fails.
			[ -n "$acc" ] && emit
			continue
		fi
		text=${ln#*$'\t'}
		if [ -z "$acc" ]; then
			[[ $text =~ ^[[:space:]]*(#.*)?$ ]] && continue
			start=${ln%%$'\t'*}
		fi
		acc+="$text"$'\n'
		[[ $text == *\\ ]] && continue
		bash -n <<<"$acc" 2>/dev/null || continue
		emit
	done
}

# ---------------------------------------------------------------------------
# Ports: every fixed port in a document's examples maps to a free one.

declare -A PMAP=()
# Free: no TCP listener or UDP socket on it (TIME_WAIT left by an
# earlier example's connections does not stop a listener binding it).
port_free() { [ -z "$(ss -Hltnu "sport = :$1" 2>/dev/null)" ]; }
declare -A TAKEN=()
# PORT_LO..EPH_LO: below the ephemeral range (lib.sh)
new_port() {	# FP = a free port whose successor is free too (the sweep's pre-query port)
	local p
	for _ in $(seq 200); do
		p=$((PORT_LO + RANDOM % (EPH_LO - PORT_LO - 2)))
		[ -n "${TAKEN[$p]:-}" ] || [ -n "${TAKEN[$((p + 1))]:-}" ] && continue
		port_free $p && port_free $((p + 1)) || continue
		TAKEN[$p]=1; TAKEN[$((p + 1))]=1
		FP=$p; return 0
	done
	fail "no free port found"
}
PORTRE='(--(?:port|prequery-port|backend-prequery-port|listen|server-port)[ =]|memcached\b[^\n]*?\s-p |(?:127\.0\.0\.1|localhost):)(\d{2,5})\b'
map_ports() {	# FILE...: fill PMAP for every fixed port they name
	local p
	for p in $(perl -ne 'while (/'"$PORTRE"'/g) { print "$2\n" }' "$@" | sort -u); do
		[ "$p" = 0 ] && continue
		[ -n "${PMAP[$p]:-}" ] && continue
		new_port; PMAP[$p]=$FP
	done
}

# The command actually run: a server without --port gets its default
# 7000 made explicit, ports mapped, runs scaled down.
rewrite() {	# FILE: prints the rewritten command
	local map= k
	for k in "${!PMAP[@]}"; do map+="$k=${PMAP[$k]} "; done
	MAP="$map" MAXREQ=$MAXREQ MAXDUR=$MAXDUR SWREPS=$SWREPS SWREQ=$SWREQ SWPORT=$SWPORT perl -0777 -pe '
		BEGIN { %m = map { split /=/ } split " ", $ENV{MAP} }
		# "wakebench server" with no --port: the default, 7000.
		s{(wakebench server)((?:\\\n|[^\n&;|\x27])*)}{
			my ($a, $b) = ($1, $2);
			$b =~ /--port[ =]/ ? "$a$b" : "$a --port 7000$b" }ge;
		s{'"$PORTRE"'}{ $1 . (exists $m{$2} ? $m{$2} : $2) }ge;
		# clients: --requests capped
		s{(wakebench client\b(?:[^\n;&|]|\\\n)*?--requests )(\d+)}{
			$1 . ($2 > $ENV{MAXREQ} ? $ENV{MAXREQ} : $2) }ge;
		# and --duration
		s{(wakebench client\b(?:[^\n;&|]|\\\n)*?--duration )(\d+)}{
			$1 . ($2 > $ENV{MAXDUR} ? $ENV{MAXDUR} : $2) }ge;
		# wake: --count capped like the requests (its default is 1000),
		# --duration like a client
		s{(wakebench wake\b(?:[^\n;&|]|\\\n)*?--count )(\d+)}{
			$1 . ($2 > $ENV{MAXREQ} ? $ENV{MAXREQ} : $2) }ge;
		s{(wakebench wake\b(?:[^\n;&|]|\\\n)*?--duration )(\d+)}{
			$1 . ($2 > $ENV{MAXDUR} ? $ENV{MAXDUR} : $2) }ge;
		s{(wakebench wake\b)(?!(?:[^\n;&|]|\\\n)*?--(?:count|duration)\b)}{$1 --count $ENV{MAXREQ}}g;
		# trace residency, record, capture: --duration like a client
		s{(wakebench trace\b(?:[^\n;&|]|\\\n)*?--duration )(\d+)}{
			$1 . ($2 > $ENV{MAXDUR} ? $ENV{MAXDUR} : $2) }ge;
		# sweeps: repetitions and requests scaled, a free server port
		s{(wakebench sweep\b(?:\\\n|[^\n#])*)}{
			my $c = $1;
			# --resume takes the spec the sweep recorded: nothing added
			if ($c !~ /\s--resume\b/) {
				$c =~ s/\s--(reps|requests)\s+\d+//g;
				$c =~ s/\s*\\\n\s*/ /g;
				$c .= " --reps $ENV{SWREPS} --requests $ENV{SWREQ}";
				$c .= " --server-port $ENV{SWPORT}" unless $c =~ /--server-port/;
			}
			"$c " }ge;
	' "$1"
}

# ---------------------------------------------------------------------------
# Classification.

norm() { sed 's#build/bin/wakebench#wakebench#g' "$1"; }
# The program a command finally runs, behind 'cstate SUB ... --'.
serves_forever() {	# FILE
	norm "$1" | perl -0777 -ne 'exit !(/\A\s*wakebench\s+(?:cstate\s+\w+[^\n]*?\s--\s+)?wakebench\s+(server|midtier)\b/ || /\A\s*wakebench\s+(server|midtier)\b/ ||
		/\A\s*(?:taskset\s+-c\s+\S+\s+)?(?:memcached|redis-server)\b/)'
}
needs_root() {	# FILE: prints the reason, or nothing
	local c; c=$(norm "$1")
	if [[ $c =~ wakebench\ trace\ (record|timeline|attribute|export) || $c =~ trace-cmd\ report ]]; then
		echo "tracefs (trace record; timeline, attribute and export read its trace, trace-cmd report the export)"
	elif [[ $c =~ ^[[:space:]]*wakebench\ cstate\ (disable|enable|limit|hold|governor|restore) ]]; then
		echo "changing idle states / PM QoS"
	elif [[ $c == *"ip netns"* ]]; then
		echo "network namespaces"
	fi
}

# 'wake --states each' enables the machine's idle states one at a time:
# without a cpuidle driver (plain HLT) there are none, and wake refuses.
needs_idle_states() {	# FILE: prints the reason, or nothing
	local c; c=$(norm "$1")
	[[ $c =~ wakebench\ wake\ .*--states\ [a-z,]*each ]] || return 0
	ls -d /sys/devices/system/cpu/cpu0/cpuidle/state0 >/dev/null 2>&1 ||
		echo "no cpuidle states here (--states each enables them one at a time)"
}

# States named by 'cstate disable|enable' that this machine lacks.
missing_states() {	# FILE
	local c s found
	c=$(norm "$1")
	[[ $c =~ ^[[:space:]]*wakebench\ cstate\ (disable|enable)\ ([^-]*) ]] || return 0
	for s in ${BASH_REMATCH[2]}; do
		found=0
		for f in /sys/devices/system/cpu/cpu[0-9]*/cpuidle/state*/name; do
			[ -r "$f" ] || continue
			[ "${s,,}" = "$(tr '[:upper:]' '[:lower:]' < "$f")" ] && found=1 && break
			[[ $s =~ ^[0-9]+$ ]] && [ -d "${f%/name}/../state$s" ] && found=1 && break
		done
		[ $found = 1 ] || echo "$s"
	done
}

fake_states() {	# DIR STATE...: a synthetic sysfs with POLL and these states
	local dir=$1 cpu i s d; shift
	mkdir -p "$dir/sys/devices/system/cpu/cpuidle" "$dir/state"
	echo fake_idle > "$dir/sys/devices/system/cpu/cpuidle/current_driver"
	echo menu > "$dir/sys/devices/system/cpu/cpuidle/current_governor_ro"
	for ((cpu = 0; cpu < $(nproc); cpu++)); do
		i=0
		for s in POLL "$@"; do
			d="$dir/sys/devices/system/cpu/cpu$cpu/cpuidle/state$i"
			mkdir -p "$d"
			echo "$s" > "$d/name"; echo "fake $s" > "$d/desc"
			echo $((i * 20)) > "$d/latency"; echo $((i * 60)) > "$d/residency"
			echo 10 > "$d/usage"; echo 100 > "$d/time"; echo 0 > "$d/disable"
			i=$((i + 1))
		done
	done
	: > "$dir/pmqos"
}

# Files an example says it writes (paths relative to the scratch dir).
expected_files() {	# FILE
	norm "$1" | perl -0777 -ne '
		exit if /--dry-run/;
		print "$1\n" while /--(?:out|log)[ =]([^\s;&|\x27"]+)/g;
		print "$1/summary.csv\n" while /wakebench stats ([^\s;&|-][^\s;&|]*)/g;
		print "$1/report/index.html\n" while /wakebench report ([^\s;&|-][^\s;&|]*)/g;
		print "$1/residency.csv\n" while /wakebench trace timeline ([^\s;&|-][^\s;&|]*)/g;
		print "$1/attribution.csv\n" while /wakebench trace attribute ([^\s;&|-][^\s;&|]*)/g;
		print "$1/sweep.csv\n$1/summary.csv\n" while /wakebench sweep\b[^\n]*?--out ([^\s;&|]+)/g;
	'
}

# ---------------------------------------------------------------------------
# Running.

report() {	# RESULT AT MESSAGE
	printf '%-7s %-26s %s\n' "$1" "$2" "$3"
	case $1 in
	PASS) npass=$((npass + 1)) ;;
	FAIL) nfail=$((nfail + 1)); failed+=("$2") ;;
	SKIP) nskip=$((nskip + 1)) ;;
	*) nnot=$((nnot + 1)) ;;
	esac
}
show_cmd() { sed 's/^/          $ /' "$1"; }
tail_of() {	# LOG: its error lines, then its tail
	if grep -qiE 'fail|error|cannot|refused|no such|usage|left running' "$1"; then
		echo "          --- output (errors) ---"
		grep -iE 'fail|error|cannot|refused|no such|usage|left running' "$1" | head -n 10 | cut -c1-200 | sed 's/^/          | /'
	fi
	echo "          --- output (tail) ---"; tail -n 20 "$1" | cut -c1-200 | sed 's/^/          | /'
}

check_files() {	# CMDFILE DIR: prints the missing ones
	local f
	expected_files "$1" | sort -u | while IFS= read -r f; do
		[ -e "$2/$f" ] || echo "$f"
	done
}

# Background servers of the current document: pid, ports, place, files.
BG_PIDS=() BG_PORTS=() BG_AT=() BG_CMD=() BG_LOG=() BG_FAKE=()
stop_bg() {	# INDEX
	local i=$1 pid=${BG_PIDS[$1]} rc miss
	[ -n "$pid" ] || return 0
	kill -TERM "$pid" 2>/dev/null
	for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
	if kill -0 "$pid" 2>/dev/null; then
		kill -KILL "$pid" 2>/dev/null; wait "$pid" 2>/dev/null
		report FAIL "${BG_AT[$i]}" "did not exit within 10 s of SIGTERM"
		tail_of "${BG_LOG[$i]}"
	else
		wait "$pid"; rc=$?
		miss=$(check_files "${BG_CMD[$i]}" "$DIR")
		if [ -n "${BG_FAKE[$i]}" ] && grep -qx 1 "${BG_FAKE[$i]}"/sys/devices/system/cpu/cpu*/cpuidle/state*/disable; then
			miss+=" (idle states not restored)"
		fi
		if [ $rc != 0 ] || [ -n "$miss" ]; then
			report FAIL "${BG_AT[$i]}" "served, then exit $rc after SIGTERM${miss:+; missing: $miss}"
			show_cmd "${BG_CMD[$i]}"; tail_of "${BG_LOG[$i]}"
		else
			report PASS "${BG_AT[$i]}" "served in the background, exit 0 on SIGTERM"
		fi
	fi
	BG_PIDS[$i]=
}
stop_bg_on() {	# PORT...: stop background servers holding any of these ports
	local i p
	for i in "${!BG_PIDS[@]}"; do
		[ -n "${BG_PIDS[$i]}" ] || continue
		for p in "$@"; do
			[[ " ${BG_PORTS[$i]} " == *" $p "* ]] && { stop_bg "$i"; break; }
		done
	done
}
listen_ports() {	# CMDFILE: the ports the servers and midtiers of the rewritten command listen on
	perl -0777 -ne 'while (/wakebench (?:server|midtier)((?:\\\n|[^\n&;|\x27])*)/g) {
		my $a = $1; print "$1\n" while $a =~ /--(?:port|prequery-port|listen)[ =](\d+)/g }
		print "$1\n" while /(?:memcached\b[^\n]*?\s-p |redis-server\b[^\n]*?\s--port )(\d+)/g' "$1"
}

# Namespaces for the 'ip netns exec srv/cli' example.
NS_MADE=0 NS_WHY=
make_netns() {	# (not in a subshell: NS_MADE must stick) NS_WHY says why not
	ip netns list 2>/dev/null | grep -Eq '^(srv|cli)( |$)' && { NS_WHY="namespaces srv/cli already exist here: left alone"; return 1; }
	ip netns add srv 2>/dev/null || { NS_WHY="ip netns unavailable"; return 1; }
	NS_MADE=1
	ip netns add cli && ip link add wbrd$$a type veth peer name wbrd$$b &&
	ip link set wbrd$$a netns srv && ip link set wbrd$$b netns cli &&
	ip -n srv addr add 169.254.77.1/24 dev wbrd$$a && ip -n cli addr add 169.254.77.2/24 dev wbrd$$b &&
	ip -n srv link set lo up && ip -n cli link set lo up &&
	ip -n srv link set wbrd$$a up && ip -n cli link set wbrd$$b up || { NS_WHY="could not set up the veth pair"; return 1; }
}
del_netns() { [ $NS_MADE = 1 ] && { ip netns del srv; ip netns del cli; } 2>/dev/null; NS_MADE=0; }
trap 'del_netns; cleanup' EXIT

MYPGID=$(ps -o pgid= -p $$ | tr -d ' ')
leftovers() {	# pids with cwd $DIR that are not in this test's process group
	local p pids=
	for p in /proc/[0-9]*; do
		[ "$p/cwd" -ef "$DIR" ] 2>/dev/null || continue
		[ "$(ps -o pgid= -p "${p#/proc/}" 2>/dev/null | tr -d ' ')" = "$MYPGID" ] && continue
		pids+="${p#/proc/} "
	done
	echo $pids
}

# demo_check LOG DIR: what is wrong with the demo's output LOG and its
# result directory DIR, one line each; nothing when it is right.
demo_check() {
	local log=$1 d=$2 m failed=0 s w pts
	grep -q '^paired effect, without / with pre-query' "$log" || echo "no paired effect"
	for m in avg p50 p99; do
		grep -Eq "^  $m +([0-9.]+  \[[0-9.]+, [0-9.]+\]  (faster|slower|undecided at n=[0-9]+)|([0-9.]+|-)  \[-\]  undecided at n=[0-5])\$" "$log" ||
			echo "no paired $m with its CI and verdict"
	done
	grep -qi 'speedup' "$log" && echo "a single run's ratio: $(grep -i -m1 speedup "$log")"
	ls "$d"/*/rep-*/client/summary.txt > /dev/null 2>&1 || echo "no runs in the result directory"
	# what the runs' own workload tests and schedule rule said
	for s in "$d"/*/rep-*/client/summary.txt; do
		[ -f "$s" ] || continue
		grep -Eq '^test (gaps|independence) +(misfits|fails) ' "$s" && failed=1
		[ "$(csv_col "${s%.txt}.csv" behind_schedule)" = 1 ] && failed=1
	done
	# a run that failed (another process held a port or a CPU's PM QoS) is said too
	csv_col "$d/sweep.csv" status 2>/dev/null | grep -qvx ok && failed=1
	grep -q '^workload tests' "$log" || echo "no workload tests"
	if [ $failed = 0 ]; then
		grep -q WARNING "$log" && echo "a WARNING though every run passed: $(grep -m1 WARNING "$log")"
	fi
	while IFS= read -r w; do
		[[ $w =~ ^\ \ WARNING:\ pair\ [0-9]+,\ with(out)?\ pre-query:\ .*(test\ failed\ \(.*[0-9]|behind\ schedule:\ .*[0-9]|the\ run\ ) ]] ||
			echo "a WARNING that does not name its test and numbers: $w"
	done < <(grep WARNING "$log")
	for m in cmdline.txt sweep.spec plan.txt sweep.csv summary.csv report.txt; do
		[ -s "$d/$m" ] || echo "no $m in the result directory"
	done
	# pairs back to back, without first in odd pairs, with first in even
	pts=$(awk '{ printf "%s:%s ", $2, ($1 ~ /_pq-off_/ ? "off" : "on") }' "$d/plan.txt" 2>/dev/null)
	[[ $pts == "1:off 1:on 2:on 2:off 3:off 3:on "* ]] || echo "runs not in alternating pairs: $pts"
	if [ $ROOT = 1 ] && [ -d $T/events/power/cpu_idle ]; then
		grep -q '^requests that found cpu[0-9]* idle (pair 1, with pre-query)' "$log" || echo "no traced pair"
	fi
}

# 'make ... demo': the demo, scaled down, and its output checked
run_demo() {	# AT
	local at=$1 log="$TMP/demo.log" d="$TMP/demo" rc t0=$SECONDS bad
	new_port
	( cd "$DIR" && exec env WB_DEMO_OUT="$d" WB_DEMO_PAIRS="$DEMOPAIRS" WB_DEMO_REQUESTS="$DEMOREQ" \
		WB_DEMO_PORT="$FP" timeout -k 5 "$TIMEOUT" "$WB_TOP/scripts/demo.sh" ) > "$log" 2>&1 < /dev/null
	rc=$?
	bad=$(demo_check "$log" "$d")
	if [ $rc != 0 ] || [ -n "$bad" ]; then
		report FAIL "$at" "the demo: exit $rc${bad:+; ${bad//$'\n'/; }}"; tail_of "$log"
	else
		report PASS "$at" "$(printf '%3d s ' $((SECONDS - t0)))the demo ($DEMOPAIRS pairs of $DEMOREQ requests)"
	fi
}

run_example() {	# EXFILE
	local ex=$1 at cmd log why rc miss states env=() fake= ports p
	at=$(cat "$ex.at")
	cmd="$ex.run"; log="$ex.log"
	if norm "$ex" | grep -Eq '^[[:space:]]*make\b[^#]*[[:space:]]demo\b'; then
		run_demo "$at"
		return
	fi
	if norm "$ex" | grep -q '^[[:space:]]*make\b'; then
		report "NOT RUN" "$at" "'$(head -1 "$ex" | sed 's/[[:space:]]*#.*//')': CI runs it (.ci/run); make check runs this test"
		return
	fi
	why=$(needs_root "$ex")
	if [ -n "$why" ] && [ $ROOT = 0 ]; then
		report SKIP "$at" "needs root: $why"; show_cmd "$ex"; return
	fi
	if [[ $why == tracefs* ]] && [ ! -d $T/events/power/cpu_idle ]; then
		report SKIP "$at" "no tracefs with power:cpu_idle here"; show_cmd "$ex"; return
	fi
	why=$(needs_idle_states "$ex")
	if [ -n "$why" ]; then
		report SKIP "$at" "$why"; show_cmd "$ex"; return
	fi
	new_port; SWPORT=$FP
	rewrite "$ex" > "$cmd"
	# a server the document starts with '&' runs in the background here
	serves_forever "$ex" && perl -0777 -i -pe 's/\s*&\s*(#[^\n]*)?\s*\z/\n/' "$cmd"
	states=$(missing_states "$ex" | tr '\n' ' ')
	if [ -n "$states" ]; then
		fake="$ex.sysfs"
		fake_states "$fake" $(norm "$ex" | sed -n 's/^[[:space:]]*wakebench cstate [a-z]* \([^-]*\).*/\1/p' | head -1)
		env=(WAKEBENCH_SYSFS="$fake/sys" WAKEBENCH_STATE_DIR="$fake/state" WAKEBENCH_PMQOS_DEV="$fake/pmqos")
		echo "          (no idle state ${states% } here: on a synthetic sysfs, \$WAKEBENCH_SYSFS)"
	fi
	if [[ $(norm "$ex") == *"ip netns exec srv"* ]]; then
		if ! make_netns; then report SKIP "$at" "$NS_WHY"; del_netns; return; fi
	fi
	# A server of this example takes over the ports of an earlier one.
	ports=$(listen_ports "$cmd")
	stop_bg_on $ports
	if serves_forever "$ex"; then
		for p in $ports; do
			port_free "$p" && continue
			report FAIL "$at" "port $p is taken before it starts (a process left by an earlier example?)"
			show_cmd "$cmd"; return
		done
		( cd "$DIR" && exec env "${env[@]}" PATH="$WB_BIN:$PATH" bash -c "exec $(cat "$cmd")" ) > "$log" 2>&1 &
		local pid=$! ok=0
		for _ in $(seq 250); do
			kill -0 $pid 2>/dev/null || break
			ok=1
			for p in $ports; do port_free "$p" && ok=0; done
			[ $ok = 1 ] && break
			sleep 0.02
		done
		if [ $ok = 0 ]; then
			kill -TERM $pid 2>/dev/null; wait $pid 2>/dev/null
			report FAIL "$at" "did not come up listening on ${ports//$'\n'/ }"
			show_cmd "$cmd"; tail_of "$log"; return
		fi
		BG_PIDS+=("$pid"); BG_PORTS+=("$(echo $ports)"); BG_AT+=("$at")
		BG_CMD+=("$cmd"); BG_LOG+=("$log"); BG_FAKE+=("$fake")
		printf '%-7s %-26s %s\n' "..." "$at" "serving in the background (pid $pid)"
		return
	fi
	local t0=$SECONDS
	( cd "$DIR" && exec env "${env[@]}" PATH="$WB_BIN:$PATH" timeout -k 5 "$TIMEOUT" bash -c "$(cat "$cmd")" ) > "$log" 2>&1 < /dev/null
	rc=$?
	t0=$((SECONDS - t0))
	# Whatever the example started must have ended with it: a process left
	# in the scratch directory outside this test's own process group (the
	# background servers) is a failure, and is stopped.
	local left
	left=$(leftovers)
	if [ -n "$left" ]; then
		echo "left running: $(ps -o args= -p "$left" | tr '\n' ';')" >> "$log"
		kill $left 2>/dev/null
		[ $rc = 0 ] && rc=1
	fi
	del_netns
	miss=$(check_files "$ex" "$DIR" | tr '\n' ' ')
	if [ $rc = 124 ]; then
		report FAIL "$at" "timed out after ${TIMEOUT} s"; show_cmd "$cmd"; tail_of "$log"
	elif [ $rc != 0 ] || [ -n "$miss" ]; then
		report FAIL "$at" "exit $rc${miss:+; missing: $miss}"; show_cmd "$cmd"; tail_of "$log"
	else
		report PASS "$at" "$(printf '%3d s ' $t0)$(head -1 "$ex" | sed 's/^[[:space:]]*//; s/[[:space:]]*#.*//' | cut -c1-56)$([ "$(wc -l < "$ex")" -gt 1 ] && echo ' ...')"
	fi
}

# ---------------------------------------------------------------------------

cd "$WB_TOP" || fail "no $WB_TOP"
[ -x "$WB_BIN/wakebench" ] || fail "no $WB_BIN/wakebench: build first"
if [ -n "${WB_README_DOCS:-}" ]; then
	read -r -a docs <<< "$WB_README_DOCS"
else
	docs=(README.md docs/*.md bench/RESULTS.md man/*.1)
fi
nmd=0
for doc in "${docs[@]}"; do
	[ -f "$doc" ] || fail "$doc: no such document"
	d="$TMP/ex/$(echo "$doc" | tr / _)"
	case $doc in
	*.md) readme_blocks "$doc" ;;
	*) man_blocks "$doc" ;;
	esac | split_examples "$doc" "$d"
	# A page with an EXAMPLE section must yield examples; a Markdown
	# document with a ```sh block too.
	if grep -q '^```sh[[:space:]]*$' "$doc" || grep -q '^\.SH "\?EXAMPLES\?"\?$' "$doc"; then
		[ -n "$(ls "$d" 2>/dev/null)" ] || fail "$doc: no examples found (extraction broken?)"
	fi
	case $doc in *.md) nmd=$((nmd + $(ls "$d" 2>/dev/null | grep -c '\.at$'))) ;; esac
done
if [ -z "${WB_README_DOCS:-}" ]; then
	[ "$(ls "$TMP"/ex/README.md/*.at | wc -l)" -ge 8 ] || fail "README.md: fewer than 8 examples found (the tour)"
	[ $nmd -ge 35 ] || fail "Markdown documents: $nmd examples, fewer than 35 (extraction broken, or examples lost?)"
fi

echo "examples run in scratch directories under $TMP (build -> $WB_TOP/$O)"
for doc in "${docs[@]}"; do
	d="$TMP/ex/$(echo "$doc" | tr / _)"
	[ -n "$(ls "$d" 2>/dev/null)" ] || continue
	DIR="$TMP/run/$(echo "$doc" | tr / _)"
	mkdir -p "$DIR"
	ln -s "$WB_TOP/$O" "$DIR/build"
	ln -s "$WB_TOP/scripts" "$DIR/scripts"
	PMAP=()
	new_port; PMAP[7000]=$FP	# the server's default port, made explicit
	map_ports "$d"/[0-9][0-9][0-9]
	pm=; for k in $(printf '%s\n' "${!PMAP[@]}" | sort -n); do pm+=" $k->${PMAP[$k]}"; done
	echo "== $doc${pm:+ (ports$pm)}"
	BG_PIDS=() BG_PORTS=() BG_AT=() BG_CMD=() BG_LOG=() BG_FAKE=()
	for ex in "$d"/[0-9][0-9][0-9]; do
		if [ -n "${WB_README_LIST:-}" ]; then
			new_port; SWPORT=$FP
			echo "-- $(cat "$ex.at")$(serves_forever "$ex" && echo ' [serves]')$(r=$(needs_root "$ex"); [ -n "$r" ] && echo " [root: $r]")"
			rewrite "$ex"; echo "   files: $(expected_files "$ex" | tr '\n' ' ')"
			continue
		fi
		run_example "$ex"
	done
	for i in "${!BG_PIDS[@]}"; do stop_bg "$i"; done
done

echo "examples: $npass passed, $nfail failed, $nskip skipped, $nnot not run"
[ $nfail = 0 ] || fail "failed: ${failed[*]}"
