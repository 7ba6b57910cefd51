# fault-outfile-symlink: event_log and metrics_file live in a shared,
# world-writable sticky directory where uid 1000 planted symlinks to
# root's files: at the event log itself and at the metrics file's .tmp.
# fs.protected_symlinks is off, so only cgoom's own care stops a write
# through them. cgoom (root) must refuse both (O_NOFOLLOW; O_EXCL for the
# temp), leave the targets untouched, log each refusal once (the metrics
# refusal is not repeated on every rewrite: three SIGHUPs rewrite it
# three times), keep running, and write the metrics again once the .tmp
# symlink is gone. Then a symlink at the metrics file itself: refused,
# target untouched. Kills still happen: a squeeze in /work is handled.
# vm-timeout: 120

ps0=$(cat /proc/sys/fs/protected_symlinks 2>/dev/null)
echo 0 > /proc/sys/fs/protected_symlinks 2>/dev/null
SH=/tmp/shared
rm -rf "$SH"
mkdir -p "$SH" && chmod 1777 "$SH"
echo "root's secret" > /etc/secret-a
echo "root's other secret" > /etc/secret-b
vmxattr as 1000 ln -s /etc/secret-a "$SH/events.jsonl" || fail "uid 1000 cannot plant a symlink"
vmxattr as 1000 ln -s /etc/secret-b "$SH/metrics.prom.tmp"
vmxattr as 1000 ln -s /etc/secret-new "$SH/dangling-target"
write_conf <<CONF
[daemon]
guard_band = 48M
event_log = $SH/events.jsonl
metrics_file = $SH/metrics.prom
[cgroup "/work"]
oom_policy = cgroup
CONF
work_domain
daemon_start run
for i in 1 2 3; do kill -HUP $DPID; sleep 0.5; done
is_alive $DPID || fail "cgoom run died"
[ "$(cat /etc/secret-a)" = "root's secret" ] || fail "/etc/secret-a was written through the event_log symlink: $(head -c 200 /etc/secret-a)"
[ "$(cat /etc/secret-b)" = "root's other secret" ] || fail "/etc/secret-b was written through the metrics .tmp symlink: $(head -c 200 /etc/secret-b)"
[ -L "$SH/events.jsonl" ] || fail "the planted event_log symlink was replaced"
n_ev=$(grep -c "event_log $SH/events.jsonl: is a symbolic link (refused)" "$DLOG")
n_me=$(grep -c "metrics_file $SH/metrics.prom.tmp: is a symbolic link (refused)" "$DLOG")
# the event log is re-opened on each of the 3 reloads: 1 + 3 refusals
[ "$n_ev" = 4 ] || { diag_file "$DLOG"; fail "event_log refusal logged $n_ev times, expected once per open (4)"; }
[ "$n_me" = 1 ] || { diag_file "$DLOG"; fail "metrics refusal logged $n_me times over 4 writes, expected once"; }
[ -e "$SH/metrics.prom" ] && fail "metrics.prom written although its .tmp is a planted symlink"
# the attacker's link goes away: metrics are written again, and said so
rm -f "$SH/metrics.prom.tmp"
kill -HUP $DPID
i=0
until [ -f "$SH/metrics.prom" ]; do
	i=$((i + 1)); [ $i -gt 50 ] && { diag_file "$DLOG"; fail "metrics not written after the .tmp symlink was removed"; }
	sleep 0.1
done
# the line follows the rename that made the file appear
i=0
until grep -q "metrics_file $SH/metrics.prom: written again" "$DLOG"; do
	i=$((i + 1)); [ $i -gt 30 ] && { diag_file "$DLOG"; fail "no 'written again' line"; }
	sleep 0.1
done
grep -q '^cgoom_' "$SH/metrics.prom" || fail "metrics.prom has no cgoom_ metrics"
# now a symlink at the metrics file itself
rm -f "$SH/metrics.prom"
vmxattr as 1000 ln -s /etc/secret-b "$SH/metrics.prom"
kill -HUP $DPID
sleep 0.5
kill -HUP $DPID
sleep 0.5
[ "$(cat /etc/secret-b)" = "root's other secret" ] || fail "/etc/secret-b written through the metrics_file symlink"
[ -L "$SH/metrics.prom" ] || fail "metrics_file symlink replaced (it should be refused, left alone)"
n_mf=$(grep -c "metrics_file $SH/metrics.prom: is a symbolic link (refused)" "$DLOG")
[ "$n_mf" = 1 ] || { diag_file "$DLOG"; fail "metrics_file symlink refusal logged $n_mf times, expected once"; }
# and the daemon still protects /work
hog a /work/a 100
hogs_wait 60
hog grow /work/grow 300 25
i=0
until [ -n "$(dead_hogs)" ]; do
	i=$((i + 1)); [ $i -gt 600 ] && { daemon_stop; fail "no kill within 60 s"; }
	sleep 0.1
done
sleep 0.3
died=$(dead_hogs)
okills=$(oom_kills /work)
hog_table
daemon_stop
[ "$died" = "$(hog_pid grow)" ] || fail "died [$died], expected the grower"
[ "$okills" = 0 ] || fail "kernel oom_kill $okills"
[ "$(cat /etc/secret-a)" = "root's secret" ] || fail "/etc/secret-a written during the kill"
rm -rf "$SH" /etc/secret-a /etc/secret-b
[ -n "$ps0" ] && echo "$ps0" > /proc/sys/fs/protected_symlinks
pass "symlinks at event_log, metrics .tmp and metrics_file refused (targets intact, each refusal logged once per open), metrics resumed, squeeze handled"
