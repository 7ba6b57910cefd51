# threaded: /w/t (memory.oom.group=1) is a "domain threaded" memcg whose
# children th1 and th2 are threaded (their cgroup.procs cannot be read:
# EOPNOTSUPP; /w/t's lists their processes). A 120 MiB hog moved into
# th1 beats /w/o's 60 MiB. explain must name it with no note about
# th1/th2 and plan a cgroup.kill of /w/t (no member is protected); kill
# must use cgroup.kill and leave /w/o alive. Then, with memory.max 300M
# on /w/t, `cgoom run` must kill a grower in th2 before the kernel does.
# vm-timeout: 180
# vm-checks: explain-agrees
DOMAIN=/w
write_conf <<CONF
[daemon]
event_log = $EV
CONF
cg_make /w 700M
cg_enable /w +memory
cg_make /w/o
cg_make /w/t
cg_make /w/t/th1
cg_make /w/t/th2
cg_set /w/t/th1 cgroup.type threaded
cg_set /w/t/th2 cgroup.type threaded
[ "$(cg_get /w/t cgroup.type)" = "domain threaded" ] || fail "/w/t is '$(cg_get /w/t cgroup.type)'"
cg_set /w/t memory.oom.group 1
hog th /w/t 120
hog o /w/o 60
hogs_wait 60
cg_set /w/t/th1 cgroup.procs "$(hog_pid th)"
grep -q '^0::/w/t/th1$' "/proc/$(hog_pid th)/cgroup" || fail "the hog is not in th1: $(cat /proc/$(hog_pid th)/cgroup)"
cat "$CG/w/t/th1/cgroup.procs" > /dev/null 2>&1 && fail "th1's cgroup.procs reads (not a threaded cgroup?)"

WANT=$(hog_pid th)
explain_predict explain $DOMAIN
check_victim "$VM_TMP/explain.out" none /w/t "$(hog_pid th)" /w/t
grep -q 'not supported' "$VM_TMP/explain.out" && fail "explain notes the threaded cgroups: $(grep -o '"notes": [^]]*]' "$VM_TMP/explain.out")"
[ "$(json_victim_field "$VM_TMP/explain.out" cgroup_kill)" = true ] ||
	fail "explain plans no cgroup.kill of /w/t, whose every member is eligible"
cg_oom text explain $DOMAIN
grep -q 'not supported\|protected' "$VM_TMP/text.out" && fail "explain's text: $(grep 'not supported\|protected' "$VM_TMP/text.out")"
kill_and_check kill $DOMAIN "$WANT"
grep -q 'cgroup\.kill' "$VM_TMP/kill.out" || fail "cgoom kill did not use cgroup.kill: $(head -c 300 "$VM_TMP/kill.out")"

cg_set /w/t memory.max 300M
daemon_start run
sh -c 'echo $$ > "$1/cgroup.procs" && echo $$ > "$1/th2/cgroup.procs" || exit 99; exec memhog 400 40' \
	grow "$CG/w/t" > "$VM_TMP/hog.grow.out" 2>&1 &
echo "grow $! /w/t/th2 400" >> "$VM_TMP/hogs"
wait_event victim_exit 60 || { daemon_stop; fail "no victim_exit within 60 s"; }
sleep 0.3
gk=$(oom_kills /w/t)
hog_table
daemon_stop
is_dead "$(hog_pid grow)" || fail "the grower in th2 lives"
is_alive "$(hog_pid o)" || fail "/w/o's hog died"
[ "$gk" = 0 ] || fail "the kernel OOM-killed in /w/t ($gk)"
grep -q 'not supported' "$DLOG" && fail "the daemon noted the threaded cgroups"
pass "threaded th1/th2 under /w/t: explain and kill (cgroup.kill) took the hog in th1; the daemon killed the grower in th2 before the kernel"
