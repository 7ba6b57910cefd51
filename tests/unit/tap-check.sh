# SPDX-License-Identifier: MIT
# Sourced by the unit suite's shell tests: TAP numbering and an
# equality check. `i` counts the tests printed (a caller printing its own
# "ok $i ... # SKIP" line increments it first); `fail` is 1 once a check
# failed: end with `exit $fail`.
i=0
fail=0
check() { # NAME EXPECTED ACTUAL
	i=$((i + 1))
	if [ "$2" = "$3" ]; then
		echo "ok $i - $1"
	else
		echo "not ok $i - $1"
		echo "#   expected: $2"
		echo "#   got:      $3"
		fail=1
	fi
}
