# attack-daemon: `cgoom run` watching /top while uid 1000, owner of the
# delegated /top/u/a (pids.max 300, as a TasksMax), sets hostile
# user.cgoom.* xattrs, makes 1500 cgroups, fork-bombs into its pids limit
# and grows a hog at 25 MiB/s. Asserted: whatever the daemon kills is the
# attacker's (the grower); the root-owned /top/v lives; memory.events
# oom_kill stays 0; the daemon survives with its peak RSS (VmHWM) under
# 64 MiB and its open fds back where they were; each ignored setting is
# logged once per decision, not per tick.
# vm-timeout: 240
write_conf <<CONF
[daemon]
guard_band = 48M
event_log = $EV
[cgroup "/top"]
oom_policy = cgroup
[cgroup "/top/u"]
delegate = yes
CONF
delegated_top 600M "+memory +pids" 300
A=$CG/top/u/a
as_user 1000 "cd $A && mkdir big bomb grow many && echo '+memory +pids' > cgroup.subtree_control" || fail "uid 1000 setup"
for kv in "preference omit" "bias -1000" "oom_policy evil"; do
	set -- $kv
	as_user 1000 "vmxattr set $A/grow user.cgoom.$1 $2" || fail "uid 1000 xattr $1"
done
as_user 1000 "vmxattr set $A/grow user.oomd_omit 1"
as_user 1000 "cd $A/many && mkdir \$(seq 1 1500)" || fail "uid 1000 could not make 1500 cgroups"
hog v /top/v 150
hogs_wait 60
daemon_start run
sleep 1
fd0=$(proc_fds $DPID)
# the fork bomb: root puts a shell in bomb, it becomes uid 1000 and forks
# until pids.max says no
sh -c 'echo $$ > "$1/cgroup.procs"; exec vmxattr as 1000 sh -c "i=0; while [ \$i -lt 400 ]; do sleep 1000 & i=\$((i + 1)); done 2>/dev/null; wait"' \
	bomb "$A/bomb" > /dev/null 2>&1 &
sleep 3
nbomb=$(cat "$A/bomb/pids.current")
say "fork bomb holds $nbomb pids (pids.max 300 on /top/u/a)"
uhog grow /top/u/a/grow 400 25
wait_event victim_exit 90 || { diag_file "$DLOG"; daemon_stop; fail "no victim within 90 s (oom_kill $(oom_kills /top))"; }
sleep 1
died=$(dead_hogs)
okills=$(oom_kills /top)
hwm=$(proc_hwm_kb $DPID)
ndec=$(grep -c 'victim: ' "$DLOG")
nomit=$(grep -c 'user.cgoom.preference=omit ignored' "$DLOG")
is_alive $DPID || fail "cgoom run died"
hog_table
echo 1 > "$A/bomb/cgroup.kill"
# fds at rest: a standby decision held near the line keeps the victim's
# pidfds and its entity's /proc files open, and a domain near its line
# its active set (memory.stat, memory.swap.*, PSI: 5 fds) for 10 s after
# (doc/scale.md); with the squeeze over and the bomb gone the domain is
# far from its line: within 15 s everything is closed again
i=0
fd1=$(proc_fds $DPID)
while [ "$fd1" -gt $((fd0 + 2)) ] && [ $i -lt 150 ]; do
	sleep 0.1
	i=$((i + 1))
	fd1=$(proc_fds $DPID)
done
daemon_stop
say "daemon: VmHWM $hwm kB, fds $fd0 -> $fd1 (after $((i / 10)) s), $ndec decision(s), $nomit omit note(s)"
is_alive "$(hog_pid v)" || fail "/top/v died (outside the attacker's subtree)"
[ "$died" = "$(hog_pid grow)" ] || fail "died [$died] ($(labels_of $died)), expected the grower"
[ "$okills" = 0 ] || fail "kernel oom_kill $okills"
[ "$hwm" -lt 65536 ] || fail "daemon peak RSS $hwm kB, over 64 MiB"
[ "$fd1" -le $((fd0 + 2)) ] || fail "daemon fds grew $fd0 -> $fd1"
[ "$ndec" -ge 1 ] && [ "$nomit" = "$ndec" ] || { diag_file "$DLOG" 80; fail "omit refusal logged $nomit times for $ndec decisions"; }
pass "attacker's grower killed, /top/v alive, oom_kill 0; fork bomb at $nbomb pids; 1500 cgroups; daemon VmHWM $hwm kB, fds $fd0->$fd1; refusal logged once per decision ($ndec)"
