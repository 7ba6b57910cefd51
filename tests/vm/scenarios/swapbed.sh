# swapbed: the swap test bed itself works (tests/vm/README.md "Swap, a
# disk, a probe"): the data disk mounts as ext4 and carries a swap file;
# zram stores the workloads' pages at a desktop's 2-3:1 (mm_stat); a leak
# grows by small mappings; the probe records rounds; the recorder writes
# blocks with every file the series promise, the scenario's marks and a
# watched process's exit.
# vm-disk: 1024
# vm-timeout: 120

disk_mount || fail "cannot mount the data disk"
grep -q " $DISK ext4 " /proc/mounts || fail "$DISK is not an ext4 mount: $(grep " $DISK " /proc/mounts)"
disk_swap 128M || fail "cannot swapon a 128 MiB swap file on $DISK"
grep -q "^$DISK/swapfile " /proc/swaps || fail "$DISK/swapfile not in /proc/swaps: $(cat /proc/swaps)"
swapoff "$DISK/swapfile" || fail "swapoff $DISK/swapfile"

zram_swap 512M || fail "cannot set up zram swap"
cg_make /zr 64M
cg_make /pr
cg_make /lk
S=$VM_TMP/series.txt
job leak /lk leak 40 --max 48
lpid=$(hog_pid leak)
rec_start "$S" --cgroup "$CG/zr" --cgroup "$CG/lk" --watch "leak=$lpid" || fail "the recorder did not start: $(cat "$VM_TMP/recorder.err")"
probe_start /pr --ws 16 || fail "the probe did not start: $(cat "$VM_TMP/probe.err")"
t0=$(mono_ms)
rec_mark squeeze start

# 256 MiB in a 64M cgroup: about 200 MiB of it goes to zram
job idle /zr idle 256
hogs_wait 60
sleep 1
rec_mark relief
set -- $(zram_ratio)
ratio=$1 memratio=$2 orig=$3
say "zram: $orig MiB stored at $ratio:1 ($memratio:1 against the RAM it uses); mm_stat: $(cat /sys/block/zram0/mm_stat)"
[ "$orig" -ge 150 ] || fail "only $orig MiB in zram, expected about 200"
awk -v r="$ratio" 'BEGIN { exit !(r >= 2.0 && r <= 3.2) }' ||
	fail "zram stores the workload's pages at $ratio:1, expected 2-3:1"
grep -q "^leak 48 [0-9]* max" "$VM_TMP/hog.leak.out" || fail "the leak did not reach 48 MiB: $(tail -n 2 "$VM_TMP/hog.leak.out")"
sleep 2
kill -9 "$lpid"
wait_dead 5 "$lpid"
sleep 0.3
t1=$(mono_ms)
rep=$(probe_report "$t0" "$t1")
say "probe: $rep"
set -- $rep
[ "$2" -ge 100 ] || fail "the probe recorded $2 rounds in $(( t1 - t0 )) ms"

rec_stop
blocks=$(grep -c '^@ ' "$S")
say "series: $blocks blocks, $(wc -c < "$S") bytes; $(grep '^# ' "$S" | tr '\n' ';')"
[ "$blocks" -ge $(( (t1 - t0) / 200 )) ] || fail "$blocks blocks in $(( t1 - t0 )) ms (every 100 ms expected)"
for f in /proc/meminfo /proc/vmstat /proc/pressure/memory /proc/pressure/io /sys/block/zram0/mm_stat /proc/swaps \
	"$CG/zr/memory.current" "$CG/zr/memory.swap.current" "$CG/zr/memory.stat" "$CG/zr/memory.pressure" \
	"$CG/zr/memory.events" "$CG/lk/memory.stat"; do
	grep -q "^== $f\$" "$S" || fail "the series has no '== $f'"
done
grep -q '^# [0-9]* squeeze start$' "$S" || fail "no squeeze mark in the series"
grep -q "^# [0-9]* exit leak $lpid\$" "$S" || fail "no exit mark for the leak (pid $lpid) in the series"
grep -q '^# [0-9]* end blocks' "$S" || fail "the series has no end line"
awk '$1 == "@" && $2 < last { bad = 1 } $1 == "@" { last = $2 } END { exit bad }' "$S" || fail "block times go backwards"
sw=$(series_at "$S" 999999999 SwapTotal)
[ "$sw" -ge 500000 ] || fail "the series' last SwapTotal is $sw kB"
pass "ext4 data disk with a swap file; zram at $ratio:1 ($orig MiB); probe $rep; series $blocks blocks"
