# daemon-reload: SIGHUP with a broken config: cgoom logs FILE:LINE and
# that it keeps the old configuration (event "reload" ok false), keeps
# its guard band, and a later squeeze in /work is still handled (the
# grower killed, memory.events oom_kill 0), also after a good reload
# that re-arms the PSI triggers with a new psi_full.
# vm-timeout: 90

write_conf <<CONF
[daemon]
guard_band = 48M
event_log = $EV
[cgroup "/work"]
oom_policy = cgroup
CONF
work_domain
daemon_start run
high0=$(cg_get /work memory.high)
printf '[daemon]\nguard_band = 48M\nkill_wait = forever\n' > "$CGOOM_CONF"
kill -HUP $DPID
wait_event reload 10 || { daemon_stop; fail "no reload event after SIGHUP"; }
grep -q "$CGOOM_CONF:3: " "$DLOG" || { daemon_stop; fail "the log does not name $CGOOM_CONF:3"; }
grep -q 'keeping the old configuration' "$DLOG" || { daemon_stop; fail "the log does not say the old configuration is kept"; }
ev_lines reload | grep -q '"ok": false' || { daemon_stop; fail "reload event not ok:false"; }
is_alive $DPID || fail "cgoom run died on a bad reload"
[ "$(cg_get /work memory.high)" = "$high0" ] || fail "memory.high changed on a failed reload"
# then a good one that changes psi_full: every PSI trigger is re-armed
write_conf <<CONF
[daemon]
guard_band = 48M
psi_full = 150ms/1s
event_log = $EV
[cgroup "/work"]
oom_policy = cgroup
CONF
kill -HUP $DPID
wait_reload_ok || { daemon_stop; fail "no successful reload event"; }
grep -q 'cannot arm a PSI trigger' "$DLOG" && { daemon_stop; fail "re-arming PSI failed"; }
is_alive $DPID || fail "cgoom run died on a good reload"
squeeze_grower "after the bad reload"
diag "$(grep "$CGOOM_CONF:3" "$DLOG" | head -n 1)"
pass "bad config on SIGHUP reported and ignored; later squeeze handled (trigger->signal $(ev_num kill reaction_ms) ms)"
