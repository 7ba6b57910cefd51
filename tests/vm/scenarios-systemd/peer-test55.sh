# peer-test55 (systemd guest): systemd's TEST-55-OOMD scenarios, with the
# same units, against systemd-oomd and against cgoom. As TEST-55: a 64M
# swap file, oomd's DefaultMemoryPressureDurationSec=2s, a workload slice
# with ManagedOOMMemoryPressure=kill and ManagedOOMMemoryPressureLimit=20%;
# here it also has MemoryMax=300M, which makes it a cgoom domain (the
# equivalent cgoom config: guard_band = 48M, oom_policy = cgroup on it).
# memhog stands in for stress (not in Debian's minbase).
#   basic: testchill (10 MiB, quiet) + testbloat (grows 20 MiB/s to 500)
#          -> testbloat killed, testchill spared;
#   avoid: testbloat (180 MiB, ManagedOOMPreference=avoid) + testchill +
#          testmunch (grows 20 MiB/s to 500) -> testmunch killed, bloat
#          and chill spared;
#   omit:  the same with ManagedOOMPreference=omit.
# Each case says who killed (cgoom's or systemd-oomd's journal, or the
# kernel's memory.events oom_kill). The cgoom runs must give TEST-55's
# outcome, with cgoom as the killer; systemd-oomd's outcomes are recorded
# (CGOOM-DIAG lines; tests/vm/README.md has them side by side).
# vm-timeout: 900

W=vm55work.slice
fallocate -l 64M /swapfile && chmod 600 /swapfile && mkswap -q /swapfile > /dev/null && swapon /swapfile ||
	skip "cannot make the 64M swap file"
trap 'swapoff /swapfile 2>/dev/null; rm -f /swapfile' EXIT
mkdir -p /run/systemd/oomd.conf.d
printf '[OOM]\nDefaultMemoryPressureDurationSec=2s\n' > /run/systemd/oomd.conf.d/99-vm.conf
cat > /run/systemd/system/$W <<'UNIT'
[Slice]
MemoryAccounting=yes
MemoryMax=300M
ManagedOOMMemoryPressure=kill
ManagedOOMMemoryPressureLimit=20%
UNIT
systemctl daemon-reload

# one_case KILLER CASE: sets CASE_R to "who-died|killer|ms"
one_case() {
	local killer=$1 case=$2 big=testbloat pref= victim=testbloat spared
	rm -f "$HOGS"
	SD_SINCE=$(date '+%Y-%m-%d %H:%M:%S')
	ok0=$(sed -n 's/^oom_kill //p' "$CG/$W/memory.events" 2>/dev/null); ok0=${ok0:-0}
	sd_hog vm55-testchill 10 -- --slice=$W
	case $case in
	basic)
		sd_hogs_wait 30
		t0=$(up_ms)
		sd_hog vm55-testbloat 500 20 -- --slice=$W
		spared=vm55-testchill ;;
	avoid|omit)
		sd_hog vm55-testbloat 180 -- --slice=$W -p ManagedOOMPreference=$case
		sd_hogs_wait 60
		t0=$(up_ms)
		sd_hog vm55-testmunch 500 20 -- --slice=$W
		victim=testmunch
		spared="vm55-testchill vm55-testbloat" ;;
	esac
	sd_wait_dead 90 vm55-$victim
	ms=$(( $(up_ms) - t0 ))
	sleep 1
	ok1=$(sed -n 's/^oom_kill //p' "$CG/$W/memory.events" 2>/dev/null); ok1=${ok1:-0}
	dead=$(sd_dead vm55-testchill vm55-testbloat vm55-testmunch | sed 's/vm55-//g')
	[ -s "$HOGS" ] && grep -q testmunch "$HOGS" || dead=$(echo "$dead" | sed 's/testmunch//; s/  */ /g; s/ $//')
	by=
	[ "$killer" = cgoom ] && cg_journal notice | grep -q "$W: sent" && by="$by cgoom"
	if [ "$killer" = systemd-oomd ]; then
		journalctl -q --no-pager -u systemd-oomd --since "$SD_SINCE" -o cat | grep -i 'kill' > "$VM_TMP/oomd.kills"
		[ -s "$VM_TMP/oomd.kills" ] && by="$by systemd-oomd"
		while IFS= read -r l; do diag "  $case: systemd-oomd: $l"; done < "$VM_TMP/oomd.kills"
	fi
	[ "$ok1" -gt "$ok0" ] && by="$by kernel($((ok1 - ok0)))"
	[ -n "$by" ] || by=" nobody"
	[ -n "$dead" ] || dead=none
	CASE_R="$dead|${by# }|$ms"
	sd_hog_table
	for u in vm55-testchill vm55-testbloat vm55-testmunch; do systemctl kill -s KILL $u.service 2>/dev/null; done
	for u in vm55-testchill vm55-testbloat vm55-testmunch; do systemctl stop $u.service 2>/dev/null; done
	systemctl reset-failed 2>/dev/null
	sleep 1
}

declare -A WANT=([basic]=testbloat [avoid]=testmunch [omit]=testmunch)
RES=
for killer in systemd-oomd cgoom; do
	if [ $killer = cgoom ]; then
		systemctl stop systemd-oomd.service systemd-oomd.socket 2>/dev/null
		write_conf <<CONF
[daemon]
guard_band = 48M
[cgroup "/$W"]
oom_policy = cgroup
CONF
		cgoom_start
	else
		cgoom_stop
		systemctl restart systemd-oomd.service || skip "systemd-oomd does not start"
		sleep 2
		oomctl 2>&1 | head -n 12 | sed 's/^/    /'
	fi
	for c in basic avoid omit; do
		one_case $killer $c
		IFS='|' read -r dead by ms <<< "$CASE_R"
		line="TEST-55 $c: $killer: killed [$dead] by [$by] after ${ms} ms (TEST-55 wants [${WANT[$c]}])"
		say "$line"
		diag "$line"
		if [ $killer = cgoom ]; then
			[ "$dead" = "${WANT[$c]}" ] || fail "$line"
			[ "$by" = cgoom ] || fail "$line: not cgoom alone"
		fi
		RES="$RES $killer/$c=$dead"
	done
done
cgoom_stop
systemctl start systemd-oomd.service 2>/dev/null
pass "cgoom gives TEST-55's outcomes;$RES"
