#!/bin/bash
# SPDX-License-Identifier: MIT
# bench/swaplib.sh's own_files: a tool's files of a swap run, by the
# scenarios it ran. The glob bench/swap used before (*-TOOL-rep*) gave
# oomd systemd-oomd's canary files too, so its stand-stills were aligned
# with another boot's clock (the run of 2026-12-06 19:52).
#   test-bench-own-files.sh SOURCE_ROOT
root=${1:?usage: $0 SOURCE_ROOT}
. "$root/bench/swaplib.sh" || exit 1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/probe" "$tmp/series"
for t in oomd systemd-oomd systemd-oomd-user cgoom cgoom2; do
	for sc in s-leak10-zram s-leak40-disk; do
		for r in 1 2; do
			: > "$tmp/probe/$sc-$t-rep$r.canary.txt"
			: > "$tmp/series/$sc-$t-rep$r.txt.gz"
		done
	done
done
echo "TAP version 13"
echo "1..4"
. "$(dirname "$0")/tap-check.sh"
names() { own_files "$tmp" "$@" | sed "s|^$tmp/[a-z]*/||" | tr '\n' ' '; }
check "oomd's canary files, not systemd-oomd's" \
	"s-leak10-zram-oomd-rep1.canary.txt s-leak10-zram-oomd-rep2.canary.txt s-leak40-disk-oomd-rep1.canary.txt s-leak40-disk-oomd-rep2.canary.txt " \
	"$(names probe canary.txt oomd s-leak10-zram s-leak40-disk)"
check "systemd-oomd's, not systemd-oomd-user's" \
	"s-leak40-disk-systemd-oomd-rep1.canary.txt s-leak40-disk-systemd-oomd-rep2.canary.txt " \
	"$(names probe canary.txt systemd-oomd s-leak40-disk)"
check "cgoom's series, not cgoom2's" \
	"s-leak10-zram-cgoom-rep1.txt.gz s-leak10-zram-cgoom-rep2.txt.gz " \
	"$(names series txt.gz cgoom s-leak10-zram)"
check "only the scenarios named" "" "$(names probe canary.txt oomd s-thrash)"
exit $fail
