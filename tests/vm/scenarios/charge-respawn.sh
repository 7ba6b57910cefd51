# charge-respawn: a service that respawns after each kill (systemd's
# Restart=always, as a shell loop) in a domain whose charge is mostly
# tmpfs no kill frees. `cgoom run`, policy cgroup, kill_storm = 2/30s,
# event log on. /r (memory.max 200M) holds 120 MiB of tmpfs written from
# /r/old, which is then removed (the charge stays with its dying memcg,
# seen only in /r's memory.stat); /r/svc runs the loop: memhog 100 MiB
# at 25 MiB/s, then again 0.5 s after each death (8 runs). Each respawn would
# take /r to the kernel's OOM (120 + 100 > 200), and each kill frees its
# memory, so the kill-storm guard must never hold back (SPEC 6: not
# while a kill would still free memory and the domain heads for the
# kernel's OOM) and the kernel must kill nothing; it says why it lets
# kills past its limit. Kill accounting: each kill's expected_bytes is
# what the victim held at the signal, not at the standby's decision
# (before: 1-9 MiB promised, about 80 MiB freed, for every kill after the
# first: the standby was made just after each respawn).
# vm-timeout: 200
T=/mnt/respawn
tmpfs_scratch $T

write_conf <<CONF
[daemon]
event_log = $EV
[cgroup "/r"]
oom_policy = cgroup
kill_storm = 2/30s
CONF
cg_make /r 200M
cg_enable /r +memory
cg_make /r/old
cg_make /r/svc
sh -c 'echo $$ > "$1/cgroup.procs" && exec dd if=/dev/zero of="$2" bs=1M count=120 2>/dev/null' \
	fill "$CG/r/old" "$T/f" || fail "dd of 120 MiB into $T/f from /r/old failed"
rmdir "$CG/r/old" || fail "cannot remove /r/old"
say "/r: $(grep -E '^(anon|shmem|file_mapped) ' "$CG/r/memory.stat" | tr '\n' ' ')"
daemon_start run
trap 'daemon_stop; tmpfs_done' EXIT
sh -c 'echo $$ > "$1/cgroup.procs" || exit 99; n=0
	while [ $n -lt 8 ]; do memhog 100 25 > /dev/null 2>&1; echo "exit $?" >> "$2"; n=$((n + 1)); sleep 0.5; done' \
	svc "$CG/r/svc" "$VM_TMP/svc.log" &
SVC=$!
wait $SVC
sleep 1
nkill=$(ev_count kill)
nexit=$(ev_count victim_exit)
nhold=$(ev_count storm_hold)
okills=$(oom_kills /r)
ev_lines victim_exit > "$VM_TMP/exits.json"
daemon_stop
say "service exits: $(sort "$VM_TMP/svc.log" | uniq -c | tr '\n' ' ')"
[ "$(grep -c 'exit 137' "$VM_TMP/svc.log")" = 8 ] || fail "not every run of the service was killed: $(tr '\n' ' ' < "$VM_TMP/svc.log")"
[ "$okills" = 0 ] || fail "the kernel OOM-killed $okills in /r"
[ "$nkill" = 8 ] || fail "$nkill kills by cgoom, expected 8"
[ "$nhold" = 0 ] || fail "the kill-storm guard held back $nhold times while each kill freed memory and /r headed for the kernel's OOM"
grep -q "kill-storm guard: .* but the domain is still heading for the kernel's OOM" "$DLOG" ||
	fail "no log line saying why the guard let kills past kill_storm = 2/30s"
bad=0
while read -r line; do
	freed=$(echo "$line" | grep -E -o '"freed_bytes": [0-9]+' | sed 's/.*: //')
	exp=$(echo "$line" | grep -E -o '"expected_bytes": [0-9]+' | sed 's/.*: //')
	[ -n "$freed" ] && [ -n "$exp" ] || { bad=$((bad + 1)); continue; }
	say "freed $((freed / 1048576)) MiB, promised $((exp / 1048576)) MiB"
	[ "$exp" -ge $((freed / 2)) ] || bad=$((bad + 1))
done < "$VM_TMP/exits.json"
[ "$nexit" = 8 ] || fail "$nexit victim_exit events, expected 8"
[ "$bad" = 0 ] || fail "$bad of $nexit kills promised less than half of what they freed (a stale promise)"
tmpfs_done
pass "8 respawns, 8 kills by cgoom, the guard let them through (heading), kernel 0; every promise within 2x of what was freed"
