# bench/scale-oomd-guest.sh: issue 21's idle cost beside systemd-oomd, in
# tests/vm's systemd guest (bench/scale-oomd prepends NS and IDLE and runs
# it with `tests/vm/run --flavour systemd --script`, bash, root). For each
# N of NS: N slices fleet-cI.slice (cgroup /fleet.slice/fleet-cI.slice)
# with MemoryMax=(64 + I mod 64)M and ManagedOOMMemoryPressure=kill, one
# in ten holding a sleeping service (bench/scale's fleet, as systemd
# units, so that systemd-oomd monitors the same cgroups cgoom watches as
# domains). Then, one at a time, as their units start them (defaults):
# systemd-oomd, cgoom.service; each one's CPU (utime + stime) over IDLE s
# from 3 s after it watches the fleet, RSS and fds:
#   SCALE-OOMD tool=T n=N secs=S cpu_ms=C rss_kb=R fds=F watching=W
# W: the fleet cgroups it says it watches (oomctl's monitored paths;
# cgoom's "domain /fleet.slice/..." lines).
export PATH=/vm/extra:$PATH
RES=/dev/ttyS1
out() { echo "$*" >> "$RES"; echo "$*"; }
: "${NS:=10 1000}" "${IDLE:=30}"
# the job runs at oom_score_adj -1000; nothing here needs it
echo 0 > /proc/self/oom_score_adj
UD=/run/systemd/system

fleet_make() { # N
	local i
	printf '[Slice]\n' > $UD/fleet.slice
	for i in $(seq 0 $(($1 - 1))); do
		printf '[Slice]\nMemoryMax=%dM\nManagedOOMMemoryPressure=kill\n' $((64 + i % 64)) > $UD/fleet-c$i.slice
	done
	systemctl daemon-reload
	seq 0 $(($1 - 1)) | sed 's/.*/fleet-c&.slice/' | xargs -n 100 systemctl start ||
		out "SCALE-INFO cannot=fleet n=$1 why=systemctl_start_failed"
	for i in $(seq 0 10 $(($1 - 1))); do
		systemd-run --quiet --unit=fleet-s$i --slice=fleet-c$i.slice sleep infinity ||
			out "SCALE-INFO cannot=fleet-s$i"
	done
}
fleet_clear() {
	systemctl stop 'fleet-s*.service' fleet.slice > /dev/null 2>&1
	rm -f $UD/fleet*.slice
	systemctl daemon-reload
	systemctl reset-failed > /dev/null 2>&1
}
fds_of() { ls /proc/$1/fd 2> /dev/null | wc -l; }
# measure TOOL N PID WATCHING
measure() {
	local c0 c1 rss
	sleep 3
	set -- "$1" "$2" "$3" "$4" $(benchhelp cpu "$3")
	c0=$6
	sleep "$IDLE"
	set -- "$1" "$2" "$3" "$4" $(benchhelp cpu "$3")
	c1=$6 rss=$8
	out "SCALE-OOMD tool=$1 n=$2 secs=$IDLE cpu_ms=$((c1 - c0)) rss_kb=$rss fds=$(fds_of "$3") watching=$4"
}
oomd_watching() { oomctl 2> /dev/null | grep -c 'Path: /fleet.slice/fleet-c'; }
cgoom_watching() { journalctl -q --no-pager -u cgoom --since "$1" -o cat | grep -c 'domain /fleet.slice/fleet-c'; }

systemctl stop cgoom systemd-oomd > /dev/null 2>&1
for n in $NS; do
	fleet_make "$n"
	# systemd-oomd, its defaults, monitoring every fleet slice
	systemctl restart systemd-oomd
	i=0
	until [ "$(oomd_watching)" -ge "$n" ] || [ $i -gt 240 ]; do sleep 0.5; i=$((i + 1)); done
	measure systemd-oomd "$n" "$(systemctl show -P MainPID systemd-oomd)" "$(oomd_watching)"
	systemctl stop systemd-oomd
	# cgoom as its unit runs it
	since=$(date '+%Y-%m-%d %H:%M:%S')
	systemctl start cgoom
	i=0
	until [ "$(cgoom_watching "$since")" -ge "$n" ] || [ $i -gt 240 ]; do sleep 0.5; i=$((i + 1)); done
	measure cgoom "$n" "$(systemctl show -P MainPID cgoom)" "$(cgoom_watching "$since")"
	systemctl stop cgoom
	fleet_clear
done
out "SCALE-DONE"
exit 0
