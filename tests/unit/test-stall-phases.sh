#!/bin/bash
# SPDX-License-Identifier: MIT
# bench/stall-phases on s-thrash: when every job was active, when the
# memory stall ended for good (the last recorder sample with a full stall
# of 10% or more), and the probe's stalls counted before and after it.
# A synthetic run: one series (base 1000 ms, a sample every 100 ms) and
# its probe record.
#   test-stall-phases.sh SOURCE_ROOT
root=${1:?usage: $0 SOURCE_ROOT}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/series" "$tmp/probe"
# series NAME STALL_UNTIL_MS: full stall of 50 ms in every 100 ms sample
# from 1100 up to STALL_UNTIL_MS, then none; the record ends at 6000
series() {
	local t full=0
	{
		echo "# 0 start monotonic_ns=1000000000 interval_ms=100"
		echo "# 100 squeeze start three active jobs"
		echo "# 1100 all active"
		echo "# 2000 exit thrash-a 295"
		echo "# 4000 relief probe back under 100 ms"
		for ((t = 0; t <= 6000; t += 100)); do
			[ "$t" -gt 1100 ] && [ "$t" -le "$2" ] && full=$((full + 50000))
			echo "@ $t"
			echo "== /proc/pressure/memory"
			echo "some avg10=0.00 avg60=0.00 avg300=0.00 total=$full"
			echo "full avg10=0.00 avg60=0.00 avg300=0.00 total=$full"
		done
	} | gzip -c > "$tmp/series/$1.txt.gz"
	# due (CLOCK_MONOTONIC ms: base 1000 + recorder ms) and latency (us);
	# the 90 ms round is no stall, the one after the relief not counted
	printf 'ready 1\nh 3500 120000\nh 1500 150000\nh 2500 200000\nh 4000 90000\nh 6000 300000\n' \
		> "$tmp/probe/$1.txt"
}
series s-thrash-cgoom-rep1 1700
series s-thrash-kernel-rep1 6000
out=$("$root/bench/stall-phases" "$tmp" s-thrash)
echo "TAP version 13"
echo "1..2"
. "$(dirname "$0")/tap-check.sh"
check "calm 0.6 s after every job was active, one stall after it, in time order" \
	"s-thrash-cgoom-rep1 active 1.0 exit 0.9 mem_calm 0.6 relief 2.9 stalls 3 after_calm 1 h-0.6/150 h0.4/200 h1.4/120" \
	"$(echo "$out" | grep cgoom)"
check "a stall to the record's end is no calm" \
	"s-thrash-kernel-rep1 active 1.0 exit 0.9 mem_calm - relief 2.9 stalls 3 after_calm 0 h-0.6/150 h0.4/200 h1.4/120" \
	"$(echo "$out" | grep kernel)"
exit $fail
