# charge-parking (run: tests/vm/run --script tests/vm/repro/charge-parking.sh):
# a delegatee allocates 200 MiB in /top/u/a/m1, then moves its process to
# /top/u/a/m2. The memory stays charged to m1, which is now empty: SPEC 4
# ignores empty leaves, even inside a `tree` entity, and m2's footprint is
# ~0. So the root-owned innocent /top/v (150 MiB) is chosen instead.
# Exit 0 when cgoom picks the attacker (the hole is closed), 1 when it
# picks /top/v (the hole is there; found by issue 15's attacker).
. "$CGOOM_LIB"
cat > "$CGOOM_CONF" <<'CONF'
[cgroup "/top"]
oom_policy = cgroup
[cgroup "/top/u"]
delegate = yes
oom_policy = tree
CONF
delegated_top 900M +memory
vmxattr as 1000 sh -c "cd $CG/top/u/a && mkdir m1 m2 && echo +memory > cgroup.subtree_control"
hog v /top/v 150
uhog parked /top/u/a/m1 200
hogs_wait 90
echo "$(hog_pid parked)" > "$CG/top/u/a/m2/cgroup.procs"
cgoom --config "$CGOOM_CONF" explain /top
v=$(cgoom --config "$CGOOM_CONF" explain /top --json > "$VM_TMP/e.json"; json_victim_pids "$VM_TMP/e.json")
echo "victim pids [$v]; v is $(hog_pid v), parked is $(hog_pid parked)"
cleanup_all > /dev/null
[ "$v" = "$(hog_pid parked)" ]
