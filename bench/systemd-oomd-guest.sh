# bench/systemd-oomd-guest.sh: the systemd-oomd rows of bench/run, in the
# systemd guest of tests/vm (run by bench/systemd-oomd as a --script,
# bash). bench/systemd-oomd prepends the plan (TOOL VARIANTS REPS IDLE
# SCENS RATES) and bench/guest.sh's functions (everything before its
# "main" section), so the scenarios, the reference clock (benchhelp mon)
# and the result lines are exactly bench/guest.sh's; only the tool
# differs: systemd-oomd as PID 1 drives it, through ManagedOOM*= on the
# root slice (-.slice, the cgroup "/", whose descendants are all the
# scenarios' cgroups).
#   systemd-oomd        its defaults: ManagedOOMMemoryPressure=kill with
#                       DefaultMemoryPressureLimit=60% for 30 s
#   systemd-oomd-tuned  as close to the others' thresholds as it allows:
#                       it has no MemAvailable or memory.max threshold
#                       (only pressure, and swap use, and there is no
#                       swap), so the quickest pressure rule it accepts:
#                       ManagedOOMMemoryPressureLimit=20% for 1 s (the
#                       shortest duration it takes).
# Result lines go to /dev/ttyS1 ($RES) as in the busybox guest.
export PATH=/vm/extra:$PATH
RES=/dev/ttyS1
# the job runs at oom_score_adj -1000; the hogs must not inherit that
echo 0 > /proc/self/oom_score_adj

sdo_conf() { # VARIANT
	mkdir -p /run/systemd/system/-.slice.d /run/systemd/oomd.conf.d
	case "$1" in
	systemd-oomd)
		rm -f /run/systemd/oomd.conf.d/bench.conf
		printf '[Slice]\nManagedOOMMemoryPressure=kill\n' > /run/systemd/system/-.slice.d/bench.conf ;;
	systemd-oomd-tuned)
		printf '[OOM]\nDefaultMemoryPressureDurationSec=1s\n' > /run/systemd/oomd.conf.d/bench.conf
		printf '[Slice]\nManagedOOMMemoryPressure=kill\nManagedOOMMemoryPressureLimit=20%%\n' > /run/systemd/system/-.slice.d/bench.conf ;;
	esac
	systemctl daemon-reload
}
tool_start() { # SCEN
	TLOG=$T/tool.$1.log
	SINCE=$(date '+%Y-%m-%d %H:%M:%S')
	systemctl restart systemd-oomd.service > "$TLOG" 2>&1 || {
		out "BENCH-CANNOT tool=$TOOL scen=$1 systemctl restart systemd-oomd failed: $(tr '\n' ' ' < "$TLOG" | cut -c1-200)"
		return 1
	}
	i=0
	until oomctl 2>/dev/null | grep -q 'Path: /$'; do
		i=$((i + 1))
		[ $i -gt 100 ] && { out "BENCH-CANNOT tool=$TOOL scen=$1 systemd-oomd does not monitor / after 10 s: $(oomctl 2>&1 | tr '\n' ' ' | cut -c1-200)"; return 1; }
		sleep 0.1
	done
	TPID=$(systemctl show -P MainPID systemd-oomd.service)
	return 0
}
tool_stop() {
	say "systemd-oomd journal (last 20 lines):"
	journalctl -q --no-pager -u systemd-oomd.service --since "$SINCE" -o cat | tail -n 20 | sed 's/^/    /'
	TPID=
}
tool_alive() { [ "$(systemctl is-active systemd-oomd.service)" = active ]; }
# killer attribution: systemd-oomd logs the cgroup it killed, not a pid;
# a kill line in its journal during the repetition counts (the kernel's
# own kills, by pid, still win in run_rep).
sdo_killed() {
	journalctl -q --no-pager -u systemd-oomd.service --since "$SINCE" -o cat 2>/dev/null | grep -q -i 'killed'
}
tool_killed_systemd-oomd() { sdo_killed; }
tool_killed_systemd-oomd-tuned() { sdo_killed; }

: "${REPS:=5}" "${IDLE:=60}" "${SCENS:=a b bg b2 c}" "${RATES:=50 200 1000}"
: "${B_RATE:=100}" "${C_RATE:=50}" "${BAND_KB:=65536}" "${MON_US:=1000}"
MT=$(mem_kb MemTotal)
THR_KB=$((MT / 20))
probe_start
for TOOL in $VARIANTS; do
	sdo_conf "$TOOL"
	out "BENCH-INFO tool=$TOOL memtotal_kb=$MT memavail_kb=$(mem_kb MemAvailable) reps=$REPS rates=$(echo $RATES | tr ' ' ,) b_rate=$B_RATE c_rate=$C_RATE band_kb=$BAND_KB mon_us=$MON_US guest=systemd-$(systemctl --version | sed -n '1s/^systemd \([0-9]*\).*/\1/p')"
	for s in $SCENS; do
		t0=$(now_ns)
		scen_$s
		out "BENCH-INFO tool=$TOOL scen=$s secs=$(( ($(now_ns) - t0) / 1000000000 ))"
	done
	idle_cost
done
rm -f /run/systemd/system/-.slice.d/bench.conf /run/systemd/oomd.conf.d/bench.conf
systemctl daemon-reload
kill $PROBE 2>/dev/null
out "BENCH-DONE"
exit 0
