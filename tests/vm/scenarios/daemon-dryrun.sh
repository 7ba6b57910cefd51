# daemon-dryrun: `cgoom run --dry-run` with a guard band configured on
# /work (memory.max 300M): a memhog grows past the limit with a small
# zram swap (64M) on, so /work sits at memory.max swapping (memory.events
# max rising) until the swap room is gone and its unreclaimable memory
# nears the limit (swap room counts as reclaimable, SPEC 6), instead of
# the kernel OOM-killing at once. cgoom decides and logs ("dry run: would
# kill"), kills nothing (no kill event) and never writes memory.high.
# vm-timeout: 90

write_conf <<CONF
[daemon]
guard_band = 48M
event_log = $EV
[cgroup "/work"]
oom_policy = cgroup
CONF
load_zram 64M || fail "cannot set up zram swap"
cg_make /work 300M
cg_enable /work +memory
cg_make /work/a
cg_make /work/grow
daemon_start run --dry-run
[ "$(cg_get /work memory.high)" = max ] || fail "--dry-run wrote memory.high: $(cg_get /work memory.high)"
hog a /work/a 100
hogs_wait 60
hog grow /work/grow 400 25
wait_event dry_run 40 || { daemon_stop; fail "no dry_run event within 40 s"; }
high=$(cg_get /work memory.high)
sleep 1
nkill=$(ev_count kill)
would=$(grep -c 'dry run: would kill' "$DLOG")
okills=$(oom_kills /work)
hog_table
echo 1 > "$CG/work/cgroup.kill"
sleep 0.5
daemon_stop
[ "$nkill" = 0 ] || fail "--dry-run logged $nkill kill events"
[ "$would" -ge 1 ] || fail "the log does not say what it would kill"
[ "$high" = max ] || fail "--dry-run wrote memory.high: $high"
grep -q 'decision (policy cgroup)' "$DLOG" || fail "no decision (explain ranking) in the log"
diag "would kill $(ev_lines dry_run | head -n 1 | grep -o '"pids": \[[^]]*\]'); kernel oom_kill $okills"
pass "dry run: decided and logged, killed nothing, memory.high untouched (kernel oom_kill $okills)"
