# SPDX-License-Identifier: MIT
# bench/swaplib.sh: helpers of bench/swap, sourced by it and by
# tests/unit/test-bench-own-files.sh.

# own_files RUNDIR DIR SUFFIX TOOL SCEN...: the files
# RUNDIR/DIR/SCEN-TOOL-repN.SUFFIX that exist, one per line, scenario by
# scenario. Anchored on the scenario's name, so TOOL "oomd" does not take
# "systemd-oomd"'s files, as a glob *-oomd-rep* would. (Run paths have no
# spaces.)
own_files() {
	local rundir=$1 dir=$2 suffix=$3 tool=$4 sc f
	shift 4
	for sc in "$@"; do
		for f in "$rundir/$dir/$sc-$tool-rep"*".$suffix"; do
			[ -f "$f" ] && echo "$f"
		done
	done
	return 0
}
