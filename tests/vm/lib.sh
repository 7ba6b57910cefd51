# tests/vm/lib.sh: helpers for VM scenarios (busybox ash, inside the guest).
#
# /init sources this before each scenario, in a fresh shell, with
# SCENARIO set and $VM_TMP an empty directory. A scenario ends with
# `pass DETAIL` or `fail DETAIL`; /init turns that into the result line
# and runs cleanup_all afterwards whatever happened (timeout included).
#
# Cgroup paths are given as cgoom sees them: "/work/cg1" means
# /sys/fs/cgroup/work/cg1.

CG=/sys/fs/cgroup
: "${VM_TMP:=/tmp/vm}"
: "${SCENARIO:=script}"
CGOOM_CONF=/etc/cgoom.conf
mkdir -p "$VM_TMP"

# --- reporting ----------------------------------------------------------

say() { echo "[$SCENARIO] $*"; }

# One diagnostic line: printed now, and forwarded by /init to the host,
# which prints it under the scenario's TAP line.
diag() {
	echo "# $*"
	echo "$*" >> "$VM_TMP/diag"
}

# Print a file's contents as diagnostics (first $2 lines, default 40).
diag_file() {
	[ -f "$1" ] || return 0
	head -n "${2:-40}" "$1" | while IFS= read -r l; do diag "  $l"; done
}

pass() { echo "PASS $*" > "$VM_TMP/result"; exit 0; }
fail() { echo "FAIL $*" > "$VM_TMP/result"; say "FAIL: $*"; exit 1; }

# agree PREDICTED DIED: the host-side "explain-agrees" check. Records
# whether explain's victim.pids (before the kill) equals the set of
# processes that died. Does not end the scenario.
agree() {
	if [ "$1" = "$2" ]; then
		echo "PASS predicted [$1] died [$2]" >> "$VM_TMP/agree"
	else
		echo "FAIL predicted [$1] died [$2]" >> "$VM_TMP/agree"
	fi
}

# --- small utilities ----------------------------------------------------

# sorted_pids WORDS...: numbers, sorted, one space apart.
sorted_pids() {
	echo "$*" | tr ' ,\t' '\n\n\n' | grep -E '^[0-9]+$' | sort -n | tr '\n' ' ' | sed 's/ $//'
}

# uptime in centiseconds (for measuring short intervals).
now_cs() {
	read -r up _ < /proc/uptime
	echo "${up%.*}${up#*.}" | sed 's/^0*//; s/^$/0/'
}

# --- cgroups ------------------------------------------------------------

# cg_make PATH [MEMORY_MAX]: create a cgroup (and parents).
cg_make() {
	mkdir -p "$CG$1" || fail "mkdir $CG$1"
	[ -n "${2:-}" ] && cg_set "$1" memory.max "$2"
	return 0
}

# cg_enable PATH CONTROLLERS...: e.g. cg_enable /work +memory +pids
cg_enable() {
	p=$1; shift
	echo "$*" > "$CG$p/cgroup.subtree_control" ||
		fail "enable '$*' in $p/cgroup.subtree_control"
}

# cg_set PATH FILE VALUE
cg_set() {
	echo "$3" > "$CG$1/$2" || fail "write '$3' to $1/$2"
}

cg_get() { cat "$CG$1/$2"; }

# cg_procs PATH: pids attached to PATH itself, sorted.
cg_procs() { sorted_pids "$(cat "$CG$1/cgroup.procs")"; }

# write_conf: stdin becomes /etc/cgoom.conf (echoed for the log).
write_conf() {
	cat > "$CGOOM_CONF"
	say "config $CGOOM_CONF:"
	sed 's/^/    /' "$CGOOM_CONF"
}

# --- processes ----------------------------------------------------------

is_dead() {
	[ -d "/proc/$1" ] || return 0
	st=$(sed -n 's/^State:[[:space:]]*\([A-Z]\).*/\1/p' "/proc/$1/status" 2>/dev/null)
	[ -z "$st" ] || [ "$st" = Z ] || [ "$st" = X ]
}

is_alive() { ! is_dead "$1"; }

# leak_bed IDLE_PCT: the swap leaks' bed (swap-leak, swap-noswap-cgroup,
# swap-zswap): /sw (memory) with /sw/idle and /sw/leak, /probe with the
# interactive probe running, and an idle job of IDLE_PCT% of MemTotal in
# /sw/idle, ready; MT is MemTotal in MiB.
leak_bed() {
	cg_make /sw
	cg_enable /sw +memory
	cg_make /sw/idle
	cg_make /sw/leak
	cg_make /probe
	MT=$(( $(sed -n 's/^MemTotal:[[:space:]]*\([0-9]*\).*/\1/p' /proc/meminfo) / 1024 ))
	probe_start /probe || fail "the probe did not start: $(cat "$VM_TMP/probe.err")"
	job idle /sw/idle idle $((MT * $1 / 100))
	hogs_wait 120
}
# leak_killed_once LPID LIFE_MS VM0 VM1 [WITH]: the leak LPID is dead,
# and cgoom killed it, once, before the kernel's OOM killer (vmstat
# oom_kill VM0 -> VM1 unchanged; WITH is said after it when it did not):
# its decision named the leak and nothing else died.
leak_killed_once() {
	_s=$(( $2 / 1000 ))
	is_alive "$1" && fail "the leak still runs after $_s s"
	[ "$4" = "$3" ] || fail "the kernel OOM-killed first (vmstat oom_kill $3 -> $4) after $_s s${5:-}"
	[ "$(ev_count kill)" -gt 0 ] || fail "the leak died after $_s s, but cgoom logged no kill"
	[ "$(ev_count kill)" = 1 ] ||
		fail "cgoom killed $(ev_count kill) times for one leak: $(ev_lines trigger | cut -c1-200 | tr '\n' ';')"
	_p=$(ev_victim_pids)
	[ "$_p" = "$1" ] || fail "cgoom's decision named [$_p] ($(labels_of $_p)), not the leak [$1]"
	_d=$(dead_hogs)
	[ "$_d" = "$1" ] || fail "died [$_d] ($(labels_of $_d)), expected the leak alone [$1]"
}

# wait_dead SECONDS PIDS...: 0 once all are dead, 1 on timeout.
wait_dead() {
	limit=$(( $1 * 10 )); shift
	i=0
	while [ $i -lt $limit ]; do
		all=1
		for p in "$@"; do is_dead "$p" || { all=0; break; }; done
		[ $all = 1 ] && return 0
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}

# --- hogs ---------------------------------------------------------------
# $VM_TMP/hogs has one line per hog: LABEL PID CGROUP MB

# hog LABEL CGROUP MB [RATE]: start memhog inside CGROUP (it moves itself
# in before touching memory, so the whole charge lands there).
hog() {
	out="$VM_TMP/hog.$1.out"
	sh -c 'echo $$ > "$1/cgroup.procs" || exit 99; shift; exec memhog "$@"' \
		hog "$CG$2" "$3" ${4:-} > "$out" 2>&1 &
	echo "$1 $! $2 $3" >> "$VM_TMP/hogs"
}

# hogs_wait [SECONDS]: wait for every started hog to print "ready PID".
hogs_wait() {
	local t0
	limit=$(( ${1:-90} * 10 ))
	t0=$(now_cs)
	i=0
	while :; do
		missing=0
		while read -r label pid cg mb; do
			grep -q "^ready $pid\$" "$VM_TMP/hog.$label.out" 2>/dev/null && continue
			if is_dead "$pid"; then
				diag_file "$VM_TMP/hog.$label.out"
				fail "hog $label (pid $pid, $mb MiB in $cg) died before ready"
			fi
			missing=$((missing + 1))
		done < "$VM_TMP/hogs"
		[ $missing = 0 ] && break
		[ $i -ge $limit ] && fail "$missing hog(s) not ready after ${1:-90}s"
		sleep 0.1
		i=$((i + 1))
	done
	n=$(wc -l < "$VM_TMP/hogs")
	say "$n hogs ready in $(( ($(now_cs) - t0) ))0 ms"
}

hog_pid() { awk -v l="$1" '$1 == l { print $2 }' "$VM_TMP/hogs"; }

all_hog_pids() { sorted_pids "$(awk '{ print $2 }' "$VM_TMP/hogs")"; }

dead_hogs() {
	d=
	for p in $(all_hog_pids); do is_dead "$p" && d="$d $p"; done
	sorted_pids "$d"
}

alive_hogs() {
	a=
	for p in $(all_hog_pids); do is_alive "$p" && a="$a $p"; done
	sorted_pids "$a"
}

# hog_table: who is who, alive or killed (for logs and the demo).
hog_table() {
	printf '    %-16s %-6s %-16s %5s  %s\n' HOG PID CGROUP MiB STATE
	while read -r label pid cg mb; do
		if is_dead "$pid"; then s="KILLED"; else s="alive"; fi
		printf '    %-16s %-6s %-16s %5s  %s\n' "$label" "$pid" "$cg" "$mb" "$s"
	done < "$VM_TMP/hogs"
}

# labels_of PIDS...: hog labels for a pid list (for readable messages).
labels_of() {
	r=
	for p in "$@"; do
		l=$(awk -v p="$p" '$2 == p { print $1 }' "$VM_TMP/hogs")
		r="$r ${l:-pid$p}"
	done
	echo "${r# }"
}

# --- cgoom --------------------------------------------------------------

CGOOM_N=0
# cg_oom NAME ARGS...: run cgoom ARGS, output to $VM_TMP/NAME.out (also
# shown); returns cgoom's exit status, which is also left in $CGOOM_RC.
cg_oom() {
	name=$1; shift
	CGOOM_N=$((CGOOM_N + 1))
	say "\$ cgoom $*"
	cgoom "$@" > "$VM_TMP/$name.out" 2> "$VM_TMP/$name.err"
	CGOOM_RC=$?
	sed 's/^/    /' "$VM_TMP/$name.out"
	[ -s "$VM_TMP/$name.err" ] && sed 's/^/    (stderr) /' "$VM_TMP/$name.err"
	[ $CGOOM_RC = 0 ] || say "(exit status $CGOOM_RC)"
	return $CGOOM_RC
}

# cg_oom_traced NAME ARGS...: cg_oom under strace (when the guest has it),
# the kill-path syscalls in $VM_TMP/NAME.strace. $TRACED says whether.
cg_oom_traced() {
	name=$1; shift
	if command -v strace > /dev/null 2>&1; then
		TRACED=1
		say "\$ strace -f cgoom $*"
		# --seccomp-bpf: only the traced syscalls stop cgoom (a full
		# trace under TCG turns a 0.1 s kill into 5 s).
		strace -f -qq --seccomp-bpf -o "$VM_TMP/$name.strace" \
			-e "trace=${TRACE_SET:-pidfd_open,pidfd_send_signal,process_mrelease,kill,tgkill}" \
			cgoom "$@" > "$VM_TMP/$name.out" 2> "$VM_TMP/$name.err"
		CGOOM_RC=$?
		sed 's/^/    /' "$VM_TMP/$name.out"
		[ -s "$VM_TMP/$name.err" ] && sed 's/^/    (stderr) /' "$VM_TMP/$name.err"
		[ $CGOOM_RC = 0 ] || say "(exit status $CGOOM_RC)"
		say "kill-path syscalls:"
		grep -E 'pidfd_open|pidfd_send_signal|process_mrelease|[^_]kill\(|cgroup\.kill' "$VM_TMP/$name.strace" |
			grep -v 'ENOENT' | sed 's/^/    /' | head -n 40
	else
		TRACED=0
		: > "$VM_TMP/$name.strace"
		cg_oom "$name" "$@"
	fi
	return $CGOOM_RC
}

# --- explain --json, the few fields we need (no jq in the guest) ---------
# The document is one object; victim is a flat object whose only array
# is "pids"; candidates carry no "pids", "scope" or "policy" keys.

json_flat() { tr -d '\n\r' < "$1"; }

# json_victim FILE: the victim object "{...}", or nothing when null.
json_victim() {
	json_flat "$1" | sed -n 's/.*"victim"[[:space:]]*:[[:space:]]*\({[^}]*}\).*/\1/p'
}

# json_victim_pids FILE: victim.pids, sorted, space-separated.
json_victim_pids() {
	v=$(json_victim "$1" | sed -n 's/.*"pids"[[:space:]]*:[[:space:]]*\[\([^]]*\)\].*/\1/p')
	sorted_pids "$v"
}

# json_value TEXT KEY: the first "KEY": value in TEXT, for a string
# (unquoted, no escapes expected), number, true, false or null.
json_value() {
	echo "$1" | grep -E -o "\"$2\"[[:space:]]*:[[:space:]]*(\"[^\"]*\"|null|-?[0-9]+|true|false)" |
		head -n 1 | sed 's/^"[^"]*"[[:space:]]*:[[:space:]]*//; s/^"\(.*\)"$/\1/'
}

json_victim_field() { json_value "$(json_victim "$1")" "$2"; }

# Top-level fields: "domain" and "policy" come before the candidates.
json_top_field() {
	json_value "$(json_flat "$1" | sed 's/"candidates".*//')" "$2"
}

# --- kill checks --------------------------------------------------------

# explain_predict NAME DOMAIN [ARGS...]: run explain --json, leave victim
# pids in $PRED (sorted) and the JSON in $VM_TMP/NAME.out.
explain_predict() {
	name=$1; dom=$2; shift 2
	cg_oom "$name" "$@" explain "$dom" --json ||
		fail "cgoom explain $dom --json exited $CGOOM_RC: $(head -c 300 "$VM_TMP/$name.err")"
	grep -q '"victim"' "$VM_TMP/$name.out" ||
		fail "explain --json has no \"victim\" key: $(head -c 300 "$VM_TMP/$name.out")"
	PRED=$(json_victim_pids "$VM_TMP/$name.out")
	say "explain predicts victim.pids = [$PRED] ($(labels_of $PRED))"
}

# kill_and_check NAME DOMAIN EXPECTED [ARGS...]: `cgoom kill DOMAIN`, wait
# for EXPECTED (sorted pids) to die, then require that exactly EXPECTED
# died among the hogs and everything else is alive. Records the
# explain-agrees check against $PRED.
kill_and_check() {
	local t0
	name=$1; dom=$2; want=$3; shift 3
	t0=$(now_cs)
	if [ "${KILL_TRACE:-0}" = 1 ]; then
		cg_oom_traced "$name" "$@" kill "$dom"
	else
		cg_oom "$name" "$@" kill "$dom"
	fi
	rc=$CGOOM_RC
	[ -n "$want" ] && wait_dead 15 $want
	t1=$(now_cs)
	sleep 0.5 # anything else that is going to die, let it
	died=$(dead_hogs)
	agree "$PRED" "$died"
	say "after the kill (cgoom start to last expected death: $(( t1 - t0 ))0 ms):"
	hog_table
	[ $rc = 0 ] || fail "cgoom kill $dom exited $rc: $(head -c 300 "$VM_TMP/$name.err")"
	[ "$died" = "$want" ] ||
		fail "died [$died] ($(labels_of $died)), expected [$want] ($(labels_of $want))"
}

# --- the seed table (the LWN article's example, sizes nudged unique) -----
#   /work (memory.max 1200M)
#     cg1: one 250 MiB hog
#     cg2: three hogs, 100 102 104
#     cg3/cg31: 98 99      cg3/cg32: 97 96
# Footprints: cg1 250, cg2 306, cg31 197, cg32 193 (cg3 as a tree: 390).
# With less than -m 1536 the base sizes shrink to fit (SEED_PCT percent);
# the nudges stay, so every answer stays unique.
seed_pct() {
	mt=$(sed -n 's/^MemTotal:[[:space:]]*\([0-9]*\).*/\1/p' /proc/meminfo)
	pct=$(( (mt / 1024 - 400) * 100 / 1000 ))
	[ $pct -gt 100 ] && pct=100
	[ $pct -lt 20 ] && pct=20
	echo $pct
}

seed_setup() {
	SEED_PCT=$(seed_pct)
	b250=$((250 * SEED_PCT / 100)) b100=$((100 * SEED_PCT / 100))
	[ "$SEED_PCT" = 100 ] || say "guest has $(($(sed -n 's/^MemTotal:[[:space:]]*\([0-9]*\).*/\1/p' /proc/meminfo) / 1024)) MiB: seed sizes at ${SEED_PCT}%"
	cg_make /work $((1200 * SEED_PCT / 100))M
	cg_enable /work +memory
	cg_make /work/cg1
	cg_make /work/cg2
	cg_make /work/cg3
	cg_enable /work/cg3 +memory
	cg_make /work/cg3/cg31
	cg_make /work/cg3/cg32
	hog cg1 /work/cg1 $b250
	hog cg2-100 /work/cg2 $b100
	hog cg2-102 /work/cg2 $((b100 + 2))
	hog cg2-104 /work/cg2 $((b100 + 4))
	hog cg31-98 /work/cg3/cg31 $((b100 - 2))
	hog cg31-99 /work/cg3/cg31 $((b100 - 1))
	hog cg32-97 /work/cg3/cg32 $((b100 - 3))
	hog cg32-96 /work/cg3/cg32 $((b100 - 4))
	hogs_wait 90
}

# check_victim FILE POLICY CGROUP PID SCOPE: explain's JSON says policy
# POLICY, victim cgroup CGROUP (skipped when empty), process PID, scope
# SCOPE ("null" for none) and pids [$WANT].
check_victim() {
	f=$1
	p=$(json_top_field "$f" policy)
	[ "$p" = "$2" ] || fail "explain says policy '$p', expected '$2'"
	d=$(json_top_field "$f" domain)
	[ "$d" = "$DOMAIN" ] || fail "explain says domain '$d', expected '$DOMAIN'"
	json_victim "$f" | grep -q . || fail "explain found no victim (victim: null): $(json_flat "$f" | head -c 400)"
	if [ -n "$3" ]; then
		c=$(json_victim_field "$f" cgroup)
		[ "$c" = "$3" ] || fail "explain's victim.cgroup is '$c', expected '$3'"
	fi
	v=$(json_victim_field "$f" process)
	[ "$v" = "$4" ] || fail "explain's victim.process is '$v' ($(labels_of $v)), expected $4 ($(labels_of $4))"
	s=$(json_victim_field "$f" scope)
	[ "$s" = "$5" ] || fail "explain's victim.scope is '$s', expected '$5'"
	[ "$PRED" = "$WANT" ] || fail "explain's victim.pids [$PRED] ($(labels_of $PRED)), expected [$WANT] ($(labels_of $WANT))"
}

# --- cgoom run (daemon scenarios) -----------------------------------------
EV=${VM_TMP:-/tmp}/events.jsonl
DLOG=${VM_TMP:-/tmp}/daemon.log
DPID=
up_ms() { read -r u _ < /proc/uptime; echo $(( ${u%.*} * 1000 + $(echo "${u#*.}" | sed 's/^0*//; s/^$/0/') * 10 )); }
daemon_start() { # daemon_start [cgoom ARGS before "run"] -- [run ARGS]
	# empty the log first: the background shell may truncate it only after
	# the wait below has read the previous daemon's "watching" line
	: > "$DLOG"
	cgoom --config "$CGOOM_CONF" "$@" > "$DLOG" 2>&1 &
	DPID=$!
	trap daemon_stop EXIT
	wait_watching "$DLOG" $DPID
}
# wait_watching LOG [PID]: until the daemon logging to LOG says it is
# watching (10 s), failing when it does not, or when PID exits first
wait_watching() {
	_w=${2:+ ($2)}
	i=0
	until grep -q 'watching [0-9]* domain' "$1"; do
		i=$((i + 1)); [ $i -gt 100 ] && { diag_file "$1"; fail "cgoom run$_w did not start ($1)"; }
		[ -z "${2:-}" ] || is_alive "$2" || { diag_file "$1"; fail "cgoom run$_w exited at start"; }
		sleep 0.1
	done
}
# tmpfs_scratch DIR: a 1 GiB tmpfs on DIR, emptied and unmounted when the
# scenario ends, pass or fail (its pages would stay charged to removed
# cgroups and hold the guest's memory from the scenarios after it)
tmpfs_scratch() {
	TMPFS_DIR=$1
	trap tmpfs_done EXIT
	mkdir -p "$1" && mount -t tmpfs -o size=1G tmpfs "$1" || fail "cannot mount a tmpfs on $1"
}
tmpfs_done() { rm -f "$TMPFS_DIR"/*; umount "$TMPFS_DIR" 2>/dev/null; }
daemon_stop() {
	[ -n "$DPID" ] || return 0
	kill -TERM $DPID 2>/dev/null
	i=0
	while is_alive $DPID && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
	is_alive $DPID && { say "cgoom run ignored SIGTERM"; kill -9 $DPID; }
	wait $DPID 2>/dev/null
	DRC=$?
	DPID=
	say "cgoom run log:"
	sed 's/^/    /' "$DLOG" | tail -n 60
}
# work_domain: /work (400M, memory delegated) with children a and grow,
# the domain of the daemon fault scenarios.
work_domain() {
	cg_make /work 400M
	cg_enable /work +memory
	cg_make /work/a
	cg_make /work/grow
}

# squeeze_grower WHAT: a 100 MiB hog in /work/a, a grower (25 MiB/s to
# 300 MiB) in /work/grow; the daemon must kill the grower alone, before
# the kernel does. WHAT names the moment in the failure messages.
squeeze_grower() {
	hog a /work/a 100
	hogs_wait 60
	hog grow /work/grow 300 25
	wait_event victim_exit 60 || { daemon_stop; fail "$1: no victim within 60 s"; }
	sleep 0.3
	died=$(dead_hogs)
	okills=$(oom_kills /work)
	hog_table
	daemon_stop
	[ "$died" = "$(hog_pid grow)" ] || fail "$1: died [$died], expected the grower"
	[ "$okills" = 0 ] || fail "$1: kernel oom_kill $okills"
}

ev_lines() { grep "\"event\": \"$1\"" "$EV" 2>/dev/null; }
ev_count() { ev_lines "$1" | wc -l | tr -d ' '; }
# wait_reload_ok: waits up to 10 s for a reload event with "ok": true
wait_reload_ok() {
	_i=0
	until ev_lines reload | grep -q '"ok": true'; do
		_i=$((_i + 1)); [ $_i -gt 100 ] && return 1
		sleep 0.1
	done
}
ev_num() { ev_lines "$1" | head -n 1 | grep -E -o "\"$2\": [0-9.]+" | head -n 1 | sed 's/.*: //'; }
# the victim.pids of the first decision in the event log
ev_victim_pids() { ev_lines decision | head -n 1 > "$VM_TMP/decision.json"; json_victim_pids "$VM_TMP/decision.json"; }
wait_event() { # wait_event NAME SECONDS
	i=0
	while [ "$(ev_count "$1")" = 0 ]; do
		i=$((i + 1)); [ $i -gt $(( $2 * 10 )) ] && return 1
		sleep 0.1
	done
}
# watch_cross CGROUP FILE: in the background, the first uptime (ms) at
# which memory.current >= FILE (memory.high or memory.max) lands in
# $VM_TMP/cross (sampled every 20 ms).
watch_cross() {
	( lim=$(cat "$CG$1/$2"); while :; do c=$(cat "$CG$1/memory.current" 2>/dev/null) || exit 0
		[ "$c" -ge "$lim" ] && { up_ms > "$VM_TMP/cross"; exit 0; }; sleep 0.02; done ) &
	WATCH=$!
}
oom_kills() { sed -n 's/^oom_kill //p' "$CG$1/memory.events"; }
vm_oom_kills() { sed -n 's/^oom_kill //p' /proc/vmstat; }

# --- cleanup (run by /init after every scenario) --------------------------

cleanup_all() {
	killall -9 strace 2>/dev/null
	# a daemon left by a scenario that timed out must not act in the next
	killall -TERM cgoom 2>/dev/null && sleep 0.5
	killall -9 cgoom 2>/dev/null
	# cgroup.kill each top-level cgroup: kills every process below it.
	for d in "$CG"/*/; do
		[ -f "$d/cgroup.kill" ] && echo 1 > "$d/cgroup.kill" 2>/dev/null
	done
	killall -9 memhog workload probe 2>/dev/null
	killall -TERM recorder 2>/dev/null
	i=0
	while [ $i -lt 50 ]; do
		busy=0
		for d in $(find "$CG" -mindepth 1 -type d); do
			grep -q '^populated 1' "$d/cgroup.events" 2>/dev/null && busy=1
		done
		[ $busy = 0 ] && break
		sleep 0.1
		i=$((i + 1))
	done
	find "$CG" -mindepth 1 -depth -type d -exec rmdir {} \; 2>/dev/null
	left=$(find "$CG" -mindepth 1 -type d | tr '\n' ' ')
	stray=
	for p in $(pidof memhog workload probe); do is_alive "$p" && stray="$stray $p"; done
	stray=${stray# }
	# zswap (swap-zswap) off again: in front of zram it charges its pool
	# to the swapping cgroup (a 48M one was OOM-killed with it on)
	z=/sys/module/zswap/parameters/enabled
	[ "$(cat $z 2>/dev/null)" = Y ] && echo 0 > $z 2>/dev/null
	swapoff -a 2>/dev/null
	for z in /sys/block/zram*; do
		[ -e "$z/reset" ] && echo 1 > "$z/reset" 2>/dev/null
	done
	rmmod zram 2>/dev/null
	rm -f "$CGOOM_CONF"
	[ -n "$left$stray" ] || return 0
	echo "cleanup: cgroups left: [${left% }] memhogs left: [$stray]"
	return 1
}

# load_zram SIZE: zram swap of SIZE (e.g. 256M), swapon. Swap stays off
# in every scenario that does not call this (zram_swap is the same).
# zram_load N: the zram module with devices zram0..zram(N-1) (a module
# loaded by an earlier scenario with fewer gets the rest hot-added)
zram_load() {
	modprobe zram num_devices="$1" 2>/dev/null || {
		# without modules.dep: dependencies first; a missing one is built in
		for m in /lib/modules/*/kernel/lib/lz4/*.ko /lib/modules/*/kernel/mm/zsmalloc.ko \
			/lib/modules/*/kernel/drivers/block/zram/zram.ko; do
			[ -f "$m" ] || continue
			insmod "$m" num_devices="$1" 2>/dev/null || insmod "$m" || return 1
		done
	}
	_i=0
	while [ ! -e /sys/block/zram0/disksize ] && [ $_i -lt 50 ]; do sleep 0.1; _i=$((_i + 1)); done
	_n=0
	while [ $_n -lt "$1" ]; do
		[ -e /sys/block/zram$_n ] || cat /sys/class/zram-control/hot_add > /dev/null 2>&1
		_n=$((_n + 1))
	done
	[ -e /sys/block/zram$(($1 - 1))/disksize ]
}
# zram_swap SIZE [N [MEM_LIMIT]]: swap on /dev/zramN (0) of SIZE, its
# RAM use limited to MEM_LIMIT when given
zram_swap() {
	_d=${2:-0}
	zram_load $((_d + 1)) || return 1
	echo "$1" > /sys/block/zram$_d/disksize || return 1
	[ -z "${3:-}" ] || echo "$3" > /sys/block/zram$_d/mem_limit || return 1
	_i=0
	while [ ! -b /dev/zram$_d ] && [ $_i -lt 50 ]; do sleep 0.1; _i=$((_i + 1)); done
	mkswap /dev/zram$_d > /dev/null && swapon /dev/zram$_d
}
load_zram() { zram_swap "$@"; }

# --- snapshots for a host-side oracle (tests/vm/trials) -------------------
# snap_take DIR DOMAIN: copy out of the live system what victim selection
# in DOMAIN depends on (SPEC 2-5, 7), laid out as a fixture tree that
# tests/property/model.py reads: DIR/cg/<cgroup>/<file> (cgroup.controllers,
# cgroup.procs and the memory.* files the spec reads), DIR/owners
# ("REL UID" per cgroup), DIR/xattrs (vmxattr dump), DIR/proc/<pid>/
# {status,stat,oom_score_adj} for every process in DOMAIN, DIR/proc/meminfo,
# DIR/proc/net/sockstat and DIR/cgoom.conf.
# (vmxattr snap does the copying in one process: forks are slow in TCG.)
snap_take() {
	rm -rf "$1"
	vmxattr snap "$CG" "$2" "$1" || return 1
	[ -f "$CGOOM_CONF" ] && cp "$CGOOM_CONF" "$1/cgoom.conf"
	return 0
}

# snap_send DIR TAG: DIR as a gzipped tar, base64, one "CGOOM-SNAP TAG
# <line>" per line on the results port (the host reassembles it).
snap_send() {
	port=/dev/ttyS1
	[ -w "$port" ] || port=/dev/stdout
	tar -C "$1" -czf - . | base64 | sed "s/^/CGOOM-SNAP $2 /" >> "$port"
	echo "CGOOM-SNAP-END $2" >> "$port"
}

# --- an unprivileged delegatee (attack-*.sh) ------------------------------
# delegate_to PATH UID: hand a cgroup to UID as systemd does for a
# Delegate=yes unit: the directory and its cgroup.procs, cgroup.threads,
# cgroup.subtree_control.
delegate_to() {
	for f in "" /cgroup.procs /cgroup.threads /cgroup.subtree_control; do
		chown "$2:$2" "$CG$1$f" || fail "chown $1$f to $2"
	done
}
# as_user UID SHELL-COMMAND: run it as UID (no supplementary groups).
# delegated_top MAX CONTROLLERS [PIDS_MAX]: the attacker scenarios' tree:
# /top (memory.max MAX) holding a root-owned /v and /u, and /u/a
# delegated to uid 1000 as systemd delegates (chowned), CONTROLLERS
# ("+memory" or "+memory +pids") enabled down to /u; pids.max on /u/a if
# given.
delegated_top() {
	cg_make /top "$1"
	cg_enable /top "$2"
	cg_make /top/v
	cg_make /top/u
	cg_enable /top/u "$2"
	cg_make /top/u/a
	if [ -n "${3:-}" ]; then cg_set /top/u/a pids.max "$3"; fi
	delegate_to /top/u/a 1000
}

as_user() { u=$1; shift; vmxattr as "$u" sh -c "$*"; }
# uhog LABEL CGROUP MB [RATE]: hog() whose memhog runs as uid 1000 (root
# moves it in: a user cannot move a process out of the root cgroup).
uhog() {
	out="$VM_TMP/hog.$1.out"
	sh -c 'echo $$ > "$1/cgroup.procs" || exit 99; shift; exec vmxattr as 1000 memhog "$@"' \
		hog "$CG$2" "$3" ${4:-} > "$out" 2>&1 &
	echo "$1 $! $2 $3" >> "$VM_TMP/hogs"
}
# proc_hwm_kb PID / proc_fds PID: peak RSS (VmHWM) and open fds.
proc_hwm_kb() { sed -n 's/^VmHWM:[[:space:]]*\([0-9]*\).*/\1/p' "/proc/$1/status"; }
proc_fds() { ls "/proc/$1/fd" 2>/dev/null | wc -l; }

# --- the swap test bed (tests/vm/README.md "Swap, a disk, a probe") ------
# The guest's data disk (label cgoom-data) is attached when a scenario
# says "# vm-disk: MB"; in the systemd guest it is /dev/vdb, always.
DISK=/mnt/disk

# mib SIZE: SIZE (N, NM or NG) in MiB
mib() { case "$1" in *G) echo $(( ${1%G} * 1024 )) ;; *M) echo "${1%M}" ;; *) echo "$1" ;; esac; }

# disk_mount [DIR]: mount the data disk's ext4 on DIR (default $DISK),
# loading virtio_pci, virtio_blk and ext4 first (busybox guest).
disk_mount() {
	d=${1:-$DISK}
	grep -q " $d ext4 " /proc/mounts && return 0
	[ -f /vm/disk-modules ] && for m in $(cat /vm/disk-modules); do modprobe "$m" 2>/dev/null; done
	dev= i=0
	while [ $i -lt 50 ]; do
		dev=$(findfs LABEL=cgoom-data 2>/dev/null) && [ -b "$dev" ] && break
		dev= ; sleep 0.1; i=$((i + 1))
	done
	[ -n "$dev" ] || { say "no data disk (label cgoom-data): did the scenario say # vm-disk: MB?"; return 1; }
	mkdir -p "$d" && mount -t ext4 "$dev" "$d" && chmod 1777 "$d"
}

# disk_swap SIZE: a swap file of SIZE on the data disk, swapon (kept on
# the disk for the next scenario of the boot; cleanup_all swaps it off).
disk_swap() {
	disk_mount || return 1
	f=$DISK/swapfile n=$(mib "$1")
	if [ ! -f "$f" ] || [ "$(stat -c %s "$f")" != $((n * 1048576)) ] || ! mkswap "$f" > /dev/null 2>&1 ||
		! swapon "$f" 2>/dev/null; then
		# fallocate's unwritten extents are enough for ext4; else zeros
		rm -f "$f"
		fallocate -l $((n * 1048576)) "$f" 2>/dev/null || dd if=/dev/zero of="$f" bs=1M count="$n" 2>/dev/null
		chmod 600 "$f"
		mkswap "$f" > /dev/null && swapon "$f" 2>/dev/null && return 0
		rm -f "$f"
		dd if=/dev/zero of="$f" bs=1M count="$n" 2>/dev/null && chmod 600 "$f" && mkswap "$f" > /dev/null && swapon "$f"
	fi
}

# zram_ratio: "RATIO MEMRATIO ORIG_MIB COMPR_MIB USED_MIB" from
# /sys/block/zram0/mm_stat: data stored over its compressed size, and over
# the RAM zram really uses (compressed + allocator overhead)
zram_ratio() {
	awk '{ if ($2 > 0 && $3 > 0) printf "%.2f %.2f %d %d %d\n", $1 / $2, $1 / $3, $1 / 1048576, $2 / 1048576, $3 / 1048576;
		else print "0 0 0 0 0" }' /sys/block/zram0/mm_stat 2>/dev/null
}

# job LABEL CGROUP WORKLOAD-ARGS...: `workload ARGS` in CGROUP, tracked
# as hog() tracks memhog (hogs_wait waits for its "ready PID").
job() {
	l=$1 c=$2
	shift 2
	sh -c 'echo $$ > "$1/cgroup.procs" || exit 99; shift; exec workload "$@"' \
		job "$CG$c" "$@" > "$VM_TMP/hog.$l.out" 2>&1 &
	echo "$l $! $c 0" >> "$VM_TMP/hogs"
}

# probe_start CGROUP [PROBE-OPTIONS]: the interactive probe (tests/vm/
# probe.c) in CGROUP, its rounds in $PROBE_OUT; PROBE its pid.
PROBE_OUT=$VM_TMP/probe.out
probe_start() {
	c=$1
	shift
	rm -f "$PROBE_OUT"
	sh -c 'echo $$ > "$1/cgroup.procs" || exit 99; shift; exec probe run "$@"' \
		probe "$CG$c" "$PROBE_OUT" "$@" > "$VM_TMP/probe.err" 2>&1 &
	PROBE=$!
	i=0
	until grep -q '^ready' "$PROBE_OUT" 2>/dev/null; do
		i=$((i + 1)); [ $i -gt 100 ] && return 1
		sleep 0.1
	done
}
# probe_report FROM_MS [TO_MS]: rounds, stalls (over 100 ms) and the worst
# round due in the window (CLOCK_MONOTONIC ms, as mono_ms prints them)
probe_report() { probe report "$PROBE_OUT" "$1" "${2:-0}"; }
mono_ms() { probe now; }

# rec_start SERIES [RECORDER-OPTIONS]: the series recorder (tests/vm/
# recorder.c) writing to SERIES every 100 ms; rec_mark TEXT; rec_stop.
REC=
rec_start() {
	SERIES=$1
	shift
	recorder run "$SERIES" "$@" > "$VM_TMP/recorder.err" 2>&1 &
	REC=$!
	i=0
	# its first block: 30 s at most (5 s was too short once in bench/swap,
	# right after a scenario's drop_caches and zram reset under TCG)
	until [ -s "$SERIES" ]; do
		i=$((i + 1))
		[ $i -gt 300 ] && return 1
		kill -0 "$REC" 2> /dev/null || return 1
		sleep 0.1
	done
}
rec_mark() { [ -n "$REC" ] && recorder mark "$SERIES" "$@"; return 0; }
rec_stop() {
	[ -n "$REC" ] || return 0
	kill -TERM "$REC" 2>/dev/null
	wait "$REC" 2>/dev/null
	REC=
}
# series_at SERIES T_MS FIELD: FIELD of /proc/meminfo (kB) in the last
# block taken at or before T_MS
series_at() {
	awk -v t="$2" -v f="$3:" '
		$1 == "@" { if ($2 > t) exit; inb = 1; next }
		$1 == "==" { file = $2; next }
		file == "/proc/meminfo" && $1 == f { v = $2 }
		END { print v + 0 }' "$1"
}
# series_mark SERIES WORDS: T_MS of the first marker line "# T WORDS..."
series_mark() { grep -m 1 "^# [0-9]* $2" "$1" | cut -d' ' -f2; }
