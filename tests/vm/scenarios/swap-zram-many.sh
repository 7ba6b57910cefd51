# swap-zram-many: ten zram swap devices of 16 MiB (one zram device per
# CPU is a common setup), about 150 MiB swapped into them from a cgroup.
# explain's zram facts and the daemon's zram metrics must count every
# device: they read the first eight (explain) and the first four (the
# daemon), so zram's stored data could not pass 128 and 64 MiB. The
# daemon's part squeezes the system into an eleventh device.
# vm-timeout: 200
zram_load 10 || fail "no zram9"
for n in 0 1 2 3 4 5 6 7 8 9; do
	zram_swap 16M $n || fail "swapon /dev/zram$n"
done
say "$(grep -c zram /proc/swaps) zram swap areas"
# stored, in bytes, over every device
zsum() { cat /sys/block/zram*/mm_stat | awk '{ s += $1 } END { print s + 0 }'; }
cg_make /z 48M
job idle /z idle 200
hogs_wait 90
sleep 2
sum=$(zsum)
say "swapped: $(cg_get /z memory.swap.current); zram stores $((sum / 1048576)) MiB in all"
[ "$sum" -gt $((132 * 1048576)) ] || fail "only $((sum / 1048576)) MiB in zram: not spread over more than eight devices"
cgoom explain / --json > "$VM_TMP/explain.json" || fail "explain / --json: $?"
sum=$(zsum)
zst=$(json_flat "$VM_TMP/explain.json" | grep -o '"zram": {"stored": [0-9]*' | grep -o '[0-9]*$')
say "explain: zram stored ${zst:-?}, mm_stat says $sum"
d=$(( ${zst:-0} - sum )); [ $d -lt 0 ] && d=$(( -d ))
[ "$d" -lt 1048576 ] || fail "explain's zram stored ${zst:-none}, every device's mm_stat $sum"

# an eleventh device with room, so that the squeeze below swaps under a
# stall (the system watched, zram read) before the memory line: with the
# ten full, that line came before a metrics file had zram in it
n=$(cat /sys/class/zram-control/hot_add 2> /dev/null) || fail "zram hot_add"
echo 256M > /sys/block/zram$n/disksize || fail "zram$n disksize"
i=0
while [ ! -b /dev/zram$n ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
mkswap /dev/zram$n > /dev/null && swapon /dev/zram$n || fail "swapon /dev/zram$n"
write_conf <<CONF
[daemon]
event_log = $EV
metrics_file = $VM_TMP/metrics.prom
CONF
daemon_start run
cg_make /big
cg_make /leak
mt=$(( $(sed -n 's/^MemTotal:[[:space:]]*\([0-9]*\).*/\1/p' /proc/meminfo) / 1024 ))
job big /big grow $((mt * 60 / 100)) 200
hogs_wait 60
job leak /leak leak 40
lpid=$(hog_pid leak)
best=0
i=0
while [ "$(ev_count kill)" = 0 ] && [ $i -lt 300 ]; do
	sleep 0.3
	i=$((i + 1))
	v=$(sed -n 's/^cgoom_zram_stored_bytes{domain="\/"} //p' "$VM_TMP/metrics.prom" 2> /dev/null)
	[ -n "$v" ] && [ "$v" -gt "$best" ] && best=$v
done
daemon_stop
say "the daemon's zram stored, at most: $((best / 1048576)) MiB"
[ "$best" -gt $((132 * 1048576)) ] ||
	fail "the daemon's cgoom_zram_stored_bytes was at most $best (more than 132 MiB sat in ten devices)"
pass "ten zram devices: explain's zram stored ($((zst / 1048576)) MiB) is every device's, the daemon's metric reached $((best / 1048576)) MiB"
