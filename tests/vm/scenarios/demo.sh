# demo: the seed table under each policy. For none, cgroup and tree it
# shows `cgoom explain /work` (the ranking), performs `cgoom kill /work`
# and shows who died. Run it with tests/vm/demo.
# vm-timeout: 300
banner() {
	echo
	echo "=================================================================="
	echo "  $*"
	echo "=================================================================="
}

round() {
	policy=$1 want_label=$2 story=$3
	case $policy in
	tree) banner "oom_policy = cgroup on /work, tree on /work/cg3: $story" ;;
	*)    banner "oom_policy = $policy on /work: $story" ;;
	esac
	seed_setup > /dev/null
	case $policy in
	none)   printf '[cgroup "/work"]\noom_policy = none\n' ;;
	cgroup) printf '[cgroup "/work"]\noom_policy = cgroup\n' ;;
	tree)   printf '[cgroup "/work"]\noom_policy = cgroup\n[cgroup "/work/cg3"]\noom_policy = tree\n' ;;
	esac | write_conf
	echo
	echo "The hogs (one process each, MiB of anonymous memory):"
	hog_table | grep -v '^ *HOG' | awk '{ printf "    %-10s %-18s %4s MiB\n", $1, $3, $4 }'
	echo
	echo "\$ cgoom explain /work"
	cgoom --config "$CGOOM_CONF" explain /work 2>&1 | sed 's/^/    /'
	cgoom --config "$CGOOM_CONF" explain /work --json > "$VM_TMP/demo.json" 2>&1
	PRED=$(json_victim_pids "$VM_TMP/demo.json")
	echo
	echo "\$ cgoom kill /work"
	cgoom --config "$CGOOM_CONF" kill /work 2>&1 | sed 's/^/    /'
	[ -n "$PRED" ] && wait_dead 15 $PRED
	sleep 0.5
	died=$(dead_hogs)
	echo
	echo "Afterwards:"
	hog_table
	want=$(hog_pid "$want_label")
	if [ "$died" = "$want" ] && [ "$PRED" = "$want" ]; then
		echo
		echo "  -> killed $(labels_of $died), as explain predicted and the policy says."
		OK="$OK $policy"
	else
		echo
		echo "  -> MISMATCH: explain predicted [$(labels_of $PRED)], died [$(labels_of $died)], policy says [$want_label]"
		BAD="$BAD $policy"
	fi
	cleanup_all
	rm -f "$VM_TMP/hogs" "$VM_TMP"/hog.*.out
}

OK= BAD=
round none   cg1     "the biggest process dies, wherever it is"
round cgroup cg2-104 "leaf cgroups compete; the biggest one loses its biggest process"
round tree   cg31-99 "cg3 competes as one subtree (cg31 + cg32)"
banner "summary: as predicted:${OK:- (no policy)}; mismatched:${BAD:- (no policy)}"
[ -z "$BAD" ] && pass "all three policies killed what explain predicted" || fail "mismatch under:$BAD"
