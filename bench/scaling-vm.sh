# bench/scaling-vm.sh: selection cost on a real kernel's cgroupfs, where
# memory.stat (dozens of counters, flushed on read) costs far more than
# memory.current (one counter). Runs in the guest:
#
#   tests/vm/run --mem 2048 --script bench/scaling-vm.sh
#
# For N real memory cgroups (sqrt(N) parents under /scale, leaves below;
# 100 memhogs of 1-5 MiB spread over the leaves), with policy cgroup on
# /scale: the best of 5 wall times of `cgoom explain /scale --json` (branch
# and bound) and of `--full`, against read-stats reading every memory.stat
# below /scale once (the floor) and every memory.current once. Prints
# "SCALE ..." lines; bench/README.md has the last ones.
. "$CGOOM_LIB"
mkdir -p "$VM_TMP"
cat > /etc/cgoom-scale.conf <<'EOF'
[cgroup "/scale"]
oom_policy = cgroup
EOF
REP=5
# names PREFIX COUNT: PREFIX0 ... PREFIX(COUNT-1), one mkdir for all
names() {
	k=0
	while [ $k -lt "$2" ]; do
		printf '%s%d ' "$1" $k
		k=$((k + 1))
	done
}
echo "SCALE kernel $(uname -r) cpus $(grep -c ^processor /proc/cpuinfo)"
for N in 300 1000 3000; do
	P=1
	while [ $(( (P + 1) * (P + 1) )) -le "$N" ]; do P=$((P + 1)); done
	L=$(( (N - P) / P ))
	cg_make /scale
	cg_enable /scale +memory
	mkdir $(names "$CG/scale/p" $P) || fail "mkdir parents"
	i=0
	while [ $i -lt $P ]; do
		echo +memory > "$CG/scale/p$i/cgroup.subtree_control" || fail "enable memory in p$i"
		mkdir $(names "$CG/scale/p$i/l" $L) || fail "mkdir leaves of p$i"
		i=$((i + 1))
	done
	total=$(find "$CG/scale" -mindepth 1 -type d | wc -l)
	: > "$VM_TMP/hogs"
	h=0
	while [ $h -lt 100 ]; do
		hog "h$h" "/scale/p$((h % P))/l$(( (h * 7) % L ))" $((1 + h % 5))
		h=$((h + 1))
	done
	hogs_wait 300 || fail "hogs not ready"
	fl=$(read-stats "$CG/scale" $REP | awk '{ print $4 }')
	cur=$(read-stats "$CG/scale" $REP memory.current | awk '{ print $4 }')
	ex=$(read-stats --time $REP cgoom --config /etc/cgoom-scale.conf explain /scale --json | awk '{ print $2 }')
	full=$(read-stats --time $REP cgoom --config /etc/cgoom-scale.conf explain /scale --json --full | awk '{ print $2 }')
	cgoom --config /etc/cgoom-scale.conf explain /scale --json > "$VM_TMP/lazy.json"
	cgoom --config /etc/cgoom-scale.conf explain /scale --json --full > "$VM_TMP/full.json"
	lv=$(json_victim "$VM_TMP/lazy.json")
	fv=$(json_victim "$VM_TMP/full.json")
	[ "$lv" = "$fv" ] || fail "victims differ at N=$total: $lv vs --full $fv"
	unread=$(grep -o '"bounded": true' "$VM_TMP/lazy.json" | wc -l)
	echo "SCALE cgroups $total processes 100 explain_ms $ex full_ms $full read_stat_ms $fl read_current_ms $cur unread $unread"
	echo 1 > "$CG/scale/cgroup.kill"
	wait_dead 30 $(all_hog_pids) || fail "hogs did not die"
	find "$CG/scale" -depth -mindepth 1 -type d | xargs rmdir || fail "rmdir"
	rmdir "$CG/scale" || fail "rmdir /scale"
done
exit 0
