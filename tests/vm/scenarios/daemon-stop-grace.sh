# daemon-stop-grace: `cgoom run` with term_grace = 10s is stopped
# (SIGTERM) while its victim, which ignores SIGTERM, is in the grace: the
# kill it began is finished at exit (SIGKILL now, said so), not left
# half done. The victim sits just under memory.max (396 of 400 MiB, in
# the margin), so nothing else would ever end it: before, it lived on
# after cgoom stopped.
# vm-timeout: 90

write_conf <<CONF
[daemon]
term_grace = 10s
event_log = $EV
[cgroup "/work"]
oom_policy = cgroup
CONF
cg_make /work 400M
cg_enable /work +memory
cg_make /work/grow
daemon_start run
sh -c 'echo $$ > "$1/cgroup.procs" || exit 99; trap "" TERM; exec memhog 396 25' \
	hog "$CG/work/grow" > "$VM_TMP/grow.out" 2>&1 &
G=$!
i=0
until grep -q 'sent SIGTERM' "$DLOG"; do
	i=$((i + 1)); [ $i -gt 600 ] && { daemon_stop; fail "cgoom sent no SIGTERM within 60 s"; }
	sleep 0.1
done
is_alive $G || { daemon_stop; fail "the grower died of SIGTERM (it ignores it)"; }
t0=$(up_ms)
daemon_stop
wait_dead 3 $G
alive=$(is_alive $G && echo yes || echo no)
okills=$(oom_kills /work)
[ "$alive" = no ] || { kill -9 $G; fail "the victim cgoom sent SIGTERM to lives on after cgoom stopped in the grace"; }
grep -q '/work: exiting in term_grace: SIGKILL to 1 process still alive' "$DLOG" ||
	fail "the log does not say the kill was finished at exit: $(grep /work "$DLOG" | tail -n 2)"
[ "$okills" = 0 ] || fail "the kernel OOM-killed (oom_kill $okills)"
pass "stopped in term_grace: the victim got SIGKILL at exit ($(( $(up_ms) - t0 )) ms), kernel oom_kill 0"
