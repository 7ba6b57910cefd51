# daemon-guard-admin-high: a memory.high the operator set below the guard
# band's line (memory.max 400M, guard_band 48M: the band would write
# 352M) is left as it is: cgoom does not raise it (that would undo a
# throttle set by design, systemd's MemoryHigh= say), says so, and takes
# no guard band there, so a job held at its own memory.high is not
# killed; memory.high is the operator's value after cgoom exits too.
# And a band under the operator's value (theirs 300M, guard_band 150M:
# 250M) whose line a reload moves above it (guard_band 48M: 352M): the
# operator's 300M comes back and stays, not the new line. And a band
# the operator replaced by hand (200M) while cgoom ran is theirs: a
# reload with another guard_band does not write over it.
# vm-timeout: 150

MAX=$((400 * 1024 * 1024))
ADMIN=$((160 * 1024 * 1024))
write_conf <<CONF
[daemon]
guard_band = 48M
event_log = $EV
CONF
cg_make /work 400M
cg_set /work memory.high $ADMIN
daemon_start run
high=$(cg_get /work memory.high)
[ "$high" = $ADMIN ] || { daemon_stop; fail "memory.high is $high after start, expected the operator's $ADMIN (not max - guard_band)"; }
grep -q "/work: memory.high 160.0 MiB, set by someone else, is below memory.max - guard_band" "$DLOG" ||
	{ daemon_stop; fail "no warning that the operator's memory.high is kept: $(grep /work "$DLOG" | head -n 3)"; }
# a job held at its memory.high by design: throttled, never killed
hog held /work 200 50
sleep 6
cur=$(cg_get /work memory.current)
nkill=$(ev_count kill)
alive=$(alive_hogs)
daemon_stop
[ "$nkill" = 0 ] || fail "cgoom killed $nkill time(s) in a cgroup held at the operator's memory.high"
[ "$alive" = "$(hog_pid held)" ] || fail "the held job died (alive: [$alive])"
[ "$(cg_get /work memory.high)" = $ADMIN ] || fail "memory.high is $(cg_get /work memory.high) after exit, expected $ADMIN"

echo 1 > "$CG/work/cgroup.kill"
i=0
while grep -q '^populated 1' "$CG/work/cgroup.events" && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
OP=$((300 * 1024 * 1024))
cg_set /work memory.high $OP
write_conf <<CONF
[daemon]
guard_band = 150M
event_log = $EV
CONF
rm -f "$EV"
daemon_start run
h0=$(cg_get /work memory.high)
[ "$h0" = $((MAX - 150 * 1024 * 1024)) ] || { daemon_stop; fail "guard_band 150M under the operator's 300M: memory.high $h0"; }
write_conf <<CONF
[daemon]
guard_band = 48M
event_log = $EV
CONF
kill -HUP $DPID
wait_reload_ok || { daemon_stop; fail "no successful reload"; }
h1=$(cg_get /work memory.high)
daemon_stop
[ "$h1" = $OP ] || fail "a reload to guard_band 48M set memory.high $h1, above the operator's $OP"
[ "$(cg_get /work memory.high)" = $OP ] || fail "memory.high $(cg_get /work memory.high) after exit, expected the operator's $OP"
# a band the operator replaces by hand while cgoom runs: theirs from then
cg_set /work memory.high max
write_conf <<CONF
[daemon]
guard_band = 48M
event_log = $EV
CONF
rm -f "$EV"
daemon_start run
[ "$(cg_get /work memory.high)" = $((MAX - 48 * 1024 * 1024)) ] || { daemon_stop; fail "no band 48M: $(cg_get /work memory.high)"; }
HAND=$((200 * 1024 * 1024))
cg_set /work memory.high $HAND
write_conf <<CONF
[daemon]
guard_band = 32M
event_log = $EV
CONF
kill -HUP $DPID
wait_reload_ok || { daemon_stop; fail "no successful reload (3)"; }
h2=$(cg_get /work memory.high)
daemon_stop
[ "$h2" = $HAND ] || fail "a reload wrote memory.high $h2 over the $HAND the operator set by hand while cgoom ran"
[ "$(cg_get /work memory.high)" = $HAND ] || fail "memory.high $(cg_get /work memory.high) after exit, expected the operator's $HAND"
pass "the operator's memory.high ($ADMIN) kept, no guard band, the job held at it ($cur bytes) alive, 0 kills; a reload never lifted a band above the operator's $OP, nor wrote over $HAND set by hand"
