# bench/swap-guest.sh: the swap suites (s-leak, s-thrash, h) for one tool,
# in tests/vm's systemd guest (build-root's bench variant: Debian
# bookworm, systemd 252 as PID 1, the peers as Debian packages, a desktop
# user whose systemd --user instance runs the jobs). bench/swap prepends
# the plan (TOOL SCENS REPS SWAP_MB THRASH_S LEAK_CAP_S) and runs it with
# `tests/vm/run --flavour systemd --script` (bash, root).
#
# Every job runs as the user's transient service vm-LABEL in
# user@1000.service/app.slice, as a desktop's apps do; the probe too.
# Per scenario: swap on (zram, the disk's swap file, or that file with
# zswap in front of it), the probe and the
# idle jobs up, the recorder (tests/vm/recorder.c, every 100 ms) and the
# tool started, then the squeeze; when it is over, one line
#   BENCH-SWAP tool=T scen=S rep=N key=value...
# on the results port, the series gzipped to /vm/out/series/S-T-repN.txt.gz
# and the probe's rounds to /vm/out/probe/ (back on the host).
# Result keys: see bench/README.md "Swap suites".

. "$CGOOM_LIB"
. "$CGOOM_SD_LIB"
export PATH=/vm/extra:/vm/bin:$PATH
RES=/dev/ttyS1
out() { echo "$*" >> "$RES"; echo "$*"; }
say() { echo "[swap $TOOL] $*"; }

: "${TOOL:=kernel}" "${REPS:=1}" "${SWAP_MB:=1024}" "${THRASH_S:=90}" "${LEAK_CAP_S:=600}"
: "${SCENS:=s-leak10-zram s-leak40-zram s-leak200-zram s-leak10-disk s-leak40-disk s-leak200-disk s-thrash h-idle-grow h-stream h-churn h-high h-burst}"
OUTD=/vm/out
RUN=$DISK/run
U=(setpriv --reuid=1000 --regid=1000 --init-groups env XDG_RUNTIME_DIR=/run/user/1000)
APP=$CG/user.slice/user-1000.slice/user@1000.service/app.slice
MT=$(( $(sed -n 's/^MemTotal:[[:space:]]*\([0-9]*\).*/\1/p' /proc/meminfo) / 1024 ))
pct() { echo $(( MT * $1 / 100 )); }
now() { probe now; }

# --- jobs: the user's transient services ----------------------------------
# ujob LABEL [systemd-run OPTIONS...] -- COMMAND...: vm-LABEL.service in
# app.slice; its output in $RUN/LABEL.out
ujob() {
	local l=$1 props=()
	shift
	while [ $# -gt 0 ] && [ "$1" != -- ]; do props+=("$1"); shift; done
	shift
	: > "$RUN/$l.out"
	chmod 666 "$RUN/$l.out"
	"${U[@]}" systemd-run --user --quiet --unit="vm-$l" -p StandardOutput="file:$RUN/$l.out" \
		-p StandardError="file:$RUN/$l.out" ${props[@]+"${props[@]}"} "$@" ||
		{ say "systemd-run --user vm-$l failed"; return 1; }
	echo "$l" >> "$RUN/jobs"
}
# job_watch LABEL: its pid (the service's main process: the first in its
# cgroup), watched from now on (by the recorder and by gone())
job_watch() {
	local l=$1 end pid=
	end=$(( $(now) + 30000 ))
	until pid=$(head -n 1 "$APP/vm-$l.service/cgroup.procs" 2>/dev/null) && [ -n "$pid" ]; do
		[ "$(now)" -lt "$end" ] || { say "vm-$l.service has no process after 30 s"; return 1; }
		sleep 0.1
	done
	echo "$l $pid" >> "$RUN/watch"
	echo "$l $pid" >> "$RUN/pids"
}
# job_ready LABEL [SECONDS] [FILE]: wait for its "ready PID" line (in FILE,
# default its output)
job_ready() {
	local l=$1 f=${3:-$RUN/$1.out} end p
	end=$(( $(now) + ${2:-120} * 1000 ))
	until grep -q '^ready [0-9]' "$f" 2>/dev/null; do
		p=$(pid_of "$l")
		[ -n "$p" ] && [ ! -e "/proc/$p/stat" ] && { say "$l ended before ready"; return 1; }
		[ "$(now)" -lt "$end" ] || { say "$l not ready after ${2:-120} s: $(tail -n 3 "$f" 2>/dev/null | tr '\n' ' ')"; return 1; }
		sleep 0.2
	done
}
# unwatch LABEL: a job that ends by itself (stream, churn) is no death
unwatch() { sed -i "/^$1 /d" "$RUN/pids"; }
pid_of() { awk -v l="$1" '$1 == l { print $2 }' "$RUN/pids"; }
alive() { [ -e "/proc/$1/stat" ] && ! grep -q '^State:[[:space:]]*[ZX]' "/proc/$1/status" 2>/dev/null; }
# the labels of the watched jobs that are gone
gone() {
	local l p r=
	while read -r l p; do [ -e "/proc/$p/stat" ] || r="$r $l"; done < "$RUN/pids"
	echo "${r# }"
}
jobs_stop() {
	local d
	for d in "$APP"/vm-*.service; do [ -f "$d/cgroup.kill" ] && echo 1 > "$d/cgroup.kill"; done
	"${U[@]}" systemctl --user stop 'vm-*' > /dev/null 2>&1
	"${U[@]}" systemctl --user reset-failed > /dev/null 2>&1
}

# --- the tools ---------------------------------------------------------------
# tool_start: the tool as Debian runs it (a system service), or nothing
# (kernel, limit: the oracle arms itself at the squeeze); tool_ready
# waits for its "up" line in the journal.
JSINCE=
tool_unit() {
	case "$TOOL" in
	earlyoom|nohang|oomd|cgoom) echo "$TOOL.service" ;;
	oomd-unified) echo oomd.service ;;
	cgoom2) echo cgoom.service ;;
	systemd-oomd*) echo systemd-oomd.service ;;
	esac
}
tool_start() {
	JSINCE=$(date '+%Y-%m-%d %H:%M:%S')
	local unit ready
	unit=$(tool_unit)
	[ -n "$unit" ] || return 0
	case "$TOOL" in
	earlyoom) ready='mem avail' ;;
	nohang) ready='Monitoring has started' ;;
	oomd|oomd-unified) ready='Running oomd' ;;
	systemd-oomd*) ready= ;;
	cgoom|cgoom2) ready='watching [0-9]* domain' ;;
	esac
	systemctl start "$unit" || { out "BENCH-CANNOT tool=$TOOL scen=$SCEN systemctl start $unit failed"; return 1; }
	local end=$(( $(now) + 60000 ))
	while :; do
		if [ -n "$ready" ]; then
			journalctl -q --no-pager -u "$unit" --since "$JSINCE" -o cat 2>/dev/null | grep -q -E "$ready" && break
		else
			oomctl 2>/dev/null | grep -q 'Path: /user.slice' && break
		fi
		[ "$(now)" -lt "$end" ] || { out "BENCH-CANNOT tool=$TOOL scen=$SCEN $unit not up in 60 s: $(journalctl -q --no-pager -u "$unit" --since "$JSINCE" -o cat | tail -n 3 | tr '\n' ' ' | cut -c1-300)"; return 1; }
		sleep 0.3
	done
}
tool_stop() {
	local unit
	unit=$(tool_unit)
	[ -n "$unit" ] || return 0
	if [ "${DEBUG:-0}" = 1 ]; then
		say "$unit journal, whole (CGOOM_BENCH_DEBUG=1):"
		journalctl -q --no-pager -u "$unit" --since "$JSINCE" -o short-monotonic 2>/dev/null | cut -c1-300 | sed 's/^/    DBG /'
	fi
	say "$unit journal (its trigger lines, then the last 15 lines):"
	journalctl -q --no-pager -u "$unit" --since "$JSINCE" -o cat 2>/dev/null | grep ': trigger ' | head -n 5 | cut -c1-600 | sed 's/^/    /'
	journalctl -q --no-pager -u "$unit" --since "$JSINCE" -o cat 2>/dev/null | grep -v ConfigTypes.cpp | tail -n 15 | cut -c1-300 | sed 's/^/    /'
	systemctl stop "$unit"
}
# killer LABEL PID: who ended it: kernel (its log), the tool (its journal
# names the pid or the unit), the oracle, or unknown
killer() {
	if dmesg | grep -q -E "Killed process $2 "; then echo kernel; return; fi
	if [ "$TOOL" = limit ]; then grep -q "^killed $2 " "$RUN/limit.out" 2>/dev/null && { echo limit; return; }; fi
	local unit j
	unit=$(tool_unit)
	# an action line (kill, signal), and the pid or the unit named (nohang
	# names the victim and the signal on different lines)
	if [ -n "$unit" ]; then
		j=$(journalctl -q --no-pager -u "$unit" --since "$JSINCE" -o cat 2>/dev/null)
		if echo "$j" | grep -q -i -E 'kill|sig' &&
			echo "$j" | grep -q -E "(^|[^0-9])$2([^0-9]|\$)|vm-$1\\.service"; then
			echo "$TOOL"
			return
		fi
	fi
	echo unknown
}

# configuration of each tool, once per boot
tool_setup() {
	# Debian enables systemd-oomd; it is one of the killers measured, so
	# it runs only for its own rows
	case "$TOOL" in systemd-oomd*) ;; *) systemctl stop systemd-oomd.service systemd-oomd.socket 2> /dev/null ;; esac
	case "$TOOL" in
	oomd-unified)
		# as the package's /etc/default/oomd says to for a unified
		# hierarchy (bookworm's default): without --cgroup-fs
		# /sys/fs/cgroup/unified, which does not exist there, its kill
		# actions find no cgroups and never act
		sed -i 's|^DAEMON_OPTS=.*|DAEMON_OPTS="--interval 1 --config /etc/oomd/oomd.json"|' /etc/default/oomd ;;
	systemd-oomd-user)
		# the Fedora-like rule on the user slice besides Debian's own
		mkdir -p /run/systemd/system/user.slice.d
		printf '[Slice]\nManagedOOMMemoryPressure=kill\nManagedOOMMemoryPressureLimit=50%%\n' > /run/systemd/system/user.slice.d/50-bench.conf
		systemctl daemon-reload ;;
	cgoom|cgoom2)
		{
			printf '[daemon]\nevent_log = /var/log/cgoom/events.jsonl\n'
			# cgoom2's knobs (CGOOM_BENCH_CONF2), said in the results
			if [ -n "${CONF_DAEMON:-}" ]; then printf '%s\n' "$CONF_DAEMON" | grep -v '^$'; fi
			printf '[cgroup "/"]\noom_policy = cgroup\n'
		} > /etc/cgoom.conf
		if [ -n "${CONF_DAEMON:-}" ]; then
			out "BENCH-INFO tool=$TOOL conf=\"$(printf '%s\n' "$CONF_DAEMON" | grep -v '^$' | tr '\n' ';')\""
		fi
		if [ "${DEBUG:-0}" = 1 ]; then
			mkdir -p /run/systemd/system/cgoom.service.d
			printf '[Service]\nEnvironment=CGOOM_DEBUG=1\n' > /run/systemd/system/cgoom.service.d/50-debug.conf
			systemctl daemon-reload
		fi
		;;
	esac
	out "BENCH-INFO tool=$TOOL version=$(tool_version | tr ' ' _)"
}
tool_version() {
	case "$TOOL" in
	earlyoom|nohang|oomd) dpkg-query -W -f='${Version}' "$TOOL" ;;
	oomd-unified) dpkg-query -W -f='${Version}' oomd ;;
	systemd-oomd*) dpkg-query -W -f='${Version}' systemd-oomd ;;
	cgoom|cgoom2) cgoom --version 2>&1 | head -n 1 ;;
	*) uname -r ;;
	esac
}

# --- one scenario ------------------------------------------------------------
# prep SWAPKIND: swap on, caches dropped, the probe up
prep() {
	swapoff -a 2> /dev/null
	zswap_set 0
	for z in /sys/block/zram*; do [ -e "$z/reset" ] && echo 1 > "$z/reset"; done
	rm -rf "$RUN"
	mkdir -p "$RUN"
	chmod 1777 "$RUN"
	: > "$RUN/jobs"; : > "$RUN/watch"; : > "$RUN/pids"
	case "$1" in
	zram) zram_swap "${SWAP_MB}M" || { out "BENCH-CANNOT tool=$TOOL scen=$SCEN no zram swap"; return 1; } ;;
	disk) disk_swap "${SWAP_MB}M" || { out "BENCH-CANNOT tool=$TOOL scen=$SCEN no swap file"; return 1; } ;;
	zswap) { disk_swap "${SWAP_MB}M" && zswap_set 1; } ||
		{ out "BENCH-CANNOT tool=$TOOL scen=$SCEN no swap file with zswap"; return 1; } ;;
	esac
	sync
	echo 3 > /proc/sys/vm/drop_caches
	canary_start
	ujob probe -- /vm/bin/probe run "$RUN/probe.rounds" && job_watch probe || return 1
	job_ready probe 60 "$RUN/probe.rounds"
}
# zswap_set 0|1: zswap off or on (in front of the swap file: a desktop's
# setup, as Arch Linux's kernel enables it); the kernel's own parameter
zswap_set() {
	local z=/sys/module/zswap/parameters/enabled
	[ -w $z ] || [ "$1" = 0 ] || return 1
	[ -w $z ] || return 0
	echo "$1" > $z 2> /dev/null
	[ "$(cat $z)" = "$( [ "$1" = 1 ] && echo Y || echo N)" ]
}
# go: the recorder, then the tool; SQ0 (ms, CLOCK_MONOTONIC) is set by
# squeeze() when the squeeze starts
go() {
	SERIES=$RUN/series.txt
	rec_start "$SERIES" --cgroup "$CG/user.slice" --children "$APP" --watch-file "$RUN/watch" ||
		{ out "BENCH-CANNOT tool=$TOOL scen=$SCEN the recorder did not start"; return 1; }
	sleep 1
	rec_mark baseline
	tool_start || return 1
	rec_mark tool up "$TOOL"
	trace_start
	VM0=$(vm_oom_kills)
	dmesg -c > /dev/null
}
# CGOOM_BENCH_TRACE=1: the probe's scheduler events (sched_switch into and out of
# it, with the kernel stack it blocked in; sched_wakeup of it, with the
# waker's stack; timer interrupts that find it running, with the stack
# they interrupted), clock CLOCK_MONOTONIC as the probe's rounds, from go()
# to finish(), saved to /vm/out/trace/SCEN-TOOL-repN.txt.gz
TR=/sys/kernel/tracing
trace_start() {
	[ "${TRACE:-0}" = 1 ] || return 0
	[ -e "$TR/trace" ] || mount -t tracefs nodev "$TR" 2> /dev/null
	[ -w "$TR/events/sched/sched_switch/filter" ] || { say "no tracefs: not traced"; return 0; }
	echo 0 > "$TR/tracing_on"
	echo mono > "$TR/trace_clock"
	echo 4096 > "$TR/buffer_size_kb"
	: > "$TR/trace"
	echo 'prev_comm == "probe" || next_comm == "probe"' > "$TR/events/sched/sched_switch/filter"
	echo 'comm == "probe"' > "$TR/events/sched/sched_wakeup/filter"
	# and where its threads are while on a CPU: the timer interrupts
	# that find one of them running (the scheduler tick: HZ samples a
	# second of a busy thread), each with the stack it interrupted
	local p t f=
	p=$(pid_of probe)
	for t in $(ls "/proc/$p/task" 2> /dev/null); do f="$f${f:+ || }common_pid == $t"; done
	if [ -n "$f" ]; then
		echo "$f" > "$TR/events/timer/hrtimer_expire_entry/filter"
		echo 1 > "$TR/events/timer/hrtimer_expire_entry/enable"
	fi
	echo 1 > "$TR/options/stacktrace"
	echo 1 > "$TR/events/sched/sched_switch/enable"
	echo 1 > "$TR/events/sched/sched_wakeup/enable"
	echo 1 > "$TR/tracing_on"
}
trace_stop() {
	[ "${TRACE:-0}" = 1 ] && [ -w "$TR/tracing_on" ] || return 0
	echo 0 > "$TR/tracing_on"
	mkdir -p "$OUTD/trace"
	gzip -1 -c "$TR/trace" > "$OUTD/trace/$SCEN-$TOOL-rep$REP.txt.gz"
	echo 0 > "$TR/events/sched/sched_switch/enable"
	echo 0 > "$TR/events/sched/sched_wakeup/enable"
	echo 0 > "$TR/events/timer/hrtimer_expire_entry/enable"
	: > "$TR/trace"
}
# the canary (`probe canary`, tests/vm/probe.c): a SCHED_FIFO thread per
# CPU, locked in memory, whose late wake-ups mark when a CPU, or the whole
# guest, ran nothing else (the host did not run the virtual CPU: our
# host is itself a VM, and QEMU's TCG stops every CPU for some of its own
# work; or the kernel held it without a preemption point); the report
# counts the stalls that were mostly such a stand-still
CANARY_PID=
canary_start() {
	canary_stop
	/vm/bin/probe canary "$RUN/canary.txt" 2> "$RUN/canary.err" &
	CANARY_PID=$!
	local n=0
	until grep -q '^ready' "$RUN/canary.txt" 2> /dev/null; do
		kill -0 "$CANARY_PID" 2> /dev/null && [ $n -lt 50 ] || {
			say "the canary did not start: $(tail -n 1 "$RUN/canary.err")"; CANARY_PID=; return 0; }
		sleep 0.1
		n=$((n + 1))
	done
}
canary_stop() {
	[ -n "$CANARY_PID" ] || return 0
	kill "$CANARY_PID" 2> /dev/null
	wait "$CANARY_PID" 2> /dev/null
	CANARY_PID=
}
# rounds_report FROM TO: the probe's report, with the canary's columns
# when it ran
rounds_report() {
	if [ -n "$CANARY_PID" ]; then
		sleep 0.3 # its last gaps written (every 200 ms)
		probe report "$RUN/probe.rounds" "$1" "$2" "$RUN/canary.txt"
	else
		probe report "$RUN/probe.rounds" "$1" "$2"
	fi
}
squeeze() { SQ0=$(now); TCPU0=$(tool_cpu_us); rec_mark --at-mono "$SQ0" squeeze start "$*"; }
# the tool's own CPU time so far (its unit's cgroup cpu.stat usage_usec,
# every thread and child; -1 without a unit: the kernel alone)
tool_cpu_us() {
	local unit
	unit=$(tool_unit)
	[ -n "$unit" ] && [ -r "$CG/system.slice/$unit/cpu.stat" ] || { echo -1; return; }
	sed -n 's/^usage_usec //p' "$CG/system.slice/$unit/cpu.stat"
}
# wait_until END_MS [DONE_FN]: until END_MS, or DONE_FN succeeds, or the
# squeeze is over: $RELIEF_ON died (a label; "any": the first death;
# empty: none ends it), and then 8 s more for relief to show. GONE: what
# had died when it returned; FIRST_GONE: what died first.
RELIEF_ON=
wait_until() {
	local end=$1 t g over=
	shift
	FIRST_GONE=
	while :; do
		t=$(now)
		g=$(gone)
		[ -n "$g" ] && [ -z "$FIRST_GONE" ] && FIRST_GONE=$g
		if [ -z "$over" ] && [ -n "$g" ] && { [ "$RELIEF_ON" = any ] || [[ " $g " == *" $RELIEF_ON "* ]]; }; then
			over=1
			[ $((t + 8000)) -lt "$end" ] && end=$((t + 8000))
		fi
		[ "$t" -lt "$end" ] || break
		[ $# -gt 0 ] && "$1" && break
		sleep 0.2
	done
	GONE=$g
}

# finish SPEC [KEY=VALUE...]: the result line; SPEC: the label the spec
# says dies (or "none": a healthy scenario, where every death is a false
# kill). Relief is looked for after the death of $RELIEF_ON (the first
# death for "any").
finish() {
	local spec=$1 t1 died= whos= l p w k relief=-1 rep life=none extra=${2:-} tg t0ns
	t1=$(now)
	local tc1 tcpu=-1
	tc1=$(tool_cpu_us)
	[ "${TCPU0:--1}" -ge 0 ] && [ "$tc1" -ge "$TCPU0" ] && tcpu=$(( (tc1 - TCPU0) / 1000 ))
	# of that, cgoom's process_mrelease of its victims (their memory
	# freed by cgoom instead of by their own exit; its kill lines say it)
	local trel=-1
	case "$TOOL" in
	cgoom|cgoom2) trel=$(journalctl -q --no-pager -u cgoom.service --since "$JSINCE" -o cat 2>/dev/null |
		sed -n 's/.*process_mrelease took \([0-9]*\) ms.*/\1/p' | awk '{ s += $1 } END { print s + 0 }') ;;
	esac
	rec_mark end
	trace_stop
	# in the order they died (the recorder's exit marks)
	GONE=$(for l in $GONE; do echo "$(series_mark "$SERIES" "exit $l ") $l"; done | sort -n | cut -d' ' -f2 | tr '\n' ' ')
	for l in $GONE; do
		p=$(pid_of "$l")
		w=$(killer "$l" "$p")
		died="$died,$l"
		whos="$whos,$w"
		rec_mark "kill $l $p by $w"
	done
	died=${died#,}
	whos=${whos#,}
	k=$(( $(vm_oom_kills) - VM0 ))
	# the guest's kernel stuck (its soft-lockup watchdog or an RCU stall
	# since go()): every task froze, the recorder and the tool with it
	# (a thrashing machine's own freeze, or the TCG guest's: s-thrash's
	# second repetition in a boot, with memory to spare); the report
	# names such runs
	local lockups
	lockups=$(dmesg | grep -c -E 'soft lockup|rcu_preempt detected stalls|rcu_sched detected stalls')
	t0ns=$(sed -n '1s/.*monotonic_ns=\([0-9]*\).*/\1/p' "$SERIES")
	if [ -n "$RELIEF_ON" ] && [ -n "$GONE" ]; then
		l=$RELIEF_ON
		[ "$l" = any ] && l=${GONE%% *}
		tg=
		[[ " $GONE " == *" $l "* ]] && tg=$(series_mark "$SERIES" "exit $l ")
		[ -n "$tg" ] && relief=$(probe relief "$RUN/probe.rounds" $(( t0ns / 1000000 + tg )))
		[ "$relief" -gt 0 ] 2>/dev/null && rec_mark --at-mono "$relief" relief probe back under 100 ms
	fi
	# s-thrash: relief counted from when the working sets stopped fitting
	# (every job had touched all of its set once: the "all active" mark)
	local ta active_relief=none
	ta=$(series_mark "$SERIES" "all active")
	if [ "$relief" -gt 0 ] 2>/dev/null && [ -n "$ta" ]; then
		active_relief=$(( relief - (t0ns / 1000000 + ta) ))
	fi
	if [ "$relief" -gt 0 ] 2>/dev/null; then
		rep=$(rounds_report "$SQ0" "$relief")
		relief=$((relief - SQ0))
	else
		rep=$(rounds_report "$SQ0" "$t1")
		relief=none
	fi
	# the leak's life: the squeeze's start to its exit (the recorder's marks)
	if [ -n "${LEAK:-}" ] && [[ " $GONE " == *" leak "* ]]; then
		local ts te
		ts=$(series_mark "$SERIES" "squeeze start")
		te=$(series_mark "$SERIES" "exit leak ")
		[ -n "$te" ] && [ -n "$ts" ] && life=$((te - ts))
	fi
	local first_dead=${died%%,*} specok=no churnk=0
	[ "$spec" = none ] && [ -z "$died" ] && specok=yes
	[ "$spec" != none ] && [ "$died" = "$spec" ] && specok=yes
	[ -f "$RUN/churn.out" ] && churnk=$(sed -n 's/.*killed \([0-9]*\) sigkill.*/\1/p' "$RUN/churn.out" | tail -n 1)
	local nd=0
	[ -n "$died" ] && nd=$(echo "$died" | tr ',' '\n' | wc -l)
	local stops=
	set -- $rep
	[ "${13:-}" = stopped_stalls ] && stops="stopped_stalls=${14} cpu_stopped_stalls=${16} guest_stops=${18} guest_stop_ms=${20} canary_lost=${22} "
	out "BENCH-SWAP tool=$TOOL scen=$SCEN rep=$REP rounds=$2 stalls=$4 cold_stalls=$6 hot_stalls=$8 worst_ms=${10} first_stall_ms=${12} ${stops}relief_ms=$relief active_relief_ms=$active_relief guest_lockups=$lockups died=${died:-none} killer=${whos:-none} first=${first_dead:-none} spec=$specok spec_victim=$spec kernel_kills=$k killed=$((nd + ${churnk:-0})) leak_life_ms=$life span_ms=$((t1 - SQ0)) tool_cpu_ms=$tcpu release_cpu_ms=$trel zram=$(zram_ratio | cut -d' ' -f1,3 | tr ' ' /) $extra"
	rec_stop
	tool_stop
	jobs_stop
	canary_stop
	mkdir -p "$OUTD/series" "$OUTD/probe"
	gzip -1 -c "$SERIES" > "$OUTD/series/$SCEN-$TOOL-rep$REP.txt.gz"
	cp "$RUN/probe.rounds" "$OUTD/probe/$SCEN-$TOOL-rep$REP.txt"
	[ -f "$RUN/canary.txt" ] && cp "$RUN/canary.txt" "$OUTD/probe/$SCEN-$TOOL-rep$REP.canary.txt"
	for l in $(cat "$RUN/jobs"); do tail -n 5 "$RUN/$l.out" | sed "s/^/    $l: /"; done
	swapoff -a 2> /dev/null
}

# --- the scenarios -------------------------------------------------------------
# s-leak<RATE>-<zram|disk|zswap>: a leak past RAM + swap at RATE MiB/s beside the
# probe and an idle job (25% of RAM, so that the leak is the largest leaf
# well before RAM is full); the spec's victim is the leak, and the
# squeeze is over when it dies
scen_s_leak() {
	local rate=$1 kind=$2
	prep "$kind" || return 1
	ujob idle -- /vm/bin/workload idle "$(pct 25)" && job_watch idle && job_ready idle 180 || return 1
	sleep 2
	go || return 1
	LEAK=1 RELIEF_ON=leak
	squeeze "leak $rate MiB/s"
	ujob leak -- /vm/bin/workload leak "$rate" || return 1
	job_watch leak || return 1
	LIMPID=
	if [ "$TOOL" = limit ]; then
		# the oracle: told the victim, kills it when MemAvailable < 5%
		benchhelp limit "$RUN/limit.out" "$(pid_of leak)" $(( MT * 1024 / 20 )) &
		LIMPID=$!
	fi
	wait_until $((SQ0 + LEAK_CAP_S * 1000))
	local mib
	mib=$(sed -n 's/^leak \([0-9]*\) .*/\1/p' "$RUN/leak.out" | tail -n 1)
	finish leak "leak_mib=${mib:-0} rate=$rate swap=$kind"
	[ -n "$LIMPID" ] && { kill "$LIMPID" 2> /dev/null; wait "$LIMPID" 2> /dev/null; }
	LEAK= RELIEF_ON=
}

# s-thrash: three jobs, each touching all of its working set (45%, 35% and
# 25% of RAM: 1.05x RAM together, with the system and the probe about
# 1.3x what RAM holds) at up to 200 MiB/s, with zram of twice the usual
# size (at 2.4:1 the sets fit RAM + swap with room): the machine thrashes
# and never runs out. The spec's victim is the largest (thrash-a: policy
# cgroup, the largest leaf).
scen_s_thrash() {
	SWAP_MB=$((SWAP_MB * 2)) prep zram || return 1
	go || return 1
	RELIEF_ON=any
	local j
	squeeze "three active jobs"
	for j in a:45 b:35 c:25; do
		ujob "thrash-${j%:*}" -- /vm/bin/workload active "$(pct "${j#*:}")" --rate 200 &&
			job_watch "thrash-${j%:*}" || return 1
	done
	job_ready thrash-a 120 && job_ready thrash-b 120 && job_ready thrash-c 120 && rec_mark all active
	wait_until $((SQ0 + THRASH_S * 1000))
	finish thrash-a
	RELIEF_ON=
}

# the healthy suite: nothing may die
# h-idle-grow: an idle job (45%) swapped out while another grows to 51%
# of RAM at 100 MiB/s and holds
grown() { grep -q '^ready' "$RUN/grow.out"; }
scen_h_idle_grow() {
	prep zram || return 1
	ujob idle -- /vm/bin/workload idle "$(pct 45)" && job_watch idle && job_ready idle 180 || return 1
	sleep 2
	go || return 1
	squeeze "grow to $(pct 51) MiB at 100 MiB/s"
	ujob grow -- /vm/bin/workload grow "$(pct 51)" 100 || return 1
	job_watch grow || return 1
	wait_until $((SQ0 + 120000)) grown
	rec_mark relief grower holds
	wait_until $(( $(now) + 15000 ))
	finish none
}
# h-stream: a file of 3x RAM read once from the disk, beside an idle job
streamed() { grep -q '^done' "$RUN/stream.out"; }
scen_h_stream() {
	prep zram || return 1
	ujob idle -- /vm/bin/workload idle "$(pct 30)" && job_watch idle && job_ready idle 180 || return 1
	go || return 1
	squeeze "stream $(( $(stat -c %s "$DISK/stream.bin") / 1048576 )) MiB"
	ujob stream -- /vm/bin/workload stream "$DISK/stream.bin" || return 1
	job_watch stream || return 1
	wait_until $((SQ0 + 600000)) streamed
	streamed && unwatch stream
	rec_mark relief stream done
	wait_until $(( $(now) + 3000 ))
	finish none "$(sed -n 's/^pass 1 \([0-9]*\) \([0-9]*\)/stream_mib=\1 stream_ms=\2/p' "$RUN/stream.out")"
}
# h-churn: a compile-like churn (2 parallel short processes of 30-150 MiB
# reading a source tree of half the RAM) for 45 s, beside an idle job
churned() { grep -q '^churn children' "$RUN/churn.out"; }
scen_h_churn() {
	prep zram || return 1
	ujob idle -- /vm/bin/workload idle "$(pct 30)" && job_watch idle && job_ready idle 180 || return 1
	mkdir -p "$RUN/obj"
	chmod 1777 "$RUN/obj"
	go || return 1
	squeeze "churn 45 s"
	ujob churn -- /vm/bin/workload churn 45 --src "$DISK/src" --obj "$RUN/obj" --jobs 2 || return 1
	job_watch churn || return 1
	wait_until $((SQ0 + 180000)) churned
	churned && unwatch churn
	rec_mark relief churn done
	wait_until $(( $(now) + 3000 ))
	finish none "$(sed -n 's/^churn children \([0-9]*\) ok \([0-9]*\).*/churn_children=\1 churn_ok=\2/p' "$RUN/churn.out")"
}
# h-high: a service whose working set (30% of RAM, touched at 100 MiB/s)
# is over its MemoryHigh= (20%) by design, for 45 s, beside an idle job
scen_h_high() {
	prep zram || return 1
	ujob idle -- /vm/bin/workload idle "$(pct 30)" && job_watch idle && job_ready idle 180 || return 1
	go || return 1
	squeeze "working set $(pct 30) MiB over MemoryHigh=$(pct 20)M"
	ujob high -p MemoryHigh="$(pct 20)M" -- /vm/bin/workload active "$(pct 30)" --rate 100 || return 1
	job_watch high || return 1
	wait_until $((SQ0 + 45000))
	rec_mark relief end of the run
	finish none "high_events=$(sed -n 's/^high //p' "$APP/vm-high.service/memory.events" 2>/dev/null)"
}
# h-burst: 60% of RAM in the page cache, then a job grows to 55% at 200
# MiB/s and holds: reclaim of the cache makes a burst that passes
scen_h_burst() {
	prep zram || return 1
	ujob cache -- /vm/bin/workload stream "$DISK/stream.bin" --mib "$(pct 60)" || return 1
	local end=$(( $(now) + 300000 ))
	until grep -q '^done' "$RUN/cache.out" || [ "$(now)" -gt $end ]; do sleep 0.5; done
	go || return 1
	squeeze "grow to $(pct 55) MiB at 200 MiB/s over $(pct 60) MiB of page cache"
	ujob grow -- /vm/bin/workload grow "$(pct 55)" 200 || return 1
	job_watch grow || return 1
	wait_until $((SQ0 + 120000)) grown
	rec_mark relief grower holds
	wait_until $(( $(now) + 15000 ))
	finish none
}

run_scen() {
	case "$SCEN" in
	s-leak*-zram|s-leak*-disk|s-leak*-zswap)
		local r=${SCEN#s-leak}
		scen_s_leak "${r%-*}" "${r##*-}" ;;
	s-thrash) scen_s_thrash ;;
	h-idle-grow) scen_h_idle_grow ;;
	h-stream) scen_h_stream ;;
	h-churn) scen_h_churn ;;
	h-high) scen_h_high ;;
	h-burst) scen_h_burst ;;
	*) out "BENCH-CANNOT tool=$TOOL scen=$SCEN no such swap scenario" ;;
	esac
}

# --- main ----------------------------------------------------------------------
disk_mount || { out "BENCH-CANNOT tool=$TOOL scen=all no data disk"; exit 0; }
systemctl start user@1000.service || { out "BENCH-CANNOT tool=$TOOL scen=all user@1000.service does not start"; exit 0; }
tool_setup
out "BENCH-INFO tool=$TOOL suite=swap memtotal_mib=$MT swap_mib=$SWAP_MB reps=$REPS guest=systemd-$(systemctl --version | sed -n '1s/^systemd \([0-9]*\).*/\1/p') kernel=$(uname -r) preempt=$(sed -n 's/.*(\([a-z]*\)).*/\1/p' /sys/kernel/debug/sched/preempt 2> /dev/null | grep . || echo unknown)"
for SCEN in $SCENS; do
	for REP in $(seq 1 "$REPS"); do
		t0=$(now)
		say "=== $SCEN rep $REP"
		run_scen || { out "BENCH-CANNOT tool=$TOOL scen=$SCEN rep=$REP did not run (see the console)"; rec_stop; tool_stop; jobs_stop; }
		out "BENCH-INFO tool=$TOOL scen=$SCEN rep=$REP secs=$(( ($(now) - t0) / 1000 ))"
	done
done
out "BENCH-DONE"
exit 0
