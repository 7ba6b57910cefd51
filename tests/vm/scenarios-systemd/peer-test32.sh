# peer-test32 (systemd guest): systemd's TEST-32-OOMPOLICY: a service
# that is the first OOM candidate (OOMScoreAdjust=1000, OOMPolicy=stop,
# `sleep infinity`) must end with Result=oom-kill when an OOM killer takes
# it. The original makes the kernel's OOM killer run (sysrq f); here that,
# then cgoom.service: the service sits in vm32.slice (MemoryMax=200M)
# beside a memhog growing at 25 MiB/s, the slice is a cgoom domain with
# oom_policy none and guard_band 48M, so at the squeeze the adj-1000
# process ranks first (needs the daemon's user.oomd_* writes for the
# Result); then systemd-oomd, which has no counterpart (it acts on
# pressure and swap only: recorded after 60 s of ManagedOOMMemoryPressure
# =kill, limit 1%, on the slice). kernel and cgoom must give oom-kill.
# vm-timeout: 400

cat > /run/systemd/system/vm32.slice <<'UNIT'
[Slice]
MemoryMax=200M
UNIT
systemctl daemon-reload
run_one() { # run_one KILLER
	systemctl reset-failed vm-oomtest.service 2>/dev/null
	systemd-run --quiet --unit=vm-oomtest.service --slice=vm32.slice -p Type=exec -p OOMScoreAdjust=1000 \
		-p OOMPolicy=stop -p MemoryAccounting=yes sleep infinity || fail "systemd-run oomtest failed"
	pid=$(sd_pid vm-oomtest)
	case $1 in
	kernel) echo 1 > /proc/sys/kernel/sysrq; echo f > /proc/sysrq-trigger ;;
	cgoom)
		printf '[daemon]\nguard_band = 48M\n[cgroup "/vm32.slice"]\noom_policy = none\n' > "$CGOOM_CONF"
		cgoom_start
		sd_hog vm-32grow 300 25 -- --slice=vm32.slice ;;
	systemd-oomd) systemctl set-property --runtime vm32.slice ManagedOOMMemoryPressure=kill ManagedOOMMemoryPressureLimit=1% ;;
	esac
	end=$(sd_deadline 60)
	while [ "$(sd_prop vm-oomtest.service ActiveState)" != failed ] && sd_before "$end"; do sleep 0.2; done
	st=$(sd_prop vm-oomtest.service ActiveState)
	res=$(sd_prop vm-oomtest.service Result)
	line="TEST-32 $1: oomtest $st, Result=$res (TEST-32 wants oom-kill)"
	say "$line"; diag "$line"
	[ $1 = cgoom ] && { cg_journal notice | grep -E 'sent|victim:' | sed 's/^/    /'; cgoom_stop; systemctl kill -s KILL vm-32grow.service 2>/dev/null; systemctl stop vm-32grow.service 2>/dev/null; }
	systemctl stop vm-oomtest.service 2>/dev/null
	systemctl reset-failed vm-oomtest.service 2>/dev/null
	R=$res
}
RES=
for k in kernel cgoom systemd-oomd; do
	run_one $k
	r=$R
	RES="$RES $k=$r"
	[ $k = systemd-oomd ] && continue
	[ "$r" = oom-kill ] || { FAILED="${FAILED:-} $k"; }
done
[ -z "${FAILED:-}" ] || fail "Result is not oom-kill for:$FAILED;$RES"
pass "Result:$RES"
