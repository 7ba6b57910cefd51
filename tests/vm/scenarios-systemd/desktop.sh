# desktop (systemd guest; issue 20): a user session squeezed, side by side
# with systemd-oomd. User vmdesk (uid 1000) has its manager,
# user@1000.service, and in it, as scopes (GNOME's layout):
#   app.slice/vm-browser.scope   the browser: a main process (100 MiB) and
#                                four tabs that leak (8 MiB/s each)
#   app.slice/vm-terminal.scope  a terminal: its shell running a build
#                                (`make` and 24 compilers of 8 MiB)
#   session.slice/vm-session.scope  the session: its shell (360 MiB, the
#                                largest process) and two helpers
# 36 processes, a 256M swap file, RAM + swap exhausted by the tabs (sized
# from MemAvailable + SwapFree so that no tab outgrows the session's
# shell). At the first death the tabs are stopped (one squeeze, one
# answer), and after 5 s what died is counted by scope. Four rounds, a
# fresh user@1000.service each:
#   kernel:  no userspace killer (systemd-oomd masked, cgoom stopped);
#   debian:  systemd-oomd as Debian's systemd-oomd package installs it
#            (the same drop-ins as Fedora's systemd-oomd-defaults:
#            ManagedOOMSwap=kill on -.slice, swap used over 90%, and
#            ManagedOOMMemoryPressure=kill on user@.service, 50% for 20 s);
#   pressure: the user@ rule alone (ManagedOOMSwap=auto on -.slice);
#   cgoom:   examples/desktop.conf as /etc/cgoom.conf (installed by the
#            .deb), as shipped, systemd-oomd masked (DESKTOP_CGOOM_REPS
#            rounds, default 1);
#   notify:  the same with its pre_kill_hook line switched on, and a
#            light squeeze: a scope with MemoryMax=200M in app.slice
#            and a process growing into it.
# cgoom's rounds must kill in the browser scope only, keep the session
# and the terminal whole, with no kernel OOM kill; the notify round must
# tell uid 1000 through notify-send (a stub here: the guest has no
# notification server; it logs the uid and text it was given). The other
# rounds are recorded (CGOOM-DIAG; tests/vm/README.md).
# vm-timeout: 1800

# DESKTOP_ROUNDS: the rounds to run (a --script may set it; default all)
ROUNDS=" ${DESKTOP_ROUNDS:-kernel debian pressure cgoom notify} "
want() { [ "${ROUNDS#* $1 }" != "$ROUNDS" ]; }
DESK=vmdesk
DUID=1000
RUNDIR=/run/user/$DUID
SHELL_MB=360
NOTIFY_LOG=/var/tmp/vm-notify.log

id -u $DESK > /dev/null 2>&1 || useradd -m -u $DUID -s /bin/sh $DESK || fail "useradd $DESK failed"
fallocate -l 256M /swapfile && chmod 600 /swapfile && mkswap -q /swapfile > /dev/null && swapon /swapfile ||
	skip "cannot make the 256M swap file"
cat > /usr/local/bin/notify-send <<EOF
#!/bin/sh
# stub: the guest has no notification server
echo "uid=\$(id -u) \$*" >> $NOTIFY_LOG
EOF
chmod 755 /usr/local/bin/notify-send
rm -f $NOTIFY_LOG
oomd_off() { systemctl mask --runtime --now systemd-oomd.service systemd-oomd.socket > /dev/null 2>&1; }
oomd_on() {
	systemctl unmask --runtime systemd-oomd.service systemd-oomd.socket > /dev/null 2>&1
	systemctl daemon-reload
	systemctl restart systemd-oomd.socket systemd-oomd.service || skip "systemd-oomd does not start"
}
trap 'systemctl stop user@$DUID.service 2>/dev/null; swapoff /swapfile 2>/dev/null
	rm -f /swapfile /usr/local/bin/notify-send /run/systemd/system/-.slice.d/vm-noswap.conf
	systemctl unmask --runtime systemd-oomd.service systemd-oomd.socket > /dev/null 2>&1' EXIT

session_start() {
	systemctl reset-failed user@$DUID.service 2>/dev/null
	systemctl start user@$DUID.service || fail "systemctl start user@$DUID.service failed"
	local end
	end=$(sd_deadline 60)
	until [ -S $RUNDIR/bus ] && [ -S $RUNDIR/systemd/private ]; do
		sd_before "$end" || fail "user@$DUID.service: no $RUNDIR/bus after 60 s (dbus-user-session?)"
		sleep 0.2
	done
}
session_stop() {
	systemctl stop user@$DUID.service 2>/dev/null
	systemctl reset-failed user@$DUID.service 2>/dev/null
	sleep 1
}
# scope NAME SLICE COMMAND [PROPERTY...]: `sh -c COMMAND` as vmdesk in
# the scope NAME.scope of the user's manager (output in $VM_TMP/NAME.out),
# with oom_score_adj 0 (this job runs at -1000, which children inherit)
scope() {
	local name=$1 slice=$2 cmd=$3 props=() p
	shift 3
	for p in "$@"; do props+=(-p "$p"); done
	sd_outfiles "$name"
	(echo 0 > /proc/self/oom_score_adj
	 exec runuser -u $DESK -- env XDG_RUNTIME_DIR=$RUNDIR DBUS_SESSION_BUS_ADDRESS=unix:path=$RUNDIR/bus \
		systemd-run --user --scope --quiet --unit="$name" --slice="$slice" "${props[@]}" /bin/sh -c "$cmd") \
		> "$VM_TMP/$name.out" 2> "$VM_TMP/$name.err" &
}
UCG=/user.slice/user-$DUID.slice/user@$DUID.service
scope_cg() { case $1 in vm-session) echo "$UCG/session.slice/$1.scope" ;; *) echo "$UCG/app.slice/$1.scope" ;; esac; }
# ready_wait NAME N: N "ready" lines from the scope's memhogs
ready_wait() {
	local end
	end=$(sd_deadline 120)
	until [ "$(grep -c '^ready ' "$VM_TMP/$1.out" 2>/dev/null)" -ge "$2" ]; do
		sd_before "$end" || { diag_file "$VM_TMP/$1.err"; fail "$1: $(grep -c '^ready ' "$VM_TMP/$1.out") of $2 ready after 120 s"; }
		sleep 0.2
	done
}
procs_of() { cat "$CG$(scope_cg "$1")/cgroup.procs" 2>/dev/null | sort -n | tr '\n' ' '; }
mib() { echo $(( $(sed -n "s/^$1:[[:space:]]*\([0-9]*\).*/\1/p" /proc/meminfo) / 1024 )); }

# round KILLER: one squeeze; sets R_DEAD (per scope), R_BY, R_MS, R_SESSION
round() {
	local k=$1
	SD_SINCE=$(date '+%Y-%m-%d %H:%M:%S')
	session_start
	scope vm-session session.slice "memhog $SHELL_MB & memhog 10 & memhog 10 & wait"
	scope vm-terminal app.slice 'sh -c "for i in \$(seq 24); do memhog 8 & done; wait" & wait'
	ready_wait vm-session 3
	ready_wait vm-terminal 24
	sleep 2
	local avail tab
	avail=$(( $(mib MemAvailable) + $(mib SwapFree) ))
	tab=$(( (avail - 100 + 150) / 4 ))
	[ $tab -lt $((SHELL_MB - 30)) ] || skip "tabs of $tab MiB would outgrow the session's shell ($SHELL_MB MiB): guest too large"
	say "$k: MemAvailable + SwapFree $avail MiB: browser 100 MiB + 4 tabs leaking to $tab MiB at 8 MiB/s"
	vm0=$(vm_oom_kills)
	t0=$(up_ms)
	scope vm-browser app.slice "memhog 100 & for t in 1 2 3 4; do memhog $tab 8 & done; wait"
	local end
	end=$(sd_deadline 10)
	until [ "$(grep -c '^ready ' "$VM_TMP/vm-browser.out" 2>/dev/null)" -ge 1 ]; do sd_before "$end" || break; sleep 0.2; done
	sleep 1
	local all s p tabs
	declare -gA PIDS=()
	all=
	for s in vm-browser vm-terminal vm-session; do PIDS[$s]=$(procs_of $s); all="$all ${PIDS[$s]}"; done
	# roles: the browser's main process printed "ready" (the tabs are still
	# growing); the terminal's first sh is its shell, the second `make`
	declare -gA ROLE=()
	local main first
	main=$(sed -n 's/^ready //p' "$VM_TMP/vm-browser.out" | head -n 1)
	tabs=
	for p in ${PIDS[vm-browser]}; do
		case "$(cat /proc/$p/comm 2>/dev/null)" in
		sh) ROLE[$p]=browser-sh ;;
		*) if [ "$p" = "$main" ]; then ROLE[$p]=browser-main; else ROLE[$p]=browser-tab; tabs="$tabs $p"; fi ;;
		esac
	done
	first=
	for p in ${PIDS[vm-terminal]}; do
		case "$(cat /proc/$p/comm 2>/dev/null)" in
		sh) if [ -z "$first" ]; then ROLE[$p]=terminal-shell; first=$p; else ROLE[$p]=terminal-make; fi ;;
		*) ROLE[$p]=terminal-cc ;;
		esac
	done
	for p in ${PIDS[vm-session]}; do
		case "$(cat /proc/$p/comm 2>/dev/null)" in
		sh) ROLE[$p]=session-sh ;;
		*) if [ "$(sed -n 's/^VmRSS:[[:space:]]*\([0-9]*\).*/\1/p' /proc/$p/status)" -gt $((SHELL_MB * 1024 / 2)) ]; then
			ROLE[$p]=session-shell; else ROLE[$p]=session-helper; fi ;;
		esac
	done
	say "$k: memory controller below $UCG: app.slice [$(cat $CG$UCG/app.slice/cgroup.subtree_control 2>/dev/null)], session.slice [$(cat $CG$UCG/session.slice/cgroup.subtree_control 2>/dev/null)]"
	say "$k: processes: browser $(echo ${PIDS[vm-browser]} | wc -w), terminal $(echo ${PIDS[vm-terminal]} | wc -w), session $(echo ${PIDS[vm-session]} | wc -w)"
	end=$(sd_deadline 300)
	R_MS=timeout
	while sd_before "$end"; do
		for p in $all; do is_dead "$p" && { R_MS=$(( $(up_ms) - t0 )); break 2; }; done
		sleep 0.1
	done
	# one squeeze: stop the leak wherever it still runs
	for p in $tabs; do kill -STOP "$p" 2>/dev/null; done
	sleep 5
	# one look at who died (is_dead forks; memory is still short here)
	R_DEAD=; R_N=0; DEAD=" "
	for p in $all; do is_dead "$p" && DEAD="$DEAD$p "; done
	for s in vm-browser vm-terminal vm-session; do
		local n=0
		for p in ${PIDS[$s]}; do [ "${DEAD#* $p }" != "$DEAD" ] && n=$((n + 1)); done
		R_N=$((R_N + n))
		R_DEAD="$R_DEAD ${s#vm-} $n/$(echo ${PIDS[$s]} | wc -w)"
	done
	R_SESSION=survived
	for p in ${PIDS[vm-session]}; do [ "${DEAD#* $p }" != "$DEAD" ] && R_SESSION="died"; done
	[ "$(systemctl is-active user@$DUID.service)" = active ] || R_SESSION="$R_SESSION (user@$DUID.service $(systemctl is-active user@$DUID.service))"
	R_BY=
	journalctl -q --no-pager -u cgoom --since "$SD_SINCE" -o cat 2>/dev/null | grep -E 'sent SIG|victim:' > "$VM_TMP/cgoom.kills"
	grep -q 'sent SIG' "$VM_TMP/cgoom.kills" && R_BY="$R_BY cgoom"
	journalctl -q --no-pager -u systemd-oomd --since "$SD_SINCE" -o cat 2>/dev/null | grep '^Killed ' > "$VM_TMP/oomd.kills"
	[ -s "$VM_TMP/oomd.kills" ] && R_BY="$R_BY systemd-oomd"
	R_KK=$(( $(vm_oom_kills) - vm0 ))
	[ $R_KK -gt 0 ] && R_BY="$R_BY kernel($R_KK)"
	[ -n "$R_BY" ] || R_BY=" nobody"
	while IFS= read -r l; do diag "  $k: cgoom: $l"; done < "$VM_TMP/cgoom.kills"
	while IFS= read -r l; do diag "  $k: systemd-oomd: $l"; done < "$VM_TMP/oomd.kills"
	dmesg | grep -E 'Killed process|oom-kill:' | tail -n $((2 * R_KK)) | sed 's/^/    /' > "$VM_TMP/kernel.kills"
	[ $R_KK -gt 0 ] && while IFS= read -r l; do diag "  $k: kernel: $l"; done < "$VM_TMP/kernel.kills"
	# which processes died, by role
	R_WHICH=$(for p in $DEAD; do echo "${ROLE[$p]}"; done | sort | uniq -c |
		awk '{ printf "%s%s x%d", (NR > 1 ? ", " : ""), $2, $1 }')
	line="desktop $k: $R_N of $(echo $all | wc -w) processes died [${R_DEAD# }: $R_WHICH], session $R_SESSION, killed by [${R_BY# }], first death ${R_MS} ms after the leak began"
	say "$line"
	diag "$line"
	session_stop
}

# --- kernel: nobody but the kernel ---
cgoom_stop
if want kernel; then
	oomd_off
	round kernel
fi

# --- debian: systemd-oomd as Debian's package installs it ---
if want debian; then
	oomd_on
	session_start
	oomctl 2>&1 | head -n 24 | sed 's/^/    /'
	session_stop
	round debian
fi

# --- pressure: the user@ rule alone (no swap rule on -.slice) ---
if want pressure; then
	mkdir -p /run/systemd/system/-.slice.d
	printf '[Slice]\nManagedOOMSwap=auto\n' > /run/systemd/system/-.slice.d/vm-noswap.conf
	oomd_on
	round pressure
	rm -f /run/systemd/system/-.slice.d/vm-noswap.conf
fi

RECIPE=/usr/share/doc/cgoom/examples/desktop.conf
HOOK=/usr/share/doc/cgoom/examples/notify-desktop
[ -f $RECIPE ] || fail "the .deb did not install $RECIPE"
[ -f $HOOK ] || fail "the .deb did not install $HOOK"

# --- cgoom: the desktop recipe as shipped, systemd-oomd masked (two killers race) ---
if want cgoom; then
	oomd_off
	write_conf < $RECIPE
	cgoom_start
	BAD=
	KEPT=0
	for rep in $(seq "${DESKTOP_CGOOM_REPS:-1}"); do
		round cgoom
		diag "  cgoom round $rep: ${line#desktop cgoom: }"
		# the browser only: the session and the terminal whole, nobody else killed
		ok=1
		case "$R_DEAD" in *"browser 0/"*) ok=0 ;; esac
		case "$R_DEAD" in *"terminal 0/"*"session 0/"*) ;; *) ok=0 ;; esac
		[ "$R_SESSION" = survived ] || ok=0
		[ "${R_BY# }" = cgoom ] || ok=0
		if [ $ok = 1 ]; then KEPT=$((KEPT + 1)); else BAD="$BAD | round $rep: ${line#desktop cgoom: }"; fi
	done
	cgoom_stop
fi

# --- notify: the hook, end to end, on a light squeeze ---
# examples/desktop.conf with its pre_kill_hook line switched on; a scope
# in the user's app.slice with MemoryMax=200M and no swap
# (MemorySwapMax=0: with swap room its anon would not count as
# unreclaimable), a cgroup domain, and a process growing into it: cgoom
# kills it there, and the hook must reach uid 1000 through the hardened
# unit.
if want notify; then
	oomd_off
	sed 's/^#pre_kill_hook = /pre_kill_hook = /' $RECIPE | write_conf
	grep -q '^pre_kill_hook = /bin/sh /usr/share/doc/cgoom/examples/notify-desktop$' "$CGOOM_CONF" ||
		fail "examples/desktop.conf has no '#pre_kill_hook = ...notify-desktop' line to switch on"
	rm -f $NOTIFY_LOG
	SD_SINCE=$(date '+%Y-%m-%d %H:%M:%S')
	session_start
	cgoom_start
	scope vm-tab app.slice "memhog 400 20" MemoryMax=200M MemorySwapMax=0
	end=$(sd_deadline 60)
	until [ "$(cat "$CG$UCG/app.slice/vm-tab.scope/memory.max" 2>/dev/null)" = $((200 * 1024 * 1024)) ]; do
		sd_before "$end" || { diag_file "$VM_TMP/vm-tab.err"; fail "no vm-tab.scope with memory.max 200M"; }
		sleep 0.2
	done
	end=$(sd_deadline 90)
	until grep -q "^uid=$DUID " $NOTIFY_LOG 2>/dev/null; do
		sd_before "$end" || break
		sleep 0.5
	done
	cg_journal notice | grep -E 'sent SIG|victim:' | sed 's/^/    /'
	cg_journal warning | grep -E 'pre_kill_hook|EPERM|EACCES' > "$VM_TMP/hook.warn"
	while IFS= read -r l; do diag "  notify: $l"; done < "$VM_TMP/hook.warn"
	cgoom_stop
	session_stop
	systemctl unmask --runtime systemd-oomd.service systemd-oomd.socket > /dev/null 2>&1
	grep -q "^uid=$DUID .*Out of memory: stopping vm-tab .*is at its memory limit" $NOTIFY_LOG 2>/dev/null ||
		fail "no notification for uid $DUID: [$(cat $NOTIFY_LOG 2>/dev/null)]"
	diag "notification: $(head -n 1 $NOTIFY_LOG)"
fi

[ -z "${BAD:-}" ] || fail "cgoom kept the session and the terminal in $KEPT of ${DESKTOP_CGOOM_REPS:-1} round(s)${BAD:-}"
msg="rounds:$ROUNDS"
want cgoom && msg="$msg| cgoom: the browser only, the session and the terminal whole in $KEPT of ${DESKTOP_CGOOM_REPS:-1} round(s)"
want notify && msg="$msg| the hook told uid $DUID"
pass "$msg"
