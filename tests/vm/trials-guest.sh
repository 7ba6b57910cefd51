# tests/vm/trials-guest.sh: the guest half of tests/vm/trials (busybox ash).
#
# tests/vm/trials writes a script that sources lib.sh and this file, then
# runs one block per trial made of these verbs (all paths as cgoom sees
# them, the domain is /work):
#   t_begin N              start trial N (empties /work)
#   t_mk PATH [MAX]        mkdir (memory.max MAX)
#   t_enable PATH          +memory in PATH's cgroup.subtree_control
#   t_conf                 stdin is /etc/cgoom.conf
#   t_tx PATH NAME VALUE   set an xattr as root (trusted.*, user.oomd_*)
#   t_own PATH UID         chown as systemd delegates (dir, cgroup.procs,
#                          cgroup.threads, cgroup.subtree_control)
#   t_ux PATH NAME VALUE   set an xattr as that uid (user.cgoom.*)
#   t_group PATH           memory.oom.group = 1
#   t_hog LABEL PATH MB ADJ  a memhog of MB MiB in PATH, oom_score_adj ADJ
#   t_run                  wait for the hogs, snapshot (snap_take/snap_send),
#                          `cgoom kill /work`, report who died
# Lines on the results port, for the host:
#   CGOOM-SNAP N ...       the snapshot (see snap_send)
#   CGOOM-TRIAL N hogs LABEL:PID ...
#   CGOOM-TRIAL N died PIDS | alive PIDS | rc RC | explain PIDS (T_EXPLAIN=1)
#   CGOOM-TRIAL N skip REASON
# The guest judges nothing: the host's model does.

T_PORT=/dev/ttyS1
[ -w "$T_PORT" ] || T_PORT=/dev/stdout
t_out() { echo "CGOOM-TRIAL $T $*" >> "$T_PORT"; }

# fork-free liveness (TCG makes every fork cost): dead = gone, zombie or dead
t_dead() {
	[ -r "/proc/$1/stat" ] || return 0
	read -r _s < "/proc/$1/stat" 2>/dev/null || return 0
	_s=${_s##*) }
	case "$_s" in Z*|X*) return 0 ;; esac
	return 1
}
t_hog_pids() { while read -r _l _p _r; do echo "$_p"; done < "$VM_TMP/hogs"; }
t_dead_hogs() { _o=; for _p in $(t_hog_pids); do t_dead "$_p" && _o="$_o $_p"; done; echo "${_o# }"; }
t_alive_hogs() { _o=; for _p in $(t_hog_pids); do t_dead "$_p" || _o="$_o $_p"; done; echo "${_o# }"; }

t_reset() {
	if [ -d "$CG/work" ]; then
		echo 1 > "$CG/work/cgroup.kill" 2>/dev/null
		i=0
		while grep -q '^populated 1' "$CG/work/cgroup.events" 2>/dev/null && [ $i -lt 100 ]; do
			sleep 0.05; i=$((i + 1))
		done
		find "$CG/work" -depth -type d -exec rmdir {} + 2>/dev/null
	fi
	: > "$VM_TMP/hogs"
	: > "$VM_TMP/adj"
	rm -f "$VM_TMP"/hog.*.out
}

t_begin() {
	T=$1
	T_SKIP=
	t_reset
	[ -d "$CG/work" ] && T_SKIP="could not empty /work"
	rm -f "$CGOOM_CONF"
	return 0
}

t_mk() { mkdir -p "$CG$1" || T_SKIP="mkdir $1"; [ -n "${2:-}" ] && { echo "$2" > "$CG$1/memory.max" || T_SKIP="memory.max $1"; }; return 0; }
t_enable() { echo +memory > "$CG$1/cgroup.subtree_control" || T_SKIP="+memory in $1"; }
t_conf() { cat > "$CGOOM_CONF"; }
t_tx() { vmxattr set "$CG$1" "$2" "$3" || T_SKIP="xattr $2 on $1"; }
t_own() {
	for f in "" /cgroup.procs /cgroup.threads /cgroup.subtree_control; do
		chown "$2:$2" "$CG$1$f" || T_SKIP="chown $1$f"
	done
	T_UID=$2
}
t_ux() { vmxattr as "$T_UID" vmxattr set "$CG$1" "$2" "$3" || T_SKIP="user xattr $2 on $1 as uid $T_UID"; }
t_group() { echo 1 > "$CG$1/memory.oom.group" || T_SKIP="memory.oom.group $1"; }
t_hog() {
	hog "$1" "$2" "$3"
	echo "$1 $4" >> "$VM_TMP/adj"
}

# t_hogs_wait SECONDS: like hogs_wait, but a hog that fails skips the trial
t_hogs_wait() {
	i=0
	n=$(wc -l < "$VM_TMP/hogs")
	while :; do
		[ "$(cat "$VM_TMP"/hog.*.out 2>/dev/null | grep -c '^ready ')" -ge "$n" ] && return 0
		for _p in $(t_hog_pids); do
			t_dead "$_p" && { T_SKIP="hog pid $_p died before ready"; return 1; }
		done
		[ $i -ge $(($1 * 10)) ] && { T_SKIP="hogs not ready after $1 s"; return 1; }
		sleep 0.1
		i=$((i + 1))
	done
}

t_run() {
	[ -z "$T_SKIP" ] && t_hogs_wait 60
	if [ -n "$T_SKIP" ]; then
		t_out "skip $T_SKIP"
		return 0
	fi
	hl=
	while read -r label adj; do
		while read -r _l pid _r; do [ "$_l" = "$label" ] && break; done < "$VM_TMP/hogs"
		hl="$hl $label:$pid"
		[ "$adj" = 0 ] || echo "$adj" > "/proc/$pid/oom_score_adj"
	done < "$VM_TMP/adj"
	t_out "hogs$hl"
	# what cgoom itself predicts, for diagnosis only (the host's model is
	# the judge); off by default: forks are dear under TCG
	if [ "${T_EXPLAIN:-0}" = 1 ]; then
		cgoom --config "$CGOOM_CONF" explain /work --json > "$VM_TMP/explain.json" 2>/dev/null
		t_out "explain $(json_victim_pids "$VM_TMP/explain.json")"
	fi
	snap_take "$VM_TMP/snap" /work || { t_out "skip snapshot failed"; return 0; }
	snap_send "$VM_TMP/snap" "$T"
	cgoom --config "$CGOOM_CONF" kill /work > "$VM_TMP/kill.out" 2>&1
	rc=$?
	# let the kill land: wait for a first death (3 s at most), then until
	# the dead set has been stable for 0.3 s
	i=0
	while [ -z "$(t_dead_hogs)" ] && [ $i -lt 60 ]; do sleep 0.05; i=$((i + 1)); done
	prev=x
	i=0
	while [ $i -lt 40 ]; do
		d=$(t_dead_hogs)
		[ "$d" = "$prev" ] && break
		prev=$d
		sleep 0.3
		i=$((i + 1))
	done
	t_out "rc $rc $(head -n 1 "$VM_TMP/kill.out" | tr -d '\r' | cut -c1-200)"
	t_out "died $(t_dead_hogs)"
	t_out "alive $(t_alive_hogs)"
}
