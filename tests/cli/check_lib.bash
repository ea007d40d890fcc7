# Shared by the tests/cli scripts (not a test itself: not *.sh). Sets -u and
# fail=0; check and check_match print "ok: NAME" or "FAIL: NAME" with both
# sides and set fail=1. The script ends with `exit $fail` (or pin_lib's
# finish).
set -u
fail=0
check() {  # NAME EXPECTED ACTUAL
  if [[ "$2" == "$3" ]]; then echo "ok: $1"; else
    echo "FAIL: $1"; echo "  expected: $(printf %q "$2")"; echo "  actual:   $(printf %q "$3")"; fail=1; fi
}
check_match() {  # NAME GLOB ACTUAL
  if [[ "$3" == $2 ]]; then echo "ok: $1"; else
    echo "FAIL: $1"; echo "  expected to match: $2"; echo "  actual: $(printf %q "$3")"; fail=1; fi
}
# $AFFIX where any user may run it (the tests that run it as nobody): the
# build tree's binary itself, or, where the checkout lies under a directory
# only its owner may enter (mktemp -d makes those), a copy in one that
# anyone may. The copy's directory goes at the script's end (caller's trap).
anyone_affix() {
  if setpriv --reuid=65534 --regid=65534 --clear-groups test -x "$AFFIX" 2>/dev/null; then
    echo "$AFFIX"
    return
  fi
  local dir
  dir=$(mktemp -d /tmp/affix-anyone-XXXXXX) && chmod 755 "$dir" && cp "$AFFIX" "$dir/affix" && echo "$dir/affix"
}
