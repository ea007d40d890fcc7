#!/usr/bin/env bash
# affix(1), PICTURES, in a real browser: headless Chromium renders the
# pictures of three captures, an explain --svg and a watch --svg to PNG; each
# PNG is not blank and shows the colours it should (the chosen CPUs' blue,
# a package's grey, node 0's colour on the timeline), and the DOM Chromium
# built from each file (--dump-dom) holds every id the SVG has.
set -u
. "$AFFIX_SOURCE_DIR/tests/cli/check_lib.bash"
corpora=${AFFIX_CORPORA_DIR:?}
cli="$AFFIX_SOURCE_DIR/tests/cli"
browser=$(command -v chromium || command -v chromium-browser)
[ -n "$browser" ] || { echo "FAIL: no chromium (scripts/setup installs it)"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

size() {  # the SVG's width,height
  python3 -c 'import sys, xml.etree.ElementTree as E; r = E.parse(sys.argv[1]).getroot(); print("%s,%s" % (r.get("width"), r.get("height")))' "$1"
}
render() {  # NAME SVG COLOUR...: screenshot, pixels, DOM
  local name=$1 svg=$2; shift 2
  timeout 120 "$browser" --headless --no-sandbox --disable-gpu --user-data-dir="$tmp/profile" \
    --screenshot="$tmp/$name.png" --window-size="$(size "$svg")" "file://$svg" > /dev/null 2>&1
  check "$name: chromium wrote the PNG" 1 "$([ -s "$tmp/$name.png" ] && echo 1)"
  out=$(python3 "$cli/png_check.py" "$tmp/$name.png" "$@" 2>&1)
  check "$name: not blank, with $*" 0 $?
  echo "  $out" | head -3
  timeout 120 "$browser" --headless --no-sandbox --disable-gpu --user-data-dir="$tmp/profile" \
    --dump-dom "file://$svg" > "$tmp/$name.dom" 2>/dev/null
  missing=0
  for id in $(grep -o ' id="[^"]*"' "$svg" | sed 's/ id="//; s/"$//'); do
    grep -q " id=\"$id\"" "$tmp/$name.dom" || { missing=$((missing + 1)); echo "  not in the DOM: $id"; }
  done
  check "$name: the DOM holds every id ($(grep -o ' id="' "$svg" | wc -l) ids)" 0 "$missing"
}

for m in 2arm-2c 64amd64-4s2n4ca2co 128ia64-17n4s2c; do
  "$AFFIX" topo --root "$corpora/$m" --svg "$tmp/$m.svg" > /dev/null
  render "$m" "$tmp/$m.svg" "#E8E8E8" "#F3EDD3"
done
"$AFFIX" explain --root "$corpora/64amd64-4s2n4ca2co" node:3 --count 5 --svg="$tmp/explain.svg" > /dev/null
render explain "$tmp/explain.svg" "#0072B2" "#D55E00"
"$AFFIX" watch -i 0.3 --svg "$tmp/watch.svg" -- sh -c 'i=0; while [ $i -lt 400000 ]; do i=$((i+1)); done' 2>/dev/null
render watch "$tmp/watch.svg" "#0072B2"
exit $fail
