# daemon-forkbomb: a "fork bomb" of many 4 MiB processes spread over
# /work/bomb/c1..c4, with oom_policy = tree and memory.oom.group = 1 on
# /work/bomb, next to /work/big (one 150 MiB process), under /work
# (memory.max 400M, guard band 48M, oom_policy cgroup). cgoom treats the
# bomb as one entity (it outweighs big though no single process does)
# and kills all of it (memory.oom.group scope: the decision asks for
# cgroup.kill; kill.c falls back to one pidfd kill each when a process
# joined the scope after the snapshot, which a bomb that keeps spawning
# can do); big lives; oom_kill stays 0.
# vm-timeout: 150

write_conf <<CONF
[daemon]
guard_band = 48M
event_log = $EV
[cgroup "/work"]
oom_policy = cgroup
[cgroup "/work/bomb"]
oom_policy = tree
CONF
cg_make /work 400M
cg_enable /work +memory
cg_make /work/big
cg_make /work/bomb
cg_enable /work/bomb +memory
for i in 1 2 3 4; do cg_make /work/bomb/c$i; done
cg_set /work/bomb memory.oom.group 1
daemon_start run
hog big /work/big 150
hogs_wait 60
t0=$(up_ms)
n=0
while [ $n -lt 120 ] && [ "$(ev_count kill)" = 0 ]; do
	n=$((n + 1))
	hog "bomb$n" "/work/bomb/c$(( n % 4 + 1 ))" 4
	sleep 0.05
done
say "spawned $n bomb processes in $(( $(up_ms) - t0 )) ms"
wait_event victim_exit 60 || { daemon_stop; fail "no victim exited within 60 s (spawned $n; oom_kill $(oom_kills /work))"; }
sleep 0.5
ev_victim_pids > /dev/null
vcg=$(json_victim_field "$VM_TMP/decision.json" cgroup)
pred=$(ev_victim_pids)
npred=$(echo $pred | wc -w)
method=$(ev_lines kill | head -n 1 | grep -o '"method": "[^"]*"' | sed 's/.*: "//; s/"//')
nkill=$(ev_count kill)
okills=$(oom_kills /work)
left=$(find "$CG/work/bomb" -name cgroup.procs -exec cat {} \; | wc -l)
bigpid=$(hog_pid big)
daemon_stop
[ "$vcg" = /work/bomb ] || fail "victim entity is '$vcg', expected /work/bomb"
[ "$npred" -ge 20 ] || fail "only $npred processes in the kill set"
for p in $pred; do is_dead "$p" || fail "bomb process $p in the kill set is alive"; done
is_alive "$bigpid" || fail "/work/big's process was killed"
# a bomb process spawned after the decision may survive the kill (the
# spawner stops only when it sees the kill event): not in the kill set
[ "$left" = 0 ] || say "$left process(es) spawned after the decision left in /work/bomb"
grep -q '"cgroup_kill": true' "$VM_TMP/decision.json" || fail "the decision did not ask for cgroup.kill on the scope"
[ "$method" = cgroup.kill ] || [ "$method" = pidfd ] || fail "killed via '$method'"
[ "$nkill" = 1 ] || fail "$nkill kill events, expected 1"
[ "$okills" = 0 ] || fail "kernel oom_kill $okills"
pass "bomb of $npred processes killed as one tree entity (via $method); big lives; oom_kill 0 (trigger->signal $(ev_num kill reaction_ms) ms)"
