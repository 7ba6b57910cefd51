# empty-domain: a domain with no process in it has nothing to kill and
# is not sampled on the allocation budget (issue 21: on a node, many
# quiet cgroups with a limit hold nobody, and each budget check costs);
# the kernel's cgroup.events wakes cgoom when a process comes. /e has
# memory.max 200M and nothing in it: cgoom must say it is empty; then,
# three times, 5 s after the last kill left it empty again, a hog joins
# and grows at 100 MiB/s to 300 MiB: cgoom must kill it before the
# kernel (memory.events oom_kill unchanged), each time.
# vm-timeout: 150

write_conf <<CONF
[daemon]
event_log = $EV
CONF
cg_make /e 200M
daemon_start run
i=0
until grep -q 'domain /e: memory.max' "$DLOG" || [ $i -gt 100 ]; do sleep 0.05; i=$((i + 1)); done
grep -q 'domain /e: memory.max.*, empty (no process' "$DLOG" ||
	fail "/e not said to be empty: $(grep 'domain /e' "$DLOG")"
k0=$(oom_kills /e)
for r in 1 2 3; do
	sleep 5
	hog g$r /e 300 100
	pid=$(hog_pid g$r)
	i=0
	while [ "$(ev_count victim_exit)" -lt $r ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	sleep 0.3
	is_dead "$pid" || fail "round $r: the hog ($pid) lives after 10 s"
	[ "$(oom_kills /e)" = "$k0" ] || fail "round $r: the kernel OOM-killed in /e ($(oom_kills /e) kills, $k0 before)"
	[ "$(ev_count victim_exit)" -ge $r ] || fail "round $r: no victim_exit from cgoom"
done
hog_table
daemon_stop
pass "an empty domain (said so) won 3 of 3 races against the kernel when a hog came into it 5 s later (100 MiB/s); kernel oom_kill 0"
