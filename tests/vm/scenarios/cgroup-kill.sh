# cgroup-kill: /work/grp (memory.oom.group=1, 135 MiB, plus a 0 MiB
# member) beats /work/a (50 MiB) under policy cgroup; every member is
# eligible, so cgoom empties it with one cgroup.kill write.
# vm-timeout: 120
# vm-checks: explain-agrees
DOMAIN=/work
write_conf <<'CONF'
[cgroup "/work"]
oom_policy = cgroup
CONF
cg_make /work 1200M
cg_enable /work +memory
cg_make /work/a
cg_make /work/grp
cg_set /work/grp memory.oom.group 1
hog a-50 /work/a 50
hog grp-0 /work/grp 0
hog grp-40 /work/grp 40
hog grp-45 /work/grp 45
hog grp-50 /work/grp 50
hogs_wait 60
C="--config $CGOOM_CONF"

WANT=$(cg_procs /work/grp)
[ "$WANT" = "$(sorted_pids "$(hog_pid grp-0) $(hog_pid grp-40) $(hog_pid grp-45) $(hog_pid grp-50)")" ] ||
	fail "setup: /work/grp holds [$WANT]"
explain_predict explain $DOMAIN $C
check_victim "$VM_TMP/explain.out" cgroup /work/grp "$(hog_pid grp-50)" /work/grp
KILL_TRACE=1
TRACE_SET=pidfd_open,pidfd_send_signal,process_mrelease,kill,tgkill,openat,write
kill_and_check kill $DOMAIN "$WANT" $C
left=$(cg_procs /work/grp)
[ -z "$left" ] || fail "/work/grp/cgroup.procs not empty after the kill: [$left]"
if [ "$TRACED" = 1 ]; then
	T="$VM_TMP/kill.strace"
	kfd=$(sed -n 's/.*openat([^,]*, "[^"]*cgroup\.kill", [^)]*) *= \([0-9][0-9]*\).*/\1/p' "$T" | head -n 1)
	[ -n "$kfd" ] || fail "strace shows no successful open of a cgroup.kill file (the members died some other way)"
	grep -Eq "write\($kfd, \"1" "$T" || fail "cgoom opened cgroup.kill as fd $kfd but never wrote \"1\" to it"
	if grep -q 'pidfd_send_signal(' "$T"; then
		diag "note: cgoom also sent pidfd signals: $(grep -c 'pidfd_send_signal(' "$T")"
	fi
	diag "strace: $(grep -E 'cgroup\.kill' "$T" | head -n 1 | sed 's/  */ /g')"
	diag "strace: $(grep -E "write\($kfd, " "$T" | head -n 1 | sed 's/  */ /g')"
fi
grep -q 'cgroup\.kill' "$VM_TMP/kill.out" ||
	fail "/work/grp emptied, but cgoom kill's stdout does not say it used cgroup.kill: '$(head -c 200 "$VM_TMP/kill.out")'"
pass "/work/grp emptied by cgroup.kill; /work/a lives"
