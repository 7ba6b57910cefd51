# daemon-scale: issue 21 in the CI's time (bench/scale is the full
# measure). cgoom starts with 10 quiet domains (children of /fleet,
# memory.max 64-127 MiB, one in ten holding a sleeping process) and
# RLIMIT_NOFILE 1024 soft, 4096 hard (the kernel's defaults, no unit):
#  1. idle CPU over 8 s beside the 10;
#  2. 990 more made while it runs: all found (inotify), more than the
#     hard limit's files fit, so the fd budget polls some and names
#     them; idle CPU over 8 s beside the 1,000, reported against the 10;
#  3. a cgroup given a finite memory.max is a domain within 1 s;
#  4. issue 21's race: hot1 and hot2 get a finite memory.max, 5 s later
#     a grower at 100 MiB/s in each. Each (oom_policy cgroup) holds big
#     (one 100 MiB process: the kernel's choice), svc, a tree (64 + 56
#     MiB: the spec's victim is its 64 MiB process), grow (to 130 MiB:
#     the line only while svc's 64 lives). cgoom must kill the spec's
#     victim in both before the kernel (memory.events oom_kill 0), and
#     never log "Too many open files" or "Invalid argument".
# Before issue 21's work the daemon stopped adding domains at about 100
# (silently), and the kernel killed big in both.
# vm-timeout: 150

write_conf <<CONF
[daemon]
event_log = $EV
[cgroup "/fleet/hot*"]
oom_policy = cgroup
[cgroup "/fleet/hot*/svc"]
oom_policy = tree
CONF
fleet() { # FROM TO: /fleet/cFROM .. cTO-1
	i=$1
	while [ $i -lt "$2" ]; do
		mkdir "$CG/fleet/c$i" && echo $(((64 + i % 64) * 1048576)) > "$CG/fleet/c$i/memory.max" ||
			fail "making /fleet/c$i"
		[ $((i % 10)) = 0 ] && { sh -c 'echo $$ > "$1/cgroup.procs"; exec sleep 100000' s "$CG/fleet/c$i" & }
		i=$((i + 1))
	done
}
cg_make /fleet
cg_enable /fleet +memory
fleet 0 10
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
sleep 3
c0=$(cpu_ticks); sleep 8; c1=$(cpu_ticks)
idle10=$((c1 - c0))
t0=$(up_ms)
fleet 10 1000
made_ms=$(($(up_ms) - t0))
i=0
until [ "$(grep -c 'domain /fleet/c' "$DLOG")" -ge 1000 ] || [ $i -gt 100 ]; do sleep 0.1; i=$((i + 1)); done
found=$(grep -c 'domain /fleet/c' "$DLOG")
sleep 3
c0=$(cpu_ticks); sleep 8; c1=$(cpu_ticks)
idle1000=$((c1 - c0))
rss=$(sed -n 's/^VmRSS:[[:space:]]*//p' "/proc/$DPID/status")
fds=$(proc_fds "$DPID")
diag "idle over 8 s: $idle10 clock ticks beside 10 domains, $idle1000 beside 1000; made 990 in $made_ms ms, found $found; RSS $rss, fds $fds"
# a finite memory.max on a cgroup: a domain at once
mkdir "$CG/fleet/late"
t0=$(up_ms)
echo 100M > "$CG/fleet/late/memory.max"
i=0
until grep -q 'domain /fleet/late: memory.max' "$DLOG" || [ $i -gt 100 ]; do sleep 0.02; i=$((i + 1)); done
late_ms=$(($(up_ms) - t0))
# issue 21's race
for h in hot1 hot2; do cg_set /fleet/$h memory.max 300M; done
sleep 5
k0=$(vm_oom_kills)
for h in hot1 hot2; do hog ${h}g /fleet/$h/grow 130 100; done
i=0
while [ "$(ev_count victim_exit)" -lt 2 ] && [ $i -lt 200 ]; do sleep 0.1; i=$((i + 1)); done
sleep 0.5
k1=$(vm_oom_kills)
hog_table
polled=$(sed -n 's/.*leaves no room for the files of \([0-9]*\) domain.*/\1/p' "$DLOG" | tail -n 1)
raised=$(grep -m1 'RLIMIT_NOFILE raised' "$DLOG")
daemon_stop
diag "${raised:-RLIMIT_NOFILE not raised}; polled (fd budget): ${polled:-0}; a new limit watched after $late_ms ms"
grep -q 'Too many open files\|Invalid argument' "$DLOG" && fail "out of fds: $(grep -m1 'Too many open files\|Invalid argument' "$DLOG")"
[ "$found" -ge 1000 ] || fail "only $found of the 1000 quiet domains were found"
[ "$late_ms" -lt 1000 ] || fail "a cgroup given memory.max was watched only after $late_ms ms"
[ -n "$polled" ] && ! grep -q 'fd budget: RLIMIT_NOFILE [0-9]* leaves no room.*/fleet/' "$DLOG" && fail "polled domains not named"
for h in hot1 hot2; do
	grep -q "domain /fleet/$h: memory.max" "$DLOG" || fail "/fleet/$h was never watched"
	is_dead "$(hog_pid ${h}a)" || fail "$h: the spec's victim (svc/a, $(hog_pid ${h}a)) lives"
	is_alive "$(hog_pid ${h}big)" || fail "$h: big died (the kernel's choice)"
	is_alive "$(hog_pid ${h}b)" || fail "$h: svc/b died"
	[ "$(oom_kills /fleet/$h)" = 0 ] || fail "$h: kernel oom_kill $(oom_kills /fleet/$h)"
done
[ "$k1" = "$k0" ] || fail "kernel OOM kills: $k0 -> $k1"
pass "1002 domains under RLIMIT_NOFILE 1024/4096 (${polled:-0} polled, named): both squeezed domains' spec victims killed by cgoom, kernel oom_kill 0; idle $idle10 -> $idle1000 ticks in 8 s from 10 to 1000 domains; new limit watched in $late_ms ms; RSS $rss"
