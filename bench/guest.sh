# bench/guest.sh: one OOM killer's benchmark, inside the QEMU guest
# (busybox ash; sourced by bench/init with TOOL, REPS, SCENS, IDLE set).
#
# Result lines (to $RES and the console), one per repetition / fact:
#   BENCH-INFO  tool=T key=value...
#   BENCH-REP   tool=T scen=S rep=N react_ms=.. victim=.. spec=yes|no
#               killer=tool|kernel|none kernel_kills=N cg_oom_kills=N
#               probe_ms=.. rate_mibs=.. psi_lead_ms=.. sig=..
#   BENCH-IDLE  tool=T secs=N cpu_ms=N rss_kb=N
#   BENCH-CANNOT tool=T scen=S reason...
#
# Every run measures from the same reference: MemAvailable crossing 5% of
# MemTotal (scenarios a, c; each tool is configured to act there) or
# memory.current crossing memory.max - 2% (scenario b), sampled every
# 10 ms by `benchhelp mon`, to the first death among the watched
# processes (pidfd, `benchhelp watch`), both CLOCK_MONOTONIC.

CG=/sys/fs/cgroup
T=/tmp/bench
mkdir -p $T
GROWER_LOG=$T/grow.out

out() { echo "$*" >> "$RES"; echo "$*"; }
say() { echo "[bench $TOOL] $*"; }

mem_kb() { sed -n "s/^$1:[[:space:]]*\([0-9]*\).*/\1/p" /proc/meminfo; }
vm_ooms() { sed -n 's/^oom_kill //p' /proc/vmstat; }
is_dead() {
	[ -d "/proc/$1" ] || return 0
	st=$(sed -n 's/^State:[[:space:]]*\([A-Z]\).*/\1/p' "/proc/$1/status" 2>/dev/null)
	[ -z "$st" ] || [ "$st" = Z ] || [ "$st" = X ]
}
now_ns() { benchhelp now; }
ms_between() { echo $(( ($2 - $1) / 1000000 )); }

# --- processes -------------------------------------------------------------
# $T/hogs: LABEL PID CGROUP MB (static innocents and seed hogs)

hog_start() { # LABEL CGROUP MB [RATE]
	sh -c 'echo $$ > "$1/cgroup.procs" || exit 99; shift; exec memhog "$@"' \
		hog "$CG$2" "$3" ${4:-} > "$T/hog.$1.out" 2>&1 &
	grep -v "^$1 " "$T/hogs" > "$T/hogs.new" 2>/dev/null
	echo "$1 $! $2 $3" >> "$T/hogs.new"
	mv "$T/hogs.new" "$T/hogs"
}
hog_pid() { awk -v l="$1" '$1 == l { print $2 }' "$T/hogs"; }
hog_label() { awk -v p="$1" '$2 == p { print $1 }' "$T/hogs"; }
hog_cg() { awk -v p="$1" '$2 == p { print $3 }' "$T/hogs"; }
hogs_ready() {
	i=0
	while :; do
		missing=0
		while read -r l p c m; do
			grep -q "^ready $p\$" "$T/hog.$l.out" 2>/dev/null && continue
			if is_dead "$p"; then hog_start "$l" "$c" "$m"; fi
			missing=$((missing + 1))
		done < "$T/hogs"
		[ $missing = 0 ] && return 0
		i=$((i + 1))
		[ $i -gt 900 ] && { say "hogs not ready after 90 s"; return 1; }
		sleep 0.1
	done
}
# respawn every dead static hog (a tool or the kernel killed it)
hogs_respawn() {
	n=0
	while read -r l p c m; do
		is_dead "$p" && { hog_start "$l" "$c" "$m"; n=$((n + 1)); }
	done < "$T/hogs"
	[ $n = 0 ] || { say "respawning $n hog(s)"; hogs_ready; }
	wait_settle
}
hogs_pids() { awk '{ print $2 }' "$T/hogs" | tr '\n' ' '; }
hogs_clear() {
	while read -r l p c m; do kill -9 "$p" 2>/dev/null; done < "$T/hogs" 2>/dev/null
	: > "$T/hogs"
}
wait_settle() { sleep 0.5; }

probe_start() {
	mkdir -p $CG/probe
	: > $T/probe.out
	sh -c 'echo $$ > /sys/fs/cgroup/probe/cgroup.procs; exec benchhelp probe /tmp/bench/probe.out' &
	PROBE=$!
	sleep 0.2
}
probe_ensure() { is_dead "$PROBE" && probe_start; return 0; }
probe_reset() { kill -USR1 "$PROBE" 2>/dev/null; sleep 0.05; }
probe_read() { # worst wakeup latency since the last reset, in ms
	n0=$(grep -c worst_us $T/probe.out)
	kill -USR1 "$PROBE" 2>/dev/null || { echo dead; return; }
	i=0
	while [ "$(grep -c worst_us $T/probe.out)" = "$n0" ] && [ $i -lt 50 ]; do sleep 0.05; i=$((i + 1)); done
	us=$(grep worst_us $T/probe.out | tail -n 1 | awk '{ print $2 }')
	echo $((us / 1000)).$(( (us % 1000) / 100 ))
}

# --- the tools -------------------------------------------------------------

TPID=
tool_start() { # SCEN: start the killer configured for this scenario
	TLOG=$T/tool.$1.log
	: > "$TLOG"
	case "$TOOL" in
	kernel) TPID= ; return 0 ;;
	cgoom)
		cat > /etc/cgoom.conf <<EOF
[daemon]
mem_available_min = 5%
event_log = $T/cgoom-events.$1.jsonl
[cgroup "/"]
oom_policy = cgroup
[cgroup "/cg3"]
oom_policy = tree
EOF
		[ "$1" = bg ] && printf '[cgroup "/lim"]\nguard_band = 48M\n' >> /etc/cgoom.conf
		cgoom --config /etc/cgoom.conf run > "$TLOG" 2>&1 &
		TPID=$!
		ready='watching [0-9]* domain'
		;;
	earlyoom)
		# SIGTERM at 5% MemAvailable (SIGKILL at 2.5%); no swap, so the
		# swap condition always holds; -r 0: no periodic report.
		earlyoom -m 5 -r 0 > "$TLOG" 2>&1 &
		TPID=$!
		ready='mem total'
		;;
	oomd)
		oomd_conf "$1" > /etc/oomd.json
		mkdir -p /run/oomd
		oomd --config /etc/oomd.json --interval 1 --cgroup-fs /sys/fs/cgroup \
			--runtime-dir /run/oomd --kmsg-override $T/oomd.kmsg > "$TLOG" 2>&1 &
		TPID=$!
		ready='Running oomd'
		;;
	esac
	i=0
	until grep -q "$ready" "$TLOG"; do
		i=$((i + 1))
		if is_dead "$TPID" || [ $i -gt 100 ]; then
			why=$(tr '\n' ' ' < "$TLOG" | cut -c1-300)
			out "BENCH-CANNOT tool=$TOOL scen=$1 $TOOL did not start: ${why:-no output}"
			kill -9 "$TPID" 2>/dev/null
			TPID=
			return 1
		fi
		sleep 0.1
	done
	return 0
}
tool_stop() {
	[ -n "$TPID" ] || return 0
	[ "$TOOL" = oomd ] && sleep 1.5 # its log is written asynchronously
	say "$TOOL log (last 40 lines, config dump left out):"
	grep -v -e 'ConfigTypes.cpp' "$TLOG" | tail -n 40 | sed 's/^/    /'
	[ "$TOOL" = cgoom ] && cat $T/cgoom-events.*.jsonl 2>/dev/null | grep -e '"kill"' -e '"trigger"' | tail -n 12 | cut -c1-400 | sed 's/^/    ev: /'
	kill -TERM "$TPID" 2>/dev/null
	i=0
	while ! is_dead "$TPID" && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
	is_dead "$TPID" || kill -9 "$TPID"
	wait "$TPID" 2>/dev/null
	TPID=
}
tool_alive() { [ -z "$TPID" ] || ! is_dead "$TPID"; }

# oomd: kill on memory use >= 95% of MemTotal (system) or >= max - 2%
# (cgroup /lim), or on memory PSI (10 s avg) over 60 for 1 s; the
# candidates are the scenario's cgroups. Interval 1 s (default 5 s).
oomd_conf() {
	case "$1" in
	a*|idle) watch='/' thr='95%' cands='bench/*' ;;
	b) watch='lim' thr="$OOMD_LIM_THR" cands='lim/*' ;;
	c) watch='/' thr='95%' cands='cg1,cg2,cg3,pressure,ballast' ;;
	esac
	cat <<EOF
{
  "rulesets": [
    {
      "name": "bench $1",
      "post_action_delay": "2",
      "detectors": [
        [ "memory use over $thr",
          { "name": "memory_above", "args": { "cgroup": "$watch", "threshold": "$thr", "duration": "0" } } ],
        [ "memory pressure over 60",
          { "name": "pressure_above", "args": { "cgroup": "$watch", "resource": "memory", "threshold": "60", "duration": "1" } } ]
      ],
      "actions": [
        { "name": "kill_by_memory_size_or_growth", "args": { "cgroup": "$cands", "post_action_delay": "2" } }
      ]
    }
  ]
}
EOF
}

# --- one repetition --------------------------------------------------------
# run_rep SCEN REP GROWCG SIZE RATE SPEC_PIDS [MON_ARGS...]
# The grower starts in GROWCG; the static hogs and the probe are watched
# too. SPEC_PIDS: the pids whose death is the spec's choice ("grow" for
# the grower).
run_rep() {
	scen=$1 rep=$2 gcg=$3 size=$4 rate=$5 spec=$6
	shift 6
	probe_ensure
	tool_alive || { out "BENCH-CANNOT tool=$TOOL scen=$scen $TOOL died: $(tail -n 3 "$TLOG" | tr '\n' ' ')"; return 1; }
	rm -f $T/mon.out $T/watch.out
	vm0=$(vm_ooms)
	cgo0=0
	[ "${scen#b}" != "$scen" ] && cgo0=$(sed -n 's/^oom_kill //p' $CG/lim/memory.events)
	dmesg -c > /dev/null
	benchhelp mon $T/mon.out "$@" &
	MON=$!
	probe_reset
	sh -c 'echo $$ > "$1/cgroup.procs" || exit 99; exec memhog "$2" "$3"' \
		grow "$CG$gcg" "$size" "$rate" > $GROWER_LOG 2>&1 &
	G=$!
	benchhelp watch $T/watch.out $G $(hogs_pids) &
	W=$!
	i=0
	while ! grep -q '^dead' $T/watch.out 2>/dev/null; do
		i=$((i + 1))
		[ $i -gt 600 ] && break
		sleep 0.05
	done
	sleep 1 # whatever else is going to die
	probe_ms=$(probe_read)
	# stop watching before we end the grower ourselves
	kill $MON $W 2>/dev/null
	wait $MON 2>/dev/null
	wait $W 2>/dev/null
	first=$(grep '^dead' $T/watch.out | head -n 1)
	kill -9 $G 2>/dev/null
	wait $G 2>/dev/null
	gst=$?
	vm1=$(vm_ooms)
	cgo=0
	[ "${scen#b}" != "$scen" ] && cgo=$(( $(sed -n 's/^oom_kill //p' $CG/lim/memory.events) - cgo0 ))
	kk=$((vm1 - vm0))
	cross=$(awk '$1 == "cross_ns" { print $2 }' $T/mon.out)
	grate=$(awk '$1 == "cross_ns" { print $4 }' $T/mon.out)
	psi=$(awk '$1 == "psi_ns" { print $2 }' $T/mon.out)
	if [ -z "$first" ]; then
		out "BENCH-REP tool=$TOOL scen=$scen rep=$rep react_ms=none victim=none spec=no killer=none kernel_kills=$kk cg_oom_kills=$cgo probe_ms=$probe_ms rate_mibs=${grate:-?}"
		return 0
	fi
	vpid=$(echo "$first" | awk '{ print $2 }')
	tdead=$(echo "$first" | awk '{ print $3 }')
	deadpids=$(grep '^dead' $T/watch.out | awk '{ print $2 }' | tr '\n' ' ')
	names=
	for p in $deadpids; do
		if [ "$p" = "$G" ]; then names="$names,grower"; else names="$names,$(hog_label $p)"; fi
	done
	names=${names#,}
	# the kernel's kills in this rep, by pid (dmesg: "Killed process PID")
	kpids=$(dmesg | sed -n 's/.*Killed process \([0-9]*\).*/\1/p' | tr '\n' ' ')
	killer=$TOOL
	for p in $kpids; do [ "$p" = "$vpid" ] && killer=kernel; done
	[ "$TOOL" = kernel ] && killer=kernel
	# did the first victim die of the grower's own SIGKILL from us? no:
	# we kill the grower only after the first death was seen.
	ok=no
	if [ "$spec" = grow ]; then
		[ "$vpid" = "$G" ] && ok=yes
		# and nothing else died
		[ "$deadpids" = "$G " ] || ok=no
	else
		[ " $deadpids" = " $spec " ] && ok=yes
	fi
	sig=
	[ "$vpid" = "$G" ] && sig=$gst
	if [ -n "$cross" ]; then react=$(( (tdead - cross) / 1000000 )); else react=nocross; fi
	lead=
	[ -n "$psi" ] && [ -n "$cross" ] && lead=$(( (cross - psi) / 1000000 ))
	out "BENCH-REP tool=$TOOL scen=$scen rep=$rep react_ms=$react victim=$names spec=$ok killer=$killer kernel_kills=$kk cg_oom_kills=$cgo probe_ms=$probe_ms rate_mibs=${grate:-?} psi_lead_ms=${lead:-none} exit=${sig:-na}"
	# the grower is gone; respawn static hogs that died
	hogs_respawn
}

# --- scenarios ---------------------------------------------------------------

scen_a() {
	mkdir -p $CG/bench
	echo +memory > $CG/bench/cgroup.subtree_control
	for n in 1 2 3 4 5; do mkdir -p $CG/bench/inn$n; done
	mkdir -p $CG/bench/grow
	avail=$(( $(mem_kb MemAvailable) / 1024 ))
	# four innocents leave ~360 MiB: the grower crosses 5% at ~300 MiB,
	# bigger than any innocent (so every rule picks the grower)
	each=$(( (avail - 360) / 4 ))
	[ $each -gt 240 ] && each=240
	: > $T/hogs
	for n in 1 2 3 4; do hog_start inn$n /bench/inn$n $each; done
	hogs_ready || return 1
	wait_settle
	left=$(( $(mem_kb MemAvailable) / 1024 ))
	out "BENCH-INFO tool=$TOOL scen=a innocents=4x${each}MiB avail_after=${left}MiB threshold_kb=$THR_KB"
	tool_start a || { hogs_clear; return 1; }
	size=$((left + 150))
	for rate in $RATES; do
		r=1
		while [ $r -le $REPS ]; do
			run_rep a$rate $r /bench/grow $size $rate grow $THR_KB || break
			r=$((r + 1))
		done
	done
	tool_stop
	hogs_clear
	sleep 0.5
	for d in $CG/bench/*/; do rmdir $d 2>/dev/null; done
	rmdir $CG/bench 2>/dev/null
}

# bg: scenario b with cgoom's guard band (memory.high = max - 48M); the
# reference crossing is memory.high. cgoom only: no peer has the knob.
scen_bg() {
	[ "$TOOL" = cgoom ] || return 0
	scen_b bg
}

scen_b() {
	bname=${1:-b}
	mkdir -p $CG/lim
	echo 400M > $CG/lim/memory.max
	echo +memory > $CG/lim/cgroup.subtree_control
	mkdir -p $CG/lim/a $CG/lim/b $CG/lim/grow
	: > $T/hogs
	hog_start lim-a /lim/a 100
	hog_start lim-b /lim/b 80
	hogs_ready || return 1
	wait_settle
	max=$(cat $CG/lim/memory.max)
	thr=$((max - max / 50))
	OOMD_LIM_THR="$((thr / 1024))K"
	[ "$bname" = bg ] && thr=$((max - 48 * 1048576))
	out "BENCH-INFO tool=$TOOL scen=$bname memory.max=$max cross_at=$thr current=$(cat $CG/lim/memory.current)"
	tool_start $bname || { hogs_clear; return 1; }
	r=1
	while [ $r -le $REPS ]; do
		run_rep $bname $r /lim/grow 400 $B_RATE grow 0 $CG/lim $thr || break
		r=$((r + 1))
	done
	tool_stop
	hogs_clear
	sleep 0.5
	for d in $CG/lim/*/; do rmdir $d 2>/dev/null; done
	rmdir $CG/lim 2>/dev/null
}

scen_c() {
	for c in cg1 cg2 cg3 pressure ballast; do mkdir -p $CG/$c; done
	echo +memory > $CG/cg3/cgroup.subtree_control
	mkdir -p $CG/cg3/cg31 $CG/cg3/cg32
	: > $T/hogs
	hog_start cg1 /cg1 250
	hog_start cg2-100 /cg2 100
	hog_start cg2-102 /cg2 102
	hog_start cg2-104 /cg2 104
	hog_start cg31-98 /cg3/cg31 98
	hog_start cg31-99 /cg3/cg31 99
	hog_start cg32-97 /cg3/cg32 97
	hog_start cg32-96 /cg3/cg32 96
	hogs_ready || return 1
	wait_settle
	left=$(( $(mem_kb MemAvailable) / 1024 ))
	# keep the grower (which ends at left + 80) smaller than cg1's 250
	# MiB process, so the kernel's pick is cg1 and cgoom's is /cg3
	bal=0
	if [ $left -gt 160 ]; then
		bal=$((left - 160))
		n=1
		while [ $bal -gt 0 ]; do
			b=$bal; [ $b -gt 90 ] && b=90
			hog_start ballast$n /ballast $b
			bal=$((bal - b)); n=$((n + 1))
		done
		hogs_ready || return 1
		wait_settle
	fi
	left=$(( $(mem_kb MemAvailable) / 1024 ))
	spec=$(hog_pid cg31-99)
	out "BENCH-INFO tool=$TOOL scen=c seed=946MiB avail_after=${left}MiB spec_victim=cg31-99 spec_pid=$spec threshold_kb=$THR_KB"
	tool_start c || { hogs_clear; return 1; }
	r=1
	while [ $r -le $REPS ]; do
		spec=$(hog_pid cg31-99)
		run_rep c $r /pressure $((left + 80)) $C_RATE "$spec" $THR_KB || break
		r=$((r + 1))
	done
	tool_stop
	hogs_clear
	sleep 0.5
	rmdir $CG/cg3/cg31 $CG/cg3/cg32 2>/dev/null
	for c in cg1 cg2 cg3 pressure ballast; do rmdir $CG/$c 2>/dev/null; done
}

idle_cost() {
	[ "$TOOL" = kernel ] && return 0
	tool_start idle || return 0
	sleep 2
	set -- $(benchhelp cpu $TPID)
	c0=$2
	sleep "$IDLE"
	set -- $(benchhelp cpu $TPID)
	out "BENCH-IDLE tool=$TOOL secs=$IDLE cpu_ms=$(($2 - c0)) rss_kb=$4"
	tool_stop
}

# systemd-oomd cannot be a peer here: try it, and report why.
try_systemd_oomd() {
	if [ ! -x /lib/systemd/systemd-oomd ]; then
		out "BENCH-CANNOT tool=systemd-oomd scen=all binary not packed"
		return
	fi
	timeout -s KILL 5 /lib/systemd/systemd-oomd > $T/sdoomd.log 2>&1
	rc=$?
	msg=$(grep -v '^$' $T/sdoomd.log | tail -n 3 | tr '\n' ' ' | cut -c1-240)
	out "BENCH-CANNOT tool=systemd-oomd scen=all PID 1 is $(cat /proc/1/comm) (busybox), not systemd: systemd-oomd acts only on units that systemd (PID 1) marks ManagedOOM*= and talks to it over D-Bus (no dbus, no systemd manager in this guest); run here it exited $rc: ${msg:-no output}"
}

# --- main ----------------------------------------------------------------------

: "${REPS:=5}" "${IDLE:=60}" "${SCENS:=a b bg c}" "${RATES:=50 200 1000}"
: "${B_RATE:=100}" "${C_RATE:=50}"
MT=$(mem_kb MemTotal)
THR_KB=$((MT / 20))
probe_start
out "BENCH-INFO tool=$TOOL memtotal_kb=$MT memavail_kb=$(mem_kb MemAvailable) reps=$REPS rates=$(echo $RATES | tr ' ' ,) b_rate=$B_RATE c_rate=$C_RATE"
case "$TOOL" in
systemd-oomd) try_systemd_oomd ;;
*)
	for s in $SCENS; do
		t0=$(now_ns)
		scen_$s
		out "BENCH-INFO tool=$TOOL scen=$s secs=$(( ($(now_ns) - t0) / 1000000000 ))"
	done
	idle_cost
	;;
esac
kill $PROBE 2>/dev/null
