# charge-held-open: shmem held open, not mapped (doc/SPEC.md "Shmem
# held open, not mapped"). `cgoom run`, policy cgroup, event log on.
# /h (memory.max 300M): /h/holder holds a file in a tmpfs by a
# descriptor, unlinked at once, and writes it at 20 MiB/s towards
# 280 MiB, never mapping it; /h/other holds an innocent 60 MiB process.
# memory.stat counts the file as shmem no process maps (shmem -
# file_mapped), which every footprint leaves out, and so does the
# kernel's oom_badness (it counts RssShmem only): yet the holder's death
# frees it. Before, /h/holder was never ranked and the innocent died for
# it. Now cgoom reads the holder's /proc/PID/fd, finds the deleted tmpfs
# file, and gives it back to /h/holder's footprint ("held_shmem"): the
# one kill is the holder's, the innocent lives, the kernel kills
# nothing, and the file's charge is gone with it.
# Then the same with a memfd (/h/holder2, "memfd:grow").
# vm-timeout: 240
T=/mnt/held
tmpfs_scratch $T

write_conf <<CONF
[daemon]
event_log = $EV
[cgroup "/h"]
oom_policy = cgroup
CONF

# holder LABEL CGROUP FILE MIB: the workload that holds FILE open
holder() {
	sh -c 'echo $$ > "$1/cgroup.procs" || exit 99; exec workload hold "$2" "$3" 20' holder \
		"$CG$2" "$3" "$4" > "$VM_TMP/hog.$1.out" 2>&1 &
	echo "$1 $! $2 0" >> "$VM_TMP/hogs"
}

# round N HOLDER-CGROUP FILE: one holder against the innocent
round() {
	cg_make /h 300M
	cg_enable /h +memory
	cg_make "$2"
	cg_make /h/other
	hog innocent /h/other 60
	hogs_wait 60
	holder holder "$2" "$3" 280
	hogs_wait 60
	# explain at 100 MiB held: the holder ranks first
	i=0
	while [ "$(sed -n 's/^shmem //p' "$CG$2/memory.stat")" -lt $((100 << 20)) ]; do
		i=$((i + 1)); [ $i -lt 300 ] || fail "$1: $2 never held 100 MiB"
		sleep 0.1
	done
	say "$1: $2: $(grep -E '^(anon|shmem|file_mapped) ' "$CG$2/memory.stat" | tr '\n' ' ')"
	cg_oom "explain$1" --config "$CGOOM_CONF" explain /h --json
	grep -q '"held_shmem": [1-9]' "$VM_TMP/explain$1.out" ||
		{ diag_file "$VM_TMP/explain$1.out"; fail "$1: explain /h shows no held_shmem"; }
	[ "$(json_victim_field "$VM_TMP/explain$1.out" cgroup)" = "$2" ] ||
		{ diag_file "$VM_TMP/explain$1.out"; fail "$1: explain /h does not choose $2"; }
	daemon_start run
	trap 'daemon_stop; tmpfs_done' EXIT
	wait_event victim_exit 90 || { daemon_stop; fail "$1: no victim exited within 90 s"; }
	sleep 5 # a second kill, if any, would come now
	died=$(dead_hogs)
	hog_table
	nkill=$(ev_count kill)
	okills=$(oom_kills /h)
	ev_lines decision | head -n 1 > "$VM_TMP/decision$1.json"
	left=$(sed -n 's/^shmem //p' "$CG/h/memory.stat")
	daemon_stop
	[ "$died" = "$(hog_pid holder)" ] || fail "$1: died [$died] ($(labels_of $died)), expected the holder alone"
	[ "$nkill" = 1 ] || fail "$1: $nkill kills, expected 1"
	[ "$okills" = 0 ] || fail "$1: the kernel OOM-killed $okills in /h"
	grep -q '"held_shmem": [1-9]' "$VM_TMP/decision$1.json" ||
		{ diag_file "$VM_TMP/decision$1.json"; fail "$1: the decision shows no held_shmem"; }
	[ "$left" -lt $((8 << 20)) ] || fail "$1: /h still holds $left bytes of shmem after the holder died"
	grep -q 'deleted tmpfs files and memfds' "$DLOG" ||
		fail "$1: the log does not say what the holder holds open"
	echo 1 > "$CG/h/cgroup.kill"
	sleep 1
	for c in "$2" /h/other /h; do rmdir "$CG$c" 2>/dev/null; done
	rm -f "$VM_TMP/hogs" "$EV"
}

round 1 /h/holder "$T/tmp.XXXX"
round 2 /h/holder2 "memfd:grow"
tmpfs_done
pass "a deleted tmpfs file and a memfd held open: the holder died alone each time (innocent alive, kernel 0), held_shmem in explain and the decision, the charge gone"
