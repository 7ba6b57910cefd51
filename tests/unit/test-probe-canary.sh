#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/vm/probe.c's canary (bench/swap's mark of the guest not running):
# `probe report ... CANARY` counts a stall as the guest stopped when half
# of it or more lies in a gap on every CPU at once, as a CPU stopped when
# in a gap of any one, and sums the whole guest's stand-stills in the
# window; without CANARY the line is as it was. Then the canary itself
# runs where it may (CAP_SYS_NICE and CAP_IPC_LOCK; skips with the
# reason elsewhere).
#   test-probe-canary.sh BUILD_DIR/tests/unit/probe [asan]
# (asan: a build under AddressSanitizer, whose mlockall does nothing; the
# lock is not checked there)
probe=${1:?usage: $0 PATH_TO_PROBE [asan|plain]}
build=${2:-plain}
tmp=$(mktemp -d)
trap 'kill $cpid 2>/dev/null; rm -rf "$tmp"' EXIT
cpid=
echo "TAP version 13"
echo "1..7"
. "$(dirname "$0")/tap-check.sh"
# three stalls: 1000-1150 (cold), 2000-2120 (hot), 5000-5300 (cold)
cat > "$tmp/rounds" <<'R'
ready 1
c 1000 150000
h 2000 120000
H 2000 100 120000
c 5000 300000
c 8000 50000
R
# CPU 0 and 1 both stopped over 1000-1160 (the first stall: guest stopped);
# CPU 0 alone over 2000-2100 (the second: a CPU); 5000-5100 and 5050-5150
# overlap for 50 ms of the third's 300 (a CPU for half of it: 150 ms)
cat > "$tmp/canary" <<'C'
ready 1 2
g 0 990 200000
g 1 1000 160000
g 0 2000 100000
g 0 5000 100000
g 1 5050 100000
C
base="rounds 103 stalls 3 cold_stalls 2 hot_stalls 1 worst_ms 300 first_stall_ms 1000"
check "without a canary the report is unchanged" "$base" "$("$probe" report "$tmp/rounds" 0 0)"
check "with it: 1 stall with the guest stopped, 3 with a CPU stopped, 2 stand-stills of 210 ms" \
	"$base stopped_stalls 1 cpu_stopped_stalls 3 guest_stops 2 guest_stop_ms 210 canary_lost 0" \
	"$("$probe" report "$tmp/rounds" 0 0 "$tmp/canary")"
check "a window from 1100: the stand-still it cuts counts from there (60 + 50 ms)" \
	"rounds 102 stalls 2 cold_stalls 1 hot_stalls 1 worst_ms 300 first_stall_ms 900 stopped_stalls 0 cpu_stopped_stalls 2 guest_stops 2 guest_stop_ms 110 canary_lost 0" \
	"$("$probe" report "$tmp/rounds" 1100 0 "$tmp/canary")"
# a CPU that never stopped: the guest never stood still as a whole
grep -v '^g 1 ' "$tmp/canary" > "$tmp/one"
# (CPU 0 alone: the first two stalls are inside its gaps, the third for
# 100 ms of 300)
check "gaps on one CPU of two are no stand-still of the guest" \
	"$base stopped_stalls 0 cpu_stopped_stalls 2 guest_stops 0 guest_stop_ms 0 canary_lost 0" \
	"$("$probe" report "$tmp/rounds" 0 0 "$tmp/one")"
grep -v '^ready' "$tmp/canary" > "$tmp/bad"
"$probe" report "$tmp/rounds" 0 0 "$tmp/bad" > /dev/null 2> "$tmp/err"
rc=$?
check "a file without its ready line is refused (exit 1, named)" "1 yes" \
	"$rc $(grep -q 'not a canary file' "$tmp/err" && echo yes || echo no)"
# the canary itself
"$probe" canary "$tmp/live" --period-ms 10 --gap-ms 20 2> "$tmp/cerr" &
cpid=$!
n=0
while [ $n -lt 50 ] && ! grep -q '^ready' "$tmp/live" 2>/dev/null && kill -0 $cpid 2>/dev/null; do
	sleep 0.1
	n=$((n + 1))
done
if ! kill -0 $cpid 2>/dev/null; then
	i=$((i + 1))
	echo "ok $i - the canary is ready with a thread per CPU # SKIP it cannot here: $(tail -n 1 "$tmp/cerr")"
	i=$((i + 1))
	echo "ok $i - its threads are SCHED_FIFO and pinned, its memory locked # SKIP as above"
	exit $fail
fi
ncpu=$(nproc)
check "the canary is ready with a thread per CPU" "ready $cpid $ncpu" "$(head -n 1 "$tmp/live")"
fifo=0 pinned=0
for t in /proc/$cpid/task/*; do
	tid=${t##*/}
	[ "$tid" = "$cpid" ] && continue
	# field 41 of stat: the policy (1: SCHED_FIFO)
	[ "$(cut -d' ' -f41 "$t/stat")" = 1 ] && fifo=$((fifo + 1))
	case $(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' "$t/status") in
	*[,-]* | '') ;;
	*) pinned=$((pinned + 1)) ;;
	esac
done
locked=$(sed -n 's/^VmLck:[[:space:]]*\([0-9]*\).*/\1/p' /proc/$cpid/status)
if [ "$build" = asan ]; then
	check "its threads are SCHED_FIFO and pinned (the lock: ASan's mlockall does nothing)" "$ncpu $ncpu" \
		"$fifo $pinned"
else
	check "its threads are SCHED_FIFO and pinned, its memory locked" "$ncpu $ncpu yes" \
		"$fifo $pinned $([ "${locked:-0}" -gt 0 ] && echo yes || echo no)"
fi
exit $fail
