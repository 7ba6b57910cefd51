# churn-pid-reuse: explain names /work/a's hog X; X dies and its PID is
# recycled (pid_max lowered, fork until X recurs) by an innocent sleeper in
# /work/other. `cgoom kill /work` must select afresh: it kills /work/b's hog
# and never the process that now owns PID X.
# vm-timeout: 180
DOMAIN=/work
# get past RESERVED_PIDS (300): pids below it are never reused after a wrap
i=0
while [ $i -lt 500 ]; do : & p=$!; wait $p; [ "$p" -gt 450 ] && break; i=$((i + 1)); done
cg_make /work 1200M
cg_enable /work +memory
cg_make /work/a
cg_make /work/b
cg_make /work/other
write_conf <<'CONF'
[cgroup "/work"]
oom_policy = cgroup
CONF
hog a-120 /work/a 120
hog b-60 /work/b 60
hogs_wait 60
X=$(hog_pid a-120)
explain_predict explain $DOMAIN
[ "$PRED" = "$X" ] || fail "explain predicted [$PRED], expected a-120 ($X)"

kill -9 "$X"
wait "$X" 2>/dev/null
is_dead "$X" || fail "a-120 ($X) did not die"
old_max=$(cat /proc/sys/kernel/pid_max)
echo $((X + 8)) > /proc/sys/kernel/pid_max || fail "cannot lower pid_max"
REUSED=
i=0
while [ $i -lt 6000 ]; do
	# the next PID is X: ns_last_pid says where the allocator goes on
	# (another fork in the guest may take it first: then try again)
	echo $((X - 1)) > /proc/sys/kernel/ns_last_pid 2>/dev/null
	sh -c 'echo $$ > "$1/cgroup.procs" && exec sleep 600' s "$CG/work/other" &
	p=$!
	if [ "$p" = "$X" ]; then REUSED=$p; break; fi
	kill -9 "$p" 2>/dev/null
	wait "$p" 2>/dev/null
	i=$((i + 1))
done
echo "$old_max" > /proc/sys/kernel/pid_max
[ -n "$REUSED" ] || fail "PID $X did not recur after $i forks"
sleep 0.3
grep -q "^$X\$" "$CG/work/other/cgroup.procs" || fail "the sleeper with PID $X is not in /work/other"
say "PID $X now belongs to a sleeper in /work/other (after $i forks)"

cg_oom kill kill $DOMAIN
rc=$CGOOM_RC
wait_dead 15 "$(hog_pid b-60)"
sleep 0.5
is_alive "$X" || fail "cgoom kill killed the innocent process that reused PID $X"
is_dead "$(hog_pid b-60)" || fail "b-60 did not die (cgoom kill exit $rc)"
[ $rc = 0 ] || fail "cgoom kill exited $rc"
kill -9 "$X" 2>/dev/null
pass "stale victim PID $X reused by a sleeper: kill re-selected /work/b, the sleeper lives"
