# deep-paths: cgroups the walk reaches only one directory at a time.
# /deep: a chain 100 levels deep (memory enabled down it) whose bottom
# holds a 120 MiB hog, beside /deep/x's 50 MiB: explain must name the
# deep one (below 64 levels the processes count as the 64th level's)
# and kill must kill it; then, with memory.max 300M on /deep, `cgoom
# run` must kill a grower at the bottom before the kernel does. /lp: 18
# levels of 240-byte names (a path over PATH_MAX) whose bottom
# (memory.oom.group=1) holds 120 and 110 MiB hogs, beside /lp/x's 50
# MiB: explain must name them (a deferred leaf that deep was dropped)
# and kill must empty the scope with cgroup.kill (its path failed
# openat2). /deep/x and /lp/x live.
# vm-timeout: 180
# vm-checks: explain-agrees
cg_make /deep 700M
p=/deep
for i in $(seq 1 100); do cg_enable "$p" +memory; p=$p/d; cg_make "$p"; done
bottom=$p # lib.sh's helpers use $p
cg_make /deep/x
hog deep "$bottom" 120
hog dx /deep/x 50
hogs_wait 60
WANT=$(hog_pid deep)
explain_predict deep /deep
[ "$PRED" = "$WANT" ] || fail "explain /deep predicts [$PRED] ($(labels_of $PRED)), not the hog 100 levels down"
kill_and_check kdeep /deep "$WANT"
dx=$(hog_pid dx)
# the daemon too: a grower 100 levels down (it killed dx's hog before)
write_conf <<CONF
[daemon]
event_log = $EV
CONF
cg_set /deep memory.max 300M
daemon_start run
hog grow "$bottom" 400 40
wait_event victim_exit 60 || { daemon_stop; fail "cgoom run: no victim_exit within 60 s"; }
sleep 0.3
gk=$(oom_kills /deep)
daemon_stop
is_dead "$(hog_pid grow)" || fail "cgoom run: the grower 100 levels down lives"
[ "$gk" = 0 ] || fail "cgoom run: the kernel OOM-killed in /deep ($gk)"
: > "$VM_TMP/hogs" # the second part counts its own hogs

cg_make /lp 700M
cg_make /lp/x
n() { printf '%0240d' "$1"; }
r1= r2=
for i in 1 2 3 4 5 6 7 8 9; do r1="$r1$(n $i)/"; done
for i in 10 11 12 13 14 15 16 17 18; do r2="$r2$(n $i)/"; done
# busybox sh cannot cd into a path past PATH_MAX: two halves, relative;
# nor can /init's cleanup (find, rmdir) remove them: lp_gone does
lp_rmdirs() { # lp_rmdirs DIR REL: rmdir REL and its parents up to DIR
	(cd "$1" 2>/dev/null && p=${2%/} && while [ -n "$p" ]; do
		rmdir "$p" 2>/dev/null
		case "$p" in */*) p=${p%/*} ;; *) p= ;; esac
	done)
}
lp_gone() {
	echo 1 > "$CG/lp/cgroup.kill" 2>/dev/null
	i=0
	while grep -q '^populated 1' "$CG/lp/cgroup.events" 2>/dev/null && [ $i -lt 50 ]; do
		sleep 0.1; i=$((i + 1))
	done
	lp_rmdirs "$CG/lp/$r1" "$r2"
	lp_rmdirs "$CG/lp" "$r1"
}
trap lp_gone EXIT
(cd "$CG/lp" && p=. && for i in 1 2 3 4 5 6 7 8 9; do
	echo +memory > "$p/cgroup.subtree_control" && p="$p/$(n $i)" && mkdir "$p" || exit 1
done) || fail "cannot make the first half of /lp's chain"
(cd "$CG/lp/$r1" && p=. && for i in 10 11 12 13 14 15 16 17 18; do
	echo +memory > "$p/cgroup.subtree_control" && p="$p/$(n $i)" && mkdir "$p" || exit 1
done && echo 1 > "$p/memory.oom.group") || fail "cannot make the second half of /lp's chain"
lhog() {
	(cd "$CG/lp/$r1" && sh -c 'echo $$ > "$1/cgroup.procs" || exit 99; exec memhog "$2"' \
		hog "$r2" "$2" > "$VM_TMP/hog.$1.out" 2>&1 & echo "$1 $! /lp/... $2" >> "$VM_TMP/hogs")
}
lhog lp120 120
lhog lp110 110
hog lx /lp/x 50
hogs_wait 60
[ "$(wc -c < "/proc/$(hog_pid lp120)/cgroup")" -gt 4096 ] || fail "the chain's path is not past PATH_MAX"
WANT=$(sorted_pids "$(hog_pid lp120) $(hog_pid lp110)")
explain_predict lp /lp
[ "$PRED" = "$WANT" ] || fail "explain /lp predicts [$PRED] ($(labels_of $PRED)), not the scope's two hogs"
[ "$(json_victim_field "$VM_TMP/lp.out" cgroup_kill)" = true ] || fail "explain plans no cgroup.kill"
kill_and_check klp /lp "$WANT"
grep -q 'cgroup\.kill' "$VM_TMP/klp.out" || fail "kill did not use cgroup.kill: $(grep -v '^ ' "$VM_TMP/klp.out" | tail -n 3)"
is_alive "$dx" || fail "/deep/x's hog died"
pass "a hog 100 levels down (explain, kill, cgoom run) and an oom.group scope past PATH_MAX were explained and killed (cgroup.kill); /deep/x and /lp/x live"
