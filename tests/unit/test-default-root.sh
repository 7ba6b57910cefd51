#!/bin/sh
# SPDX-License-Identifier: MIT
# SPEC 6 "Hosts", issue 14: with the default --cgroup-root, a host whose
# /sys/fs/cgroup is not a cgroup2 mount (v1 or hybrid) is refused by
# every verb with exit 2 and a message naming cgroup v2 and how to boot
# with it. Runs the real binary against the real host, read-only: every
# verb must stop before reading anything (kill and run only in dry-run).
# Skips when the host's /sys/fs/cgroup is cgroup2.
#   test-default-root.sh BUILD_DIR/cgoom
cgoom=${1:?usage: $0 PATH_TO_CGOOM}
verbs='explain|explain --json|explain /|kill --dry-run|kill --dry-run --full|run --dry-run|policy /'
n=$(printf '%s\n' "$verbs" | tr '|' '\n' | wc -l)
echo "TAP version 13"
echo "1..$n"
fstype=$(stat -f -c %T /sys/fs/cgroup 2>/dev/null)
i=0
if [ "$fstype" = cgroup2fs ]; then
	printf '%s\n' "$verbs" | tr '|' '\n' | while read -r v; do
		i=$((i + 1))
		echo "ok $i - $v # SKIP /sys/fs/cgroup is cgroup2 here: nothing to refuse"
	done
	exit 0
fi
echo "# /sys/fs/cgroup is '${fstype:-missing}', not cgroup2fs"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
# a config that cannot exist: the default /etc/cgoom.conf may be absent
# or anything on this host; the refusal must not depend on it
printf '' >"$tmp/empty.conf"
IFS='|'
for v in $verbs; do
	i=$((i + 1))
	unset IFS
	# shellcheck disable=SC2086 # v is a word list on purpose
	timeout 20 "$cgoom" --config "$tmp/empty.conf" $v >"$tmp/out" 2>"$tmp/err"
	rc=$?
	IFS='|'
	if [ $rc -eq 2 ] && grep -q 'unified cgroup v2 hierarchy' "$tmp/err" &&
		grep -q 'systemd.unified_cgroup_hierarchy=1' "$tmp/err" && [ ! -s "$tmp/out" ]; then
		echo "ok $i - $v exits 2 naming cgroup v2"
	else
		echo "not ok $i - $v: exit $rc (want 2 and the cgroup v2 message)"
		sed 's/^/# stdout: /' "$tmp/out" | head -5
		sed 's/^/# stderr: /' "$tmp/err" | head -5
		fail=1
	fi
done
exit $fail
