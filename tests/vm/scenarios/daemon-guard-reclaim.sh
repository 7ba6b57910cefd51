# daemon-guard-reclaim: a guard band written below a cgroup's usage makes
# the kernel reclaim the excess in whoever writes memory.high
# (memory_high_write), here 400 MiB: 600 MiB resident under memory.max
# 700M with guard_band 500M. cgoom writes such a band from a helper
# thread: its loop is watching (sampling) while that reclaim still runs,
# a SIGTERM meanwhile restores memory.high at once and exits, and the
# log says how long the reclaim took once it is done. (From the loop, a
# band 189 MiB below usage held it 1.97 s at start, sampling nothing.)
# vm-timeout: 150

zram_swap 1G || fail "cannot set up zram swap (1G)"
BAND=$((200 * 1024 * 1024))
write_conf <<CONF
[daemon]
guard_band = 500M
CONF
cg_make /work 700M
hog keep /work 600
hogs_wait
keep=$(hog_pid keep)
c0=$(cg_get /work memory.current)
say "before: memory.current $((c0 / 1048576)) MiB, memory.high $(cg_get /work memory.high)"

# 1. watching while the kernel still reclaims for the band (polled every
# 20 ms, not daemon_start's 100 ms)
start_watching() {
	: > "$DLOG"
	cgoom --config "$CGOOM_CONF" run > "$DLOG" 2>&1 &
	DPID=$!
	trap daemon_stop EXIT
	i=0
	until grep -q 'watching [0-9]* domain' "$DLOG"; do
		i=$((i + 1)); [ $i -gt 1500 ] && { diag_file "$DLOG"; fail "cgoom run did not start"; }
		is_alive $DPID || { diag_file "$DLOG"; fail "cgoom run exited at start"; }
		sleep 0.02
	done
}
start_watching
cur=$(cg_get /work memory.current)
high=$(cg_get /work memory.high)
say "at 'watching': memory.current $((cur / 1048576)) MiB, memory.high $high"
[ "$high" = $BAND ] || fail "memory.high $high at 'watching', expected the band $BAND (memory.max - guard_band)"
[ "$cur" -gt $((BAND + 64 * 1048576)) ] ||
	fail "memory.current $((cur / 1048576)) MiB at 'watching': the reclaim down to the band ($((BAND / 1048576)) MiB) was over before cgoom watched (its loop waited for the write)"

# 2. the reclaim's end: said, with its time, and nobody killed
i=0
until grep -q 'reclaim down to it .* took [0-9]* ms, on a helper thread' "$DLOG"; do
	i=$((i + 1)); [ $i -gt 600 ] && { diag_file "$DLOG"; fail "no word of the reclaim's end in 60 s"; }
	sleep 0.1
done
took=$(grep -o 'took [0-9]* ms, on a helper thread' "$DLOG" | head -n 1)
c1=$(cg_get /work memory.current)
is_alive "$keep" || fail "the idle job (PID $keep) died under its guard band"
grep -q 'writing memory.high' "$DLOG" && { diag_file "$DLOG"; fail "a write of memory.high failed"; }
daemon_stop
[ "$(cg_get /work memory.high)" = max ] || fail "memory.high not restored at SIGTERM"

# 3. a SIGTERM while such a reclaim runs (a fresh job, the first one's
# pages out): memory.high restored, a clean exit (the process ends once
# the kernel's reclaim call in the helper returns; from the loop, the
# same wait came before the SIGTERM was even read)
kill -KILL "$keep"; wait_dead 10 "$keep" || fail "the first job did not die"
hog fresh /work 600
hogs_wait
start_watching
t0=$(up_ms)
kill -TERM $DPID
i=0
while is_alive $DPID && [ $i -lt 500 ]; do sleep 0.02; i=$((i + 1)); done
t1=$(up_ms)
is_alive $DPID && fail "cgoom run still running 10 s after SIGTERM (a reclaim in flight)"
wait $DPID 2>/dev/null; rc=$?
DPID=
h=$(cg_get /work memory.high)
say "SIGTERM with the reclaim in flight: exit $rc after $((t1 - t0)) ms, memory.high $h"
[ $rc = 0 ] || { diag_file "$DLOG"; fail "cgoom run exited $rc on SIGTERM"; }
[ "$h" = max ] || { diag_file "$DLOG"; fail "memory.high $h after SIGTERM, expected max restored"; }
pass "band 400 MiB below usage: watching at $((cur / 1048576)) MiB (above the band's $((BAND / 1048576))); the reclaim $took (to $((c1 / 1048576)) MiB), the job alive; SIGTERM during one: restored, exit 0 in $((t1 - t0)) ms"
