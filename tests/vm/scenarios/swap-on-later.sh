# swap-on-later: swap turned on while `cgoom run` runs, and at once a
# cgroup holding a 200 MiB job is given a memory.max of 96M: the kernel
# swaps half of it out, and cgoom must see the swap room. It judged a
# cgroup's swap room by the system's SwapTotal at its last sample (up to
# a second old: 0, before the swapon): every anon page unreclaimable, so
# the `unreclaimable` trigger killed a job that had 400 MiB of swap room.
# Then swap turned off again while in use (RAM to spare): nothing dies
# either.
# vm-timeout: 120
write_conf <<CONF
[daemon]
event_log = $EV
CONF
cg_make /a
daemon_start run
job idle /a idle 200
hogs_wait 60
sleep 2
zram_swap 512M && cg_set /a memory.max 96M || fail "cannot set up zram swap, or /a's memory.max"
sleep 3
sw=$(cg_get /a memory.swap.current)
say "/a: memory.current $(cg_get /a memory.current), memory.swap.current $sw"
[ "$(ev_count kill)" = 0 ] || fail "cgoom killed in a cgroup with swap room: $(ev_lines trigger | cut -c1-300)"
[ "$sw" -gt $((64 * 1048576)) ] || fail "only $sw bytes of /a swapped: the scenario did not happen"
cg_set /a memory.max max
swapoff /dev/zram0 || fail "swapoff /dev/zram0"
cg_set /a memory.max 400M
sleep 3
daemon_stop
is_alive "$(hog_pid idle)" || fail "the idle job died"
[ "$(ev_count kill)" = 0 ] || fail "cgoom killed after the swapoff: $(ev_lines trigger | cut -c1-300)"
pass "swap turned on and off under the daemon: no kill; /a swapped $((sw / 1048576)) MiB"
