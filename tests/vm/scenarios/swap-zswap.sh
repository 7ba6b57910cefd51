# swap-zswap (issue 19, a desktop's swap: zswap in front of a swap file,
# as Arch Linux's kernel enables it): a 40 MiB/s leak beside an idle job
# (40% of RAM) and the interactive probe, zswap enabled over a 900 MiB
# swap file on the data disk; `cgoom run` with its defaults and [cgroup "/"]
# oom_policy = cgroup must end it before the kernel's OOM killer.
# zswap keeps MemFree near 10% of RAM while it fills: MemAvailable stayed
# at 6% (over the memory line's 5%) through the swap phase and up to the
# kernel's kill, which came as SwapFree ran out; the build before lost
# three of five runs (a 957 MiB swap file) to the kernel
# (tests/unit/data/series/bed-leak40-zswap*.txt).
# Now the swap trigger acts at the swap line (SwapFree under 10%) while
# swap still fills under a stall:
#   - the leak alone dies (the spec's victim: the largest leaf cgroup),
#     killed once by cgoom, and the kernel kills nothing (/proc/vmstat
#     oom_kill unchanged);
#   - the trigger's reason says what zswap holds, and in how much RAM.
# vm-disk: 1024
# vm-timeout: 300
[ -w /sys/module/zswap/parameters/enabled ] || fail "no zswap in this kernel (/sys/module/zswap; the test bed's Debian kernels have it built in)"
disk_swap 900M || fail "cannot swapon a 900 MiB swap file on the data disk"
echo 1 > /sys/module/zswap/parameters/enabled || fail "zswap cannot be enabled"
[ "$(cat /sys/module/zswap/parameters/enabled)" = Y ] || fail "zswap did not enable"
write_conf <<CONF
[daemon]
event_log = $EV
[cgroup "/"]
oom_policy = cgroup
CONF
leak_bed 40
vm0=$(vm_oom_kills)
daemon_start run
job leak /sw/leak leak 40
lpid=$(hog_pid leak)
t0=$(mono_ms)
wait_dead 150 "$lpid"
life=$(( $(mono_ms) - t0 ))
sleep 3
vm1=$(vm_oom_kills)
hog_table
say "probe: $(probe_report "$t0" 0)"
say "zswap: $(grep -E '^(Zswap|Zswapped):' /proc/meminfo | tr -s ' ' | tr '\n' ' ')"
daemon_stop
leak_killed_once "$lpid" "$life" "$vm0" "$vm1"
is_alive "$PROBE" || fail "the probe died"
why=$(ev_lines trigger | head -n 1 | grep -o '"why": "[^"]*"' | head -n 1)
echo "$why" | grep -q "(zswap: [0-9.]* [KMG]iB stored in [0-9.]* [KMG]iB of RAM)" ||
	fail "the trigger's reason does not say what zswap holds: $why"
pass "cgoom ended the leak after $((life / 1000)) s, before the kernel: $why"
