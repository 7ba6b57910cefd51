# smoke: the test bed itself works (cgroup v2, memory controller, hogs
# charged to their cgroup, cgroup.kill, cleanup). Needs no cgoom verb.
# vm-timeout: 60

grep -q ' /sys/fs/cgroup cgroup2 ' /proc/mounts || fail "cgroup2 not mounted at /sys/fs/cgroup"
grep -qw memory "$CG/cgroup.subtree_control" || fail "memory not in root cgroup.subtree_control"
for f in memory.oom.group cgroup.kill memory.pressure memory.events memory.swap.current memory.stat; do
	cg_make /smoke
	[ -e "$CG/smoke/$f" ] || fail "/smoke/$f missing on $(uname -r)"
done
[ -r /proc/pressure/memory ] || fail "/proc/pressure/memory missing (PSI off?)"
grep -q '^SwapTotal: *0 kB' /proc/meminfo || fail "swap is on: $(grep SwapTotal /proc/meminfo)"

cg_set /smoke memory.max 200M
hog a /smoke 64
hog b /smoke 32
hogs_wait 30
cur=$(cg_get /smoke memory.current)
say "memory.current of /smoke with 96 MiB of hogs: $cur"
[ "$cur" -ge $((96 * 1024 * 1024)) ] || fail "/smoke memory.current $cur < 96 MiB: hogs not charged to their cgroup"
[ "$(cg_procs /smoke)" = "$(all_hog_pids)" ] || fail "/smoke cgroup.procs [$(cg_procs /smoke)] != hogs [$(all_hog_pids)]"
echo 1 > "$CG/smoke/cgroup.kill"
wait_dead 10 $(all_hog_pids) || fail "cgroup.kill did not kill the hogs"
[ -z "$(cg_procs /smoke)" ] || fail "/smoke not empty after cgroup.kill"
v=$(cgoom --version 2>&1 | head -n 1)
diag "cgoom --version: $v"
pass "cgroup2+memory ok, hogs charged ($cur bytes), cgroup.kill ok"
