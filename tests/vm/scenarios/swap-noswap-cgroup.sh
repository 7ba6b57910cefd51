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
cg_make /sw
cg_enable /sw +memory
cg_make /sw/idle
cg_make /sw/leak
echo 0 > "$CG/sw/leak/memory.swap.max" || fail "cannot write memory.swap.max (no swap accounting?)"
cg_make /probe
mt=$(( $(sed -n 's/^MemTotal:[[:space:]]*\([0-9]*\).*/\1/p' /proc/meminfo) / 1024 ))
probe_start /probe || fail "the probe did not start: $(cat "$VM_TMP/probe.err")"
job idle /sw/idle idle $((mt * 10 / 100))
hogs_wait 120
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
is_alive "$lpid" && fail "the leak still runs after $((life / 1000)) s"
[ "$vm1" = "$vm0" ] || fail "the kernel OOM-killed first (vmstat oom_kill $vm0 -> $vm1) after $((life / 1000)) s, with swap free"
[ "$(ev_count kill)" = 1 ] || fail "cgoom logged $(ev_count kill) kills, expected 1"
[ "$(ev_victim_pids)" = "$lpid" ] || fail "cgoom's decision named [$(ev_victim_pids)], not the leak [$lpid]"
[ "$(dead_hogs)" = "$lpid" ] || fail "died [$(dead_hogs)], expected the leak alone [$lpid]"
echo "$why" | grep -q 'cgroups that cannot swap' || fail "the trigger did not say swap could not take it: $why"
pass "cgoom ended the leak that cannot swap after $((life / 1000)) s, before the kernel: $why"
