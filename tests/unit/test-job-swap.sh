#!/bin/bash
# SPDX-License-Identifier: MIT
# bench/job-swap: per job, its RAM and swap (MiB) from the squeeze's
# start, a line per --every ms; "-" before a job starts. A synthetic
# series: samples every 500 ms, the squeeze at 1000, job "grow" from
# 2000 on.
#   test-job-swap.sh SOURCE_ROOT
root=${1:?usage: $0 SOURCE_ROOT}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
A=/sys/fs/cgroup/user.slice/user-1000.slice/user@1000.service/app.slice
{
	echo "# 0 start monotonic_ns=1000000000 interval_ms=500"
	echo "# 1000 squeeze start grow"
	for ((t = 0; t <= 4000; t += 500)); do
		echo "@ $t"
		echo "== /proc/meminfo"
		echo "MemAvailable:     $(( (400 - t / 20) * 1024 )) kB"
		echo "SwapTotal:        524288 kB"
		echo "SwapFree:         $(( (512 - t / 100) * 1024 )) kB"
		echo "== $A/vm-idle.service/memory.current"
		echo $(( (300 - t / 100) << 20 ))
		echo "== $A/vm-idle.service/memory.swap.current"
		echo $(( (t / 100) << 20 ))
		if [ "$t" -ge 2000 ]; then
			echo "== $A/vm-grow.service/memory.current"
			echo $(( (t / 10) << 20 ))
			echo "== $A/vm-grow.service/memory.swap.current"
			echo 0
		fi
	done
} | gzip -c > "$tmp/s.txt.gz"
echo "TAP version 13"
echo "1..3"
. "$(dirname "$0")/tap-check.sh"
check "a line a second from the squeeze, the job not yet started as -" \
	"0.0 avail 350 swap 10 grow -/- idle 290/10
1.0 avail 300 swap 20 grow 200/0 idle 280/20
2.0 avail 250 swap 30 grow 300/0 idle 270/30
3.0 avail 200 swap 40 grow 400/0 idle 260/40" \
	"$("$root/bench/job-swap" "$tmp/s.txt.gz")"
check "--every 1500" "0.0 1.5 3.0" \
	"$("$root/bench/job-swap" "$tmp/s.txt.gz" --every 1500 | cut -d' ' -f1 | tr '\n' ' ' | sed 's/ $//')"
gzip -dc "$tmp/s.txt.gz" | grep -v squeeze | gzip -c > "$tmp/n.txt.gz"
"$root/bench/job-swap" "$tmp/n.txt.gz" > /dev/null 2> "$tmp/err"
check "no squeeze mark: exit 1 and says so" "1 1" "$? $(grep -c 'no squeeze mark' "$tmp/err")"
exit $fail
