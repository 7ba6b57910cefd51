# pidfd: a single victim (no oom.group) dies by pidfd_open +
# pidfd_send_signal(SIGKILL), then process_mrelease (in 6.1) is called on
# the same pidfd; cgoom never falls back to kill(2) on a bare pid.
# vm-timeout: 120
# vm-checks: explain-agrees
DOMAIN=/work
cg_make /work 1200M
cg_enable /work +memory
cg_make /work/big
cg_make /work/small
hog big-300 /work/big 300
hog small-60 /work/small 60
hogs_wait 60
WANT=$(hog_pid big-300)
explain_predict explain $DOMAIN
check_victim "$VM_TMP/explain.out" none "" "$WANT" null
KILL_TRACE=1
kill_and_check kill $DOMAIN "$WANT"
[ "$TRACED" = 1 ] || pass "victim died (no strace in the guest: kill path not inspected)"
T="$VM_TMP/kill.strace"
fd=$(sed -n "s/.*pidfd_open($WANT, [^)]*) *= \([0-9][0-9]*\).*/\1/p" "$T" | head -n 1)
[ -n "$fd" ] || fail "no successful pidfd_open($WANT, ...) in cgoom's syscalls"
grep -Eq "pidfd_send_signal\($fd, SIGKILL, [^)]*\) *= 0" "$T" ||
	fail "no pidfd_send_signal($fd, SIGKILL, ...) = 0 after pidfd_open($WANT) = $fd"
if grep -Eq "[^_g]kill\($WANT, " "$T"; then
	fail "cgoom called kill($WANT, ...) on the bare pid"
fi
mr=$(grep -E "process_mrelease\($fd, " "$T" | head -n 1)
[ -n "$mr" ] || fail "cgoom never called process_mrelease($fd, 0) on the victim's pidfd"
case "$mr" in
*ENOSYS*) fail "process_mrelease returned ENOSYS on $(uname -r): $mr" ;;
esac
diag "strace: $(grep -E "pidfd_send_signal\($fd," "$T" | head -n 1)"
diag "strace: $mr"
pass "pidfd_open($WANT) = $fd, pidfd_send_signal(SIGKILL) = 0, process_mrelease = $(echo "${mr##*= }" | sed 's/ *$//')"
