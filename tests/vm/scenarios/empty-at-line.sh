# empty-at-line: a domain with nobody in it but at its line has nothing
# a kill could free: /z (memory.max 0, never populated) and /t (64M,
# holding 60 MiB of tmpfs written by a process that has exited). Before,
# cgoom fired on each about once a second for ever ("trigger
# unreclaimable ... no victim", the no-victim cooldown) and sampled it at
# its line's pace. Now neither may fire in 6 s of `cgoom run`; and when a
# process comes into /t and grows, cgoom must still kill it before the
# kernel does (its cgroup.events wakes the loop).
# vm-timeout: 120
write_conf <<CONF
[daemon]
event_log = $EV
CONF
cg_make /z
cg_set /z memory.max 0
cg_make /t 64M
mkdir -p "$VM_TMP/tm" && mount -t tmpfs tm "$VM_TMP/tm" || fail "cannot mount a tmpfs"
sh -c 'echo $$ > "$1/cgroup.procs" && exec dd if=/dev/zero of="$2/f" bs=1M count=60 2>/dev/null' \
	dd "$CG/t" "$VM_TMP/tm" || fail "cannot fill the tmpfs from /t"
cur=$(cg_get /t memory.current)
[ "$cur" -ge $((58 << 20)) ] || fail "/t holds $cur bytes, not the tmpfs file"
grep -q '^populated 0' "$CG/t/cgroup.events" || fail "/t is not empty"
ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
daemon_start run
c0=$(ticks $DPID)
sleep 6
c1=$(ticks $DPID)
n=$(grep -c ': trigger ' "$DLOG")
nv=$(grep -c 'no victim' "$DLOG")
say "6 s beside /z and /t, empty at their lines: $n trigger lines, $nv 'no victim', $((c1 - c0)) clock ticks of CPU"
if [ "$n" != 0 ] || [ "$nv" != 0 ]; then
	daemon_stop
	fail "cgoom fired on an empty domain: $n trigger lines, $nv 'no victim' in 6 s"
fi
k0=$(oom_kills /t)
hog g /t 40 5
pid=$(hog_pid g)
wait_event victim_exit 30 || { daemon_stop; fail "no victim_exit within 30 s of a process growing in /t"; }
sleep 0.3
k1=$(oom_kills /t)
hog_table
daemon_stop
umount "$VM_TMP/tm"
is_dead "$pid" || fail "the grower in /t lives"
[ "$k1" = "$k0" ] || fail "the kernel OOM-killed in /t ($k0 -> $k1)"
pass "no trigger in 6 s beside two empty domains at their lines ($((c1 - c0)) ticks of CPU); a grower coming into /t was killed by cgoom, kernel oom_kill unchanged"
