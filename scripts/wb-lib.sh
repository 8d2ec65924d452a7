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
