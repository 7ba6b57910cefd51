# oom-group: /work/og has memory.oom.group=1 and three hogs, the largest
# (80 MiB) protected with oom_score_adj -1000. Policy none (no settings):
# the largest eligible process is og's 70 MiB hog, the scope is /work/og,
# so its two eligible members die (one pidfd kill each: cgroup.kill would
# kill the protected one too); the protected hog and /work/other live.
# vm-timeout: 120
# vm-checks: explain-agrees
DOMAIN=/work
cg_make /work 1200M
cg_enable /work +memory
cg_make /work/og
cg_set /work/og memory.oom.group 1
cg_make /work/other
hog og-60 /work/og 60
hog og-70 /work/og 70
hog og-80-protected /work/og 80
hog other-40 /work/other 40
hogs_wait 60
prot=$(hog_pid og-80-protected)
echo -1000 > "/proc/$prot/oom_score_adj" || fail "cannot set oom_score_adj of $prot"
say "oom_score_adj of og-80-protected ($prot): $(cat /proc/$prot/oom_score_adj)"

WANT=$(sorted_pids "$(hog_pid og-60) $(hog_pid og-70)")
explain_predict explain $DOMAIN
check_victim "$VM_TMP/explain.out" none "" "$(hog_pid og-70)" /work/og
KILL_TRACE=1
TRACE_SET=pidfd_open,pidfd_send_signal,process_mrelease,kill,tgkill,openat,write
kill_and_check kill $DOMAIN "$WANT"
is_alive "$prot" || fail "the oom_score_adj -1000 hog died"
if [ "$TRACED" = 1 ]; then
	for kfd in $(sed -n 's/.*openat([^,]*, "[^"]*cgroup\.kill", [^)]*) *= \([0-9][0-9]*\).*/\1/p' "$VM_TMP/kill.strace"); do
		grep -Eq "write\($kfd, \"1" "$VM_TMP/kill.strace" &&
			fail "cgoom wrote cgroup.kill although a member of the scope has oom_score_adj -1000"
	done
fi
if [ "$TRACED" = 1 ]; then
	n=$(grep -c 'pidfd_send_signal([0-9]*, SIGKILL' "$VM_TMP/kill.strace")
	[ "$n" = 2 ] || fail "expected 2 pidfd_send_signal(SIGKILL) calls, strace shows $n"
fi
pass "scope /work/og: og-60 and og-70 died, the -1000 hog and /work/other live"
