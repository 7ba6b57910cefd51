# tmpfs-filler (issue 22): memory no kill can free. `cgoom run`, policy
# cgroup, event log on.
#  1. /fill (memory.max 400M) is 80% tmpfs: 320 MiB of files written from
#     /fill/files by a dd that has exited (no process maps them), a
#     10 MiB keeper beside them, and a grower (20 MiB/s) in /fill/work.
#     SPEC 4 leaves the unmapped tmpfs out of /fill/files' footprint, so
#     the one kill is the grower's: the keeper lives, no second kill
#     follows, the kernel kills nothing, and the operator is told why
#     (the decision's "unmapped_shmem" and the line under the ranking)
#     and what the kill freed (victim_exit's freed_bytes against
#     expected_bytes).
#  2. /fill2 (memory.max 300M, margin 5%, kill_storm = 2/1m) already at
#     its line when the daemon starts: 284 MiB of tmpfs and four 1 MiB
#     processes, nothing growing: each kill frees its 1 MiB and the
#     domain stays at its line (the tmpfs, 15 MiB from memory.max with
#     the processes' few pages beside it, is not at the line alone). The
#     kill-storm guard lets two through, then holds back and says why (a
#     warning and a storm_hold event); the other two processes live.
#  3. /fill3 as /fill2 but with 290 MiB of tmpfs: that alone is within
#     the margin, so no kill, nor all four, could take the domain out of
#     trouble, and nothing grows: the guard holds from the first kill,
#     says that memory no kill can free keeps the domain at its line
#     (storm_hold with unfreeable_bytes), and all four live (before: two
#     died each minute, as in 2). Then a grower starts beside them
#     (the four are `avoid`): heading for the kernel's OOM, its kill goes
#     through, before the kernel's.
# vm-timeout: 400
T=/mnt/fill
tmpfs_scratch $T

# fill CGROUP FILE MB: dd writes MB MiB of tmpfs from inside CGROUP and exits
fill() {
	sh -c 'echo $$ > "$1/cgroup.procs" && exec dd if=/dev/zero of="$2" bs=1M count="$3" 2>/dev/null' \
		fill "$CG$1" "$T/$2" "$3" || fail "dd of $3 MiB into $T/$2 from $1 failed"
	say "$1: $(sed -n 's/^shmem //p' "$CG$1/memory.stat") bytes of shmem, $(sed -n 's/^file_mapped //p' "$CG$1/memory.stat") file_mapped"
}

# --- 1: 80% tmpfs, a grower
write_conf <<CONF
[daemon]
event_log = $EV
[cgroup "/fill"]
oom_policy = cgroup
CONF
cg_make /fill 400M
cg_enable /fill +memory
cg_make /fill/files
cg_make /fill/work
fill /fill/files a 320
hog keeper /fill/files 10
hogs_wait 60
daemon_start run
trap 'daemon_stop; tmpfs_done' EXIT
hog grow /fill/work 200 20
wait_event victim_exit 90 || { daemon_stop; fail "1: no victim exited within 90 s"; }
sleep 5 # a second kill, if any, would come now
died=$(dead_hogs)
hog_table
nkill=$(ev_count kill)
okills=$(oom_kills /fill)
ev_lines decision | head -n 1 > "$VM_TMP/decision1.json"
ev_lines victim_exit | head -n 1 > "$VM_TMP/exit1.json"
freed=$(json_value "$(json_flat "$VM_TMP/exit1.json")" freed_bytes)
expected=$(json_value "$(json_flat "$VM_TMP/exit1.json")" expected_bytes)
daemon_stop
[ "$died" = "$(hog_pid grow)" ] || fail "1: died [$died] ($(labels_of $died)), expected the grower alone"
[ "$nkill" = 1 ] || fail "1: $nkill kills, expected 1 (no storm)"
[ "$okills" = 0 ] || fail "1: the kernel OOM-killed $okills in /fill"
grep -q '"unmapped_shmem": [1-9]' "$VM_TMP/decision1.json" ||
	{ diag_file "$VM_TMP/decision1.json"; fail "1: the decision shows no unmapped_shmem"; }
grep -q 'footprints leave out .* of shmem and tmpfs no process maps' "$DLOG" ||
	fail "1: the log does not say that tmpfs no process maps was left out"
[ -n "$freed" ] && [ -n "$expected" ] || { diag_file "$VM_TMP/exit1.json"; fail "1: victim_exit without freed_bytes/expected_bytes"; }
[ "$freed" -ge $((expected / 2)) ] || fail "1: the grower's kill freed $freed of the $expected bytes promised"
say "1: the grower died alone; freed $((freed / 1048576)) MiB of $((expected / 1048576)) MiB promised"
R1="grower alone, freed $((freed / 1048576))/$((expected / 1048576)) MiB"
echo 1 > "$CG/fill/cgroup.kill"
rm -f "$T/a" "$VM_TMP/hogs" "$EV"

# --- 2: at the line with tmpfs alone: the guard
write_conf <<CONF
[daemon]
event_log = $EV
[cgroup "/fill2"]
oom_policy = cgroup
margin = 5%
kill_storm = 2/1m
CONF
cg_make /fill2 300M
cg_enable /fill2 +memory
cg_make /fill2/files
for i in 1 2 3 4; do cg_make /fill2/w$i; hog w$i /fill2/w$i 1; done
hogs_wait 60
fill /fill2/files b 284
say "/fill2 memory.current $(( $(cg_get /fill2 memory.current) / 1048576 )) MiB of 300"
daemon_start run
trap 'daemon_stop; tmpfs_done' EXIT
wait_event storm_hold 60 || { daemon_stop; fail "2: the kill-storm guard never held back"; }
sleep 5 # held: nothing more dies
died=$(dead_hogs)
hog_table
nkill=$(ev_count kill)
nhold=$(ev_count storm_hold)
okills=$(oom_kills /fill2)
daemon_stop
[ "$nkill" = 2 ] || fail "2: $nkill kills, expected 2 (kill_storm = 2/1m)"
[ "$(echo $died | wc -w)" = 2 ] || fail "2: died [$died] ($(labels_of $died)), expected two of the four"
[ "$okills" = 0 ] || fail "2: the kernel OOM-killed $okills in /fill2"
grep -q 'kill-storm guard holds back: 2 kills in the last 1m (kill_storm = 2/1m) and the domain is not heading' "$DLOG" ||
	fail "2: no log line saying why the guard holds back"
R2="2 kills then the guard held ($nhold storm_hold events), 2 processes alive"
echo 1 > "$CG/fill2/cgroup.kill"
rm -f "$T/b" "$VM_TMP/hogs" "$EV"

# --- 3: at the line with tmpfs alone: no kill can help
write_conf <<CONF
[daemon]
event_log = $EV
[cgroup "/fill3"]
oom_policy = cgroup
margin = 5%
kill_storm = 2/1m
[cgroup "/fill3/w*"]
preference = avoid
CONF
cg_make /fill3 300M
cg_enable /fill3 +memory
cg_make /fill3/files
for i in 1 2 3 4; do cg_make /fill3/w$i; hog w$i /fill3/w$i 1; done
hogs_wait 60
fill /fill3/files c 290
say "/fill3 memory.current $(( $(cg_get /fill3 memory.current) / 1048576 )) MiB of 300"
daemon_start run
trap 'daemon_stop; tmpfs_done' EXIT
wait_event storm_hold 60 || { daemon_stop; fail "3: the guard never held back"; }
sleep 5 # held: nothing dies
died=$(dead_hogs)
hog_table
nkill=$(ev_count kill)
ev_lines storm_hold | head -n 1 > "$VM_TMP/hold3.json"
[ "$nkill" = 0 ] || { daemon_stop; fail "3: $nkill kills, expected none (the tmpfs alone keeps /fill3 at its line)"; }
[ -z "$died" ] || { daemon_stop; fail "3: died [$died] ($(labels_of $died)), expected none"; }
# then something grows towards memory.max: heading for the kernel's OOM,
# the guard must let the kill through (the grower's: the idle ones are
# `avoid`, as the grower is no larger than they when that is seen)
cg_make /fill3/grow
hog grow /fill3/grow 50 5
wait_event victim_exit 60 || { daemon_stop; fail "3: no kill of the grower within 60 s"; }
sleep 2
died=$(dead_hogs)
hog_table
okills=$(oom_kills /fill3)
daemon_stop
[ "$died" = "$(hog_pid grow)" ] || fail "3: died [$died] ($(labels_of $died)), expected the grower alone"
[ "$okills" = 0 ] || fail "3: the kernel OOM-killed $okills in /fill3"
grep -q '"unfreeable_bytes": [1-9]' "$VM_TMP/hold3.json" ||
	{ diag_file "$VM_TMP/hold3.json"; fail "3: the storm_hold event has no unfreeable_bytes"; }
grep -q 'kill-storm guard holds back: memory no kill can free (.* of shmem and tmpfs no process maps, beyond the swap room) keeps the domain within .* by itself' "$DLOG" ||
	fail "3: no log line saying that memory no kill can free keeps /fill3 at its line"
tmpfs_done
pass "1: $R1, keeper alive, kernel 0, tmpfs left out and said; 2: $R2; 3: tmpfs alone at the line: 0 kills, the guard said why, 4 alive; then a grower: killed, kernel 0"
