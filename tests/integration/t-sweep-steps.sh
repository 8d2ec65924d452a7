# wakebench sweep sequences C helpers (issue 32): the script stays short
# and computes nothing; each run's command lines come from
# 'wakebench-internal sweep-cmd' as NUL-separated words (a value is one
# word, never split or globbed by a shell); --help is the C text.
. "$(dirname "$0")/lib.sh"
INT="$WB_BIN/wakebench-internal"
SRC="$(dirname "$0")/../.."

n=$(wc -l < "$SRC/scripts/wakebench-sweep")
[ "$n" -le 300 ] || fail "scripts/wakebench-sweep is $n lines: a sequencer of C helpers stays under 300"
"$WB" sweep --help | cmp -s - <("$INT" sweep-usage) || fail "sweep --help is not sweep-usage's text"

# a spec with three tiers, two memcached leaves, a server prefix of two
# words and a cstates value with '=' (a glob character would be refused
# by the spec check before any command is built)
"$INT" spec --tiers 3 --backend memcached --leaves 2 --server-exec "env X=1" \
	--server-cstates "max-latency-us=5" --server-cpu 0 --client-cpu 1 > "$TMP/spec" ||
	fail "spec: $(cat "$TMP/spec")"
line=$("$INT" plan "$TMP/spec" | head -1)
"$INT" sweep-cmd "$TMP/spec" "$TMP/run dir" wb 0 "$line" > "$TMP/steps" || fail "sweep-cmd failed"
mapfile -t -d '' W < "$TMP/steps"
kinds=() i=0
while [ $i -lt ${#W[@]} ]; do
	kinds+=("${W[i]}")
	[ "${W[i]}" = kv ] && [ "${W[i+1]}" = server-1 ] && kv1=("${W[@]:i+6:W[i+5]}")
	[ "${W[i]}" = tier ] && [ "${W[i+1]}" = midtier ] && mt=("${W[@]:i+6:W[i+5]}")
	i=$((i + 6 + W[i+5]))
done
[ $i = ${#W[@]} ] || fail "sweep-cmd's words do not add up: $i of ${#W[@]}"
[ "${kinds[*]}" = "ports kv kv snapshot run run tier capture client" ] || fail "steps: ${kinds[*]}"
[ "${kv1[*]}" = "env X=1 wb cstate limit --max-latency-us 5 --cpus 0 -- taskset -c 0 memcached -p 17003 -l 127.0.0.1 -U 0 -t 1 -c 4096 -u $(id -un)" ] ||
	fail "second leaf: ${kv1[*]}"
# a run directory with a space stays one word
printf '%s\n' "${mt[@]}" | grep -qx -- "$TMP/run dir/midtier.port" || fail "midtier port file split: ${mt[*]}"
echo ok
