# oom-policy (systemd guest; needs the daemon's user.oomd_* writes, SPEC
# 6): a service killed by cgoom is an OOM kill to systemd. In vmp.slice
# (MemoryMax=400M, guard_band 48M, oom_policy cgroup) the service vm-p
# runs `sh -c 'memhog 20 & memhog 400 25 & wait'` (20 + 400 MiB cannot
# fit under memory.high 352M); cgoom kills the grower after incrementing
# user.oomd_ooms on vm-p.service's cgroup (asserted for every policy).
# systemd 252 reads user.oomd_ooms only when the unit's cgroup empties
# (seen here: a kill that leaves the cgroup populated changes nothing
# until then), so:
#   kill     -> systemd set memory.oom.group=1, cgoom's kill scope is the
#               whole service, the cgroup empties: Result=oom-kill, PID 1
#               logs "systemd-oomd killed ...", nothing survives;
#   continue -> the sibling and the unit live on (active);
#   stop     -> recorded: the unit is still active after cgoom's kill
#               (252 has not looked yet); its state and Result after
#               `systemctl kill` empties the cgroup are recorded too.
# vm-timeout: 600

cat > /run/systemd/system/vmp.slice <<'UNIT'
[Slice]
MemoryMax=400M
UNIT
systemctl daemon-reload
write_conf <<'CONF'
[daemon]
guard_band = 48M
[cgroup "/vmp.slice"]
oom_policy = cgroup
CONF
cgoom_start
RES=
for pol in stop kill continue; do
	rm -f "$HOGS"
	SD_SINCE=$(date '+%Y-%m-%d %H:%M:%S')
	sd_hog_sh vm-p 1 'memhog 20 & sleep 1; memhog 400 25 & wait' --slice=vmp.slice -p OOMPolicy=$pol
	sd_hogs_wait 30
	small=$(sd_hog_pids vm-p)
	og=$(cat "$CG/vmp.slice/vm-p.service/memory.oom.group")
	# until cgoom has killed in the slice (or 120 s), then give PID 1 time
	end=$(sd_deadline 120)
	until cg_journal notice | grep -q 'vmp.slice: sent' || ! sd_before "$end"; do sleep 0.5; done
	sleep 3
	ust=$(sd_state vm-p)
	res=$(sd_result vm-p)
	ooms=$(getfattr --only-values -n user.oomd_ooms "$CG/vmp.slice/vm-p.service" 2>/dev/null)
	[ -n "$ooms" ] || ooms=$(journalctl --no-pager -q -u vm-p.service --since "$SD_SINCE" -o cat | grep -c 'systemd-oomd killed')
	grower_ready=$(grep -c '^ready ' "$VM_TMP/vm-p.out")
	journalctl --no-pager -q -u vm-p.service --since "$SD_SINCE" -o cat > "$VM_TMP/unit.j"
	say "OOMPolicy=$pol: state $ust, Result $res, memory.oom.group $og, unit journal:"
	sed 's/^/    /' "$VM_TMP/unit.j"
	cg_journal notice | grep -E 'sent|victim:' | sed 's/^/    /'
	kills=$(cg_journal notice | grep -c 'vmp.slice: sent')
	[ "$kills" -ge 1 ] || fail "OOMPolicy=$pol: cgoom sent no kill in vmp.slice (grower ready: $grower_ready)"
	[ "${ooms:-0}" -ge 1 ] 2>/dev/null ||
		fail "OOMPolicy=$pol: user.oomd_ooms not incremented on vm-p.service's cgroup (got '$ooms'), and PID 1 logged no oomd kill"
	case $pol in
	kill)
		[ "$res" = oom-kill ] || fail "OOMPolicy=kill: Result=$res, expected oom-kill"
		grep -q 'systemd-oomd killed' "$VM_TMP/unit.j" || fail "OOMPolicy=kill: no 'systemd-oomd killed' in the unit's journal"
		is_dead "$small" || fail "OOMPolicy=kill: the sibling memhog $small survived"
		;;
	continue)
		[ "$ust" = active ] || fail "OOMPolicy=continue: the unit is $ust ($res), expected active"
		is_alive "$small" || fail "OOMPolicy=continue: the sibling memhog $small died"
		;;
	esac
	if [ "$ust" = active ]; then
		systemctl kill -s KILL vm-p.service 2>/dev/null
		end=$(sd_deadline 30)
		while [ "$(sd_state vm-p)" = active ] && sd_before "$end"; do sleep 0.5; done
		sleep 1
		ust="$ust->$(sd_state vm-p)"
		res="$res->$(sd_result vm-p)"
		diag "OOMPolicy=$pol: after cgoom's kill and then emptying the cgroup: state $ust, Result $res"
	fi
	RES="$RES $pol:$ust/$res"
	systemctl kill -s KILL vm-p.service 2>/dev/null
	systemctl stop vm-p.service 2>/dev/null
	systemctl reset-failed vm-p.service 2>/dev/null
done
pass "OOMPolicy:$RES"
