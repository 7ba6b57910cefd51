# daemon-guard-crash: what a `cgoom run` killed with SIGKILL leaves of a
# guard band, and what the next daemon does with it. /work has memory.max
# 400M and guard_band = 48M, so cgoom writes memory.high = 352M over the
# operator's max and records both in trusted.cgoom.guard. After kill -9:
#  1. a restart with guard_band = no puts memory.high back to max (the
#     operator's), not "keeps" 352M for ever, and drops the record;
#  2. a restart with the band adopts it (352M) and, on SIGTERM, restores
#     max, not the 352M it found;
#  3. an operator who set memory.high since (300M) keeps theirs;
#  4. memory.max changed since (500M): max, the operator's, comes back;
#  5. a malformed record is reported and dropped, memory.high untouched;
#  6. a record from a daemon still running (a second `cgoom run` started
#     beside it) is not undone: the first's band stands;
#  7. memory.max set to max since (no domain any more): memory.high is
#     put back all the same, found by the first walk.
# vm-timeout: 150

MAX=$((400 * 1024 * 1024))
HIGH=$((MAX - 48 * 1024 * 1024))
conf() { # conf BAND
	write_conf <<CONF
[daemon]
guard_band = $1
event_log = $EV
CONF
}
crash() { # SIGKILL the daemon: nothing of it runs on
	kill -9 $DPID
	wait $DPID 2>/dev/null
	DPID=
}
record() { vmxattr get "$CG/work" trusted.cgoom.guard 2>/dev/null; }
high() { cg_get /work memory.high; }

cg_make /work 400M
# 1
conf 48M
daemon_start run
[ "$(high)" = $HIGH ] || fail "1: memory.high $(high) after start, expected $HIGH"
r=$(record)
crash
[ "$(high)" = $HIGH ] || fail "1: memory.high $(high) after SIGKILL, expected $HIGH (the band as left)"
say "1: after SIGKILL memory.high $(high), record '$(record)'"
conf no
daemon_start run
h=$(high)
[ "$h" = max ] || { daemon_stop; fail "1: guard_band = no after a crash: memory.high $h, expected max (the operator's)"; }
[ -n "$r" ] || { daemon_stop; fail "1: no trusted.cgoom.guard record while the band stood"; }
grep -q '/work: memory.high .* was left by a cgoom (PID [0-9]*) that did not exit cleanly' "$DLOG" ||
	{ daemon_stop; fail "1: the log does not say memory.high was left by a cgoom that did not exit: $(grep /work "$DLOG" | head -n 3)"; }
[ -z "$(record)" ] || { daemon_stop; fail "1: the record '$(record)' stays after memory.high was restored"; }
daemon_stop
[ "$(high)" = max ] || fail "1: memory.high $(high) after a clean stop, expected max"

# 2
conf 48M
daemon_start run
crash
daemon_start run
[ "$(high)" = $HIGH ] || { daemon_stop; fail "2: memory.high $(high) after the restart, expected the band's $HIGH"; }
[ -n "$(record)" ] || { daemon_stop; fail "2: no record while the band stands"; }
daemon_stop
[ "$(high)" = max ] || fail "2: memory.high $(high) after a clean stop of the restarted daemon, expected max (not the band it found)"
[ -z "$(record)" ] || fail "2: the record '$(record)' stays after a clean stop"

# 3
daemon_start run
crash
cg_set /work memory.high $((300 * 1024 * 1024))
conf no
daemon_start run
h=$(high)
r=$(record)
daemon_stop
[ "$h" = $((300 * 1024 * 1024)) ] || fail "3: the operator's memory.high (300M, set after the crash) became $h"
[ -z "$r" ] || fail "3: a stale record '$r' stays"
cg_set /work memory.high max

# 4
conf 48M
daemon_start run
crash
cg_set /work memory.max 500M
conf no
daemon_start run
h=$(high)
daemon_stop
[ "$h" = max ] || fail "4: memory.max changed after the crash: memory.high $h, expected max"
cg_set /work memory.max 400M

# 5
cg_set /work memory.high $HIGH
vmxattr set "$CG/work" trusted.cgoom.guard "1 max nonsense" || fail "5: cannot set the record"
daemon_start run
h=$(high)
r=$(record)
daemon_stop
[ "$h" = $HIGH ] || fail "5: a malformed record: memory.high $h, expected it untouched ($HIGH)"
[ -z "$r" ] || fail "5: the malformed record '$r' stays"
grep -q 'trusted.cgoom.guard.*malformed' "$DLOG" || fail "5: no warning about the malformed record"
cg_set /work memory.high max

# 6
conf 48M
daemon_start run
FIRST=$DPID
FIRSTLOG="$VM_TMP/first.log"
cp "$DLOG" "$FIRSTLOG"
trap '' EXIT
DLOG="$VM_TMP/second.log"
daemon_start run
SECOND=$DPID
h=$(high)
kill -TERM $SECOND; i=0; while is_alive $SECOND && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
h2=$(high)
DPID=$FIRST
daemon_stop
h3=$(high)
[ "$h" = $HIGH ] || fail "6: a second daemon started beside the first: memory.high $h, expected the first's band $HIGH"
[ "$h2" = $HIGH ] || fail "6: the second daemon's stop took the first's band away: memory.high $h2"
[ "$h3" = max ] || fail "6: memory.high $h3 after the first stopped, expected max"

# 7
conf 48M
daemon_start run
crash
cg_set /work memory.max max
conf no
daemon_start run
h=$(high)
r=$(record)
daemon_stop
[ "$h" = max ] || fail "7: memory.max is max since the crash: memory.high $h, expected max"
[ -z "$r" ] || fail "7: the record '$r' stays"
pass "a crash's guard band is undone by the next start (guard_band = no), adopted and restored on a clean stop (band on), an operator's later memory.high and a malformed record left alone, a live daemon's band kept, also after memory.max went to max"
