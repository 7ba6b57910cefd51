# attack-tree-hides-prefer: the admin marks /top/u/a/x `preference =
# prefer` (config); uid 1000, which owns /top/u/a inside the delegated
# /top/u, sets user.cgoom.oom_policy=tree on /top/u/a to fold x into one
# entity and so hide the prefer. SPEC 7 (issue 15): such a tree is
# ignored (and noted), so x's hog is the victim. Before that rule the
# innocent, root-owned /top/v (200 MiB) died instead.
# vm-timeout: 120
DOMAIN=/top
C="--config $CGOOM_CONF"
write_conf <<'CONF'
[cgroup "/top"]
oom_policy = cgroup
[cgroup "/top/u"]
delegate = yes
[cgroup "/top/u/a/x"]
preference = prefer
CONF
delegated_top 900M +memory
as_user 1000 "cd $CG/top/u/a && mkdir x y && echo +memory > cgroup.subtree_control" || fail "uid 1000 cannot make x, y"
as_user 1000 "vmxattr set $CG/top/u/a user.cgoom.oom_policy tree" || fail "uid 1000 cannot set user.cgoom.oom_policy"
hog v /top/v 200
uhog x /top/u/a/x 30
uhog y /top/u/a/y 100
hogs_wait 60
explain_predict explain $DOMAIN $C
grep -q 'tree' "$VM_TMP/explain.out" || true
[ "$PRED" = "$(hog_pid x)" ] || fail "explain predicts [$PRED] ($(labels_of $PRED)); SPEC 7 wants x (the admin's prefer may not be hidden by the delegatee's tree)"
kill_and_check kill $DOMAIN "$(hog_pid x)" $C
pass "the delegatee's tree on /top/u/a did not hide the admin's prefer on /top/u/a/x: x killed, v alive"
