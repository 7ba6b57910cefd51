# swap-healthy (issue 19, the short form of bench's h-idle-grow): with
# 512 MiB of zram swap, an idle job (45% of RAM) is swapped out while
# another grows to 55% at 100 MiB/s and holds (more than RAM, less than
# RAM + swap): a burst of pressure that recovers by itself. `cgoom run`
# with its defaults and [cgroup "/"] oom_policy = cgroup must kill
# nothing (SPEC 6 "Swap": never on a burst that recovers by itself); the
# kernel kills nothing either.
# vm-timeout: 150

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
cg_make /sw/grow
cg_make /probe
mt=$(( $(sed -n 's/^MemTotal:[[:space:]]*\([0-9]*\).*/\1/p' /proc/meminfo) / 1024 ))
probe_start /probe || fail "the probe did not start: $(cat "$VM_TMP/probe.err")"
job idle /sw/idle idle $((mt * 45 / 100))
hogs_wait 120
vm0=$(vm_oom_kills)
daemon_start run
t0=$(mono_ms)
job grow /sw/grow grow $((mt * 55 / 100)) 100
gpid=$(hog_pid grow)
i=0
until grep -q '^ready' "$VM_TMP/hog.grow.out" || is_dead "$gpid" || [ $i -gt 1200 ]; do sleep 0.1; i=$((i + 1)); done
is_dead "$gpid" || sleep 10
vm1=$(vm_oom_kills)
set -- $(zram_ratio)
hog_table
daemon_stop
swapped=$3
say "probe: $(probe_report "$t0" 0); zram: $swapped MiB stored at $1:1"
died=$(dead_hogs)
[ -z "$died" ] || fail "healthy jobs died: [$died] ($(labels_of $died)); cgoom kill events: $(ev_count kill), vmstat oom_kill $vm0 -> $vm1"
grep -q '^ready' "$VM_TMP/hog.grow.out" || fail "the grower did not finish growing in 120 s"
is_alive "$PROBE" || fail "the probe died"
[ "$(ev_count kill)" = 0 ] || fail "cgoom logged $(ev_count kill) kill(s) in a healthy burst"
[ "$vm1" = "$vm0" ] || fail "the kernel OOM-killed (vmstat oom_kill $vm0 -> $vm1)"
[ "$swapped" -ge 64 ] || fail "only $swapped MiB swapped: the burst did not reach swap"
pass "nothing killed; $swapped MiB swapped out (zram $1:1) and back to calm"
