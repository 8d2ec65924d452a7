# wb-lib.sh: shell helpers shared by the wakebench scripts, the
# integration tests and the benchmarks (sourced, never run). Text
# selection only: numbers are computed by 'wakebench stats'.

# csv_col FILE NAME: column NAME of every data row of FILE (the header
# row dropped), one per line. RFC 4180 quotes are understood: a quoted
# field may hold commas and doubled quotes (not newlines). Exit status 3,
# printing nothing, when FILE has no column NAME.
csv_col() {
	awk -v name="$2" '
	function fields(line, f,    n, i, c, q, cur) {
		if (index(line, "\"") == 0)
			return split(line, f, ",")
		n = 0; cur = ""; q = 0
		for (i = 1; i <= length(line); i++) {
			c = substr(line, i, 1)
			if (q) {
				if (c != "\"") cur = cur c
				else if (substr(line, i + 1, 1) == "\"") { cur = cur "\""; i++ }
				else q = 0
			} else if (c == "\"") q = 1
			else if (c == ",") { f[++n] = cur; cur = "" }
			else cur = cur c
		}
		f[++n] = cur
		return n
	}
	NR == 1 { n = fields($0, h); for (i = 1; i <= n; i++) if (h[i] == name) c = i; if (!c) exit 3; next }
	{ split("", f); fields($0, f); print f[c] }' "$1"
}

# ---- real key-value servers (memcached, Redis) -------------------------
# wb_kv_argv KIND PORT BIND: sets WB_KV_ARGV to the command line of a
# memcached (-t 1: one worker thread) or redis-server (single-threaded,
# nothing saved) on BIND:PORT in the foreground. 2 for another KIND.
wb_kv_argv() {
	case $1 in
	memcached) WB_KV_ARGV=(memcached -p "$2" -l "$3" -U 0 -t 1 -c 4096 -u "$(id -un)") ;;
	redis) WB_KV_ARGV=(redis-server --port "$2" --bind "$3" --save '' --appendonly no
		--protected-mode no --io-threads 1 --daemonize no --logfile '') ;;
	*) echo "wb_kv_argv: unknown server '$1'" >&2; return 2 ;;
	esac
}
# wb_kv_run KIND PORT BIND [CPU]: runs that server, pinned to CPU when
# given. It execs: run it as 'wb_kv_run ... &' and $! is the server's pid.
wb_kv_run() {
	local pin=()
	[ -n "${4:-}" ] && pin=(taskset -c "$4")
	wb_kv_argv "$1" "$2" "$3" || return 2
	exec "${pin[@]}" "${WB_KV_ARGV[@]}"
}
# wb_kv_program KIND: the executable a KIND server needs
wb_kv_program() { case $1 in memcached) echo memcached ;; redis) echo redis-server ;; *) return 2 ;; esac; }
# wb_kv_version KIND: "memcached 1.6.18", "redis 7.0.15"
wb_kv_version() {
	case $1 in
	memcached) memcached -V 2>/dev/null | head -1 ;;
	redis) redis-server --version 2>/dev/null | sed -n 's/^Redis server v=\([^ ]*\).*/redis \1/p' ;;
	*) return 2 ;;
	esac
}
# wb_kv_ready HOST PORT: true once HOST:PORT accepts a connection within
# 1 s (bash's /dev/tcp connect blocks: against a full accept queue it
# would wait out the kernel's SYN retries, minutes)
wb_kv_ready() { timeout 1 bash -c 'exec 3<>"/dev/tcp/$0/$1"' "$1" "$2" 2>/dev/null; }
# wb_kv_query HOST PORT TEXT: sends TEXT (printf escapes) on a new
# connection and prints what comes back within 2 s, CRs removed
wb_kv_query() {
	local out
	out=$( { exec 3<>"/dev/tcp/$1/$2" && printf "$3" >&3 && timeout 2 cat <&3; } 2>/dev/null)
	printf '%s\n' "$out" | tr -d '\r'
}
# wb_kv_stat KIND HOST PORT NAME: one counter of a running server:
# memcached 'stats' (cmd_get, cmd_set, get_misses, bytes_read, ...) or a
# Redis INFO field (cmdstat_ping's calls as cmdstat_ping, else the field)
wb_kv_stat() {
	case $1 in
	memcached)
		# no quit: memcached may count its bytes after answering, and
		# bytes_read would then differ by them from one query to the next
		{ exec 3<>"/dev/tcp/$2/$3" && printf 'stats\r\n' >&3 &&
		  local tag name val
		  while read -r -t 2 tag name val <&3; do
			  [ "${tag%$'\r'}" = END ] && break
			  [ "$tag $name" = "STAT $4" ] && echo "${val%$'\r'}"
		  done; exec 3<&-; } 2>/dev/null ;;
	redis)
		case $4 in
		cmdstat_*)
			# a command never called has no line: 0 calls
			local v
			v=$(wb_kv_query "$2" "$3" '*2\r\n$4\r\nINFO\r\n$12\r\ncommandstats\r\n*1\r\n$4\r\nQUIT\r\n' |
			    sed -n "s/^$4:calls=\([0-9]*\).*/\1/p")
			echo "${v:-0}" ;;
		*) wb_kv_query "$2" "$3" '*1\r\n$4\r\nINFO\r\n*1\r\n$4\r\nQUIT\r\n' | sed -n "s/^$4:\(.*\)/\1/p" ;;
		esac
		;;
	*) return 2 ;;
	esac
}
