# daemon-guard-unaligned: a guard_band that is not a whole number of
# pages (guard_band = 100000, bytes): the kernel keeps memory.high in
# whole pages and reads back memory.max - guard_band rounded down, so
# cgoom writes that value and, on SIGTERM, finds its own band there and
# restores the operator's max (it took the rounded value for "changed by
# someone else" and left the cgroup throttled).
# vm-timeout: 60

MAX=$((400 * 1024 * 1024))
PAGE=4096
HIGH=$(( (MAX - 100000) / PAGE * PAGE ))
write_conf <<CONF
[daemon]
guard_band = 100000
CONF
cg_make /work 400M
daemon_start run
h=$(cg_get /work memory.high)
daemon_stop
[ "$h" = $HIGH ] || fail "memory.high $h after start, expected $HIGH (memory.max - 100000 in whole pages)"
after=$(cg_get /work memory.high)
[ "$after" = max ] || fail "memory.high $after after SIGTERM, expected max restored ($(grep /work "$DLOG" | tail -n 1))"
grep -q 'changed by someone else' "$DLOG" && fail "cgoom took its own band for someone else's: $(grep 'changed by' "$DLOG")"
pass "guard_band = 100000: memory.high $h (whole pages), restored to max on SIGTERM"
