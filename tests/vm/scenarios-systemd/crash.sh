# crash (systemd guest): cgoom.service with guard_band 48M on a slice
# domain (vm.slice, MemoryMax=400M: memory.high 352M) is killed with
# `systemctl kill -s KILL`; Restart=always brings it back, and the new
# daemon finds the band by its trusted.cgoom.guard record under the
# hardened unit (CAP_SYS_ADMIN, the seccomp filter): it takes it over,
# a `systemctl reload` with guard_band = no puts the slice's memory.high
# back to what it was before cgoom (not the band), the record is gone,
# and `systemctl stop` leaves it so.
# vm-timeout: 600

cat > /run/systemd/system/vm.slice <<'UNIT'
[Slice]
MemoryMax=400M
UNIT
systemctl daemon-reload
systemctl start vm.slice
write_conf <<'CONF'
[daemon]
guard_band = 48M
CONF
high0=$(cg_get /vm.slice memory.high)
HIGH=$(( (400 - 48) * 1024 * 1024 ))
cgoom_start
pid0=$(sd_prop cgoom.service MainPID)
end=$(sd_deadline 20)
until [ "$(cg_get /vm.slice memory.high)" = $HIGH ]; do
	sd_before "$end" || fail "memory.high of vm.slice is $(cg_get /vm.slice memory.high), expected $HIGH"
	sleep 0.1
done
rec=$(getfattr --only-values -n trusted.cgoom.guard "$CG/vm.slice" 2>/dev/null)
[ -n "$rec" ] || fail "no trusted.cgoom.guard record on vm.slice under the hardened unit"
say "record: $rec"
systemctl kill -s KILL cgoom.service
end=$(sd_deadline 30)
until pid1=$(sd_prop cgoom.service MainPID) && [ "$pid1" != 0 ] && [ "$pid1" != "$pid0" ] &&
	cg_journal info | grep -q "PID $pid0) that did not exit cleanly"; do
	sd_before "$end" || { cg_journal debug | tail -n 15 > "$VM_TMP/j"; diag_file "$VM_TMP/j"; fail "cgoom.service did not come back and find the band within 30 s (MainPID $pid1)"; }
	sleep 0.2
done
[ "$(cg_get /vm.slice memory.high)" = $HIGH ] || fail "after the restart memory.high is $(cg_get /vm.slice memory.high), expected the band taken over ($HIGH)"
write_conf <<'CONF'
[daemon]
guard_band = no
CONF
systemctl reload cgoom.service || fail "systemctl reload failed"
end=$(sd_deadline 20)
until [ "$(cg_get /vm.slice memory.high)" = "$high0" ]; do
	sd_before "$end" || fail "guard_band = no after a SIGKILL and a restart: memory.high $(cg_get /vm.slice memory.high), expected $high0"
	sleep 0.1
done
getfattr --only-values -n trusted.cgoom.guard "$CG/vm.slice" > /dev/null 2>&1 && fail "the record stays after the band was restored"
if cg_journal debug | grep -E -i 'EPERM|Operation not permitted|Permission denied|EACCES' > "$VM_TMP/eperm"; then
	diag_file "$VM_TMP/eperm"
	fail "cgoom.service logged a permission error under the hardened unit"
fi
systemctl stop cgoom.service || fail "systemctl stop failed"
[ "$(cg_get /vm.slice memory.high)" = "$high0" ] || fail "after systemctl stop memory.high is $(cg_get /vm.slice memory.high)"
cg_journal info | grep -E 'did not exit cleanly|restored' | sed 's/^/    /'
pass "SIGKILL of cgoom.service: restarted (PID $pid0 -> $pid1), the band taken over, guard_band = no restored $high0, record gone"
