# daemon-reload-gone: `cgoom run` started without --config reads
# /etc/cgoom.conf; the file is moved away and the daemon told to reload
# (systemctl reload). It keeps what it runs with, as for a bad file
# (before: "configuration reloaded" with no settings at all, the omit on
# /work/a and the event log gone with them): the log says the file is
# gone and the old configuration kept, the event log (still open) has
# the reload with "ok": false, and a squeeze in /work kills the grower
# in /work/b, never the omitted /work/a. Back in place, the file is
# reloaded as usual. A daemon that started without the file stays with
# no settings on a reload, quietly.
# vm-timeout: 90

cat > "$CGOOM_CONF" <<CONF
[daemon]
event_log = $EV
[cgroup "/work"]
oom_policy = cgroup
[cgroup "/work/a"]
preference = omit
CONF
cg_make /work 300M
cg_enable /work +memory
cg_make /work/a
cg_make /work/b
: > "$DLOG"
cgoom run > "$DLOG" 2>&1 &
DPID=$!
trap daemon_stop EXIT
i=0
until grep -q 'watching [0-9]* domain' "$DLOG"; do
	i=$((i + 1)); [ $i -gt 100 ] && { diag_file "$DLOG"; fail "cgoom run did not start"; }
	sleep 0.1
done
mv "$CGOOM_CONF" "$CGOOM_CONF.moved"
kill -HUP $DPID
wait_event reload 10 || { daemon_stop; fail "no reload event after SIGHUP (the event log was dropped?)"; }
ev_lines reload | grep -q '"ok": false' || { daemon_stop; fail "reload event not ok:false"; }
grep -q "$CGOOM_CONF: gone since it was read" "$DLOG" || { daemon_stop; fail "the log does not say the file is gone"; }
grep -q 'reload failed; keeping the old configuration' "$DLOG" || { daemon_stop; fail "the log does not say the old configuration is kept"; }
# the omit on /work/a still holds: the larger /work/a lives, /work/b's grower dies
hog a /work/a 150
hogs_wait 60
hog grow /work/b 250 25
wait_event victim_exit 60 || { daemon_stop; fail "no victim within 60 s"; }
sleep 0.3
died=$(dead_hogs)
hog_table
[ "$died" = "$(hog_pid grow)" ] || { daemon_stop; fail "died [$died], expected the grower (is /work/a still omitted?)"; }
# back in place: reloaded as usual
mv "$CGOOM_CONF.moved" "$CGOOM_CONF"
kill -HUP $DPID
wait_reload_ok || { daemon_stop; fail "no successful reload once the file is back"; }
daemon_stop
# without the file from the start: no settings, and a reload changes nothing, quietly
rm -f "$CGOOM_CONF"
: > "$DLOG"
cgoom run > "$DLOG" 2>&1 &
DPID=$!
i=0
until grep -q 'watching [0-9]* domain' "$DLOG"; do
	i=$((i + 1)); [ $i -gt 100 ] && { diag_file "$DLOG"; fail "cgoom run (no file) did not start"; }
	sleep 0.1
done
kill -HUP $DPID
i=0
until grep -q 'configuration reloaded' "$DLOG"; do
	i=$((i + 1)); [ $i -gt 50 ] && { daemon_stop; fail "no reload without a file"; }
	sleep 0.1
done
daemon_stop
grep -q 'gone since\|reload failed' "$DLOG" && fail "a daemon started without the file complained on reload"
pass "a reload with /etc/cgoom.conf gone kept the running settings (omit held: the grower died), said so; back in place, reloaded"
