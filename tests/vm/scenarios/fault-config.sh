# fault-config: the config file replaced, under a running daemon, by a
# directory, a FIFO (nobody writing: a plain open would block the daemon
# for good) and a 2 MiB file (valid settings hidden past 1 MiB: a partial
# read would apply them). Each SIGHUP must be refused at once with the
# reason logged and "keeping the old configuration", the daemon alive and
# answering the next SIGHUP; `cgoom explain` and `cgoom run` started on
# such a config exit 2 with the reason, without hanging. A good config
# afterwards reloads, and a squeeze is still handled by the old settings.
# vm-timeout: 120

write_conf <<CONF
[daemon]
guard_band = 48M
event_log = $EV
[cgroup "/work"]
oom_policy = cgroup
CONF
cp "$CGOOM_CONF" "$VM_TMP/good.conf"
work_domain
daemon_start run
n=0
reload_refused() { # reload_refused WHAT: one SIGHUP, refused within 3 s
	n=$((n + 1))
	kill -HUP $DPID
	i=0
	until [ "$(ev_lines reload | grep -c '"ok": false')" -ge $n ]; do
		i=$((i + 1))
		[ $i -gt 30 ] && { diag_file "$DLOG"; fail "$1: no refused reload within 3 s (daemon blocked?)"; }
		sleep 0.1
	done
	is_alive $DPID || fail "$1: cgoom run died"
	[ "$(grep -c 'keeping the old configuration' "$DLOG")" -ge $n ] || fail "$1: no 'keeping the old configuration'"
}
rm -f "$CGOOM_CONF"; mkdir "$CGOOM_CONF"
reload_refused directory
grep -q "$CGOOM_CONF: is a directory" "$DLOG" || fail "directory: reason not logged"
rmdir "$CGOOM_CONF"; mkfifo "$CGOOM_CONF"
reload_refused FIFO
grep -q "$CGOOM_CONF: is not a regular file" "$DLOG" || fail "FIFO: reason not logged"
timeout 5 cgoom --config "$CGOOM_CONF" explain /work > /dev/null 2> "$VM_TMP/x.err"
rc=$?
[ $rc = 2 ] || fail "explain on a FIFO config: exit $rc (124 = hung), expected 2"
timeout 5 cgoom --config "$CGOOM_CONF" run > /dev/null 2> "$VM_TMP/r.err"
rc=$?
[ $rc = 2 ] || fail "a second cgoom run on a FIFO config: exit $rc (124 = hung), expected 2"
rm -f "$CGOOM_CONF"
# 2 MiB: comments, then a setting that would change the policy
{ i=0; while [ $i -lt 2048 ]; do printf '#%01022d\n' 0; i=$((i + 1)); done
  printf '[cgroup "/work"]\noom_policy = none\n'; } > "$VM_TMP/huge.conf" 2>/dev/null
[ "$(wc -c < "$VM_TMP/huge.conf")" -gt 2000000 ] || fail "could not make the huge file"
cp "$VM_TMP/huge.conf" "$CGOOM_CONF"
reload_refused "huge file"
grep -q "$CGOOM_CONF: is too large" "$DLOG" || fail "huge file: reason not logged"
timeout 5 cgoom --config "$CGOOM_CONF" explain /work > /dev/null 2>&1
rc=$?
[ $rc = 2 ] || fail "explain on a 2 MiB config: exit $rc, expected 2"
cp "$VM_TMP/good.conf" "$CGOOM_CONF"
kill -HUP $DPID
i=0
until ev_lines reload | grep -q '"ok": true'; do
	i=$((i + 1)); [ $i -gt 50 ] && { diag_file "$DLOG"; fail "good config not reloaded"; }
	sleep 0.1
done
squeeze_grower "after the refused configs"
pass "directory, FIFO and 2 MiB config refused at once on SIGHUP and at start (exit 2), old config kept, squeeze handled after"
