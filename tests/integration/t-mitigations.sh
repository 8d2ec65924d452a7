# Mitigations as settings a run can apply (issue 35): the server's
# --so-busy-poll is SO_BUSY_POLL on every socket, read back here from
# the server's own sockets with getsockopt (pidfd_getfd: this test holds
# a copy of each), refused without CAP_NET_ADMIN. Then as sweep
# dimensions: governor around each run and restored (after a SIGINT
# too), server_busy_poll and so_busy_poll on the server's command line,
# and a governor the kernel lacks refused before anything runs.
. "$(dirname "$0")/lib.sh"
need_root

# so_busy_poll PID: "PORT_OR_PEER=VALUE ..." for every TCP socket of PID
so_busy_poll() {
	python3 - "$1" <<'EOF'
import ctypes, os, socket, sys
pid = int(sys.argv[1])
libc = ctypes.CDLL(None, use_errno=True)
pidfd = os.pidfd_open(pid)
out = []
for name in sorted(os.listdir(f"/proc/{pid}/fd"), key=int):
    try:
        if not os.readlink(f"/proc/{pid}/fd/{name}").startswith("socket:"):
            continue
    except OSError:
        continue
    fd = libc.syscall(438, pidfd, int(name), 0)	# pidfd_getfd
    if fd < 0:
        sys.exit(f"pidfd_getfd: {os.strerror(ctypes.get_errno())}")
    s = socket.socket(fileno=fd)
    if s.type == socket.SOCK_STREAM:
        v = s.getsockopt(socket.SOL_SOCKET, 46)	# SO_BUSY_POLL
        try:
            what = "peer%d" % s.getpeername()[1]
        except OSError:
            what = "listen%d" % s.getsockname()[1]
        out.append(f"{what}={v}")
    s.detach()
    os.close(fd)
print(" ".join(out))
EOF
}

start_server --so-busy-poll 50
grep -q " so_busy_poll=50us$" "$SERVER_ERR" || fail "start-up line: $(cat "$SERVER_ERR")"
exec 7<>/dev/tcp/127.0.0.1/"$PORT" || fail "connect"
for _ in $(seq 100); do
	got=$(so_busy_poll "$SERVER_PID") || skip "cannot read the server's sockets: $got"
	case $got in *peer*) break ;; esac
	sleep 0.02
done
echo "server --so-busy-poll 50: $got"
case " $got " in *" listen$PORT=50 "*) ;; *) fail "listener: $got" ;; esac
case " $got " in *" peer"*"=50 "*) ;; *) fail "accepted connection: $got" ;; esac
case " $got " in *"=0 "*) fail "a socket without it: $got" ;; esac
exec 7>&-
stop_server || fail "server exit status"

start_server
exec 7<>/dev/tcp/127.0.0.1/"$PORT" || fail "connect"
sleep 0.2
got=$(so_busy_poll "$SERVER_PID")
echo "server without it: $got"
case " $got " in *"=50 "*) fail "SO_BUSY_POLL set without the option: $got" ;; esac
exec 7>&-
stop_server || fail "server exit status"

# without CAP_NET_ADMIN: refused at start, saying why, where the kernel
# wants it (6.18 lets anyone set it: then the server runs)
if setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all true 2>/dev/null; then
	timeout 1 setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
		"$WB" server --port 0 --so-busy-poll 50 -q 2>"$TMP/nobody.err"
	rc=$?
	if [ $rc = 124 ]; then
		echo "unprivileged: this kernel lets any process set SO_BUSY_POLL"
	else
		grep -q "SO_BUSY_POLL 50 us: not permitted (it needs CAP_NET_ADMIN)" "$TMP/nobody.err" ||
			fail "unprivileged (exit $rc): $(cat "$TMP/nobody.err")"
		echo "unprivileged: $(tail -1 "$TMP/nobody.err")"
	fi
fi

# --- the sweep dimensions ---
G=/sys/devices/system/cpu/cpuidle
[ -w $G/current_governor ] || { echo "skipped: no writable cpuidle/current_governor"; exit 0; }
avail=" $(cat $G/available_governors) "
case $avail in *" menu "*) ;; *) echo "skipped: no menu governor"; exit 0 ;; esac
case $avail in *" ladder "*) ;; *) echo "skipped: no ladder governor"; exit 0 ;; esac
orig=$(cat $G/current_governor)
sport=$(test_port 0)
"$WB" sweep --out "$TMP/sw" --server-port "$sport" --dist fixed --prequery off --reps 1 \
	--requests 100 --interval-us 1000 --governor "menu ladder" --server-busy-poll yes \
	--so-busy-poll 50 > "$TMP/sw.out" 2>&1 || fail "sweep: $(cat "$TMP/sw.out")"
[ "$(cat $G/current_governor)" = "$orig" ] || fail "governor left at $(cat $G/current_governor), was $orig"
for g in menu ladder; do
	d=$(echo "$TMP"/sw/*gov-$g/rep-1)
	[ -d "$d" ] || fail "no run of governor $g: $(ls "$TMP/sw")"
	grep -q "\"governor\": \"$g\"" "$d/server.snapshot.json" ||
		fail "$g run's snapshot: $(grep -o '"governor[^,]*' "$d/server.snapshot.json")"
	grep -q '"command": "[^"]*wakebench-server .*--busy-poll --so-busy-poll 50 ' "$d/server.snapshot.json" ||
		fail "server command line: $(grep -o '"command[^,]*' "$d/server.snapshot.json")"
done
[ "$(csv_col "$TMP/sw/sweep.csv" governor | sort | tr '\n' ' ')" = "ladder menu " ] ||
	fail "sweep.csv governor: $(csv_col "$TMP/sw/sweep.csv" governor)"
[ "$(csv_col "$TMP/sw/sweep.csv" server_busy_poll | sort -u)" = yes ] || fail "sweep.csv server_busy_poll"
echo "sweep governor menu ladder, busy polls: each run's snapshot names its governor, $orig restored"

# a SIGINT in the middle of a run: the governor comes back
"$WB" sweep --out "$TMP/int" --server-port "$sport" --dist fixed --prequery off --reps 1 \
	--requests 20000 --interval-us 200 --governor ladder > "$TMP/int.out" 2>&1 &
sw=$!
wait_for '[ "$(cat $G/current_governor)" = ladder ]' || fail "the run never set ladder"
sleep 0.3
kill -INT $sw
wait $sw
[ "$(cat $G/current_governor)" = "$orig" ] || fail "after SIGINT the governor is $(cat $G/current_governor), was $orig"
echo "SIGINT during a governor=ladder run: $orig restored"

# a governor this kernel lacks: refused before anything runs
"$WB" sweep --out "$TMP/no" --server-port "$sport" --prequery off --reps 1 --requests 50 \
	--governor "menu nosuchgov" > "$TMP/no.out" 2>&1 && fail "an unknown governor was swept"
grep -q "point [a-z0-9_-]*_gov-nosuchgov: governor 'nosuchgov' cannot be applied here: this kernel's cpuidle available_governors are" \
	"$TMP/no.out" || fail "refusal: $(cat "$TMP/no.out")"
[ -z "$(ls "$TMP/no" 2>/dev/null | grep -v '^sweep.spec$\|^cmdline.txt$')" ] ||
	fail "something ran: $(ls "$TMP/no")"
echo "unknown governor: $(head -1 "$TMP/no.out")"
exit 0
