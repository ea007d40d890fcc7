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
