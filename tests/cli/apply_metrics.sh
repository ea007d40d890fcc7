#!/bin/bash
# apply's metrics (affix(1), METRICS):
# - --follow --metrics 127.0.0.1:0 serves /metrics (404 elsewhere, no PID
#   label), and a private Prometheus (Debian's, on 127.0.0.1, scraping every
#   second) returns the rule's placement count through its HTTP API;
# - --check --metrics FILE writes the textfile collector's file.
# Only processes this test starts, placed within CPUs 0 and 1 (named
# affix-m1: apply_follow.sh, which may run beside it, follows affix-t1).
source "$AFFIX_SOURCE_DIR/tests/cli/check_lib.bash"
command -v prometheus >/dev/null || { echo "FAIL: prometheus is not installed (scripts/setup)"; exit 1; }
tmp=$(mktemp -d /tmp/affix-metrics-XXXXXX)
pids=()
cleanup() { for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; done; wait 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
wait_for() {
  local end=$((SECONDS + $1)); shift
  until "$@"; do ((SECONDS < end)) || return 1; sleep 0.1; done
}
log_has() { grep -qF -- "$2" "$1"; }
cpus_is() { [[ $(awk '/^Cpus_allowed_list/ {print $2}' "/proc/$1/status" 2>/dev/null) == "$2" ]]; }
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

cat >"$tmp/rules.toml" <<'R'
[[rule]]
name = "t1"
comm = "affix-m1"
where = "cpu:1"

[[rule]]
name = "nothing"
comm = "affix-no-such-process"
where = "cpu:0"
R
ln -s /bin/sleep "$tmp/affix-m1"

"$AFFIX" apply --follow --metrics 127.0.0.1:0 "$tmp/rules.toml" 2>"$tmp/log" &
pids+=($!)
wait_for 20 log_has "$tmp/log" "metrics on http://127.0.0.1:" || { cat "$tmp/log"; echo "FAIL: no metrics server"; exit 1; }
url=$(grep -o 'http://127.0.0.1:[0-9]*/metrics' "$tmp/log")
port=${url#http://127.0.0.1:}; port=${port%/metrics}

taskset -c 0-1 "$tmp/affix-m1" 300 &
p1=$!
pids+=("$p1")
wait_for 10 cpus_is "$p1" 1
check "placed" "1" "$(awk '/^Cpus_allowed_list/ {print $2}' "/proc/$p1/status")"
wait_for 10 eval '[[ $(curl -s "$url") == *"affix_rule_matched_processes{rule=\"t1\"} 1"* ]]'
text=$(curl -s "$url")
check "the rule's placements" 'affix_rule_placements_total{rule="t1"} 1' "$(grep '^affix_rule_placements_total{rule="t1"}' <<<"$text")"
check "a rule that matches nothing" 'affix_rule_matched_processes{rule="nothing"} 0' "$(grep '^affix_rule_matched_processes{rule="nothing"}' <<<"$text")"
check "matched now" 'affix_rule_matched_processes{rule="t1"} 1' "$(grep '^affix_rule_matched_processes{rule="t1"}' <<<"$text")"
check "events followed" "affix_follow_connector 1" "$(grep '^affix_follow_connector ' <<<"$text")"
check "one HELP and one TYPE per family" "0" "$(grep -E '^# (HELP|TYPE) ' <<<"$text" | awk '{print $2, $3}' | sort | uniq -d | wc -l)"
check "every family's TYPE before its samples" "" "$(awk '/^# TYPE/ {typed[$3]=1; next} /^#/ {next} {n=$1; sub(/\{.*/, "", n); if (!(n in typed)) print n}' <<<"$text")"
check "each series once" "0" "$(grep -v '^#' <<<"$text" | awk '{print $1}' | sort | uniq -d | wc -l)"
check "no PID label" "0" "$(grep -c 'pid=' <<<"$text")"
# watch's counters: from the second tick after it was matched (the first starts the sampling).
migrations() { curl -s "$url" | grep -c '^affix_process_migrations_total{comm="affix-m1",level="[a-z]*",rule="t1"} [0-9]*$'; }
wait_for 10 eval '[[ $(migrations) == 5 ]]'
check "migration counters by rule, comm and level (smt core llc node socket)" '5' "$(migrations)"
check "/metrics: text/plain 0.0.4" "text/plain; version=0.0.4; charset=utf-8" "$(curl -s -o /dev/null -w '%{content_type}' "$url")"
check "another path: 404" "404" "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/")"
check "POST: 405" "405" "$(curl -s -o /dev/null -w '%{http_code}' -X POST "$url")"

# A private Prometheus scrapes it.
pport=$(free_port)
cat >"$tmp/prometheus.yml" <<Y
global:
  scrape_interval: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: affix
    static_configs:
      - targets: ['127.0.0.1:$port']
Y
prometheus --config.file="$tmp/prometheus.yml" --storage.tsdb.path="$tmp/tsdb" \
    --web.listen-address="127.0.0.1:$pport" >"$tmp/prom.log" 2>&1 &
pids+=($!)
wait_for 60 curl -sf "http://127.0.0.1:$pport/-/ready" -o /dev/null || { tail -20 "$tmp/prom.log"; echo "FAIL: prometheus not ready"; exit 1; }
query() { curl -s "http://127.0.0.1:$pport/api/v1/query" --data-urlencode "query=$1"; }
answer() { query 'affix_rule_placements_total{rule="t1"}' | jq -r '.data.result[0].value[1] // empty'; }
wait_for 60 eval '[[ -n $(answer) ]]'
check "PromQL: the rule's placement count" "1" "$(answer)"
check "PromQL: the scrape is up" "1" "$(query 'up{job="affix"}' | jq -r '.data.result[0].value[1]')"

# --check --metrics FILE: the textfile collector's file.
out=$("$AFFIX" apply --check --metrics "$tmp/affix.prom" "$tmp/rules.toml" 2>&1); rc=$?
check "--check: placed, exit 0" "0" "$rc"
check "textfile: ok" "affix_check_ok 1" "$(grep '^affix_check_ok ' "$tmp/affix.prom")"
check "textfile: per rule" 'affix_check_processes{rule="t1"} 1' "$(grep '^affix_check_processes{rule="t1"}' "$tmp/affix.prom")"
taskset -pc 0 "$p1" >/dev/null  # no enforce: stays moved
out=$("$AFFIX" apply --check --metrics "$tmp/affix.prom" "$tmp/rules.toml" 2>&1); rc=$?
check "--check: moved, exit 1" "1" "$rc"
check "textfile: not ok" "affix_check_ok 0" "$(grep '^affix_check_ok ' "$tmp/affix.prom")"
check "textfile: the difference" 'affix_check_differences{rule="t1"} 1' "$(grep '^affix_check_differences{rule="t1"}' "$tmp/affix.prom")"
check "textfile: no temporary file left" "affix.prom" "$(ls "$tmp" | grep '^affix.prom')"
out=$("$AFFIX" apply --check --metrics "$tmp/no/such/dir.prom" "$tmp/rules.toml" 2>&1); rc=$?
check "textfile: unwritable, exit 1" "1" "$rc"
check_match "textfile: unwritable, message" "*affix: error: cannot write $tmp/no/such/dir.prom.tmp.*: No such file or directory*" "$out"
# The follower sees the drift too (no enforce: left there), in its counters.
# A scan of every process (after the kernel dropped process events, which
# tests beside this one can cause) places it as `apply FILE` does, before
# its check may see it moved (affix(1), FOLLOWING AND METRICS): then it is
# moved once more.
drift_seen() { [[ $(curl -s "$url") == *'affix_rule_drift_seen_total{rule="t1"} '[1-9]* ]]; }
if ! wait_for 10 drift_seen && grep -q "scanned again" "$tmp/log" && cpus_is "$p1" 1; then
  echo "note: every process was scanned again and $p1 placed again before its check: moved once more"
  taskset -pc 0 "$p1" >/dev/null
  wait_for 10 drift_seen
fi
check_match "drift seen counted" 'affix_rule_drift_seen_total{rule="t1"} [1-9]*' "$(curl -s "$url" | grep '^affix_rule_drift_seen_total{rule="t1"}')"
check "drift not undone (no enforce)" 'affix_rule_drift_undone_total{rule="t1"} 0' "$(curl -s "$url" | grep '^affix_rule_drift_undone_total{rule="t1"}')"

# Names are bounded: a rule's first 16 comms have series of their own, the
# rest are counted as "(other)"; a name that is not UTF-8 is written valid.
cat >"$tmp/many.toml" <<'R'
[[rule]]
name = "many"
comm = "affix-n*"
where = "cpu:0-1"
R
"$AFFIX" apply --follow --metrics 127.0.0.1:0 "$tmp/many.toml" 2>"$tmp/many.log" &
pids+=($!)
wait_for 20 log_has "$tmp/many.log" "metrics on http://127.0.0.1:" || { cat "$tmp/many.log"; echo "FAIL: no metrics server"; exit 1; }
murl=$(grep -o 'http://127.0.0.1:[0-9]*/metrics' "$tmp/many.log")
# First (the lowest PID: among the 16), a name that is not UTF-8.
ln -s /bin/sleep "$tmp/$(printf 'affix-n\xff')"
"$tmp/$(printf 'affix-n\xff')" 300 &
pids+=($!)
for i in $(seq 10 27); do
  ln -s /bin/sleep "$tmp/affix-n$i"
  "$tmp/affix-n$i" 300 &
  pids+=($!)
done
comms() { curl -s "$murl" | grep '^affix_process_migrations_total{' | grep -o 'comm="[^"]*"' | sort -u; }
wait_for 15 eval '[[ $(comms | wc -l) == 17 ]]'
check "16 names with series of their own, and (other)" "17" "$(comms | wc -l)"
check "the others under (other)" 'comm="(other)"' "$(comms | grep -F '(other)')"
check "a name that is not UTF-8: U+FFFD in its place" '1' "$(comms | grep -c "$(printf 'comm="affix-n\xef\xbf\xbd"')")"
check "every label value is UTF-8" "ok" "$(curl -s "$murl" | iconv -f UTF-8 -t UTF-8 >/dev/null 2>&1 && echo ok)"

((fail == 0)) || sed 's/^/  follower: /' "$tmp/log"
exit $fail
