# swap-noswap-cgroup (SPEC 6 "Swap": swap that cannot be used): a leak at
# 40 MiB/s in a cgroup with memory.swap.max 0 (Kubernetes' LimitedSwap
# gives that to BestEffort and Guaranteed pods) on a machine with 512 MiB
# of zram swap, beside a small idle job that may swap (10% of RAM) and
# the interactive probe. RAM fills with memory swap cannot take; the
# kernel alone OOM-killed the leak with 357 MiB of swap free, and so it
# did with cgoom, which waited for SwapFree to fall under 10%. cgoom must
#   - end the leak itself, before the kernel (/proc/vmstat oom_kill
#     unchanged), by the memory line, saying that swap cannot take it;
#   - kill the leak alone.
# vm-timeout: 240
zram_swap 512M || fail "cannot set up zram swap"
write_conf <<CONF
[daemon]
event_log = $EV
[cgroup "/"]
oom_policy = cgroup
CONF
leak_bed 10
echo 0 > "$CG/sw/leak/memory.swap.max" || fail "cannot write memory.swap.max (no swap accounting?)"
vm0=$(vm_oom_kills)
daemon_start run
job leak /sw/leak leak 40
lpid=$(hog_pid leak)
t0=$(mono_ms)
wait_dead 150 "$lpid"
life=$(( $(mono_ms) - t0 ))
sleep 2
vm1=$(vm_oom_kills)
hog_table
daemon_stop
why=$(ev_lines trigger | grep -o '"why": "[^"]*"' | head -n 1)
say "swap free at the end: $(sed -n 's/^SwapFree:[[:space:]]*//p' /proc/meminfo); trigger: $why"
say "probe: $(probe_report "$t0" "$((t0 + life))")"
leak_killed_once "$lpid" "$life" "$vm0" "$vm1" ", with swap free"
echo "$why" | grep -q 'cgroups that cannot swap' || fail "the trigger did not say swap could not take it: $why"
pass "cgoom ended the leak that cannot swap after $((life / 1000)) s, before the kernel: $why"
