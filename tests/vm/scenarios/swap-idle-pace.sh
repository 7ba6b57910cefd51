# swap-idle-pace (issue 19: idle CPU on a machine with swap): with GiBs
# of swap room, the system line (MemAvailable and SwapFree both low) is
# seconds away even at swap's 800 MiB/s, and swap fills only by reclaim,
# which wakes cgoom through its PSI "some" trigger: an idle cgoom looks at
# the system every few seconds, not every second (earlyoom's pace, and
# cgoom's before). And that pace must not let a leak past it: a leak
# started from idle is ended by cgoom, before the kernel's OOM killer.
#   - 2.5 GiB swap file on the data disk; cgoom idle 20 s: at most 15
#     wake-ups (the scheduler's count of times it ran the daemon's
#     thread; once a second made 20 and more);
#   - a leak at 100 MiB/s: cgoom kills it (the spec's victim, the
#     largest cgroup) and nothing else, the kernel kills nothing
#     (/proc/vmstat oom_kill).
# vm-disk: 3072
# vm-timeout: 300
disk_swap 2560M || fail "cannot swapon a 2.5 GiB swap file on the data disk"
say "$(tail -n +2 /proc/swaps | tr -s ' \t' ' ' | tr '\n' ';')"
write_conf <<CONF
[daemon]
event_log = $EV
[cgroup "/"]
oom_policy = cgroup
CONF
cg_make /leak
cg_make /bystander
job by /bystander idle 64
hogs_wait 60
daemon_start run
# the run count of each thread of the daemon (/proc/PID/task/*/schedstat's
# third field: how often it was given the CPU, its wake-ups when idle)
runs() { cat /proc/$DPID/task/*/schedstat 2>/dev/null | awk '{ n += $3 } END { print n + 0 }'; }
sleep 2
w0=$(runs)
sleep 20
w1=$(runs)
n=$((w1 - w0))
say "idle 20 s beside $(sed -n 's/^SwapFree:[[:space:]]*//p' /proc/meminfo) of free swap: $n wake-ups"
[ "$n" -le 15 ] || fail "cgoom woke $n times in 20 idle s with GiBs of swap room (at most 15 expected)"

vm0=$(vm_oom_kills)
job leak /leak leak 100
lpid=$(hog_pid leak)
t0=$(mono_ms)
wait_dead 240 "$lpid"
life=$(( $(mono_ms) - t0 ))
sleep 2
vm1=$(vm_oom_kills)
hog_table
say "the leak lived $((life / 1000)) s; swap then: $(sed -n 's/^SwapFree:[[:space:]]*//p' /proc/meminfo) free"
is_alive "$lpid" && fail "the leak still runs after $((life / 1000)) s"
[ "$vm1" = "$vm0" ] || fail "the kernel OOM-killed first (vmstat oom_kill $vm0 -> $vm1) after $((life / 1000)) s"
[ "$(ev_count kill)" -gt 0 ] || fail "the leak died after $((life / 1000)) s, but cgoom logged no kill"
ev_lines kill | head -n 1 | grep -q "\"pids\": \[$lpid\]" || fail "cgoom killed another than the leak ($lpid): $(ev_lines kill | head -n 1)"
is_alive "$(hog_pid by)" || fail "the bystander died too"
daemon_stop
pass "idle: $n wake-ups in 20 s; the leak ended by cgoom after $((life / 1000)) s ($(ev_lines trigger | grep -o '"why": "[^"]*"' | head -n 1)), kernel kills 0"
