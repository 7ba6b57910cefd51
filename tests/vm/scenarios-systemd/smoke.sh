# smoke (systemd guest): the .deb is installed but neither enabled nor
# started; `systemctl enable --now cgoom` runs the hardened unit; in a
# slice domain (vm.slice, MemoryMax=400M, guard_band 48M, oom_policy
# cgroup) a service growing at 25 MiB/s is killed while a larger service
# with ManagedOOMPreference=avoid (systemd's user.oomd_avoid xattr) and a
# small one live; the journal has the trigger, decision and kill at
# notice or more urgent; nothing logged EPERM; `systemctl stop cgoom`
# restores the slice's memory.high.
# vm-timeout: 600

dpkg-query -W -f='${Status}' cgoom | grep -q 'install ok installed' || fail "cgoom .deb not installed"
[ "$(systemctl is-enabled cgoom.service 2>&1)" = disabled ] || fail "cgoom.service is $(systemctl is-enabled cgoom.service 2>&1) after install, expected disabled"
[ "$(systemctl is-active cgoom.service 2>&1)" = inactive ] || fail "cgoom.service is $(systemctl is-active cgoom.service 2>&1) after install, expected inactive"

cat > /run/systemd/system/vm.slice <<'UNIT'
[Slice]
MemoryMax=400M
UNIT
systemctl daemon-reload
write_conf <<'CONF'
[daemon]
guard_band = 48M
event_log = /var/log/cgoom/events.jsonl
[cgroup "/vm.slice"]
oom_policy = cgroup
CONF
EV=/var/log/cgoom/events.jsonl
rm -f "$EV"

sd_hog vm-big 200 -- --slice=vm.slice -p ManagedOOMPreference=avoid
sd_hog vm-small 40 -- --slice=vm.slice
sd_hogs_wait 60
a=$(getfattr --only-values -n user.oomd_avoid "$CG/vm.slice/vm-big.service" 2>/dev/null)
[ "$a" = 1 ] || fail "systemd did not write user.oomd_avoid=1 on vm-big.service (got '$a')"
high0=$(cg_get /vm.slice memory.high)

t0=$(up_ms)
cgoom_start
say "cgoom.service up in $(( $(up_ms) - t0 )) ms"
HIGH=$(( (400 - 48) * 1024 * 1024 ))
i=0
until [ "$(cg_get /vm.slice memory.high)" = $HIGH ]; do
	i=$((i + 1)); [ $i -gt 100 ] && fail "memory.high of vm.slice is $(cg_get /vm.slice memory.high), expected $HIGH (max - guard_band)"
	sleep 0.1
done

sd_hog vm-grow 300 25 -- --slice=vm.slice
sd_wait_dead 60 vm-grow || { sd_hog_table; cg_journal info | tail -n 30 > "$VM_TMP/j"; diag_file "$VM_TMP/j" 30; fail "the growing service was not killed within 60 s"; }
sleep 1
sd_hog_table
died=$(sd_dead vm-big vm-small vm-grow)
[ "$died" = vm-grow ] || fail "dead: [$died], expected only vm-grow (vm-big has ManagedOOMPreference=avoid)"
oomk=$(sed -n 's/^oom_kill //p' "$CG/vm.slice/memory.events")
[ "$oomk" = 0 ] || fail "the kernel OOM-killed $oomk in vm.slice: cgoom was late"

cg_journal notice > "$VM_TMP/notice"
say "journalctl -u cgoom -p notice:"; sed 's/^/    /' "$VM_TMP/notice"
for w in 'trigger' 'decision' 'sent SIGKILL'; do
	grep -q "vm.slice: .*$w\|vm.slice: $w" "$VM_TMP/notice" || fail "no '$w' line for /vm.slice in journalctl -u cgoom -p notice"
done
# the kill itself is logged at notice: its priority must be <= 5
journalctl --no-pager -q -u cgoom.service --since "$SD_SINCE" -o json 2>/dev/null |
	grep '"MESSAGE":"[^"]*sent SIGKILL' | grep -q '"PRIORITY":"[0-5]"' ||
	fail "the kill line is not logged at notice or higher"

if cg_journal debug | grep -E -i 'EPERM|Operation not permitted|Permission denied|EACCES' > "$VM_TMP/eperm"; then
	diag_file "$VM_TMP/eperm"
	fail "cgoom.service logged a permission error under the hardened unit"
fi

systemctl stop cgoom.service || fail "systemctl stop cgoom failed"
high1=$(cg_get /vm.slice memory.high)
[ "$high1" = "$high0" ] || fail "after systemctl stop, vm.slice memory.high is $high1, expected $high0 (before cgoom)"
pass "avoid honoured, grower killed (Result=$(sd_result vm-grow)), journal ok, no EPERM, memory.high restored to $high1"
