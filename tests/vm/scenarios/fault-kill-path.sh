# fault-kill-path: faults between decision and death, one-shot
# `cgoom kill /work` (policy cgroup, the biggest cgroup is the victim):
#  1. the victim is stopped (SIGSTOP): SIGKILL still ends it, nothing
#     else dies, exit 0;
#  2. process_mrelease fails with ESRCH, then with EINVAL (injected by
#     strace, as earlyoom users saw them): the victim dies all the same,
#     exactly one process is signalled, exit 0;
#  3. the victim's scope (memory.oom.group) is emptied and removed between
#     the decision and the cgroup.kill write (strace delays cgoom after
#     its first pidfd_open): nothing outside it dies, cgoom exits without
#     crashing (0 or 1, never a signal), and a second cgoom kill then
#     takes the next victim.
# The SIGTERM-ignoring victim through term_grace is daemon-slow's.
# vm-timeout: 150
DOMAIN=/work
C="--config $CGOOM_CONF"
command -v strace > /dev/null || { pass "SKIP: no strace in the guest (injection needs it)"; }
write_conf <<'CONF'
[cgroup "/work"]
oom_policy = cgroup
CONF
setup() { # setup TAG
	cg_make /work 900M
	cg_enable /work +memory
	cg_make /work/big
	cg_make /work/mid
	cg_make /work/small
	hog "big$1" /work/big 120
	hog "mid$1" /work/mid 80
	hog "small$1" /work/small 40
	hogs_wait 60
}
teardown() {
	echo 1 > "$CG/work/cgroup.kill"
	for p in $(all_hog_pids); do wait_dead 5 "$p"; done
	find "$CG/work" -depth -type d -exec rmdir {} \; 2>/dev/null
	: > "$VM_TMP/hogs"
}
# 1. stopped victim
setup 1
kill -STOP "$(hog_pid big1)"
sleep 0.2
grep -q '^State:.*T' "/proc/$(hog_pid big1)/status" || fail "big1 is not stopped"
explain_predict stopped-explain $DOMAIN $C
kill_and_check stopped $DOMAIN "$(hog_pid big1)" $C
say "stopped victim killed"
teardown
# 2. process_mrelease failing
for e in ESRCH EINVAL; do
	setup "-$e"
	strace -f -qq --seccomp-bpf -o "$VM_TMP/mrel-$e.strace" -e trace=process_mrelease,pidfd_send_signal \
		-e inject=process_mrelease:error=$e cgoom $C kill /work > "$VM_TMP/mrel.out" 2>&1
	rc=$?
	wait_dead 15 "$(hog_pid big-$e)" || fail "mrelease $e: the victim did not die"
	sleep 0.5
	died=$(dead_hogs)
	[ "$died" = "$(hog_pid big-$e)" ] || fail "mrelease $e: died [$died] ($(labels_of $died)), expected big-$e"
	[ $rc = 0 ] || { diag_file "$VM_TMP/mrel.out"; fail "mrelease $e: cgoom kill exited $rc"; }
	grep -q "process_mrelease(.*= -1 $e .*(INJECTED)" "$VM_TMP/mrel-$e.strace" ||
		{ diag_file "$VM_TMP/mrel-$e.strace"; fail "mrelease $e: no injected failure seen (process_mrelease not called?)"; }
	nsig=$(grep -c 'pidfd_send_signal(' "$VM_TMP/mrel-$e.strace")
	[ "$nsig" = 1 ] || fail "mrelease $e: $nsig signals sent, expected 1"
	say "process_mrelease $e: victim died, one signal, exit 0"
	teardown
done
# 3. scope removed between the decision and cgroup.kill
cg_make /work 900M
cg_enable /work +memory
cg_make /work/big
cg_set /work/big memory.oom.group 1
cg_make /work/mid
hog big-a /work/big 70
hog big-b /work/big 60
hog mid /work/mid 80
hogs_wait 60
strace -f -qq --seccomp-bpf -o "$VM_TMP/gone.strace" -e trace=pidfd_open,write \
	-e inject=pidfd_open:delay_exit=1500000 cgoom $C kill /work > "$VM_TMP/gone.out" 2>&1 &
SPID=$!
# wait for the first pidfd_open, then empty and remove the scope
i=0
until grep -q 'pidfd_open(' "$VM_TMP/gone.strace" 2>/dev/null; do
	i=$((i + 1)); [ $i -gt 100 ] && fail "cgoom never opened a pidfd"
	sleep 0.05
done
echo 1 > "$CG/work/big/cgroup.kill"
wait_dead 5 "$(hog_pid big-a)" "$(hog_pid big-b)" || fail "could not empty /work/big"
i=0
while ! rmdir "$CG/work/big" 2>/dev/null; do
	i=$((i + 1)); [ $i -gt 50 ] && fail "could not remove /work/big"
	sleep 0.1
done
wait $SPID
rc=$?
diag_file "$VM_TMP/gone.out" 10
[ $rc -le 1 ] || fail "cgoom kill exited $rc with the scope gone (crash?)"
sleep 0.5
is_alive "$(hog_pid mid)" || fail "mid died: cgoom killed outside the removed scope"
cg_oom next $C kill /work || fail "the next cgoom kill exited $CGOOM_RC"
wait_dead 10 "$(hog_pid mid)" || fail "the next cgoom kill did not take mid"
pass "stopped victim killed; mrelease ESRCH and EINVAL tolerated (victim dead, one signal); scope removed mid-kill: exit $rc, nothing else died, next kill took mid"
