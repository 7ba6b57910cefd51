# cgroupns: cgoom inside a cgroup namespace that sees only its own
# subtree (what a container sees). /ns (memory.max 600M) holds /ns/x (two
# hogs, 60+70 MiB) and /ns/y (one 90 MiB hog); outside it, /big holds a
# 200 MiB hog the container must not even see. In a new cgroup + mount
# namespace rooted at /ns, with cgroup2 mounted afresh, `cgoom explain /`
# must judge the namespace root by its own memory.stat and memory.max
# (T = 600M, not the host's MemTotal), pick /ns/x (130 > 90), and `cgoom
# kill /` must kill its 70 MiB hog and nothing else.
# vm-timeout: 120
cg_make /ns 600M
cg_make /big
hog big /big 200
NSOUT=$VM_TMP/ns
mkdir -p "$NSOUT" /mnt/nscg
# the unsharing shell must sit in /ns itself at unshare time (that makes
# /ns its namespace root), then step down into a leaf so /ns can enable
# the memory controller for its children
sh -c '
	echo $$ > "$1/ns/cgroup.procs" || exit 97
	exec nsexec sh -c "$2"
' nsjoin "$CG" '
		mkdir -p '"$CG"'/ns/ctl
		echo $$ > '"$CG"'/ns/ctl/cgroup.procs || exit 98
		touch '"$NSOUT"'/stepped
		while [ ! -e '"$NSOUT"'/go ]; do sleep 0.1; done
		mount -t cgroup2 none /mnt/nscg || exit 99
		cat /proc/self/cgroup > '"$NSOUT"'/self-cgroup
		printf "[cgroup \"/\"]\noom_policy = cgroup\n" > '"$NSOUT"'/conf
		cgoom --cgroup-root /mnt/nscg --config '"$NSOUT"'/conf explain / --json > '"$NSOUT"'/explain.json 2> '"$NSOUT"'/explain.err
		echo $? > '"$NSOUT"'/explain.rc
		cgoom --cgroup-root /mnt/nscg --config '"$NSOUT"'/conf kill / > '"$NSOUT"'/kill.out 2>&1
		echo $? > '"$NSOUT"'/kill.rc
	' > "$NSOUT/shell.log" 2>&1 &
NSPID=$!
i=0
until [ -e "$NSOUT/stepped" ]; do
	i=$((i + 1)); [ $i -gt 100 ] && fail "the namespace shell did not start"
	is_dead $NSPID && fail "the namespace shell exited early: $(cat "$NSOUT/shell.log")"
	sleep 0.1
done
cg_enable /ns +memory
cg_make /ns/x
cg_make /ns/y
hog x60 /ns/x 60
hog x70 /ns/x 70
hog y90 /ns/y 90
hogs_wait 60
touch "$NSOUT/go"
wait $NSPID
diag "inside: /proc/self/cgroup = $(cat "$NSOUT/self-cgroup" 2>/dev/null)"
[ "$(cat "$NSOUT/explain.rc" 2>/dev/null)" = 0 ] || fail "explain in the namespace failed: $(head -c 300 "$NSOUT/explain.err")"
cp "$NSOUT/explain.json" "$VM_TMP/explain.out"
say "explain in the namespace:"; sed 's/^/    /' "$VM_TMP/explain.out"
PRED=$(json_victim_pids "$VM_TMP/explain.out")
WANT=$(hog_pid x70)
DOMAIN=/
c=$(json_victim_field "$VM_TMP/explain.out" cgroup)
[ "$c" = /x ] || fail "victim cgroup '$c' in the namespace, expected /x"
[ "$PRED" = "$WANT" ] || fail "explain predicted [$PRED], expected x70 [$WANT]"
size=$(json_top_field "$VM_TMP/explain.out" domain_size)
[ "$size" = $((600 * 1024 * 1024)) ] || fail "domain_size $size, expected 600M (the namespace root's memory.max)"
grep -q '"/big"\|"/ns' "$VM_TMP/explain.out" && fail "the namespace saw cgroups outside it"
wait_dead 15 $WANT || fail "x70 did not die: $(cat "$NSOUT/kill.out")"
sleep 0.3
died=$(dead_hogs)
hog_table
[ "$died" = "$WANT" ] || fail "died [$died] ($(labels_of $died)), expected x70 [$WANT]"
pass "in a cgroup namespace rooted at /ns: T = 600M, /x chosen, x70 alone died, /big unseen"
