# race-limit: cgoom wins the race against the kernel's memcg OOM killer
# with the default settings (issue 13). /race has only memory.max 700M
# (margin 2%, no guard band), oom_policy = cgroup, a `tree` child /race/svc
# (a 160 + b 140 MiB) and a single 250 MiB process in /race/big: the
# kernel's choice is the largest process (big), the spec's victim is
# svc's largest process (a). Each round starts a hog growing at 100 MiB/s
# (to 200 MiB: the line only while a lives) in /race/grow; cgoom must be the killer (memory.events oom_kill
# unchanged) and kill a, the decision's victim. Never a wrong victim: a
# round where cgoom signals anything but the spec's victim fails the test.
# Rounds the kernel wins are a timing matter under TCG on a shared host:
# up to RACE_MAX_LOST (default 2) of 20 are tolerated and reported; the
# goal, 20 of 20, is what the diag line and tests/vm/README.md report.
# Then a sweep at faster rates (2 rounds each) reports the fastest growth
# the defaults still win at (a diagnostic, not a pass condition).
# vm-timeout: 600

RATE=${RACE_RATE:-100}
ROUNDS=${RACE_ROUNDS:-20}
SWEEP=${RACE_SWEEP:-250 500 1000 2000}

write_conf <<CONF
[daemon]
event_log = $EV
[cgroup "/race"]
oom_policy = cgroup
[cgroup "/race/svc"]
oom_policy = tree
CONF
cg_make /race 700M
cg_enable /race +memory
cg_make /race/big
cg_make /race/svc
cg_enable /race/svc +memory
cg_make /race/svc/a
cg_make /race/svc/b
cg_make /race/grow
hog big /race/big 250
hog b /race/svc/b 140
hogs_wait 60
export CGOOM_DEBUG=${RACE_DEBUG:-0}
daemon_start run
# idle cost: cgoom's CPU time (utime + stime, clock ticks) over 10 s with
# /race 130 MiB from its line and nothing growing, and its RSS
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$DPID/stat"; }
sleep 2
c0=$(cpu_ticks)
sleep 10
c1=$(cpu_ticks)
IDLE="idle: $((c1 - c0)) ticks of CPU in 10 s ($(getconf CLK_TCK 2>/dev/null || echo 100)/s), $(sed -n 's/^VmRSS:[[:space:]]*//p' "/proc/$DPID/status")"
diag "$IDLE"

# wait_ready LABEL: this hog printed "ready PID" (hogs_wait checks every
# hog ever started, and killed growers are among them)
wait_ready() {
	pid=$(hog_pid "$1")
	i=0
	until grep -q "^ready $pid\$" "$VM_TMP/hog.$1.out" 2>/dev/null; do
		is_dead "$pid" && fail "hog $1 (pid $pid) died before ready"
		i=$((i + 1)); [ $i -gt 600 ] && fail "hog $1 not ready after 60 s"
		sleep 0.1
	done
}

N=0
# round RATE: one race; sets OUTCOME (won | kernel | wrong | none) and REACT
round() {
	N=$((N + 1))
	hog a$N /race/svc/a 160
	wait_ready a$N
	pa=$(hog_pid a$N)
	k0=$(oom_kills /race)
	l0=$(wc -l < "$DLOG")
	x0=$(ev_count victim_exit)
	c0=$(ev_count kill)
	if [ "$1" = 0 ]; then hog g$N /race/grow 200; else hog g$N /race/grow 200 "$1"; fi
	pg=$(hog_pid g$N)
	i=0
	while [ "$(ev_count victim_exit)" = "$x0" ] && [ "$(oom_kills /race)" = "$k0" ] && [ $i -lt 150 ]; do
		sleep 0.1; i=$((i + 1))
	done
	sleep 0.3
	k1=$(oom_kills /race)
	pred=$(ev_lines decision | tail -n 1 > "$VM_TMP/decision.json"; json_victim_pids "$VM_TMP/decision.json")
	REACT=$(ev_lines kill | tail -n 1 | grep -E -o '"reaction_ms": [0-9.]+' | sed 's/.*: //')
	STANDBY=$(ev_lines kill | tail -n 1 | grep -E -o '"standby": [a-z]+' | sed 's/.*: //')
	c1=$(ev_count kill)
	kill -9 "$pg" 2>/dev/null
	wait_dead 5 "$pg"
	died=
	for p in $pa $(hog_pid big) $(hog_pid b); do is_dead "$p" && died="$died $p"; done
	died=$(sorted_pids "$died")
	if [ "$k1" != "$k0" ]; then
		OUTCOME=kernel
	elif [ $((c1 - c0)) != 1 ]; then
		OUTCOME=none
	elif [ "$died" = "$pa" ] && [ "$pred" = "$pa" ]; then
		OUTCOME=won
	else
		OUTCOME=wrong
	fi
	say "round $N at ${1:-max} MiB/s: $OUTCOME (died [$died] $(labels_of $died), decision [$pred], oom_kill $k0 -> $k1, kills $((c1 - c0)), reaction ${REACT:-?} ms, standby ${STANDBY:-?})"
	# a round not won: what the daemon said during it
	[ "$OUTCOME" = won ] || tail -n +$((l0 + 1)) "$DLOG" | head -n 25 | sed 's/^/    round log: /'
	# the kernel may have killed big (or b): bring the scene back
	if is_dead "$(hog_pid big)"; then
		sed -i '/^big /d' "$VM_TMP/hogs"; hog big /race/big 250; wait_ready big
	fi
	if is_dead "$(hog_pid b)"; then
		sed -i '/^b /d' "$VM_TMP/hogs"; hog b /race/svc/b 140; wait_ready b
	fi
	is_alive "$pa" && { kill -9 "$pa"; wait_dead 5 "$pa"; }
	# let cgoom's cooldown and the next sample settle
	sleep 0.5
}

won=0
wrong=0
reacts=
standbys=0
for r in $(seq 1 "$ROUNDS"); do
	round "$RATE"
	[ "$OUTCOME" = won ] && won=$((won + 1))
	[ "$OUTCOME" = wrong ] && wrong=$((wrong + 1))
	reacts="$reacts ${REACT:-?}"
	[ "$STANDBY" = true ] && standbys=$((standbys + 1))
done
diag "at $RATE MiB/s: cgoom won $won of $ROUNDS rounds (standby decision used in $standbys); trigger->signal ms:$reacts"

fastest=$RATE
sweep=
if [ "$won" = "$ROUNDS" ]; then
	for rate in $SWEEP; do
		w=0
		for r in 1 2; do
			round "$rate"
			[ "$OUTCOME" = won ] && w=$((w + 1))
		done
		sweep="$sweep ${rate}:$w/2"
		[ $w = 2 ] && fastest=$rate
		[ $w = 2 ] || break
	done
	diag "sweep (rate MiB/s: rounds won of 2):$sweep; fastest rate won every round: $fastest MiB/s"
fi
[ "$CGOOM_DEBUG" = 1 ] && sed 's/^/    dbg /' "$DLOG"
daemon_stop
[ "$wrong" = 0 ] || fail "cgoom killed a wrong victim in $wrong of $ROUNDS rounds at $RATE MiB/s (see the round lines)"
[ $((ROUNDS - won)) -le "${RACE_MAX_LOST:-2}" ] || fail "cgoom won $won of $ROUNDS rounds at $RATE MiB/s (see the round lines)"
pass "$IDLE; won $won/$ROUNDS at $RATE MiB/s (kernel oom_kill unchanged, the spec's victim each time); sweep:$sweep; fastest all-won $fastest MiB/s"
