# churn-cgroup-gone: explain names /work/a; before `cgoom kill`, /work/a's
# hog dies and /work/a is removed (and a new, empty /work/a0 appears). kill
# must not fail or kill anything else than the next victim, /work/b's hog.
# vm-timeout: 120
DOMAIN=/work
cg_make /work 1200M
cg_enable /work +memory
cg_make /work/a
cg_make /work/b
cg_make /work/c
write_conf <<'CONF'
[cgroup "/work"]
oom_policy = cgroup
CONF
hog a-120 /work/a 120
hog b-80 /work/b 80
hog c-40 /work/c 40
hogs_wait 60
explain_predict explain $DOMAIN
[ "$PRED" = "$(hog_pid a-120)" ] || fail "explain predicted [$PRED], expected a-120"
kill -9 "$(hog_pid a-120)"
wait "$(hog_pid a-120)" 2>/dev/null
i=0
while ! rmdir "$CG/work/a" 2>/dev/null; do
	i=$((i + 1)); [ $i -gt 50 ] && fail "cannot rmdir /work/a"; sleep 0.1
done
cg_make /work/a0
# the dead set will hold a-120 (killed above) and cgoom's next victim
PRED=$(sorted_pids "$(hog_pid a-120) $(hog_pid b-80)")
kill_and_check kill $DOMAIN "$PRED"
is_alive "$(hog_pid c-40)" || fail "c-40 died"
pass "/work/a vanished between explain and kill: kill chose /work/b, c-40 lives"
