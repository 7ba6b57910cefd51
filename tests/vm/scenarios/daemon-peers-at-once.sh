# daemon-peers-at-once: two `cgoom run` started at the same moment with
# guard_band = 48M on /work, ten times: only one of them writes the band
# (its trusted.cgoom.guard record is made with XATTR_CREATE; the other
# finds it and leaves the band to it). Before, both could read max,
# both write the band, and the first to exit took it away from the
# other, still running. memory.high is max once both are gone.
# vm-timeout: 120

write_conf <<CONF
[daemon]
guard_band = 48M
CONF
cg_make /work 400M
HIGH=$((400 * 1048576 - 48 * 1048576))
both=0
for round in 1 2 3 4 5 6 7 8 9 10; do
	cgoom --config "$CGOOM_CONF" run > "$VM_TMP/a.log" 2>&1 &
	A=$!
	cgoom --config "$CGOOM_CONF" run > "$VM_TMP/b.log" 2>&1 &
	B=$!
	wait_watching "$VM_TMP/a.log" $A
	wait_watching "$VM_TMP/b.log" $B
	wa=$(grep -c '/work: guard band 48.0 MiB: memory.high =' "$VM_TMP/a.log")
	wb=$(grep -c '/work: guard band 48.0 MiB: memory.high =' "$VM_TMP/b.log")
	h=$(cg_get /work memory.high)
	# the one that wrote goes first: the other must not be left
	# believing in a band that is gone
	if [ "$wa" = 1 ]; then first=$A; second=$B; else first=$B; second=$A; fi
	kill -TERM $first; wait $first
	kill -TERM $second; wait $second
	after=$(cg_get /work memory.high)
	race=$(cat "$VM_TMP/a.log" "$VM_TMP/b.log" | grep -c 'recorded a guard band here meanwhile')
	say "round $round: wrote a=$wa b=$wb (the other told by XATTR_CREATE: $race), memory.high $h with both, $after after"
	[ $((wa + wb)) -ge 2 ] && both=$((both + 1))
	[ "$h" = $HIGH ] || fail "round $round: memory.high $h with both running, expected $HIGH"
	[ "$after" = max ] || fail "round $round: memory.high $after after both stopped"
	grep -q 'changed by someone else' "$VM_TMP/a.log" "$VM_TMP/b.log" &&
		{ grep -h /work "$VM_TMP/a.log" "$VM_TMP/b.log" | sed 's/^/    /'; fail "round $round: one daemon's band was taken away by the other"; }
done
[ $both = 0 ] || fail "both daemons wrote the band in $both of 10 rounds"
pass "two daemons started at once: one band, one writer, in 10 of 10 rounds; max after"
