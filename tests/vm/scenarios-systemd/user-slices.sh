# user-slices (systemd guest; needs config path patterns, issue 14):
# `[cgroup "/user.slice/user-*.slice"] oom_policy = tree` makes each
# user's slice one entity. Two users' sessions, as services running
# under User=1001/1002 in user-1001.slice and user-1002.slice (PID 1
# names them /user.slice/user-UID.slice/...), with user.slice a cgroup
# domain (MemoryMax=800M, guard_band 48M, oom_policy cgroup):
#   user 1001: u1a 200, u1b 220 MiB           (one entity: 420)
#   user 1002: u2a 250 MiB + u2g growing 20 MiB/s (about 362 at the kill)
# With the pattern the victim is user 1001's largest process (u1b); a
# per-leaf ranking would have taken u2a (250). The first round runs
# without the pattern to show that difference.
# vm-timeout: 600

# the two users (the guest is thrown away after the run)
for u in 1001 1002; do
	grep -q "^vmu$u:" /etc/passwd || echo "vmu$u:x:$u:$u::/:/usr/sbin/nologin" >> /etc/passwd
	grep -q "^vmu$u:" /etc/group || echo "vmu$u:x:$u:" >> /etc/group
done
mkdir -p /run/systemd/system/user.slice.d
cat > /run/systemd/system/user.slice.d/vm-max.conf <<'UNIT'
[Slice]
MemoryMax=800M
UNIT
systemctl daemon-reload

round() { # round WANT_UNIT [PATTERN_SECTION]
	rm -f "$HOGS"
	write_conf <<CONF
[daemon]
guard_band = 48M
[cgroup "/user.slice"]
oom_policy = cgroup
${2:-}
CONF
	sd_hog vm-u1a 200 -- --slice=user-1001.slice -p User=1001
	sd_hog vm-u1b 220 -- --slice=user-1001.slice -p User=1001
	sd_hog vm-u2a 250 -- --slice=user-1002.slice -p User=1002
	sd_hogs_wait 60
	SD_SINCE=$(date '+%Y-%m-%d %H:%M:%S')
	cgoom_start
	cgoom explain /user.slice > "$VM_TMP/explain.out" 2>&1
	sed 's/^/    /' "$VM_TMP/explain.out"
	P="$(sd_pid vm-u1a) $(sd_pid vm-u1b) $(sd_pid vm-u2a)"
	sd_hog vm-u2g 400 20 -- --slice=user-1002.slice -p User=1002
	gpid=$(sd_pid vm-u2g)
	end=$(sd_deadline 60)
	while sd_before "$end"; do
		d=; for p in $P $gpid; do is_dead "$p" && d=1; done
		[ -n "$d" ] && break
		sleep 0.1
	done
	# the grower would squeeze again: stop it once the first kill is seen
	gdead=; is_dead "$gpid" && gdead=1
	[ -n "$gdead" ] || kill -9 "$gpid" 2>/dev/null
	sleep 1
	died=$(sd_dead vm-u1a vm-u1b vm-u2a)
	[ -n "$gdead" ] && died="${died:+$died }vm-u2g"
	sd_hog_table
	cg_journal notice | grep -E 'sent|victim:' | sed 's/^/    /'
	cgoom_stop
	for u in vm-u1a vm-u1b vm-u2a vm-u2g; do systemctl kill -s KILL $u.service 2>/dev/null; systemctl stop $u.service 2>/dev/null; done
	systemctl reset-failed 2>/dev/null
	[ "$died" = "$1" ] || fail "${2:+with the pattern}${2:-without a pattern}: died [$died], expected [$1]"
}
round vm-u2a
round vm-u1b '[cgroup "/user.slice/user-*.slice"]
oom_policy = tree'
pass "without the pattern u2a (largest leaf) died; with user-*.slice = tree, user 1001 (420 MiB) was the entity and u1b died"
