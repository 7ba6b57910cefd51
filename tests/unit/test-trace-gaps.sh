#!/bin/bash
# SPDX-License-Identifier: MIT
# bench/trace-gaps.py: the probe's threads are the bystander's, not the
# canary's. Both are named "probe" in the guest; the canary's threads run
# SCHED_FIFO at the top priority (prio 0 in the trace) and wake every
# 10 ms, so they are switched more often than the probe's. A synthetic
# trace: canary thread 504 (prio 0) switching every 10 ms, the probe's
# hot thread 608 (prio 120, every 20 ms, one 300 ms fault) and its cold
# thread 609 (prio 120, one sleep), and one stalled round of the probe.
#   test-trace-gaps.sh SOURCE_ROOT
root=${1:?usage: $0 SOURCE_ROOT}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
sw() { # TS PID PRIO STATE STACK-FRAME: switched out, then back in 1 ms later
	printf '           probe-%d     [000] d..2.  %s: sched_switch: prev_comm=probe prev_pid=%d prev_prio=%d prev_state=%s ==> next_comm=swapper/0 next_pid=0 next_prio=120\n' \
		"$2" "$1" "$2" "$3" "$4"
	printf ' => __schedule\n => %s\n' "$5"
}
back() { # TS PID PRIO
	printf '          <idle>-0       [000] d..2.  %s: sched_switch: prev_comm=swapper/0 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=probe next_pid=%d next_prio=%d\n' \
		"$1" "$2" "$3"
}
sec() { printf '%d.%03d000' $(($1 / 1000)) $(($1 % 1000)); } # ms -> s.us
sleeps() { # PID PRIO N EVERY_MS ASLEEP_MS: N sleeps from 10 s on
	local k t
	for ((k = 0; k < $3; k++)); do
		t=$((10000 + k * $4))
		sw "$(sec $t)" "$1" "$2" S do_nanosleep
		back "$(sec $((t + $5)))" "$1" "$2"
	done
}
{
	echo '# tracer: nop'
	sleeps 504 0 100 10 9
	sleeps 608 120 30 20 15
	sw 10.700000 608 120 D rwsem_down_write_slowpath
	back 11.000000 608 120
	sw 10.650000 609 120 S do_nanosleep
	back 11.050000 609 120
} > "$tmp/trace.txt"
# the probe's rounds: one of its hot rounds took 350 ms
printf 'ready 608\nh 10680 350000\n' > "$tmp/rounds.txt"
out=$(python3 "$root/bench/trace-gaps.py" "$tmp/trace.txt" --rounds "$tmp/rounds.txt" --top 5)
echo "TAP version 13"
echo "1..2"
. "$(dirname "$0")/tap-check.sh"
check "the stalled round is split over the probe's two threads, hot then cold" \
	"hot thread 608 cold thread 609" \
	"$(echo "$out" | sed -n 's/^ *\(hot\|cold\) thread \([0-9]*\):.*/\1 thread \2/p' | tr '\n' ' ' | sed 's/ $//')"
check "the canary's thread is in no summary" \
	"" "$(echo "$out" | grep -w 504)"
exit $fail
