# swap-zram-limit: zram swap of 512 MiB with a RAM limit of 32 MiB (zram
# full long before SwapFree is low), an idle job (30% of RAM) and a leak
# at 40 MiB/s, `cgoom run` with its defaults and oom_policy = cgroup.
# At its limit zram's writes fail ("Write-error on swap-device"), the
# pages stay in RAM and SwapFree falls only as the failed writes use up
# its slots: the machine stalled for over a minute before SwapFree was
# under 10%, and the kernel killed nobody (or froze the guest). cgoom
# must take the swap zram can still take for SwapFree: its memory line
# must end the leak on zram's limit (its reason says so), SwapFree still
# high, before the kernel.
# vm-timeout: 240
zram_swap 512M 0 32M || fail "cannot set up zram swap (512M, mem_limit 32M)"
write_conf <<CONF
[daemon]
event_log = $EV
[cgroup "/"]
oom_policy = cgroup
CONF
cg_make /a
cg_make /b
mt=$(( $(sed -n 's/^MemTotal:[[:space:]]*\([0-9]*\).*/\1/p' /proc/meminfo) / 1024 ))
job idle /a idle $((mt * 30 / 100))
hogs_wait 60
vm0=$(vm_oom_kills)
daemon_start run
job leak /b leak 40
lpid=$(hog_pid leak)
i=0
while is_alive "$lpid" && [ $i -lt 600 ]; do
	sleep 0.2
	i=$((i + 1))
done
vm1=$(vm_oom_kills)
hog_table
daemon_stop
why=$(ev_lines trigger | grep -o '"why": "[^"]*"' | head -n 1)
say "$why; zram now: $(cut -c1-60 /sys/block/zram0/mm_stat)"
is_alive "$lpid" && fail "the leak still runs ($((i / 5)) s)"
[ "$vm1" = "$vm0" ] || fail "the kernel OOM-killed first (vmstat oom_kill $vm0 -> $vm1)"
[ "$(ev_count kill)" -ge 1 ] || fail "the leak died, but cgoom logged no kill"
echo "$why" | grep -q "zram near its RAM limit" || fail "cgoom's trigger was not zram's limit: $why"
[ "$(ev_num trigger swap_free)" -gt $((512 * 1048576 / 10)) ] ||
	fail "SwapFree was under 10% already at the trigger: $why"
pass "zram near its 32 MiB limit, SwapFree $(( $(ev_num trigger swap_free) / 1048576 )) MiB: cgoom ended the leak, before the kernel"
