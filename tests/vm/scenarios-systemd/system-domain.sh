# system-domain (systemd guest): cgoom.service kills the spec's victim in
# the system domain ("/", MemAvailable under 5%) under each oom_policy,
# with hogs as services in slices. Static hogs, sized from MemAvailable
# (S = MemAvailable - 250 MiB, in parts of S/1000):
# (systemd nests vm-X.slice in vm.slice: /vm.slice/vm-a.slice/...)
#   vm-a.slice: vm-a1 210, vm-a2 200     (oom_policy tree: one entity 410)
#   vm-c.slice: vm-c, one service with two memhogs 170 + 165 (leaf 335;
#               OOMPolicy=continue so that PID 1 does not stop it)
#   vm-b.slice: vm-b 255
# and vm-g growing at 10 MiB/s until cgoom acts (about 180 MiB by then).
#   none   -> the largest process: vm-b
#   cgroup -> the largest leaf memcg vm-c.service; its largest process c1
#   tree   -> vm-a.slice (tree) beats vm-c; its largest process a1
# The kernel's OOM killer must not have fired (oom_kill in /proc/vmstat).
# vm-timeout: 900

avail=$(sed -n 's/^MemAvailable:[[:space:]]*\([0-9]*\).*/\1/p' /proc/meminfo)
S=$(( avail / 1024 - 250 ))
[ $S -ge 700 ] || skip "MemAvailable $((avail / 1024)) MiB: too little for this scenario (wants 950)"
part() { echo $(( S * $1 / 1000 )); }
say "MemAvailable $((avail / 1024)) MiB; S = $S MiB"

round() {
	local pol=$1 want=$2 extra=${3:-} rootpol=$1
	# tree is refused on the root: "/" ranks by cgroup, the slice is tree
	[ "$pol" = tree ] && rootpol=cgroup
	rm -f "$HOGS"
	write_conf <<CONF
[cgroup "/"]
oom_policy = $rootpol
$extra
CONF
	k0=$(sed -n 's/^oom_kill //p' /proc/vmstat)
	sd_hog vm-a1 "$(part 210)" -- --slice=vm-a.slice
	sd_hog vm-a2 "$(part 200)" -- --slice=vm-a.slice
	sd_hog_sh vm-c 2 "memhog $(part 170) & memhog $(part 165) & wait" --slice=vm-c.slice -p OOMPolicy=continue
	sd_hog vm-b "$(part 255)" -- --slice=vm-b.slice
	sd_hogs_wait 120
	SD_SINCE=$(date '+%Y-%m-%d %H:%M:%S')
	cgoom_start
	c1=$(sed -n 's/^ready //p' "$VM_TMP/vm-c.out" | head -n 1)
	c2=$(sed -n 's/^ready //p' "$VM_TMP/vm-c.out" | tail -n 1)
	# the first "ready" line is the 170 one only if it finished first: ask /proc
	r1=$(sed -n 's/^VmRSS:[[:space:]]*\([0-9]*\).*/\1/p' /proc/$c1/status)
	r2=$(sed -n 's/^VmRSS:[[:space:]]*\([0-9]*\).*/\1/p' /proc/$c2/status)
	[ "$r1" -ge "$r2" ] || { t=$c1; c1=$c2; c2=$t; }
	ALL="$(sd_pid vm-a1) $(sd_pid vm-a2) $c1 $c2 $(sd_pid vm-b)"
	case "$want" in
	b) WANT=$(sd_pid vm-b) ;;
	c1) WANT=$c1 ;;
	a1) WANT=$(sd_pid vm-a1) ;;
	esac
	t0=$(up_ms)
	sd_hog vm-g 1200 10 -- --slice=vm-g.slice
	gpid=$(sd_pid vm-g)
	i=0
	while :; do
		died=
		for p in $ALL $gpid; do is_dead "$p" && died="$died $p"; done
		[ -n "$died" ] && break
		i=$((i + 1)); [ $i -gt 900 ] && break
		sleep 0.1
	done
	# the grower would squeeze again: stop it once the first kill is seen
	if is_dead "$gpid"; then gst=killed; else gst=active; kill -9 "$gpid"; fi
	sleep 1
	died=
	for p in $ALL; do is_dead "$p" && died="$died $p"; done
	died=$(sorted_pids "$died")
	k1=$(sed -n 's/^oom_kill //p' /proc/vmstat)
	sd_hog_table
	cg_journal notice | grep -E 'trigger|sent|victim:' | sed 's/^/    /'
	systemctl kill -s KILL vm-g.service vm-a1.service vm-a2.service vm-c.service vm-b.service 2>/dev/null
	cgoom_stop
	systemctl stop vm-g.service vm-a1.service vm-a2.service vm-c.service vm-b.service 2>/dev/null
	systemctl reset-failed 2>/dev/null
	[ "$k1" = "$k0" ] || fail "$pol: the kernel OOM-killed $((k1 - k0)) process(es) first (cgoom late)"
	[ "$gst" = active ] || fail "$pol: the grower vm-g was killed ($gst), expected $want"
	[ "$died" = "$WANT" ] || fail "$pol: died [$died], expected [$WANT] ($want); all: a1 a2 c1 c2 b = $ALL"
	RES="$RES $pol:$want($(( $(up_ms) - t0 ))ms)"
}

RES=
round none b
round cgroup c1
round tree a1 '[cgroup "/vm.slice/vm-a.slice"]
oom_policy = tree'
pass "system domain:$RES"
