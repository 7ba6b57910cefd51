# attack-delegated: uid 1000 owns /top/u/a (config `delegate = yes` on
# /top/u, chowned as systemd delegates) and turns hostile:
#  - every user.cgoom.* xattr it can set: preference omit/avoid, bias
#    -1000 and absurd values, a bogus policy; systemd's user.oomd_omit /
#    user.oomd_avoid on its own (non-root-owned) cgroups;
#  - cgroups named with quotes, non-UTF-8 bytes and an escape sequence (a
#    newline the kernel itself refuses, which is checked); a chain
#    nested 1000 deep; 2000 empty cgroups.
# Outcome (one-shot `cgoom kill /top`, policy cgroup): its 250 MiB hog
# is still the victim (nothing of theirs protected) and the root-owned
# innocent /top/v (150 MiB) lives; explain names each ignored setting.
# Then with the admin's `oom_policy = tree` on /top/u, a 200 MiB process
# keeps moving between two of its cgroups (a 10 MiB holder stays in the
# first) while cgoom selects, three times: each kill lands on the
# attacker's processes, /top/v lives.
# vm-timeout: 300
DOMAIN=/top
C="--config $CGOOM_CONF"
write_conf <<'CONF'
[cgroup "/top"]
oom_policy = cgroup
[cgroup "/top/u"]
delegate = yes
CONF
delegated_top 900M "+memory +pids" 400
A=$CG/top/u/a
as_user 1000 "cd $A && mkdir big m1 m2 many deep && echo '+memory +pids' > cgroup.subtree_control" ||
	fail "uid 1000 cannot create its cgroups"
# the kernel refuses a newline in a cgroup name (/proc/PID/cgroup must
# stay parsable): the attempt must fail; quotes and non-UTF-8 bytes pass
as_user 1000 "cd $A && mkdir \"\$(printf 'evil\nname')\"" 2>/dev/null &&
	fail "the kernel let uid 1000 create a cgroup name with a newline"
as_user 1000 "cd $A && mkdir 'q\"uo'\"'\"'te' \"\$(printf 'bad\377\376\033[2J')\"" ||
	fail "uid 1000 cannot create odd names"
ODD="$(printf 'bad\377\376\033[2J')"
# hostile xattrs, as uid 1000
x() { as_user 1000 "vmxattr set '$1' '$2' '$3'" || fail "uid 1000 could not set $2 on $1"; }
x "$A" user.cgoom.preference avoid
x "$A" user.cgoom.bias -1000
x "$A/big" user.cgoom.preference omit
x "$A/big" user.cgoom.bias -999999999999
x "$A/big" user.cgoom.oom_policy evil
x "$A/big" user.oomd_omit 1
x "$A/big" user.oomd_avoid 1
x "$A/m1" user.cgoom.preference avoid
x "$A/m1" user.cgoom.bias -500
# 2000 cgroups, one mkdir; a chain 1000 deep (mkdir -p, relative)
t0=$(now_cs)
as_user 1000 "cd $A/many && mkdir \$(seq 1 2000)" || fail "uid 1000 could not make 2000 cgroups"
as_user 1000 "cd $A/deep && mkdir -p \$(i=0; p=d; while [ \$i -lt 999 ]; do p=\$p/d; i=\$((i + 1)); done; echo \$p)" ||
	say "(the 1000-deep chain stopped early: $(find "$A/deep" -type d | wc -l) levels)"
depth=$(find "$A/deep" -type d | wc -l)
say "2000 cgroups and a chain of $depth made in $(( $(now_cs) - t0 ))0 ms"
hog v /top/v 150
uhog big /top/u/a/big 250
uhog odd "/top/u/a/$ODD" 20
uhog quote "/top/u/a/q\"uo'te" 21
hogs_wait 90
explain_predict explain $DOMAIN
[ "$PRED" = "$(hog_pid big)" ] || { diag_file "$VM_TMP/explain.err"; fail "explain predicts [$PRED] ($(labels_of $PRED)), expected big"; }
for n in 'user.cgoom.preference=omit ignored' 'user.cgoom.bias=-1000 ignored' 'user.oomd_omit ignored'; do
	grep -q "$n" "$VM_TMP/explain.out" || { diag_file "$VM_TMP/explain.out" 60; fail "explain does not note '$n'"; }
done
cgoom $C explain $DOMAIN > "$VM_TMP/explain-text.out" 2>&1 || fail "explain (text) exited $?"
kill_and_check kill1 $DOMAIN "$(hog_pid big)" $C
say "hostile xattrs: big still killed, v alive"
# --- phase 2: a process moving between its cgroups during selection
write_conf <<'CONF'
[cgroup "/top"]
oom_policy = cgroup
[cgroup "/top/u"]
delegate = yes
oom_policy = tree
CONF
# a small holder stays in m1 so that m1 keeps its charge as a leaf: this
# tests the move during selection; parking itself is charge-parking's
uhog holder /top/u/a/m1 10
k=1
while [ $k -le 3 ]; do
	uhog mover$k /top/u/a/m1 200
	hogs_wait 90
	mp=$(hog_pid mover$k)
	# root moves it (the user could too: it owns m1, m2 and their parent)
	( while [ -d /proc/$mp ]; do echo $mp > "$A/m2/cgroup.procs" 2>/dev/null
	    echo $mp > "$A/m1/cgroup.procs" 2>/dev/null; done ) &
	MV=$!
	cg_oom kill-move$k $C kill $DOMAIN
	rc=$CGOOM_RC
	wait_dead 10 $mp
	kill $MV 2>/dev/null; wait $MV 2>/dev/null
	sleep 0.3
	is_alive "$(hog_pid v)" || fail "move round $k: /top/v died (outside the attacker's subtree)"
	[ $rc = 0 ] || fail "move round $k: cgoom kill exited $rc"
	d=$(dead_hogs)
	[ -n "$d" ] || fail "move round $k: nothing died"
	# what died must be the attacker's (the mover, or another of its
	# processes when the walk missed the mover in both cgroups)
	for p in $d; do
		c=$(awk -v p=$p '$2 == p { print $3 }' "$VM_TMP/hogs")
		case "$c" in /top/u/*) ;; *) fail "move round $k: $(labels_of $p) in $c died";; esac
	done
	say "move round $k: died $(labels_of $d)"
	is_dead "$(hog_pid holder)" && { sed -i '/^holder /d' "$VM_TMP/hogs"; uhog holder /top/u/a/m1 10; }
	is_dead $mp || { kill -9 $mp; wait_dead 5 $mp; }
	k=$((k + 1))
done
pass "hostile user.cgoom/user.oomd xattrs ignored (big killed, v alive); odd names, $depth-deep chain, 2000 cgroups; 3 kills of a moving process stayed inside /top/u"
