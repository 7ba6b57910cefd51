# daemon-fdlimit: issue 21's "It starts at 310 domains". 310 quiet
# cgroup domains (children of /fleet, memory.max 64-127 MiB) and cgoom
# started with RLIMIT_NOFILE 1024 (soft; the kernel's default hard limit
# 4096), which their files (10 each) do not fit: cgoom raises it. Two more cgroups of /fleet, hot1 and hot2,
# each get a finite memory.max 5 s after the daemon started and a grower
# at 100 MiB/s 5 s later. In each, oom_policy = cgroup: /big (one
# 100 MiB process, the kernel's choice), /svc, a tree (64 + 56 MiB: the
# spec's victim is its 64 MiB process), /grow (to 130 MiB: the line
# only while svc's 64 lives). cgoom must kill the spec's victim in both,
# before the kernel (memory.events oom_kill 0), name the domains it
# polls at once, and never log "Too many open files" or "Invalid
# argument". Before the fd budget the daemon stopped watching at about
# 100 domains, silently, and the kernel killed big in both. (With a
# hard limit too low for every domain's files, the fixture test in
# tests/daemon/run-fixture.sh checks the polled domains are named.)
# vm-timeout: 150

N=${FDLIMIT_DOMAINS:-310}
write_conf <<CONF
[daemon]
event_log = $EV
[cgroup "/fleet/hot*"]
oom_policy = cgroup
[cgroup "/fleet/hot*/svc"]
oom_policy = tree
CONF
cg_make /fleet
cg_enable /fleet +memory
i=0
while [ $i -lt "$N" ]; do
	mkdir "$CG/fleet/c$i" && echo $(( (64 + i % 64) * 1048576 )) > "$CG/fleet/c$i/memory.max" ||
		fail "making /fleet/c$i"
	i=$((i + 1))
done
for h in hot1 hot2; do
	cg_make /fleet/$h
	cg_enable /fleet/$h +memory
	cg_make /fleet/$h/big
	cg_make /fleet/$h/svc
	cg_enable /fleet/$h/svc +memory
	cg_make /fleet/$h/svc/a
	cg_make /fleet/$h/svc/b
	cg_make /fleet/$h/grow
	hog ${h}big /fleet/$h/big 100
	hog ${h}a /fleet/$h/svc/a 64
	hog ${h}b /fleet/$h/svc/b 56
done
hogs_wait 60
ulimit -Sn 1024 || fail "ulimit -Sn 1024"
daemon_start run
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$DPID/stat"; }
c0=$(cpu_ticks)
sleep 5
c1=$(cpu_ticks)
for h in hot1 hot2; do cg_set /fleet/$h memory.max 300M; done
sleep 5
k0=$(vm_oom_kills)
for h in hot1 hot2; do hog ${h}g /fleet/$h/grow 130 100; done
i=0
while [ "$(ev_count victim_exit)" -lt 2 ] && [ $i -lt 200 ]; do sleep 0.1; i=$((i + 1)); done
sleep 0.5
k1=$(vm_oom_kills)
fds=$(proc_fds "$DPID")
rss=$(sed -n 's/^VmRSS:[[:space:]]*//p' "/proc/$DPID/status")
hog_table
daemon_stop
polled=$(grep -c 'polled (fd budget)' "$DLOG")
raised=$(grep -m1 'RLIMIT_NOFILE raised' "$DLOG")
diag "$raised; domains polled: $polled; idle $((c1 - c0)) ticks in 5 s; daemon fds at the end $fds, RSS $rss"
grep -q 'Too many open files\|Invalid argument' "$DLOG" && fail "the daemon ran out of fds: $(grep -m1 'Too many open files\|Invalid argument' "$DLOG")"
[ -n "$raised" ] || fail "RLIMIT_NOFILE not raised"
[ "$polled" = 0 ] || fail "$polled domains polled: their files should fit after raising the limit"
for h in hot1 hot2; do
	grep -q "domain /fleet/$h: memory.max" "$DLOG" || fail "/fleet/$h was never watched"
	is_dead "$(hog_pid ${h}a)" || fail "$h: the spec's victim (svc/a, $(hog_pid ${h}a)) lives"
	is_alive "$(hog_pid ${h}big)" || fail "$h: big died (the kernel's choice)"
	is_alive "$(hog_pid ${h}b)" || fail "$h: svc/b died"
	[ "$(oom_kills /fleet/$h)" = 0 ] || fail "$h: kernel oom_kill $(oom_kills /fleet/$h)"
done
[ "$k1" = "$k0" ] || fail "kernel OOM kills: $k0 -> $k1"
pass "$N quiet domains, RLIMIT_NOFILE 1024 raised to the hard limit: both squeezed domains' spec victims killed by cgoom, kernel oom_kill 0; daemon fds $fds, RSS $rss"
