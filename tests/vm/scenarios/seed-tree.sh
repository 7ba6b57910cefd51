# seed-tree: /work cgroup and /work/cg3 tree, both from the config file.
# cg3 counts as one entity (390 MiB) and beats cg2 (306); the largest
# process in cg3's subtree (99 MiB, in cg31) dies alone.
# vm-timeout: 120
# vm-checks: explain-agrees
DOMAIN=/work
write_conf <<'CONF'
[cgroup "/work"]
oom_policy = cgroup
[cgroup "/work/cg3"]
oom_policy = tree
CONF
seed_setup
C="--config $CGOOM_CONF"

cg_oom policy $C policy /work/cg3 || fail "cgoom policy /work/cg3 exited $CGOOM_RC"
grep -qF 'none cgroup [tree]' "$VM_TMP/policy.out" ||
	fail "cgoom policy /work/cg3 printed '$(head -n 1 "$VM_TMP/policy.out")', expected 'none cgroup [tree]'"

WANT=$(hog_pid cg31-99)
explain_predict explain $DOMAIN $C
check_victim "$VM_TMP/explain.out" cgroup /work/cg3 "$WANT" null
kill_and_check kill $DOMAIN "$WANT" $C
pass "policy tree on cg3 (config): /work/cg3 chosen as one entity, its largest hog cg31-99 (pid $WANT) alone died"
