# peer-test32 (systemd guest): systemd's TEST-32-OOMPOLICY: a service
# that is the first OOM candidate (OOMScoreAdjust=1000, OOMPolicy=stop,
# `sleep infinity`) must end with Result=oom-kill when an OOM killer takes
# it. The original triggers the kernel's OOM killer (sysrq f); here also
# cgoom (`cgoom kill /` with oom_policy none: the adj-1000 process ranks
# first) and systemd-oomd (no counterpart: it acts on pressure and swap
# only, so the outcome recorded is "not killed" after 20 s of a
# ManagedOOMMemoryPressure=kill slice with no pressure).
# kernel and cgoom must give Result=oom-kill.
# vm-timeout: 300

run_one() { # run_one KILLER
	systemctl reset-failed vm-oomtest.service 2>/dev/null
	systemd-run --quiet --unit=vm-oomtest.service --slice=vm32.slice -p Type=exec -p OOMScoreAdjust=1000 \
		-p OOMPolicy=stop -p MemoryAccounting=yes sleep infinity || fail "systemd-run oomtest failed"
	pid=$(sd_pid vm-oomtest)
	case $1 in
	kernel) echo 1 > /proc/sys/kernel/sysrq; echo f > /proc/sysrq-trigger ;;
	cgoom)
		printf '[cgroup "/"]\noom_policy = none\n' > "$CGOOM_CONF"
		cgoom kill / > "$VM_TMP/kill.out" 2>&1 || { diag_file "$VM_TMP/kill.out"; fail "cgoom kill / failed"; } ;;
	systemd-oomd) systemctl set-property --runtime vm32.slice ManagedOOMMemoryPressure=kill ManagedOOMMemoryPressureLimit=1% ;;
	esac
	end=$(sd_deadline 20)
	while [ "$(sd_prop vm-oomtest.service ActiveState)" != failed ] && sd_before "$end"; do sleep 0.2; done
	st=$(sd_prop vm-oomtest.service ActiveState)
	res=$(sd_prop vm-oomtest.service Result)
	line="TEST-32 $1: oomtest $st, Result=$res (TEST-32 wants oom-kill)"
	say "$line"; diag "$line"
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
