# swap-two-areas: two swap areas at once, zram with a RAM limit first by
# priority and a swap file on the data disk after it, beside a zram
# device that is no swap (/dev/zram0 written as a block device, so the
# swap zram is zram1).
# With zram at its limit its writes fail and its slots fill; the swap
# file takes the rest. cgoom must
#   - report zram1's facts alone in explain (zram0 is not swap: its
#     unlimited device would hide zram1's limit);
#   - never say swap is full in 0 s while the file has room (zram's limit
#     was taken to cap all the swap left: cgoom_swap_full_in_seconds 0.000
#     beside a file with 300 MiB free);
#   - end a leak, before the kernel's OOM killer.
# vm-disk: 512
# vm-timeout: 300
zram_load 2 || fail "no zram1"
disk_mount || fail "cannot mount the data disk"
echo 64M > /sys/block/zram0/disksize || fail "zram0 disksize"
dd if=/dev/urandom of=/dev/zram0 bs=1M count=8 2> /dev/null || fail "cannot write /dev/zram0"
zram_swap 256M 1 24M || fail "swapon /dev/zram1 (256M, mem_limit 24M)"
disk_swap 192M || fail "cannot swapon a swap file on $DISK"
say "$(tail -n +2 /proc/swaps | tr -s ' \t' ' ' | tr '\n' ';')"

cgoom explain / --json > "$VM_TMP/explain.json" || fail "explain / --json: $?"
z=$(json_flat "$VM_TMP/explain.json" | grep -o '"zram": {[^}]*}')
say "explain: $z"
echo "$z" | grep -q '"limit": 25165824' || fail "explain's zram is not zram1's alone: $z"
cgoom explain / > "$VM_TMP/explain.txt"
grep -q 'zram: .*limit 24.0 MiB' "$VM_TMP/explain.txt" || fail "explain's text: $(grep memory: "$VM_TMP/explain.txt")"

write_conf <<CONF
[daemon]
event_log = $EV
metrics_file = $VM_TMP/metrics.prom
[cgroup "/"]
oom_policy = cgroup
CONF
cg_make /idle
cg_make /leak
mt=$(( $(sed -n 's/^MemTotal:[[:space:]]*\([0-9]*\).*/\1/p' /proc/meminfo) / 1024 ))
job idle /idle idle $((mt * 60 / 100))
hogs_wait 60
vm0=$(vm_oom_kills)
daemon_start run
job leak /leak leak 50
lpid=$(hog_pid leak)
# every half second: the metric and the swap file's free KiB
seen=0 bad= vals=
i=0
while is_alive "$lpid" && [ $i -lt 400 ]; do
	sleep 0.5
	i=$((i + 1))
	fin=$(sed -n 's/^cgoom_swap_full_in_seconds{domain="\/"} //p' "$VM_TMP/metrics.prom" 2> /dev/null)
	[ -n "$fin" ] || continue
	ffree=$(awk '$1 ~ /swapfile$/ { print $3 - $4 }' /proc/swaps)
	# zram at its limit, by the same metrics file (within 1 MiB of it)
	zfull=$(awk '/^cgoom_zram_ram_bytes/ { r = $2 } /^cgoom_zram_limit_bytes/ { l = $2 }
		END { print (l > 0 && r + 1048576 >= l ? 1 : 0) }' "$VM_TMP/metrics.prom")
	[ "$zfull" = 1 ] && seen=$((seen + 1)) && vals="$vals $fin/${ffree}K"
	[ "$zfull" = 1 ] && [ "${ffree:-0}" -gt 65536 ] && [ "$fin" = 0.000 ] &&
		bad="$bad full_in=$fin:file_free=${ffree}K"
done
life=$i
vm1=$(vm_oom_kills)
hog_table
daemon_stop
say "full in (s) / the file's free swap, with zram at its limit:$vals"
[ "$seen" -gt 0 ] || fail "never saw the swap's fill time with zram at its limit (not exercised)"
[ -z "$bad" ] || fail "swap full in 0 s with the swap file's room:$bad"
is_alive "$lpid" && fail "the leak still runs after $((life / 2)) s"
[ "$vm1" = "$vm0" ] || fail "the kernel OOM-killed (vmstat oom_kill $vm0 -> $vm1)"
[ "$(ev_count kill)" -ge 1 ] || fail "the leak died, but cgoom logged no kill"
pass "zram1 (limit 24 MiB) and a swap file: explain reports zram1 alone; no 'full in 0 s' in $seen samples at zram's limit; the leak ended by cgoom: $(ev_lines trigger | grep -o '"why": "[^"]*"' | head -n 1)"
