# charge-mapped-elsewhere: shmem charged to one cgroup and mapped only by
# a process in another. `cgoom run`, policy cgroup, event log on.
# /d (memory.max 400M): /d/a holds a 200 MiB tmpfs file written from it
# by a dd that has exited, and a 5 MiB keeper; /d/b holds a process that
# maps the whole file (the kernel's file_mapped counts those pages in
# /d/a's memory.stat, where they are charged); /d/c a grower at 20
# MiB/s. No death in /d/a frees the file, so /d/a's footprint must not
# count it (SPEC 4 "memory no kill can free"; RssShmem of its processes
# caps it): the one kill is the grower's, the keeper and the mapper
# live, the kernel kills nothing, and explain says what it left out
# ("shmem_not_mapped_by_it"). Before, the keeper died first for the
# 200 MiB (/d/a ranked 205 MiB against the grower's 166).
# vm-timeout: 200
T=/mnt/mapped
tmpfs_scratch $T

write_conf <<CONF
[daemon]
event_log = $EV
[cgroup "/d"]
oom_policy = cgroup
CONF
cg_make /d 400M
cg_enable /d +memory
cg_make /d/a
cg_make /d/b
cg_make /d/c
sh -c 'echo $$ > "$1/cgroup.procs" && exec dd if=/dev/zero of="$2" bs=1M count=200 2>/dev/null' \
	fill "$CG/d/a" "$T/f" || fail "dd of 200 MiB into $T/f from /d/a failed"
hog keeper /d/a 5
sh -c 'echo $$ > "$1/cgroup.procs" || exit 99; exec workload map "$2"' map "$CG/d/b" "$T/f" \
	> "$VM_TMP/hog.mapper.out" 2>&1 &
echo "mapper $! /d/b 0" >> "$VM_TMP/hogs"
hogs_wait 60
say "/d/a: $(grep -E '^(anon|shmem|file_mapped) ' "$CG/d/a/memory.stat" | tr '\n' ' ')"
cg_oom before --config "$CGOOM_CONF" explain /d --json
grep -q '"shmem_not_mapped_by_it": [1-9]' "$VM_TMP/before.out" ||
	fail "explain /d shows no shmem_not_mapped_by_it for /d/a"
cg_oom before-text --config "$CGOOM_CONF" explain /d
grep -q 'shmem none of its processes map left out' "$VM_TMP/before-text.out" ||
	fail "explain /d does not say that /d/a's shmem is mapped only outside it"
daemon_start run
trap 'daemon_stop; tmpfs_done' EXIT
hog grow /d/c 300 20
wait_event victim_exit 90 || { daemon_stop; fail "no victim exited within 90 s"; }
sleep 5 # a second kill, if any, would come now
died=$(dead_hogs)
hog_table
nkill=$(ev_count kill)
okills=$(oom_kills /d)
daemon_stop
[ "$died" = "$(hog_pid grow)" ] || fail "died [$died] ($(labels_of $died)), expected the grower alone"
[ "$nkill" = 1 ] || fail "$nkill kills, expected 1"
[ "$okills" = 0 ] || fail "the kernel OOM-killed $okills in /d"
tmpfs_done
pass "the grower died alone (keeper and mapper alive, kernel 0); explain left out /d/a's shmem mapped in /d/b"
