# wakebench report's index.html in a real browser (headless Debian
# chromium): every image loads (naturalWidth > 0) and nothing is wider
# than the window (document scrollWidth <= innerWidth: wide tables scroll
# in their own box), at 1280 and 800 pixels. The check itself is checked:
# a missing image and a table let out of its box are both caught.
. "$(dirname "$0")/lib.sh"
command -v gnuplot >/dev/null || skip "gnuplot not installed (make deps)"
CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
[ -x "$CHROMIUM" ] || skip "chromium not installed (Debian chromium; make deps)"
FX="$WB_TOP/tests/fixtures/report"

"$WB" report "$FX" --out "$TMP/r" > /dev/null 2> "$TMP/r.err" || fail "report: $(cat "$TMP/r.err")"
cp -r "$FX/run" "$TMP/A"
cp -r "$FX/run" "$TMP/B"
# the sweep with a CPU cost per run (issue 35): figure 14, the plane
cp -r "$FX/sweep2" "$TMP/S"
awk 'NR == 1 { print $0 ",cost_cpu_us_per_req"; next } { print $0 "," 30 + NR % 7 }' \
	"$FX/sweep2/sweep.csv" > "$TMP/S/sweep.csv"
"$WB" report "$TMP/A" "$TMP/B" "$TMP/S" --out "$TMP/m" > /dev/null 2> "$TMP/m.err" ||
	fail "multi-directory report: $(cat "$TMP/m.err")"
[ -s "$TMP/m/fig14-latency-cost.png" ] || fail "no figure 14: $(cat "$TMP/m.err")"
grep -q 'fig14-latency-cost.png' "$TMP/m/index.html" || fail "figure 14 not in index.html"

# A copy of the page with a script that, once every image is in, writes
# what it found into the document; chromium prints the document.
cat > "$TMP/check.js" <<'EOF'
window.addEventListener('load', function () {
	var bad = [], imgs = document.images, r = document.createElement('pre');
	for (var i = 0; i < imgs.length; i++)
		if (!imgs[i].complete || imgs[i].naturalWidth === 0)
			bad.push(imgs[i].getAttribute('src'));
	r.textContent = 'WBCHECK images=' + imgs.length + ' broken=' + (bad.join(',') || '-') +
		' scroll=' + document.documentElement.scrollWidth + ' inner=' + window.innerWidth;
	document.body.appendChild(r);
});
EOF
# check DIR WIDTH: prints "images=N broken=LIST scroll=W inner=W"
check() {
	local d=$1 w=$2 prof
	cp "$TMP/check.js" "$d/check.js"
	sed 's|</body>|<script src="check.js"></script></body>|' "$d/index.html" > "$d/check.html"
	prof=$(mktemp -d "$TMP/prof.XXXXXX")
	timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--user-data-dir="$prof" --window-size="$w,900" --virtual-time-budget=10000 \
		--dump-dom "file://$d/check.html" 2> "$TMP/chromium.err" |
		grep -o 'WBCHECK [^<]*' | sed 's/^WBCHECK //'
}
for d in "$TMP/r" "$TMP/m"; do
	n=$(ls "$d"/fig*.png | wc -l)
	for w in 1280 800; do
		res=$(check "$d" $w)
		[ -n "$res" ] || fail "chromium gave no result for $d at $w px: $(tail -3 "$TMP/chromium.err")"
		set -- $res
		[ "$1" = "images=$n" ] || fail "$d at $w px: $1, but $n figures made"
		[ "$2" = "broken=-" ] || fail "$d at $w px: images that did not load: $2"
		sw=${3#scroll=} iw=${4#inner=}
		[ "$sw" -le "$iw" ] || fail "$d at $w px: the page is $sw px wide in a $iw px window"
	done
done

# The check catches what it is for: an image that is not there, and a wide
# table out of its scrolling box.
rm "$TMP/r/fig6-residency.png"
res=$(check "$TMP/r" 1280)
case $res in *broken=fig6-residency.png*) ;; *) fail "a missing image not caught: $res" ;; esac
sed -i 's/\.wide{overflow-x:auto;max-width:100%;/.wide{/' "$TMP/r/index.html"
set -- $(check "$TMP/r" 800)
[ "${3#scroll=}" -gt "${4#inner=}" ] || fail "an overflowing table not caught: $*"
exit 0
