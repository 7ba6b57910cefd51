# daemon-slow: a victim that dies slowly: the grower ignores SIGTERM and
# term_grace = 2s. cgoom sends SIGTERM, keeps the trigger from picking a
# second victim while it waits, sends SIGKILL after the grace (event
# kill_escalate) and records exactly one kill; the grower alone dies,
# at least 2 s after the SIGTERM; memory.events oom_kill stays 0. The
# pre_kill_hook (cat > FILE) receives the decision JSON on stdin; the
# post_kill_hook gets it after the signal with the trigger and the PIDs
# signalled. The hook takes 300 ms more: the trigger event written after
# the signal says how long before it fired (detected_ms_ago >= 300), and
# the log how long the kill waited for the hook.
# vm-timeout: 90

write_conf <<CONF
[daemon]
guard_band = 48M
term_grace = 2s
event_log = $EV
pre_kill_hook = cat > $VM_TMP/hook.json; sleep 0.3
post_kill_hook = cat > $VM_TMP/post.json
[cgroup "/work"]
oom_policy = cgroup
CONF
cg_make /work 400M
cg_enable /work +memory
cg_make /work/a
cg_make /work/b
cg_make /work/grow
daemon_start run
hog a /work/a 100
hog b /work/b 80
hogs_wait 60
# SIG_IGN survives exec: memhog ignores SIGTERM
sh -c 'echo $$ > "$1/cgroup.procs" || exit 99; trap "" TERM; exec memhog 300 25' \
	slow "$CG/work/grow" > "$VM_TMP/hog.grow.out" 2>&1 &
echo "grow $! /work/grow 300" >> "$VM_TMP/hogs"
wait_event victim_exit 60 || { daemon_stop; fail "no victim exited within 60 s (oom_kill $(oom_kills /work))"; }
sleep 2
died=$(dead_hogs)
okills=$(oom_kills /work)
nkill=$(ev_count kill)
nesc=$(ev_count kill_escalate)
sig=$(ev_lines kill | head -n 1 | grep -o '"signal": "[^"]*"' | sed 's/.*: "//; s/"//')
exit_ms=$(ev_num victim_exit exit_ms)
ntrig=$(ev_count trigger)
ago=$(ev_num trigger detected_ms_ago)
hog_table
daemon_stop
[ "$died" = "$(hog_pid grow)" ] || fail "died [$died] ($(labels_of $died)), expected the grower only"
[ "$nkill" = 1 ] || fail "$nkill kill events, expected exactly 1"
[ "$sig" = SIGTERM ] || fail "first signal $sig, expected SIGTERM"
[ "$nesc" = 1 ] || fail "$nesc SIGKILL escalations, expected 1"
[ "${exit_ms%%.*}" -ge 2000 ] || fail "victim exited ${exit_ms} ms after SIGTERM: it should have outlived the grace"
[ "$okills" = 0 ] || fail "kernel oom_kill $okills"
grep -q '"victim"' "$VM_TMP/hook.json" 2>/dev/null || fail "pre_kill_hook did not get the decision JSON on stdin"
[ "${ago:-0}" -ge 300 ] || fail "trigger event detected_ms_ago ${ago:-none}: the 300 ms the hook held the kill not shown"
grep -q 'pre_kill_hook: the kill waited [0-9]* ms for it' "$DLOG" || fail "the hook's wait not logged"
grep -q "\"signalled\": \[$(hog_pid grow)\]" "$VM_TMP/post.json" 2>/dev/null &&
	grep -q '"trigger": {"kind": "high"' "$VM_TMP/post.json" ||
	fail "post_kill_hook did not get the decision, the trigger and the PIDs signalled: $(head -c 300 "$VM_TMP/post.json" 2>&1)"
pass "pre_kill_hook got the decision (and held the kill: the trigger event says it fired ${ago} ms before it was written), post_kill_hook it and the PIDs signalled; one kill: SIGTERM ignored, SIGKILL after the 2 s grace, exit ${exit_ms} ms after SIGTERM; $ntrig trigger(s), oom_kill 0"
