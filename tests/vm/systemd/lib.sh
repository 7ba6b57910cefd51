# tests/vm/systemd/lib.sh: helpers for the systemd guest's scenarios
# (bash; sourced after tests/vm/lib.sh, whose pass/fail/diag, is_dead,
# wait_dead, json_* and ev_* helpers keep their meaning). In the guest it
# is /vm/systemd-lib.sh; a --script file finds it at $CGOOM_SD_LIB.
#
# Hogs here are systemd units (systemd-run), never processes moved into
# cgroups by hand: PID 1 owns the tree. Every transient unit a scenario
# makes is named vm-*, so sd_cleanup_all can find it.

export SYSTEMD_PAGER=cat SYSTEMD_COLORS=0
HOGS="$VM_TMP/sdhogs"

# sd_outfiles UNIT: fresh output files a unit running as another user
# (User=) can open: systemd opens StandardOutput=file: with the unit's
# credentials, and $VM_TMP is root's.
sd_outfiles() {
	rm -f "$VM_TMP/$1.out" "$VM_TMP/$1.err"
	: > "$VM_TMP/$1.out"; : > "$VM_TMP/$1.err"
	chmod 666 "$VM_TMP/$1.out" "$VM_TMP/$1.err"
}

# sd_hog UNIT MB [RATE] [-- systemd-run OPTIONS...]: start memhog as the
# transient service UNIT.service (its output in $VM_TMP/UNIT.out); the
# options come before the command, e.g. --slice=vm.slice -p MemoryMax=300M.
sd_hog() {
	local unit=$1 mb=$2 rate= opts=()
	shift 2
	if [ $# -gt 0 ] && [ "$1" != -- ]; then rate=$1; shift; fi
	[ "${1:-}" = -- ] && { shift; opts=("$@"); }
	sd_outfiles "$unit"
	systemd-run --quiet --unit="$unit" \
		-p StandardOutput="file:$VM_TMP/$unit.out" -p StandardError="file:$VM_TMP/$unit.err" \
		"${opts[@]}" /vm/bin/memhog "$mb" $rate ||
		fail "systemd-run --unit=$unit ${opts[*]} memhog $mb $rate failed"
	echo "$unit $mb 1" >> "$HOGS"
}

# sd_hog_sh UNIT NREADY SHELL_COMMAND [systemd-run OPTIONS...]: a service
# running `sh -c SHELL_COMMAND` that starts NREADY memhogs (each prints
# "ready PID" to the unit's output file).
sd_hog_sh() {
	local unit=$1 n=$2 cmd=$3
	shift 3
	sd_outfiles "$unit"
	systemd-run --quiet --unit="$unit" \
		-p StandardOutput="file:$VM_TMP/$unit.out" -p StandardError="file:$VM_TMP/$unit.err" \
		"$@" /bin/sh -c "$cmd" || fail "systemd-run --unit=$unit $* sh -c '$cmd' failed"
	echo "$unit sh $n" >> "$HOGS"
}

# sd_hog_pids UNIT: the pids of UNIT's memhogs (from their "ready" lines).
sd_hog_pids() { sorted_pids "$(sed -n 's/^ready //p' "$VM_TMP/$1.out" 2>/dev/null)"; }

# sd_hogs_wait [SECONDS]: every sd_hog has printed "ready PID".
sd_hogs_wait() {
	local end missing unit mb n
	end=$(sd_deadline "${1:-90}")
	while :; do
		missing=0
		while read -r unit mb n; do
			[ "$(grep -c '^ready ' "$VM_TMP/$unit.out" 2>/dev/null || true)" -ge "$n" ] 2>/dev/null && continue
			if [ "$(systemctl is-active "$unit.service")" != active ]; then
				diag_file "$VM_TMP/$unit.err"
				fail "hog $unit ($mb MiB) ended before ready: $(systemctl show -P Result "$unit.service")"
			fi
			missing=$((missing + 1))
		done < "$HOGS"
		[ $missing = 0 ] && return 0
		sd_before "$end" || fail "$missing hog unit(s) not ready after ${1:-90}s"
		sleep 0.1
	done
}

sd_prop() { systemctl show -P "$2" "$1" 2>/dev/null; }
sd_pid() { sd_prop "$1.service" MainPID; }
# sd_cg UNIT: the unit's cgroup as cgoom names it (/system.slice/x.service)
sd_cg() { sd_prop "$1" ControlGroup; }
sd_result() { sd_prop "$1.service" Result; }
sd_state() { systemctl is-active "$1.service" 2>/dev/null; }

# sd_hog_table: unit, pid, state and result of every hog (for the log).
sd_hog_table() {
	local unit mb n
	printf '    %-16s %5s %-10s %-10s %s\n' UNIT MiB STATE RESULT CGROUP
	while read -r unit mb n; do
		printf '    %-16s %5s %-10s %-10s %s\n' "$unit" "$mb" "$(sd_state "$unit")" \
			"$(sd_result "$unit")" "$(sd_cg "$unit.service")"
	done < "$HOGS"
}

# sd_dead UNITS...: the units (of those named) whose service is no longer
# running, space separated, in the order given.
sd_dead() {
	local r= u
	for u in "$@"; do
		case "$(sd_state "$u")" in active|activating|deactivating) ;; *) r="$r $u" ;; esac
	done
	echo "${r# }"
}

# deadlines by the clock, not by counting loops: under TCG on a loaded
# host one systemctl call can take a second.
# sd_deadline SECONDS: prints the uptime (ms) SECONDS from now
sd_deadline() { echo $(( $(up_ms) + $1 * 1000 )); }
# sd_before DEADLINE: true while the uptime is before DEADLINE
sd_before() { [ "$(up_ms)" -lt "$1" ]; }

# sd_wait_dead SECONDS UNIT: 0 once UNIT's service stopped running.
sd_wait_dead() {
	local end
	end=$(sd_deadline "$1")
	while sd_before "$end"; do
		[ -n "$(sd_dead "$2")" ] && return 0
		sleep 0.1
	done
	return 1
}

# The daemon as the operator runs it: the installed unit.
CGOOM_CONF=/etc/cgoom.conf
# journal lines of cgoom.service since this scenario began, at PRIO or
# more urgent (default notice), message text only
SD_SINCE=$(date '+%Y-%m-%d %H:%M:%S')
cg_journal() {
	journalctl --no-pager -q -u cgoom.service --since "$SD_SINCE" -p "${1:-notice}" -o cat 2>/dev/null
}
# cgoom_start: systemctl enable --now cgoom; waits for "watching N domain".
cgoom_start() {
	systemctl enable --now cgoom.service > "$VM_TMP/enable.out" 2>&1 ||
		{ diag_file "$VM_TMP/enable.out"; fail "systemctl enable --now cgoom failed"; }
	local end
	end=$(sd_deadline 30)
	until cg_journal info | grep -q 'watching [0-9]* domain'; do
		if ! sd_before "$end"; then
			cg_journal debug | tail -n 20 > "$VM_TMP/j"; diag_file "$VM_TMP/j"
			fail "cgoom.service did not log 'watching N domain(s)' within 30 s ($(systemctl is-active cgoom))"
		fi
		sleep 0.1
	done
}
cgoom_stop() { systemctl disable --now cgoom.service > /dev/null 2>&1; }

# sd_cleanup_all: after every scenario (run by /vm/job): stop cgoom and
# every vm-* unit, forget failed ones, remove the config.
sd_cleanup_all() {
	systemctl disable --now cgoom.service > /dev/null 2>&1
	systemctl reset-failed cgoom.service > /dev/null 2>&1
	local units
	units=$(systemctl list-units --all --plain --no-legend 'vm-*' | awk '{ print $1 }')
	[ -n "$units" ] && systemctl kill -s KILL $units > /dev/null 2>&1
	[ -n "$units" ] && systemctl stop $units > /dev/null 2>&1
	systemctl reset-failed > /dev/null 2>&1
	rm -f "$CGOOM_CONF" /etc/systemd/system/cgoom.service.d/vm-*.conf /run/systemd/system/vm*.slice \
		/run/systemd/system/*.d/vm-*.conf /run/systemd/oomd.conf.d/99-vm.conf
	swapoff -a 2>/dev/null
	rm -f /swapfile
	systemctl daemon-reload
	# scenarios may stop systemd-oomd (two killers); Debian runs it
	systemctl is-enabled -q systemd-oomd.service && systemctl start systemd-oomd.service 2>/dev/null
	left=$(systemctl list-units --all --plain --no-legend 'vm-*' | awk '$3 == "active" { print $1 }' | tr '\n' ' ')
	stray=$(pidof memhog)
	[ -n "$left$stray" ] || return 0
	echo "cleanup: units left: [${left% }] memhogs left: [$stray]"
	return 1
}

# skip REASON: the scenario cannot run here (a feature not in this build);
# the host reports "ok N - ... # SKIP REASON".
skip() { echo "SKIP $*" > "$VM_TMP/result"; say "SKIP: $*"; exit 0; }
