# seed-cgroup: oom_policy cgroup on /work, set with `cgoom policy` (the
# trusted.cgoom.oom_policy xattr), over a config file that says none:
# the xattr wins. Leaves compete: cg2 (306 MiB) beats cg1 (250), cg31
# (197) and cg32 (193); its largest process dies alone (104 MiB).
# vm-timeout: 120
# vm-checks: explain-agrees
DOMAIN=/work
write_conf <<'CONF'
[cgroup "/work"]
oom_policy = none
CONF
seed_setup
C="--config $CGOOM_CONF"

cg_oom setpolicy $C policy /work cgroup || fail "cgoom policy /work cgroup exited $CGOOM_RC: $(head -c 300 "$VM_TMP/setpolicy.err")"
cg_oom policy $C policy /work || fail "cgoom policy /work exited $CGOOM_RC"
grep -qF 'none [cgroup] tree' "$VM_TMP/policy.out" ||
	fail "after 'cgoom policy /work cgroup' (xattr over config none) cgoom policy /work printed '$(head -n 3 "$VM_TMP/policy.out" | tr '\n' ' ')', expected 'none [cgroup] tree'"

WANT=$(hog_pid cg2-104)
explain_predict explain $DOMAIN $C
check_victim "$VM_TMP/explain.out" cgroup /work/cg2 "$WANT" null
kill_and_check kill $DOMAIN "$WANT" $C
pass "policy cgroup (xattr): /work/cg2 chosen, its largest hog cg2-104 (pid $WANT) alone died"
