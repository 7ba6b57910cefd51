# bench/guest.sh: one OOM killer's benchmark, inside the QEMU guest
# (busybox ash; sourced by bench/init with TOOL, REPS, SCENS, IDLE set).
#
# Result lines (to $RES and the console), one per repetition / fact:
#   BENCH-INFO  tool=T key=value...
#   BENCH-REP   tool=T scen=S rep=N react_ms=.. victim=.. spec=yes|no
#               killer=T|kernel|unknown kernel_kills=N cg_oom_kills=N
#               probe_ms=.. rate_mibs=.. cross_gap_us=.. band_ms=..
#               band_cpu_ms=.. psi_lead_ms=.. exit=.. mon_*=..
#   BENCH-IDLE  tool=T secs=N cpu_ms=N cpu_from=schedstat|ticks rss_kb=N
#   BENCH-IDLE-SIDE tool=T window=N secs=N cpu_ms=N cpu_from=.. rss_kb=N
#               wakeups=N|-1   (idle-side: one daemon's turn in round N)
#   BENCH-CANNOT tool=T scen=S reason...
#
# Every run measures from the same reference line: MemAvailable crossing
# 5% of MemTotal (scenarios a, c; each tool is configured to act there) or
# memory.current crossing memory.max - 2% (b, b2; memory.high for bg),
# sampled at 1 kHz by `benchhelp mon` (mlocked, -1000, SCHED_FIFO), to the
# first death among the watched processes (pidfd, `benchhelp watch`),
# both CLOCK_MONOTONIC. The band is the last BAND_KB before the line; the
# tool's CPU time is read (schedstat) when the band is entered and at the
# first death.

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
# A tool NAME is a set of shell functions (here, or in /bench/tool-NAME.sh,
# which bench/run packs and this script sources):
#   tool_start_NAME SCEN    start the killer for SCEN (config written here);
#                           set TPID (empty: nothing runs, e.g. kernel) and
#                           READY (an ERE its log $TLOG shows once it is up)
#   tool_rep_NAME SCEN VICTIM MON_ARGS...   optional: called each
#                           repetition once the grower runs; VICTIM is the
#                           spec's choice; may set CPID (the process whose
#                           CPU is measured in the band; default TPID)
#   tool_killed_NAME PID    optional: true when the tool's own log says it
#                           killed PID (default: a line of $TLOG naming PID
#                           with SIG or kill)
#   tool_rep_end_NAME       optional: after each repetition
#   tool_fields_NAME        optional: prints key=value words added to the
#                           repetition's BENCH-REP line (may use tdead,
#                           the first death, and cross, the crossing, ns)

TPID=
tool_start_kernel() { TPID= ; }
tool_start_cgoom() {
	cat > /etc/cgoom.conf <<EOF
[daemon]
mem_available_min = 5%
event_log = $T/cgoom-events.$1.jsonl
[cgroup "/"]
oom_policy = cgroup
[cgroup "/cg3"]
oom_policy = tree
[cgroup "/race/t"]
oom_policy = tree
EOF
	[ "$1" = bg ] && printf '[cgroup "/lim"]\nguard_band = 48M\n' >> /etc/cgoom.conf
	${CGOOM_EXE:-cgoom} --config /etc/cgoom.conf run > "$TLOG" 2>&1 &
	TPID=$!
	READY='watching [0-9]* domain'
}
# cgoom2: a second cgoom build (CGOOM_BENCH_CGOOM2 on the host, e.g. the
# daemon before a change), same configuration, to compare in one run
tool_start_cgoom2() {
	CGOOM_EXE=cgoom2
	tool_start_cgoom "$1"
	CGOOM_EXE=cgoom
}
tool_start_earlyoom() {
	# SIGTERM at 5% MemAvailable (SIGKILL at 2.5%); no swap, so the
	# swap condition always holds; -r 0: no periodic report.
	earlyoom -m 5 -r 0 > "$TLOG" 2>&1 &
	TPID=$!
	READY='mem total'
}
tool_start_oomd() {
	oomd_conf "$1" > /etc/oomd.json
	mkdir -p /run/oomd
	oomd --config /etc/oomd.json --interval 1 --cgroup-fs /sys/fs/cgroup \
		--runtime-dir /run/oomd --kmsg-override $T/oomd.kmsg > "$TLOG" 2>&1 &
	TPID=$!
	READY='Running oomd'
}
tool_killed_oomd() { # it logs its kills to the kmsg override file too
	cat "$TLOG" $T/oomd.kmsg 2>/dev/null | grep -iE '(sig|kill)' | grep -qE "(^|[^0-9])$1([^0-9]|\$)"
}
for f in /bench/tool-*.sh; do [ -f "$f" ] && . "$f"; done
has_fn() { type "$1" > /dev/null 2>&1; }

tool_start() { # SCEN: start the killer configured for this scenario
	TLOG=$T/tool.$TOOL.$1.log
	: > "$TLOG"
	TPID= READY=
	has_fn tool_start_$TOOL || { out "BENCH-CANNOT tool=$TOOL scen=$1 no tool_start_$TOOL"; return 1; }
	tool_start_$TOOL "$1"
	[ -n "$TPID" ] || return 0
	i=0
	until grep -qE "$READY" "$TLOG"; do
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
tool_killed() { # PID: did the tool's own log say it killed PID?
	if has_fn tool_killed_$TOOL; then tool_killed_$TOOL "$1"; return; fi
	grep -iE '(sig|kill)' "$TLOG" 2>/dev/null | grep -qE "(^|[^0-9])$1([^0-9]|\$)"
}
tool_stop() {
	[ -n "$TPID" ] || return 0
	[ "$TOOL" = oomd ] && sleep 1.5 # its log is written asynchronously
	say "$TOOL log (last 40 lines, config dump left out):"
	grep -v -e 'ConfigTypes.cpp' "$TLOG" | tail -n 40 | sed 's/^/    /'
	[ "${TOOL#cgoom}" != "$TOOL" ] && cat $T/cgoom-events.*.jsonl 2>/dev/null | grep -e '"kill"' -e '"trigger"' | tail -n 12 | cut -c1-400 | sed 's/^/    ev: /'
	kill -TERM "$TPID" 2>/dev/null
	i=0
	while ! is_dead "$TPID" && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
	is_dead "$TPID" || kill -9 "$TPID"
	wait "$TPID" 2>/dev/null
	TPID=
}
tool_alive() { [ -z "$TPID" ] || ! is_dead "$TPID"; }

# oomd: kill on memory use >= 95% of MemTotal (system) or >= max - 2%
# (cgroup /lim, /race), or on memory PSI (10 s avg) over 60 for 1 s; the
# candidates are the scenario's cgroups. Interval 1 s (default 5 s).
oomd_conf() {
	case "$1" in
	a*|idle) watch='/' thr='95%' cands='bench/*' ;;
	b) watch='lim' thr="$OOMD_LIM_THR" cands='lim/*' ;;
	b2) watch='race' thr="$OOMD_LIM_THR" cands='race/*' ;;
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
# run_rep SCEN REP GROWCG SIZE RATE SPEC [MON_ARGS...]
# The grower starts in GROWCG; the static hogs are watched too. SPEC: the
# pid whose death (alone) is the spec's choice, or "grow" for the grower.
# MON_ARGS: the line (AVAIL_KB, or 0 CGROUP_DIR CURRENT_BYTES), the same
# for the reference monitor and the limit oracle. DOMCG (set by the
# scenario): the domain cgroup whose memory.events oom_kill is counted.
ev_ooms() { [ -n "$DOMCG" ] && sed -n 's/^oom_kill //p' "$CG$DOMCG/memory.events" || echo 0; }
ms3() { awk -v n="$1" 'BEGIN { printf "%.1f", n / 1000000 }'; } # ns -> ms
run_rep() {
	scen=$1 rep=$2 gcg=$3 size=$4 rate=$5 spec=$6
	shift 6
	probe_ensure
	tool_alive || { out "BENCH-CANNOT tool=$TOOL scen=$scen $TOOL died: $(tail -n 3 "$TLOG" | tr '\n' ' ')"; return 1; }
	rm -f $T/mon.out $T/watch.out
	vm0=$(vm_ooms)
	cgo0=$(ev_ooms)
	dmesg -c > /dev/null
	probe_reset
	sh -c 'echo $$ > "$1/cgroup.procs" || exit 99; exec memhog "$2" "$3"' \
		grow "$CG$gcg" "$size" "$rate" > $GROWER_LOG 2>&1 &
	G=$!
	[ "$spec" = grow ] && spec=$G
	CPID=$TPID
	has_fn tool_rep_$TOOL && tool_rep_$TOOL "$scen" "$spec" "$@"
	benchhelp mon $T/mon.out --interval-us $MON_US --tool-pid "$CPID" --band-kb $BAND_KB "$@" &
	MON=$!
	benchhelp watch $T/watch.out --tool-pid "$CPID" --stop $G $G $(hogs_pids) &
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
	has_fn tool_rep_end_$TOOL && tool_rep_end_$TOOL
	first=$(grep '^dead' $T/watch.out | head -n 1)
	kill -9 $G 2>/dev/null
	wait $G 2>/dev/null
	gst=$?
	vm1=$(vm_ooms)
	cgo=$(( $(ev_ooms) - cgo0 ))
	kk=$((vm1 - vm0))
	cross=$(awk '$1 == "cross_ns" { print $2 }' $T/mon.out)
	grate=$(awk '$1 == "cross_ns" { print $4 }' $T/mon.out)
	gap=$(awk '$1 == "cross_ns" { print $8 }' $T/mon.out)
	band=$(awk '$1 == "band_ns" { print $2 }' $T/mon.out)
	c0=$(awk '$1 == "band_ns" { print $4 }' $T/mon.out)
	c1=$(awk '$1 == "tool_cpu_ns" { print $2 }' $T/watch.out)
	psi=$(awk '$1 == "psi_ns" { print $2 }' $T/mon.out)
	mon=$(awk '$1 == "end" { printf "mon_samples=%s mon_span_ms=%s mon_gap_max_us=%s mon_cpu_ms=%s", $3, $5, $7, $9 }' $T/mon.out)
	if [ -z "$first" ]; then
		out "BENCH-REP tool=$TOOL scen=$scen rep=$rep react_ms=none victim=none spec=no killer=none kernel_kills=$kk cg_oom_kills=$cgo probe_ms=$probe_ms rate_mibs=${grate:-?} $mon"
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
	# who killed: the kernel's log ("Killed process PID") against the
	# tool's own log; neither: unknown
	kpids=$(dmesg | sed -n 's/.*Killed process \([0-9]*\).*/\1/p' | tr '\n' ' ')
	killer=unknown
	tool_killed "$vpid" && killer=$TOOL
	for p in $kpids; do [ "$p" = "$vpid" ] && killer=kernel; done
	# the spec's choice died, and nothing else
	ok=no
	[ "$deadpids" = "$spec " ] && ok=yes
	sig=
	[ "$vpid" = "$G" ] && sig=$gst
	react=nocross lead=none band_ms=none band_cpu=none
	[ -n "$cross" ] && react=$(ms3 $((tdead - cross)))
	[ -n "$psi" ] && [ -n "$cross" ] && lead=$(ms3 $((cross - psi)))
	if [ -n "$band" ] && [ "$band" -lt "$tdead" ]; then
		band_ms=$(ms3 $((tdead - band)))
		[ -n "$c1" ] && [ "${c0:--1}" -ge 0 ] && [ "$c1" -ge 0 ] && band_cpu=$(ms3 $((c1 - c0)))
	fi
	extra=
	has_fn tool_fields_$TOOL && extra=$(tool_fields_$TOOL)
	out "BENCH-REP tool=$TOOL scen=$scen rep=$rep react_ms=$react victim=$names spec=$ok killer=$killer kernel_kills=$kk cg_oom_kills=$cgo probe_ms=$probe_ms rate_mibs=${grate:-?} cross_gap_us=${gap:-none} band_ms=$band_ms band_cpu_ms=$band_cpu psi_lead_ms=$lead exit=${sig:-na} $mon $extra"
	# the grower is gone; respawn static hogs that died
	hogs_respawn
}

# --- scenarios ---------------------------------------------------------------

scen_a() {
	DOMCG=
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
	DOMCG=/lim
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

# b2: a cgroup domain, default settings (margin 2%, no guard band), where
# the kernel's choice differs from the spec's: /race (memory.max 500M,
# oom_policy cgroup from /) holds a tree child /race/t (cgoom: oom_policy
# tree) of four medium processes (72+66 in t/a, 60+54 in t/b: 252 MiB,
# the largest entity), one big process /race/big (150 MiB: the largest
# process, the kernel's pick) and a grower in /race/grow at B_RATE, sized
# to pass memory.max by 24 MiB (less than any victim frees). The spec's
# victim is t-a1, the largest process of the largest entity; a kernel
# memcg OOM kill takes big. Reference: memory.current >= max - 2%.
# race_up NAME [INFO...]: b2's cgroups and hogs, settled; sets max, thr
# (the reference line) and gsize (the grower's MiB) and says them in a
# BENCH-INFO line for scenario NAME (bench/scale-guest.sh's b2nN too)
race_up() {
	local name=$1
	shift
	DOMCG=/race
	mkdir -p $CG/race
	echo 500M > $CG/race/memory.max
	echo +memory > $CG/race/cgroup.subtree_control
	mkdir -p $CG/race/t $CG/race/big $CG/race/grow
	echo +memory > $CG/race/t/cgroup.subtree_control
	mkdir -p $CG/race/t/a $CG/race/t/b
	: > $T/hogs
	hog_start t-a1 /race/t/a 72
	hog_start t-a2 /race/t/a 66
	hog_start t-b1 /race/t/b 60
	hog_start t-b2 /race/t/b 54
	hog_start big /race/big 150
	hogs_ready || return 1
	wait_settle
	max=$(cat $CG/race/memory.max)
	thr=$((max - max / 50))
	cur=$(cat $CG/race/memory.current)
	gsize=$(( (max - cur) / 1048576 + 24 ))
	out "BENCH-INFO tool=$TOOL scen=$name memory.max=$max cross_at=$thr current=$cur grower_mib=$gsize spec_victim=t-a1 kernel_pick=big${*:+ $*}"
}
# race_reps NAME: REPS squeezes of /race's grower (run_rep), the tool
# stopped and the cgroups removed after
race_reps() {
	local r=1
	while [ $r -le $REPS ]; do
		run_rep $1 $r /race/grow $gsize $B_RATE "$(hog_pid t-a1)" 0 $CG/race $thr || break
		r=$((r + 1))
	done
	tool_stop
	hogs_clear
	sleep 0.5
	rmdir $CG/race/t/a $CG/race/t/b 2>/dev/null
	for d in $CG/race/*/; do rmdir $d 2>/dev/null; done
	rmdir $CG/race 2>/dev/null
}
scen_b2() {
	race_up b2 || return 1
	OOMD_LIM_THR="$((thr / 1024))K"
	tool_start b2 || { hogs_clear; return 1; }
	race_reps b2
}

scen_c() {
	DOMCG=
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

# cpu_mark PID: "TICKS_MS NS SLICES" now (benchhelp cpu: utime+stime, schedstat)
cpu_mark() { set -- $(benchhelp cpu "$1"); echo "$2 $6 $8"; }
# cpu_since PID TICKS_MS NS SLICES: "MS FROM RSS_KB SLICES" since that
# mark: the live threads' schedstat time, unless a thread that died in
# between took more than the ticks' 20 ms of rounding with it (FROM:
# schedstat|ticks), and the times they were put on a CPU (a sleeping
# daemon's wake-ups; -1: unknown)
cpu_since() {
	local c0=$2 n0=$3 s0=$4
	set -- $(benchhelp cpu "$1")
	awk -v t="$(($2 - c0))" -v a="$n0" -v b="$6" -v rss="$4" -v s0="$s0" -v s1="$8" 'BEGIN {
		w = (s0 >= 0 && s1 >= s0) ? s1 - s0 : -1
		if (a >= 0 && b >= a && t <= (b - a) / 1e6 + 20) printf "%.1f schedstat %s %d", (b - a) / 1e6, rss, w
		else printf "%d ticks %s %d", t, rss, w }'
}

idle_cost() {
	tool_start idle || return 0
	[ -n "$TPID" ] || return 0
	sleep 2
	m=$(cpu_mark $TPID)
	sleep "$IDLE"
	set -- $(cpu_since $TPID $m)
	out "BENCH-IDLE tool=$TOOL secs=$IDLE cpu_ms=$1 cpu_from=$2 rss_kb=$3"
	tool_stop
}

# idle_side: the daemons of SIDE_TOOLS in this one guest, each idle alone
# in its turn: all are started, all but one stopped (SIGSTOP), and in each
# of SIDE_WINDOWS rounds every daemon runs alone for IDLE / SIDE_WINDOWS s
# (read from 1 s after it resumes; the order reversed every other round).
# One boot per tool put each daemon's idle minute under another host load
# (0.77-1.17x between runs of the same two binaries); all running at once,
# daemons that share a CPU and wake at the same moment split those
# wake-ups' cost unevenly (pinned to one CPU together, cgoom measured
# 2.4x earlyoom's CPU; alone in turns, 1.2x). Alone, each pays for its
# own wake-ups, as on a machine that runs one of them.
# SIDE_SWAP_MB > 0 (bench/run --side-swap): a zram swap device of that
# many MiB is turned on first (tests/vm/lib.sh zram_swap, packed as
# /bench/vm-lib.sh with the modules; sourced in a subshell, so none of
# its names reach this script), and a BENCH-INFO line says so; without
# it there is no idling at all (BENCH-CANNOT).
idle_side() {
	if [ "${SIDE_SWAP_MB:-0}" -gt 0 ]; then
		if ( . /bench/vm-lib.sh && zram_swap "${SIDE_SWAP_MB}M" ) > $T/zram.log 2>&1 &&
			grep -q '^/dev/zram0[[:space:]]' /proc/swaps; then
			out "BENCH-INFO tool=idle-side swap=zram swap_mib=$SIDE_SWAP_MB swaptotal_kb=$(mem_kb SwapTotal) swaps=$(awk 'NR > 1 { printf "%s%s:%s:%s", s, $1, $3, $5; s = "," }' /proc/swaps)"
		else
			why=$( (cat $T/zram.log; lsmod 2>&1 | head -n 5) | tr '\n' ' ' | cut -c1-300)
			out "BENCH-CANNOT tool=idle-side scen=idle-side no zram swap of $SIDE_SWAP_MB MiB: ${why:-no output}"
			return
		fi
	fi
	started=
	for t in $SIDE_TOOLS; do
		TOOL=$t
		tool_start idle || continue
		[ -n "$TPID" ] || continue
		eval "SIDE_PID_$t=$TPID"
		kill -STOP $TPID
		started="$started $t"
	done
	TOOL=idle-side
	if [ -z "$started" ]; then
		out "BENCH-CANNOT tool=idle-side scen=idle-side no daemon started (tools: ${SIDE_TOOLS:-none})"
		return
	fi
	[ "${SIDE_WINDOWS:-0}" -ge 1 ] 2>/dev/null || SIDE_WINDOWS=1
	per=$((IDLE / SIDE_WINDOWS))
	[ $per -ge 1 ] || per=1
	reversed=
	for t in $started; do reversed="$t $reversed"; done
	w=1
	while [ $w -le "$SIDE_WINDOWS" ]; do
		order=$started
		[ $((w % 2)) = 0 ] && order=$reversed
		for t in $order; do
			eval "p=\$SIDE_PID_$t"
			kill -CONT $p
			sleep 1
			m=$(cpu_mark $p)
			sleep $per
			set -- $(cpu_since $p $m)
			kill -STOP $p
			out "BENCH-IDLE-SIDE tool=$t window=$w secs=$per cpu_ms=$1 cpu_from=$2 rss_kb=$3 wakeups=$4"
		done
		w=$((w + 1))
	done
	for t in $started; do
		eval "p=\$SIDE_PID_$t"
		kill -CONT $p 2>/dev/null
		kill -TERM $p 2>/dev/null
	done
	sleep 1
	for t in $started; do
		eval "p=\$SIDE_PID_$t"
		is_dead $p || kill -9 $p 2>/dev/null
	done
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

: "${REPS:=5}" "${IDLE:=60}" "${SCENS:=a b bg b2 c}" "${RATES:=50 200 1000}"
: "${B_RATE:=100}" "${C_RATE:=50}" "${BAND_KB:=65536}" "${MON_US:=1000}"
MT=$(mem_kb MemTotal)
THR_KB=$((MT / 20))
probe_start
out "BENCH-INFO tool=$TOOL memtotal_kb=$MT memavail_kb=$(mem_kb MemAvailable) reps=$REPS rates=$(echo $RATES | tr ' ' ,) b_rate=$B_RATE c_rate=$C_RATE band_kb=$BAND_KB mon_us=$MON_US"
case "$TOOL" in
systemd-oomd) try_systemd_oomd ;;
idle-side) idle_side ;;
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
