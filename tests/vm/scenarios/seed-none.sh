# seed-none: oom_policy none on /work (from the config file). The
# largest process in the domain dies: the 250 MiB hog in cg1, alone.
# vm-timeout: 120
# vm-checks: explain-agrees
DOMAIN=/work
write_conf <<'CONF'
[cgroup "/work"]
oom_policy = none
CONF
seed_setup
C="--config $CGOOM_CONF"

cg_oom policy $C policy /work || fail "cgoom policy /work exited $CGOOM_RC"
grep -qF '[none] cgroup tree' "$VM_TMP/policy.out" ||
	fail "cgoom policy /work printed '$(head -n 1 "$VM_TMP/policy.out")', expected '[none] cgroup tree'"

WANT=$(hog_pid cg1)
explain_predict explain $DOMAIN $C
c=$(json_victim_field "$VM_TMP/explain.out" cgroup)
[ "$c" = /work/cg1 ] || diag "note: victim.cgroup is '$c' under policy none (P's cgroup is /work/cg1)"
check_victim "$VM_TMP/explain.out" none "" "$WANT" null
kill_and_check kill $DOMAIN "$WANT" $C
pass "policy none: explain and kill both chose the biggest process, cg1 in /work/cg1 (pid $WANT)"
