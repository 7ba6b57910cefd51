# tests/vm/soak-guest.sh: the guest half of tests/vm/soak (busybox ash;
# tests/vm/soak prepends SOAK_MINUTES=N and runs it with --script).
# `cgoom run` (the ASan build) watches /work (memory.max 500M, guard band
# 48M) while vmxattr churn creates and removes cgroups under /work/churn at
# 100/s, hogs in /work/h1..h3 are replaced every cycle, and each cycle a
# grower (25 MiB/s) squeezes /work until the daemon kills it. Lines on the
# results port:
#   CGOOM-SOAK SECONDS RSS_KB FDS CPU_TICKS SQUEEZES RESOLVED
#   CGOOM-SOAK-END squeezes=N resolved=N asan_errors=N leaks=N oom_kill=N churn=N/FAILS exit=RC
. "$CGOOM_LIB"
PORT=/dev/ttyS1
[ -w $PORT ] || PORT=/dev/stdout
out() { echo "$*" >> $PORT; }
write_conf <<CONF > /dev/null
[daemon]
guard_band = 48M
event_log = $EV
[cgroup "/work"]
oom_policy = cgroup
CONF
cg_make /work 500M
cg_enable /work +memory
for c in churn grow h1 h2 h3; do cg_make /work/$c; done
oom0=$(vm_oom_kills)
# a 16 MiB quarantine (default 256) so RSS shows a trend, not the
# quarantine filling up
export ASAN_OPTIONS=detect_leaks=1:log_path=/tmp/asan:abort_on_error=0:quarantine_size_mb=16
rm -f /tmp/asan*
daemon_start run
t0=$(date +%s)
end=$((t0 + SOAK_MINUTES * 60))
vmxattr churn "$CG/work/churn" 100 $((SOAK_MINUTES * 60)) > "$VM_TMP/churn.out" 2>&1 &
CH=$!
sample() {
	set -- $(sed 's/^.*) //' /proc/$DPID/stat)
	cpu=$(( ${12} + ${13} ))
	out "CGOOM-SOAK $(( $(date +%s) - t0 )) $(sed -n 's/^VmRSS:[[:space:]]*\([0-9]*\).*/\1/p' /proc/$DPID/status) $(proc_fds $DPID) $cpu $sq $ok"
}
sq=0 ok=0 k=0
sample
while [ "$(date +%s)" -lt $end ] && is_alive $DPID; do
	k=$((k + 1))
	# hogs come and go: replace one of h1..h3
	h=h$(( k % 3 + 1 ))
	echo 1 > "$CG/work/$h/cgroup.kill" 2>/dev/null
	hog "$h-$k" /work/$h $(( 20 + (k * 37) % 60 ))
	sleep 2
	# a squeeze
	sq=$((sq + 1))
	hog "grow-$k" /work/grow 400 25
	gp=$(hog_pid "grow-$k")
	if wait_dead 60 $gp; then
		n=$(ev_count victim_exit)
		[ "$n" -ge $ok ] && ok=$n
	fi
	sample
done
kill $CH 2>/dev/null
wait $CH 2>/dev/null
alive=1; is_alive $DPID || alive=0
daemon_stop > /dev/null
sleep 1
ae=$(cat /tmp/asan* 2>/dev/null | grep -c 'ERROR: AddressSanitizer')
lk=$(cat /tmp/asan* 2>/dev/null | grep -c 'ERROR: LeakSanitizer')
cat /tmp/asan* 2>/dev/null | head -n 40 | while IFS= read -r l; do out "CGOOM-SOAK-ASAN $l"; done
out "CGOOM-SOAK-END squeezes=$sq resolved=$ok asan_errors=$ae leaks=$lk oom_kill=$(( $(vm_oom_kills) - oom0 )) churn=$(cat "$VM_TMP/churn.out" | sed 's/^churn //; s/ /\//') exit=$DRC alive=$alive"
tail -n 5 "$DLOG"
cleanup_all > /dev/null
exit 0
