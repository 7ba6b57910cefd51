# fault-daemon-io: `cgoom run` with its event_log on a full filesystem (a
# 64 KiB tmpfs, filled), its metrics_file in a directory that does not
# exist, and a storm of SIGHUPs (a reload each) sent while it handles a
# squeeze in /work. Asserted: the grower alone dies, memory.events
# oom_kill stays 0, the daemon survives; "No space left" and the missing
# directory are each logged once, not per event or write; once the
# directory exists and space is freed, metrics and events resume and say
# so once.
# vm-timeout: 120

FULL=/tmp/full
mkdir -p "$FULL"
mount -t tmpfs -o size=64k tmpfs "$FULL" || fail "cannot mount a small tmpfs"
: > "$FULL/events.jsonl"
dd if=/dev/zero of="$FULL/fill" bs=4k count=100 2>/dev/null
rm -rf /tmp/nodir
write_conf <<CONF
[daemon]
guard_band = 48M
event_log = $FULL/events.jsonl
metrics_file = /tmp/nodir/metrics.prom
[cgroup "/work"]
oom_policy = cgroup
CONF
work_domain
daemon_start run
hog a /work/a 100
hogs_wait 60
hog grow /work/grow 300 25
# the storm: SIGHUPs back to back until the grower is dead (30 s at most)
( end=$(( $(date +%s) + 30 ))
  while [ "$(date +%s)" -lt $end ] && [ -d "/proc/$(hog_pid grow)" ]; do
	i=0; while [ $i -lt 50 ]; do kill -HUP $DPID 2>/dev/null; i=$((i + 1)); done
	sleep 0.02
  done ) &
STORM=$!
i=0
until [ -n "$(dead_hogs)" ]; do
	i=$((i + 1)); [ $i -gt 600 ] && { kill $STORM; daemon_stop; fail "no kill within 60 s"; }
	sleep 0.1
done
wait $STORM
sleep 0.5
died=$(dead_hogs)
okills=$(oom_kills /work)
is_alive $DPID || { diag_file "$DLOG"; fail "cgoom run died in the storm"; }
nhup=$(grep -c 'SIGHUP: reloading' "$DLOG")
nkill=$(grep -c 'killed\|kill:' "$DLOG")
n_full=$(grep -c "event_log $FULL/events.jsonl: No space left on device" "$DLOG")
n_dir=$(grep -c "metrics_file /tmp/nodir/metrics.prom: No such file or directory" "$DLOG")
hog_table
[ "$died" = "$(hog_pid grow)" ] || { daemon_stop; fail "died [$died], expected the grower"; }
[ "$okills" = 0 ] || { daemon_stop; fail "kernel oom_kill $okills"; }
[ "$n_full" = 1 ] || { diag_file "$DLOG"; daemon_stop; fail "ENOSPC logged $n_full times, expected once"; }
[ "$n_dir" = 1 ] || { diag_file "$DLOG"; daemon_stop; fail "missing metrics directory logged $n_dir times, expected once"; }
[ "$nhup" -ge 2 ] || { daemon_stop; fail "only $nhup reloads seen: no storm"; }
# recovery
mkdir /tmp/nodir
rm -f "$FULL/fill"
kill -HUP $DPID
i=0
until [ -f /tmp/nodir/metrics.prom ] && grep -q '"event": "reload"' "$FULL/events.jsonl" 2>/dev/null; do
	i=$((i + 1)); [ $i -gt 50 ] && { diag_file "$DLOG"; daemon_stop; fail "metrics or events did not resume"; }
	sleep 0.1
done
grep -q "metrics_file /tmp/nodir/metrics.prom: written again" "$DLOG" || { daemon_stop; fail "no 'written again'"; }
grep -q "event_log $FULL/events.jsonl: writing again" "$DLOG" || { daemon_stop; fail "no 'writing again'"; }
daemon_stop
umount "$FULL"
rm -rf /tmp/nodir
pass "full event_log fs and missing metrics dir each logged once; $nhup reloads in the storm; grower alone killed, oom_kill 0; both resumed"
