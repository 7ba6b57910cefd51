# race-pagecache: no false alarm (issue 13). A cgroup /cache at memory.max
# 96M holds a 24 MiB anonymous hog and a reader that reads a block device
# four times larger than the limit, twice, with buffered I/O: its page
# cache fills the cgroup to memory.max and the kernel reclaims it at the
# limit all along (memory.events max rises). With cgoom's defaults nothing
# fires and nothing is killed: no trigger for /cache, no kill, the hog and
# the reader survive, memory.events oom_kill stays 0.
# The guest is an initramfs with no disk filesystem modules, so the
# "real disk" is a block device read raw: /dev/zram0 (384M, no swap on
# it). Its page cache is the block device's own mapping, charged to the
# reading task's memory cgroup like a file's would be.
# vm-timeout: 300

zram_load 1 || fail "cannot load zram"
echo 384M > /sys/block/zram0/disksize || fail "zram0: cannot set disksize"
i=0
while [ ! -b /dev/zram0 ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
[ -b /dev/zram0 ] || fail "no /dev/zram0"
# give it content (same-filled pages cost zram nothing; the page cache
# they come back as costs the reader a full page each)
dd if=/dev/zero of=/dev/zram0 bs=1M count=384 2>/dev/null || fail "cannot write /dev/zram0"
sync
echo 1 > /proc/sys/vm/drop_caches

write_conf <<CONF
[daemon]
event_log = $EV
CONF
cg_make /cache 96M
cg_enable /cache +memory
cg_make /cache/app
cg_make /cache/reader
hog app /cache/app 24
hogs_wait 60
daemon_start run
ev0=$(oom_kills /cache)
max0=$(sed -n 's/^max //p' "$CG/cache/memory.events")
# the reader: two passes over the whole device, buffered
sh -c 'echo $$ > "$1/cgroup.procs" || exit 99
	for pass in 1 2; do dd if=/dev/zram0 of=/dev/null bs=1M 2>/dev/null || exit 1; done
	echo done' reader "$CG/cache/reader" > "$VM_TMP/reader.out" 2>&1 &
RPID=$!
peak=0
peak_file=0
i=0
while is_alive $RPID && [ $i -lt 2400 ]; do
	c=$(cat "$CG/cache/memory.current")
	[ "$c" -gt "$peak" ] && peak=$c
	f=$(sed -n 's/^file //p' "$CG/cache/memory.stat")
	[ "$f" -gt "$peak_file" ] && peak_file=$f
	sleep 0.1
	i=$((i + 1))
done
wait $RPID
rrc=$?
sleep 0.5
max1=$(sed -n 's/^max //p' "$CG/cache/memory.events")
okills=$(oom_kills /cache)
ntrig=$(ev_lines trigger | grep -c '"/cache"')
nkill=$(ev_count kill)
app_alive=no
is_alive "$(hog_pid app)" && app_alive=yes
daemon_stop
MAXB=$((96 * 1024 * 1024))
MARGIN=$((MAXB / 50))
say "peak memory.current $peak of $MAXB (margin $MARGIN), peak file $peak_file, memory.events max $max0 -> $max1"
diag "peak memory.current $((peak / 1024)) KiB of $((MAXB / 1024)) KiB, peak page cache $((peak_file / 1024)) KiB, memory.events max +$((max1 - max0)); triggers for /cache: $ntrig, kills: $nkill, oom_kill $okills"
[ "$rrc" = 0 ] && grep -q done "$VM_TMP/reader.out" || fail "the reader did not finish (rc $rrc): $(cat "$VM_TMP/reader.out")"
[ $((peak + MARGIN)) -ge $MAXB ] || fail "memory.current peaked at $peak: never within the margin of memory.max (the scenario did not test the limit)"
[ "$peak_file" -ge $((MAXB / 2)) ] || fail "page cache peaked at $peak_file: not charged to /cache?"
[ "$max1" -gt "$max0" ] || fail "memory.events max did not rise: no reclaim at the limit"
[ "$okills" = "$ev0" ] || fail "the kernel OOM-killed in /cache ($ev0 -> $okills)"
[ "$ntrig" = 0 ] || fail "cgoom fired $ntrig trigger(s) for /cache: a false alarm on page cache"
[ "$nkill" = 0 ] || fail "cgoom killed ($nkill kill events)"
[ "$app_alive" = yes ] || fail "the anonymous hog in /cache died"
pass "page cache at memory.max (peak $((peak / 1048576)) MiB of 96, cache up to $((peak_file / 1048576)) MiB, memory.events max +$((max1 - max0))): no trigger, no kill, oom_kill 0"
