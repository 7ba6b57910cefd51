# random-trials: randomized trees of real hogs (hardening, issue 7).
# Each trial builds a seed-like tree under /work with random sizes,
# policies (config or xattr), memory.oom.group, preferences and a few
# oom_score_adj -1000 hogs; takes explain's prediction just before the
# kill; then `cgoom kill /work`. Wrong kill = anything other than the
# predicted set died, or a -1000 / omit hog died. The seed is printed so
# a failing trial can be replayed (RANDOM_SEED=N).
# vm-timeout: 600
# vm-checks: explain-agrees
DOMAIN=/work
TRIALS=${RANDOM_TRIALS:-10}
seed=${RANDOM_SEED:-$(( $(date +%s) % 100000 ))}
RANDOM=$seed
say "seed $seed, $TRIALS trials"
C="--config $CGOOM_CONF"

rnd() { echo $(( $1 + RANDOM % ($2 - $1 + 1) )); } # rnd LO HI

trial_reset() {
	[ -d "$CG/work" ] && echo 1 > "$CG/work/cgroup.kill" 2>/dev/null
	for p in $(all_hog_pids); do wait_dead 5 "$p" >/dev/null 2>&1; done
	find "$CG/work" -depth -type d -exec rmdir {} \; 2>/dev/null
	: > "$VM_TMP/hogs"
	rm -f "$VM_TMP"/hog.*.out
}

wrong=0 ran=0 protected_total=0
t=1
while [ $t -le $TRIALS ]; do
	trial_reset
	tree_on=
	cg_make /work 1000M
	cg_enable /work +memory
	conf="[cgroup \"/work\"]"
	case $(rnd 0 2) in
	0) pol=none ;;
	1) pol=cgroup ;;
	*) pol=cgroup tree_on=/work/b ;;
	esac
	conf="$conf
oom_policy = $pol"
	for c in a b c; do cg_make /work/$c; done
	cg_enable /work/b +memory
	cg_make /work/b/b1
	cg_make /work/b/b2
	if [ -n "${tree_on:-}" ]; then
		if [ $(rnd 0 1) = 0 ]; then
			conf="$conf
[cgroup \"$tree_on\"]
oom_policy = tree"
		else
			setfattr -n trusted.cgoom.oom_policy -v tree "$CG$tree_on" 2>/dev/null ||
				cgoom $C policy "$tree_on" tree > /dev/null
		fi
	fi
	# a random preference on one leaf, a random oom.group somewhere
	pleaf=/work/$(echo a c b/b1 b/b2 | tr ' ' '\n' | sed -n "$(rnd 1 4)p")
	pref=$(echo none avoid prefer omit | tr ' ' '\n' | sed -n "$(rnd 1 4)p")
	conf="$conf
[cgroup \"$pleaf\"]
preference = $pref"
	ogrp=
	[ $(rnd 0 2) = 0 ] && ogrp=/work/$(echo a b c b/b1 | tr ' ' '\n' | sed -n "$(rnd 1 4)p") &&
		cg_set "$ogrp" memory.oom.group 1
	echo "$conf" | write_conf > /dev/null
	# hogs: sizes distinct (base + unique offset), 1-3 per leaf
	off=0 protect=
	for leaf in a c b/b1 b/b2; do
		n=$(rnd 1 3)
		k=1
		while [ $k -le $n ]; do
			off=$((off + 1))
			mb=$(( $(rnd 4 30) * 2 + off ))
			label=$(echo $leaf | tr / -)-$k
			hog "$label" "/work/$leaf" $mb
			k=$((k + 1))
		done
	done
	hogs_wait 90
	# one in three hogs at random gets -1000
	for p in $(all_hog_pids); do
		if [ $(rnd 0 2) = 0 ]; then
			echo -1000 > /proc/$p/oom_score_adj && protect="$protect $p"
		fi
	done
	omitted=
	[ "$pref" = omit ] && omitted=$(cg_procs "$pleaf")
	say "trial $t: policy $pol${tree_on:+, tree on $tree_on}, $pleaf $pref${ogrp:+, oom.group on $ogrp}, -1000:[$protect]"
	cg_oom explain$t $C explain /work --json || fail "trial $t: explain exited $CGOOM_RC"
	PRED=$(json_victim_pids "$VM_TMP/explain$t.out")
	if [ -z "$PRED" ]; then
		say "trial $t: explain found no victim (all protected?)"
		cg_oom kill$t $C kill /work
		died=$(dead_hogs)
		[ -z "$died" ] || { wrong=$((wrong + 1)); diag "trial $t: no victim predicted but [$died] died"; }
	else
		cg_oom kill$t $C kill /work
		wait_dead 15 $PRED
		sleep 0.3
		died=$(dead_hogs)
		agree "$PRED" "$died"
		[ "$died" = "$PRED" ] || { wrong=$((wrong + 1)); diag "trial $t: predicted [$PRED] died [$died]"; }
	fi
	for p in $protect $omitted; do
		protected_total=$((protected_total + 1))
		if is_dead "$p"; then
			wrong=$((wrong + 1))
			diag "trial $t: protected pid $p died"
		fi
	done
	ran=$((ran + 1))
	t=$((t + 1))
done
trial_reset
summary="$ran randomized trials (seed $seed), $wrong wrong kills, $protected_total protected processes checked"
[ $wrong = 0 ] || fail "$summary"
pass "$summary"
