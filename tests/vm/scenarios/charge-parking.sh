# charge-parking (issue 22; was tests/vm/repro/charge-parking.sh): cgroup
# v2 never moves a charge with a process. uid 1000 owns /top/u/a (below
# the config's `delegate = yes` /top/u, chowned as systemd delegates),
# allocates 200 MiB in /top/u/a/m1 and moves itself to m2: the charge
# stays in the now empty m1, where SPEC 4 before issue 22 did not look,
# so the innocent root-owned /top/v (150 MiB) died.
#  1. /top/u is `tree`: the tree entity holds what is parked below its
#     delegation roots (SPEC 4 rule 1): `cgoom kill /top` kills the mover.
#  2. /top/u is not a tree, and uid 1000 removes m1 after the move (its
#     pages stay on the dying memcg, seen only in its ancestors'
#     memory.stat): explain ranks an `unattributed` entity first (the
#     innermost delegation root, /top/u/a, owned by uid 1000; the outer
#     root /top/u, `delegate = yes`, counts it no more), and kill takes
#     the mover, not the 100 MiB bystander in /top/u/x.
# Both times /top/v lives, and the kill frees the parked charge (the
# mover's pages go with it): /top's memory.current drops by >= 150 MiB.
# vm-timeout: 240
DOMAIN=/top
C="--config $CGOOM_CONF"
A=$CG/top/u/a
delegated_top 900M +memory
as_user 1000 "cd $A && mkdir m1 m2 && echo +memory > cgroup.subtree_control" ||
	fail "uid 1000 cannot create its cgroups"
hog v /top/v 150

# park: uhog PARKED in m1, ready, then moved to m2 by uid 1000 itself
park() {
	uhog "$1" /top/u/a/m1 200
	hogs_wait 90
	as_user 1000 "echo $(hog_pid "$1") > $A/m2/cgroup.procs" || fail "uid 1000 cannot move its process"
	[ "$(cg_procs /top/u/a/m1)" = "" ] || fail "m1 still holds [$(cg_procs /top/u/a/m1)]"
	say "parked: $(sed -n 's/^anon //p' "$A/m1/memory.stat" 2>/dev/null) bytes of anon stay in the empty m1; m2 holds $(cg_procs /top/u/a/m2)"
}

# freed_by_kill NAME WANT: kill_and_check, and /top's usage must drop by
# at least 150 MiB (the 200 MiB parked go with the mover)
freed_by_kill() {
	before=$(cg_get /top memory.current)
	kill_and_check "$1" $DOMAIN "$2" $C
	sleep 0.5
	after=$(cg_get /top memory.current)
	freed=$(( (before - after) / 1048576 ))
	say "$1: /top memory.current $((before / 1048576)) -> $((after / 1048576)) MiB (freed $freed MiB)"
	[ $freed -ge 150 ] || fail "$1: the kill freed only $freed MiB of the 200 parked"
}

# --- 1: /top/u tree: its entity holds the parked charge
write_conf <<'CONF'
[cgroup "/top"]
oom_policy = cgroup
[cgroup "/top/u"]
delegate = yes
oom_policy = tree
CONF
park mover1
explain_predict explain1 $DOMAIN $C
[ "$(json_victim_field "$VM_TMP/explain1.out" kind)" = tree ] ||
	fail "1: victim kind $(json_victim_field "$VM_TMP/explain1.out" kind), expected tree"
freed_by_kill kill1 "$(hog_pid mover1)"
is_alive "$(hog_pid v)" || fail "1: /top/v died"
say "1: the tree /top/u held the parked charge: the mover died, v lives"

# --- 2: no tree; m1 removed after the move
write_conf <<'CONF'
[cgroup "/top"]
oom_policy = cgroup
[cgroup "/top/u"]
delegate = yes
CONF
sed -i '/^mover1 /d' "$VM_TMP/hogs"
# a bystander beside the inner root, inside the outer one (/top/u): the
# outer root's own few KiB once put its unattributed entity (the same
# 200 MiB counted again) first, and its largest process, this one, died
cg_make /top/u/x
hog bystander /top/u/x 100
park mover2
as_user 1000 "rmdir $A/m1" || fail "uid 1000 cannot remove m1"
say "m1 removed; /top/u/a memory.stat anon: $(sed -n 's/^anon //p' "$A/memory.stat")"
explain_predict explain2 $DOMAIN $C
cgoom $C explain $DOMAIN > "$VM_TMP/explain2.txt" 2>&1
sed 's/^/    /' "$VM_TMP/explain2.txt"
kind=$(json_victim_field "$VM_TMP/explain2.out" kind)
vcg=$(json_victim_field "$VM_TMP/explain2.out" cgroup)
[ "$kind" = unattributed ] || fail "2: victim kind '$kind', expected unattributed"
[ "$vcg" = /top/u/a ] || fail "2: victim entity '$vcg', expected /top/u/a (the innermost delegation root)"
grep -q 'unattributed' "$VM_TMP/explain2.txt" || fail "2: the text explanation shows no unattributed row"
freed_by_kill kill2 "$(hog_pid mover2)"
is_alive "$(hog_pid v)" || fail "2: /top/v died"
is_alive "$(hog_pid bystander)" || fail "2: the bystander /top/u/x died"
pass "parked charge found: 1 (tree /top/u) and 2 (m1 removed, unattributed /top/u/a, a bystander in /top/u/x) killed the mover, freed the parked 200 MiB, /top/v and the bystander alive"
