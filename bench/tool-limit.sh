# bench/tool-limit.sh: the "limit" tool, an oracle, not a peer (sourced by
# bench/guest.sh). Told the spec's victim in advance, `benchhelp limit`
# samples the scenario's own line at 1 kHz (mlocked, -1000, SCHED_FIFO)
# and SIGKILLs the victim on the first sample past it: its reaction is
# the fastest this guest allows (sampling phase + kill + exit), and
# cgoom's reaction over it says how close to that cgoom comes.
tool_start_limit() { TPID= ; }
tool_rep_limit() { # SCEN VICTIM MON_ARGS...
	TLOG=$T/tool.limit.$1.log
	rm -f "$TLOG"
	v=$2
	shift 2
	benchhelp limit "$TLOG" "$v" "$@" &
	LPID=$!
	CPID=$LPID
	i=0
	until grep -q -e '^armed' -e '^gone' "$TLOG" 2>/dev/null || [ $i -gt 100 ]; do
		sleep 0.01; i=$((i + 1))
	done
}
tool_killed_limit() { grep -q "^killed $1 " "$TLOG" 2>/dev/null; }
tool_rep_end_limit() {
	kill "$LPID" 2>/dev/null
	wait "$LPID" 2>/dev/null
	LPID=
}
