# reload (systemd guest): `systemctl reload cgoom` with a broken
# /etc/cgoom.conf keeps the daemon running (same MainPID, active) and
# logs the error as FILE:LINE at err priority; a reload with a good file
# afterwards is accepted (no new error).
# vm-timeout: 240

write_conf <<'CONF'
[daemon]
margin = 2%
CONF
cgoom_start
pid0=$(sd_prop cgoom.service MainPID)
printf '[daemon]\nmargin = 2%%\nguard_band = 48M\nthis is not a setting\n' > "$CGOOM_CONF"
systemctl reload cgoom.service || fail "systemctl reload cgoom failed (exit $?)"
end=$(sd_deadline 20)
until cg_journal err | grep -q '/etc/cgoom.conf:4'; do
	sd_before "$end" || { cg_journal debug | tail -n 15 > "$VM_TMP/j"; diag_file "$VM_TMP/j"; fail "no '/etc/cgoom.conf:4' error in journalctl -u cgoom -p err within 20 s"; }
	sleep 0.1
done
cg_journal err | sed 's/^/    /'
sleep 1
[ "$(systemctl is-active cgoom.service)" = active ] || fail "cgoom.service is $(systemctl is-active cgoom.service) after a bad reload"
[ "$(sd_prop cgoom.service MainPID)" = "$pid0" ] || fail "cgoom restarted (MainPID $pid0 -> $(sd_prop cgoom.service MainPID)): the old config was not kept in-process"
nerr=$(cg_journal err | wc -l)
write_conf <<'CONF'
[daemon]
margin = 3%
CONF
systemctl reload cgoom.service || fail "second reload failed"
sleep 2
[ "$(cg_journal err | wc -l)" = "$nerr" ] || fail "a good config after a bad one logged a new error: $(cg_journal err | tail -n 1)"
[ "$(systemctl is-active cgoom.service)" = active ] || fail "cgoom.service not active after a good reload"
pass "bad reload kept PID $pid0 running, logged $(cg_journal err | grep -o '/etc/cgoom.conf:[0-9]*' | head -n 1)"
