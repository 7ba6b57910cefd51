# daemon-unprivileged: `cgoom run` started as an ordinary user (uid 1000,
# no capabilities) runs, but can neither read trusted.cgoom.* nor signal
# anyone else's processes: it says both at start, with the fix (run it as
# root); as a dry run it kills nothing, so only the first is said; as
# root neither.
# vm-timeout: 60

rm -f "$CGOOM_CONF"
cg_make /work 400M
for mode in user user-dry root; do
	case $mode in
	user) as_user 1000 "exec cgoom run" > "$VM_TMP/$mode.log" 2>&1 & ;;
	user-dry) as_user 1000 "exec cgoom run --dry-run" > "$VM_TMP/$mode.log" 2>&1 & ;;
	root) cgoom run > "$VM_TMP/$mode.log" 2>&1 & ;;
	esac
	P=$!
	wait_watching "$VM_TMP/$mode.log"
	# as_user's wrapper is $P; the daemon under it is the guest's only cgoom
	kill -TERM $(pidof cgoom) 2>/dev/null
	wait $P
	i=0
	while pidof cgoom > /dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
	pidof cgoom > /dev/null && fail "cgoom run ($mode) did not stop on SIGTERM"
	say "$mode:"; sed 's/^/    /' "$VM_TMP/$mode.log"
done
grep -q 'trusted.cgoom.\* settings cannot be read (they need CAP_SYS_ADMIN)' "$VM_TMP/user.log" ||
	fail "as uid 1000: no word that trusted.cgoom.* is not seen"
grep -q "cannot signal other users' processes (no CAP_KILL)" "$VM_TMP/user.log" ||
	fail "as uid 1000: no word that it cannot kill others' processes"
grep -q 'trusted.cgoom.\* settings cannot be read' "$VM_TMP/user-dry.log" ||
	fail "as uid 1000, --dry-run: no word that trusted.cgoom.* is not seen"
grep -q 'no CAP_KILL' "$VM_TMP/user-dry.log" && fail "a dry run warned that it cannot kill"
grep -q 'cannot be read\|no CAP_KILL' "$VM_TMP/root.log" && fail "as root: a capability warning"
grep -q 'OOM killers would race' "$VM_TMP/root.log" "$VM_TMP/user-dry.log" && fail "a daemon outlived its turn"
# `cgoom kill` as uid 1000 on root's hog: skipped, with why (exit 1)
cg_enable /work +memory
cg_make /work/a
hog a /work/a 20
hogs_wait 30
as_user 1000 "cgoom kill /work" > "$VM_TMP/kill.out" 2>&1
krc=$?
sed 's/^/    /' "$VM_TMP/kill.out"
[ $krc = 1 ] || fail "cgoom kill as uid 1000 exited $krc, expected 1"
grep -q "skipped $(hog_pid a): Operation not permitted (another user's process: signalling it needs root or CAP_KILL)" \
	"$VM_TMP/kill.out" || fail "cgoom kill as uid 1000 did not say why it skipped root's process"
is_alive "$(hog_pid a)" || fail "root's hog died"
pass "as uid 1000 both limits said at start (the dry run: trusted.* only), and kill says why it skipped; as root none"
