# zram: the test bed can give a scenario swap (zram, from the Debian
# kernel's modules), charged to cgroups as memory.swap.current; swap is
# off again afterwards (cleanup_all).
# vm-timeout: 90
load_zram 256M || fail "cannot set up zram swap: $(lsmod 2>&1 | head -n 5 | tr '\n' ' ')"
grep -q zram0 /proc/swaps || fail "zram0 not in /proc/swaps"
cg_make /z 64M
hog z-128 /z 128
hogs_wait 60
sw=$(cg_get /z memory.swap.current)
say "/z memory.current $(cg_get /z memory.current), memory.swap.current $sw"
[ "$sw" -gt $((32 * 1024 * 1024)) ] || fail "/z memory.swap.current $sw: expected > 32 MiB swapped"
pass "zram swap on; a 128 MiB hog in a 64M cgroup swapped $sw bytes"
