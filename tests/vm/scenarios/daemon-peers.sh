# daemon-peers: a second `cgoom run` started by hand beside a running one
# (as beside cgoom.service) is told at start, with the first one's PID,
# that another cgoom kills here; a dry run beside them is told too but is
# never counted itself. The guard band is the first daemon's: the second
# finds its trusted.cgoom.guard record, its writer still running, and
# leaves memory.high to it (it wrote the same value over it before, and
# took it for the operator's); the first puts memory.high back. A daemon
# whose band someone replaced (with max) leaves it and says what it is
# now as the file says it ("now max", not 18446744073709551615).
# vm-timeout: 60

write_conf <<CONF
[daemon]
guard_band = 32M
CONF
cg_make /work 400M
cg_enable /work +memory
cgoom --config "$CGOOM_CONF" run > "$VM_TMP/a.log" 2>&1 &
A=$!
wait_watching "$VM_TMP/a.log" $A
cgoom --config "$CGOOM_CONF" run --dry-run > "$VM_TMP/dry.log" 2>&1 &
D=$!
wait_watching "$VM_TMP/dry.log" $D
cgoom --config "$CGOOM_CONF" run > "$VM_TMP/b.log" 2>&1 &
B=$!
wait_watching "$VM_TMP/b.log" $B
high=$(cg_get /work memory.high)
kill -TERM $A; wait $A
after_a=$(cg_get /work memory.high)
kill -TERM $B; wait $B
kill -TERM $D; wait $D
for l in a dry b; do say "$l:"; sed 's/^/    /' "$VM_TMP/$l.log"; done
grep -q 'OOM killers would race' "$VM_TMP/a.log" && fail "the first daemon, alone, warned"
grep -q "another cgoom is running (PID $A): two userspace OOM killers would race" "$VM_TMP/b.log" ||
	fail "the second daemon did not name the first ($A)"
[ "$(grep -c 'OOM killers would race' "$VM_TMP/b.log")" = 1 ] ||
	fail "the second daemon warned $(grep -c 'OOM killers would race' "$VM_TMP/b.log") times (the dry run counted?)"
grep -q "another cgoom is running (PID $A)" "$VM_TMP/dry.log" || fail "the dry run was not told about $A"
[ "$high" = $((400 * 1048576 - 32 * 1048576)) ] || fail "memory.high was $high with both running"
[ "$after_a" = max ] || fail "the first daemon left memory.high at $after_a"
[ "$(cg_get /work memory.high)" = max ] || fail "memory.high ends at $(cg_get /work memory.high)"
grep -q "/work: memory.high $((400 * 1048576 - 32 * 1048576)) is the guard band of cgoom PID $A, still running: left to it" "$VM_TMP/b.log" ||
	fail "the second daemon did not leave the first's band to it"
grep -q '/work: memory.high restored' "$VM_TMP/b.log" && fail "the second daemon restored a band it never wrote"
grep -q 'guard band of cgoom PID' "$VM_TMP/dry.log" && fail "the dry run (which writes no band) was told about the first's band"
# a band replaced by hand while the daemon runs
cgoom --config "$CGOOM_CONF" run > "$VM_TMP/c.log" 2>&1 &
C=$!
wait_watching "$VM_TMP/c.log" $C
cg_set /work memory.high max
kill -TERM $C; wait $C
grep -q '/work: memory.high was changed by someone else (now max); leaving it' "$VM_TMP/c.log" ||
	fail "the daemon did not say memory.high is now max: $(grep /work "$VM_TMP/c.log")"
pass "a second cgoom run named the first (PID $A), not the dry run, and left its band to it; memory.high back to max, a band replaced said as max"
