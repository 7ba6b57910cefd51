#!/bin/bash
# SPDX-License-Identifier: MIT
# tests/daemon/run-fixture.sh BUILD_DIR: the daemon (`cgoom run --dry-run`
# with CGOOM_RUN_ONCE=1) on fixture trees built by tests/fixtures/build.py.
# Checks that it evaluates the triggers from the fixture's files and logs
# what it would kill, and nothing when there is no trigger. Prints TAP.
# PIDs are above the host's pid_max, so nothing real can ever be hit.
set -u
BUILD=${1:?usage: run-fixture.sh BUILD_DIR}
HERE=$(cd "$(dirname "$0")" && pwd)
CGOOM=$(cd "$BUILD" && pwd)/cgoom
BUILDER="$HERE/../fixtures/build.py"
T=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$T"' EXIT
N=0
FAILED=0

ok() { N=$((N + 1)); echo "ok $N - $*"; }
notok() { N=$((N + 1)); FAILED=$((FAILED + 1)); echo "not ok $N - $1"; shift; for l in "$@"; do echo "# $l"; done; }
check() { # check NAME CONDITION-EXIT-STATUS [DIAG-FILE]
	if [ "$2" = 0 ]; then ok "$1"; else notok "$1" "see below"; [ -n "${3:-}" ] && sed 's/^/#   /' "$3" | head -n 60; fi
}

# build NAME JSON: writes $T/NAME/{cg,proc,cgoom.conf}
build() {
	mkdir -p "$T/$1"
	printf '%s\n' "$2" > "$T/$1/scenario.json"
	python3 "$BUILDER" "$T/$1/scenario.json" "$T/$1/tree" > "$T/$1/build.log" 2>&1 || {
		cat "$T/$1/build.log"; return 1; }
	[ -f "$T/$1/tree/cgoom.conf" ] || : > "$T/$1/tree/cgoom.conf"
}

# run NAME [EXTRA CONFIG LINES]: cgoom run --dry-run once; output in $T/NAME/out, rc in RC
run() {
	local d="$T/$1"; shift
	for l in "$@"; do echo "$l" >> "$d/tree/cgoom.conf"; done
	CGOOM_RUN_ONCE=1 timeout 20 "$CGOOM" --cgroup-root "$d/tree/cg" --proc-root "$d/tree/proc" \
		--config "$d/tree/cgoom.conf" run --dry-run > "$d/out" 2>&1
	RC=$?
}

echo "TAP version 13"
[ -x "$CGOOM" ] || { echo "1..0 # SKIP no $CGOOM"; exit 0; }
command -v python3 > /dev/null || { echo "1..0 # SKIP no python3"; exit 0; }

# 1. system: MemAvailable under 5% -> would kill the biggest process (policy none)
build sys-low '{
  "no_base_procs": true,
  "system": {"mem_total": "4G"},
  "meminfo": {"MemAvailable": 100000},
  "cgroups": {"/a": {}, "/b": {}},
  "procs": [
    {"pid": 4100001, "cgroup": "/a", "rss": 300},
    {"pid": 4100002, "cgroup": "/b", "rss": 200}
  ]
}' || exit 1
run sys-low "[daemon]" "event_log = $T/sys-low/events.jsonl" "metrics_file = $T/sys-low/metrics.prom"
check "system low: exit 0" "$([ $RC = 0 ]; echo $?)" "$T/sys-low/out"
check "system low: trigger memory logged" "$(grep -q '/: trigger memory: MemAvailable' "$T/sys-low/out"; echo $?)" "$T/sys-low/out"
check "system low: explain ranking logged" "$(grep -q '4100001' "$T/sys-low/out" && grep -q 'decision (policy none)' "$T/sys-low/out"; echo $?)" "$T/sys-low/out"
check "system low: would kill 4100001 only" "$(grep -q 'dry run: would kill \[4100001\] via pidfd' "$T/sys-low/out"; echo $?)" "$T/sys-low/out"
check "event log: start, trigger, decision, dry_run lines" \
	"$(r=0; for e in start trigger decision dry_run stop; do grep -q "\"event\": \"$e\"" "$T/sys-low/events.jsonl" || r=1; done; echo $r)" "$T/sys-low/events.jsonl"
check "event log: every line is JSON" \
	"$(python3 -c 'import json,sys; [json.loads(l) for l in open(sys.argv[1])]' "$T/sys-low/events.jsonl"; echo $?)" "$T/sys-low/events.jsonl"
check "event log: decision embeds explain JSON with victim pids" \
	"$(python3 -c '
import json,sys
ds=[json.loads(l) for l in open(sys.argv[1])]
d=[x for x in ds if x["event"]=="decision"][0]["decision"]
sys.exit(0 if d["victim"]["pids"]==[4100001] and d["domain"]=="/" else 1)' "$T/sys-low/events.jsonl"; echo $?)" "$T/sys-low/events.jsonl"
check "metrics: triggers_total and cgoom_up 0 after exit" \
	"$(grep -q 'cgoom_triggers_total{domain="/",kind="memory"} 1' "$T/sys-low/metrics.prom" && grep -q '^cgoom_up 0' "$T/sys-low/metrics.prom" && grep -q '^cgoom_domains 1' "$T/sys-low/metrics.prom"; echo $?)" "$T/sys-low/metrics.prom"

# 2. nothing low -> nothing would be killed
build quiet '{
  "no_base_procs": true,
  "system": {"mem_total": "4G"},
  "cgroups": {"/a": {"max": "1G"}},
  "procs": [{"pid": 4100001, "cgroup": "/a", "rss": 300}]
}' || exit 1
run quiet
check "quiet: exit 0, no trigger, no kill" \
	"$([ $RC = 0 ] && ! grep -q 'trigger\|would kill' "$T/quiet/out" && grep -q 'domain /a: memory.max' "$T/quiet/out"; echo $?)" "$T/quiet/out"

# 3. a cgroup domain at memory.max with memory.events max > 0
build cg-max '{
  "no_base_procs": true,
  "system": {"mem_total": "4G"},
  "cgroups": {
    "/work": {"max": "400M", "current": "398M", "events": {"max": 12}},
    "/work/x": {}, "/work/y": {},
    "/other": {}
  },
  "procs": [
    {"pid": 4100011, "cgroup": "/work/x", "rss": 150},
    {"pid": 4100012, "cgroup": "/work/x", "rss": 100},
    {"pid": 4100013, "cgroup": "/work/y", "rss": 200},
    {"pid": 4100014, "cgroup": "/other", "rss": 900}
  ],
  "config": ["[cgroup \"/work\"]", "oom_policy = cgroup"]
}' || exit 1
run cg-max "[daemon]" "guard_band = 32M"
check "cgroup max: trigger max on /work" "$(grep -q '/work: trigger max: memory.current' "$T/cg-max/out"; echo $?)" "$T/cg-max/out"
check "cgroup max: would kill /work/x (footprint 250M beats 200M), not /other" \
	"$(grep -q '/work: dry run: would kill \[4100011\]' "$T/cg-max/out" && ! grep -q 'would kill.*4100014' "$T/cg-max/out"; echo $?)" "$T/cg-max/out"
check "cgroup max: dry run leaves memory.high alone" \
	"$([ "$(cat "$T/cg-max/tree/cg/work/memory.high")" = max ]; echo $?)" "$T/cg-max/out"

# 4. near max but no event: no trigger (the counters did not rise)
build cg-noevent '{
  "no_base_procs": true,
  "system": {"mem_total": "4G"},
  "cgroups": {"/work": {"max": "400M", "current": "398M"}},
  "procs": [{"pid": 4100021, "cgroup": "/work", "rss": 300}]
}' || exit 1
run cg-noevent
check "cgroup near max without memory.events: no trigger" \
	"$([ $RC = 0 ] && ! grep -q 'trigger' "$T/cg-noevent/out"; echo $?)" "$T/cg-noevent/out"

# 5. without --dry-run on a fixture: refused, exit 2
CGOOM_RUN_ONCE=1 timeout 20 "$CGOOM" --cgroup-root "$T/sys-low/tree/cg" --proc-root "$T/sys-low/tree/proc" \
	--config "$T/sys-low/tree/cgoom.conf" run > "$T/refuse.out" 2>&1
RC=$?
check "fixture without --dry-run: refused with exit 2" \
	"$([ $RC = 2 ] && grep -q 'refusing to run' "$T/refuse.out"; echo $?)" "$T/refuse.out"

# 6. a bad config: FILE:LINE: msg, exit 2
printf '[daemon]\nkill_wait = forever\n' > "$T/bad.conf"
CGOOM_RUN_ONCE=1 timeout 20 "$CGOOM" --cgroup-root "$T/sys-low/tree/cg" --proc-root "$T/sys-low/tree/proc" \
	--config "$T/bad.conf" run --dry-run > "$T/bad.out" 2>&1
RC=$?
check "bad config: exit 2 with FILE:LINE" "$([ $RC = 2 ] && grep -q "$T/bad.conf:2: " "$T/bad.out"; echo $?)" "$T/bad.out"

# 7. swap present and still free: no system trigger despite low MemAvailable
build swap-ok '{
  "no_base_procs": true,
  "system": {"mem_total": "4G", "swap_total": "2G"},
  "meminfo": {"MemAvailable": 100000},
  "procs": [{"pid": 4100031, "cgroup": "/", "rss": 300}]
}' || exit 1
run swap-ok
check "low RAM, free swap: no trigger" "$([ $RC = 0 ] && ! grep -q 'trigger' "$T/swap-ok/out"; echo $?)" "$T/swap-ok/out"

# 8. at memory.max full of page cache, `max` events counted: no trigger
# (page cache at the limit alone never fires; SPEC 6)
build cg-cache '{
  "no_base_procs": true,
  "system": {"mem_total": "4G"},
  "cgroups": {"/cache": {"max": "400M", "current": "399M", "events": {"max": 500}}},
  "procs": [{"pid": 4100041, "cgroup": "/cache", "rss": 380, "file": 340}]
}' || exit 1
run cg-cache "[daemon]" "event_log = $T/cg-cache/events.jsonl"
check "page cache at memory.max, memory.events max rising: no trigger, no kill" \
	"$([ $RC = 0 ] && ! grep -q 'trigger\|would kill' "$T/cg-cache/out" && ! grep -q '"event": "trigger"' "$T/cg-cache/events.jsonl"; echo $?)" "$T/cg-cache/out"

# 9. unreclaimable memory within the margin, no event at all: fires before
# the limit (trigger unreclaimable)
build cg-anon '{
  "no_base_procs": true,
  "system": {"mem_total": "4G"},
  "cgroups": {"/work": {"max": "400M", "current": "399M"}, "/work/x": {}, "/work/y": {}},
  "procs": [
    {"pid": 4100051, "cgroup": "/work/x", "rss": 200},
    {"pid": 4100052, "cgroup": "/work/y", "rss": 194}
  ],
  "config": ["[cgroup \"/work\"]", "oom_policy = cgroup"]
}' || exit 1
run cg-anon "[daemon]" "event_log = $T/cg-anon/events.jsonl"
check "unreclaimable within the margin, no event: trigger unreclaimable, would kill /work/x" \
	"$(grep -q '/work: trigger unreclaimable: unreclaimable' "$T/cg-anon/out" && grep -q '/work: dry run: would kill \[4100051\]' "$T/cg-anon/out" && grep -q '"unreclaimable": [0-9]' "$T/cg-anon/events.jsonl"; echo $?)" "$T/cg-anon/out"

# 10. periodic sampling: the daemon (not once) starts with /work far from
# its line; the tree then comes within the margin without any event (a
# fixture's files cannot wake epoll), so only the sampling timer can see
# it. (A daemon whose timer never armed slept through this.)
build cg-late '{
  "no_base_procs": true,
  "system": {"mem_total": "4G"},
  "cgroups": {"/work": {"max": "400M", "current": "100M"}, "/work/x": {}, "/work/y": {}},
  "procs": [
    {"pid": 4100061, "cgroup": "/work/x", "rss": 50},
    {"pid": 4100062, "cgroup": "/work/y", "rss": 40}
  ],
  "config": ["[cgroup \"/work\"]", "oom_policy = cgroup"]
}' || exit 1
d="$T/cg-late"
timeout 10 "$CGOOM" --cgroup-root "$d/tree/cg" --proc-root "$d/tree/proc" \
	--config "$d/tree/cgoom.conf" run --dry-run > "$d/out" 2>&1 &
late=$!
sleep 1.5
# in place (same inodes: the daemon keeps fds): /work's usage and stats
# as cg-anon's, 1 MiB from memory.max
for f in memory.current memory.stat; do
	cat "$T/cg-anon/tree/cg/work/$f" > "$d/tree/cg/work/$f"
done
i=0
until grep -q '/work: dry run: would kill' "$d/out" || [ $i -ge 50 ]; do sleep 0.1; i=$((i + 1)); done
kill -TERM $late 2>/dev/null
wait $late 2>/dev/null
check "sampling timer: usage that comes within the margin later, with no event, is seen (would kill)" \
	"$(grep -q '/work: trigger unreclaimable' "$d/out" && grep -q '/work: dry run: would kill' "$d/out"; echo $?)" "$d/out"

# 11. the fd budget (issue 21): 300 quiet domains and one at its line
# under an RLIMIT_NOFILE (soft and hard) of 700, less than their files
# need. Before the budget the walk stopped silently at about 70 domains
# (the squeezed one never watched), or the decision found its snapshot
# short of fds ("no victim", "selecting: Invalid argument"). Now every
# domain is watched, the ones without kept files are named, and the
# decision is whole.
python3 - "$T/many.json" <<'PY'
import json, sys
cg = {"/fleet": {}}
for i in range(300):
    cg["/fleet/c%03d" % i] = {"max": "128M"}
cg.update({"/fleet/hot1": {"max": "400M", "current": "399M"}, "/fleet/hot1/x": {}, "/fleet/hot1/y": {}})
json.dump({"no_base_procs": True, "system": {"mem_total": "4G"}, "cgroups": cg,
           "procs": [{"pid": 4100071, "cgroup": "/fleet/hot1/x", "rss": 200},
                     {"pid": 4100072, "cgroup": "/fleet/hot1/y", "rss": 194}],
           "config": ["[cgroup \"/fleet/hot1\"]", "oom_policy = cgroup"]}, open(sys.argv[1], "w"))
PY
build many "$(cat "$T/many.json")" || exit 1
d="$T/many"
echo "[daemon]" >> "$d/tree/cgoom.conf"
echo "event_log = $d/events.jsonl" >> "$d/tree/cgoom.conf"
(ulimit -n 700 && CGOOM_RUN_ONCE=1 timeout 60 "$CGOOM" --cgroup-root "$d/tree/cg" --proc-root "$d/tree/proc" \
	--config "$d/tree/cgoom.conf" run --dry-run > "$d/out" 2>&1)
RC=$?
check "fd limit 700, 302 domains: every domain watched" \
	"$([ $RC = 0 ] && grep -q 'watching 302 domains' "$d/out"; echo $?)" "$d/out"
check "fd limit 700: the squeezed domain's decision is whole (would kill 4100071)" \
	"$(grep -q '/fleet/hot1: dry run: would kill \[4100071\]' "$d/out" && ! grep -q 'Too many open files\|Invalid argument\|no victim' "$d/out"; echo $?)" "$d/out"
check "fd limit 700: the polled domains are named at once (log and event log)" \
	"$(grep -q 'fd budget: RLIMIT_NOFILE 700 leaves no room for the files of [0-9]* domains.*/fleet/c' "$d/out" &&
	   python3 -c '
import json,sys
ev=[json.loads(l) for l in open(sys.argv[1])]
p=[e for e in ev if e["event"]=="domains_polled"]
names=set(n for e in p for n in e["domains"])
sys.exit(0 if len(names) > 200 and all(n.startswith("/fleet/") for n in names) else 1)' "$d/events.jsonl"; echo $?)" "$d/out"
# the soft limit is raised to the hard one: with room for all, none polled
if [ "$(ulimit -Hn)" = unlimited ] || [ "$(ulimit -Hn)" -ge 4096 ]; then
	(ulimit -Sn 256 && ulimit -Hn 4096 && CGOOM_RUN_ONCE=1 timeout 60 "$CGOOM" --cgroup-root "$d/tree/cg" \
		--proc-root "$d/tree/proc" --config "$d/tree/cgoom.conf" run --dry-run > "$d/out2" 2>&1)
	check "soft fd limit 256, hard 4096: raised to 4096, no domain polled" \
		"$(grep -q 'RLIMIT_NOFILE raised from 256 to 4096' "$d/out2" && ! grep -q 'polled (fd budget)' "$d/out2" && grep -q '/fleet/hot1: dry run: would kill \[4100071\]' "$d/out2"; echo $?)" "$d/out2"
fi
# 12. --config /dev/null means no settings (as ssh -F /dev/null), for the
# CLI, `cgoom run` and a SIGHUP reload; a device with data, a FIFO or a
# directory stays refused (config-file.c, issue 20)
build null-cfg '{
  "no_base_procs": true,
  "system": {"mem_total": "4G"},
  "cgroups": {"/work": {"max": "400M", "current": "100M"}, "/work/x": {}, "/work/y": {}},
  "procs": [
    {"pid": 4100071, "cgroup": "/work/x", "rss": 150},
    {"pid": 4100072, "cgroup": "/work/x", "rss": 100},
    {"pid": 4100073, "cgroup": "/work/y", "rss": 200}
  ]
}' || exit 1
build null-near '{
  "no_base_procs": true,
  "system": {"mem_total": "4G"},
  "cgroups": {"/work": {"max": "400M", "current": "399M"}, "/work/x": {}, "/work/y": {}},
  "procs": [
    {"pid": 4100071, "cgroup": "/work/x", "rss": 150},
    {"pid": 4100072, "cgroup": "/work/x", "rss": 100},
    {"pid": 4100073, "cgroup": "/work/y", "rss": 200}
  ]
}' || exit 1
d="$T/null-cfg"
timeout 10 "$CGOOM" --cgroup-root "$d/tree/cg" --proc-root "$d/tree/proc" --config /dev/null \
	explain /work > "$d/explain.out" 2>&1
RC=$?
check "explain --config /dev/null: exit 0, defaults (policy none), the 200M process" \
	"$([ $RC = 0 ] && grep -q 'policy none (default)' "$d/explain.out" && grep -q 'victim: /work/y, process 4100073' "$d/explain.out"; echo $?)" "$d/explain.out"
for dev in /dev/zero "$d"; do
	what=$([ "$dev" = /dev/zero ] && echo "/dev/zero (a device with data)" || echo "a directory")
	timeout 10 "$CGOOM" --cgroup-root "$d/tree/cg" --proc-root "$d/tree/proc" --config "$dev" \
		explain /work > "$d/refused.out" 2>&1
	RC=$?
	check "explain --config $what: refused, exit 2 with the reason" \
		"$([ $RC = 2 ] && grep -q "^cgoom: $dev: is \(not a regular file\|a directory\) (refused)" "$d/refused.out"; echo $?)" "$d/refused.out"
done
CGOOM_RUN_ONCE=1 timeout 20 "$CGOOM" --cgroup-root "$d/tree/cg" --proc-root "$d/tree/proc" \
	--config /dev/null run --dry-run > "$d/once.out" 2>&1
RC=$?
check "run --dry-run --config /dev/null: exit 0" "$([ $RC = 0 ]; echo $?)" "$d/once.out"
# reload: the config is a symlink (policy cgroup), pointed at /dev/null, a
# FIFO, /dev/zero; then /work comes within its margin and the decision
# shows which configuration the daemon holds
printf '[cgroup "/work"]\noom_policy = cgroup\n' > "$d/good.conf"
ln -s "$d/good.conf" "$d/cgoom.conf"
# (not under timeout(1), which would take the SIGHUPs itself)
: > "$d/out"
"$CGOOM" --cgroup-root "$d/tree/cg" --proc-root "$d/tree/proc" \
	--config "$d/cgoom.conf" run --dry-run > "$d/out" 2>&1 &
dpid=$!
(sleep 30; kill -KILL $dpid) >/dev/null 2>&1 &
watchdog=$!
wait_for() { # wait_for COUNT PATTERN: until the log has COUNT lines matching
	local i=0
	until [ "$(grep -c "$2" "$d/out" 2> /dev/null)" -ge "$1" ] 2> /dev/null || [ $i -ge 50 ]; do
		sleep 0.1
		i=$((i + 1))
	done
}
wait_for 1 'domain /work: memory.max'
ln -sfn /dev/null "$d/cgoom.conf"
kill -HUP $dpid
wait_for 1 'configuration reloaded'
check "SIGHUP with the config pointing at /dev/null: reloaded" \
	"$(grep -q "$d/cgoom.conf: configuration reloaded" "$d/out"; echo $?)" "$d/out"
rm -f "$d/cgoom.conf"; mkfifo "$d/cgoom.conf"
kill -HUP $dpid
wait_for 1 'keeping the old configuration'
rm -f "$d/cgoom.conf"; ln -s /dev/zero "$d/cgoom.conf"
kill -HUP $dpid
wait_for 2 'keeping the old configuration'
check "SIGHUP on a FIFO, then on /dev/zero: refused at once, old configuration kept" \
	"$([ "$(grep -c "$d/cgoom.conf: is not a regular file (refused)" "$d/out")" = 2 ] &&
	   [ "$(grep -c 'keeping the old configuration' "$d/out")" = 2 ]; echo $?)" "$d/out"
for f in memory.current memory.stat; do
	cat "$T/null-near/tree/cg/work/$f" > "$d/tree/cg/work/$f"
done
wait_for 1 'would kill'
kill -TERM $dpid 2>/dev/null
wait $dpid 2>/dev/null
kill $watchdog 2>/dev/null
check "after the /dev/null reload: policy none (the 200M process), not the config's cgroup" \
	"$(grep -q 'decision (policy none)' "$d/out" && grep -q '/work: dry run: would kill \[4100073\]' "$d/out"; echo $?)" "$d/out"

# 12. the allocation budget (issue 21): with /proc/vmstat's pgalloc a
# quiet domain far from its line is looked at again only once enough
# pages were allocated system-wide to have moved it (or after the 60 s
# backstop). /work (100 of 400 MiB) then comes within its margin (as in
# cg-late) while pgalloc stands still, which no kernel can do: it is not
# looked at; pgalloc then advances by 200,000 pages: it is, at once.
build cg-budget '{
  "no_base_procs": true,
  "system": {"mem_total": "4G"},
  "cgroups": {"/work": {"max": "400M", "current": "100M"}, "/work/x": {}, "/work/y": {}},
  "procs": [
    {"pid": 4100081, "cgroup": "/work/x", "rss": 50},
    {"pid": 4100082, "cgroup": "/work/y", "rss": 40}
  ],
  "config": ["[cgroup \"/work\"]", "oom_policy = cgroup"]
}' || exit 1
d="$T/cg-budget"
printf 'nr_free_pages 500000\npgalloc_dma32 1000\npgalloc_normal 50000\noom_kill 0\n' > "$d/tree/proc/vmstat"
timeout 20 "$CGOOM" --cgroup-root "$d/tree/cg" --proc-root "$d/tree/proc" \
	--config "$d/tree/cgoom.conf" run --dry-run > "$d/out" 2>&1 &
bud=$!
sleep 1.5
for f in memory.current memory.stat; do
	cat "$T/cg-anon/tree/cg/work/$f" > "$d/tree/cg/work/$f"
done
sleep 2
grep -q '/work: trigger' "$d/out"; seen_early=$?
printf 'nr_free_pages 300000\npgalloc_dma32 1000\npgalloc_normal 250000\noom_kill 0\n' > "$d/tree/proc/vmstat"
i=0
until grep -q '/work: dry run: would kill' "$d/out" || [ $i -ge 30 ]; do sleep 0.1; i=$((i + 1)); done
kill -TERM $bud 2>/dev/null
wait $bud 2>/dev/null
check "allocation budget: on it at start (pgalloc and a CPU count)" \
	"$(grep -q 'quiet domains on the allocation budget' "$d/out"; echo $?)" "$d/out"
check "allocation budget: no pages allocated, not looked at (2 s)" "$([ $seen_early = 1 ]; echo $?)" "$d/out"
check "allocation budget: 200,000 pages allocated, looked at within 3 s (would kill)" \
	"$(grep -q '/work: trigger unreclaimable' "$d/out" && grep -q '/work: dry run: would kill \[4100081\]' "$d/out"; echo $?)" "$d/out"

# 13. discovery from events (issue 21): the full walk runs every 120 s
# now, so only inotify can find these within a second: a cgroup that
# arrives with a finite memory.max, one that gets it later (a write to
# memory.max), one removed, and a domain whose memory.max goes back to
# max. (On cgroupfs a cgroup appears by mkdir with its files in place;
# here it is made aside and moved in.)
build disco '{
  "no_base_procs": true,
  "system": {"mem_total": "4G"},
  "cgroups": {"/a": {"max": "400M", "current": "100M"}, "/b": {"max": "400M", "current": "100M"},
              "/tmpl": {"current": "10M"}},
  "procs": []
}' || exit 1
d="$T/disco"
timeout 45 "$CGOOM" --cgroup-root "$d/tree/cg" --proc-root "$d/tree/proc" \
	--config "$d/tree/cgoom.conf" run --dry-run > "$d/out" 2>&1 &
dpid=$!
# wait_log PATTERN SECONDS: whether PATTERN appears in the log in time
wait_log() {
	local i=0
	until grep -q "$1" "$d/out" 2>/dev/null; do
		i=$((i + 1)); [ $i -gt $(($2 * 20)) ] && return 1; sleep 0.05
	done
}
wait_log 'watching [0-9]* domains' 5
cp -r "$d/tree/cg/tmpl" "$d/new1" && echo 314572800 > "$d/new1/memory.max" && mv "$d/new1" "$d/tree/cg/new1"
wait_log 'domain /new1: memory.max 300.0 MiB' 1; r1=$?
cp -r "$d/tree/cg/tmpl" "$d/new2" && mv "$d/new2" "$d/tree/cg/new2"
sleep 0.3
grep -q 'domain /new2: memory' "$d/out"; r2=$?
echo 209715200 > "$d/tree/cg/new2/memory.max"
wait_log 'domain /new2: memory.max 200.0 MiB' 1; r3=$?
rm -rf "$d/tree/cg/new1"
wait_log 'domain /new1: gone' 1; r4=$?
echo max > "$d/tree/cg/b/memory.max"
wait_log 'domain /b: gone (memory.max is max now)' 1; r5=$?
# a directory whose memory.events changes 100 times a second (a cgroup at
# its memory.high) stops waking the loop; its memory.max written
# meanwhile is caught up when it is watched for writes again (10 s);
# another cgroup's write is still seen at once
cp -r "$d/tree/cg/tmpl" "$d/noisy" && mv "$d/noisy" "$d/tree/cg/noisy"
cp -r "$d/tree/cg/tmpl" "$d/new3" && mv "$d/new3" "$d/tree/cg/new3"
sleep 0.3
for i in $(seq 30); do echo "high $i" > "$d/tree/cg/noisy/memory.events"; sleep 0.01; done
wait_log 'discovery: /noisy: its files changed 10 times in a second' 1; r6=$?
echo 314572800 > "$d/tree/cg/noisy/memory.max"
echo 209715200 > "$d/tree/cg/new3/memory.max"
wait_log 'domain /new3: memory.max 200.0 MiB' 1; r7=$?
grep -q 'domain /noisy: memory' "$d/out"; r8=$?
wait_log 'domain /noisy: memory.max 300.0 MiB' 12; r9=$?
kill -TERM $dpid 2>/dev/null
wait $dpid 2>/dev/null
check "discovery: a cgroup that arrives with a finite memory.max is watched within 1 s" "$r1" "$d/out"
check "discovery: one without a limit is not a domain" "$([ $r2 = 1 ]; echo $?)" "$d/out"
check "discovery: a write to memory.max makes it one within 1 s" "$r3" "$d/out"
check "discovery: a removed cgroup's domain goes within 1 s" "$r4" "$d/out"
check "discovery: memory.max back to max ends the domain within 1 s" "$r5" "$d/out"
check "discovery: a directory whose files change 100 times a second is muted, and says so" "$r6" "$d/out"
check "discovery: while it is muted, another cgroup's memory.max write is seen within 1 s" "$r7" "$d/out"
check "discovery: the muted one's memory.max write is not seen at once" "$([ $r8 = 1 ]; echo $?)" "$d/out"
check "discovery: ... and is caught up when its watch gets writes back (10 s)" "$r9" "$d/out"

# 14. the sampling timer (epoll_pwait2's timeout, or the timerfd where
# that call is missing or refused: CGOOM_NO_PWAIT2=1 takes that path):
# nothing but time wakes the daemon to see MemAvailable fall in a
# fixture's meminfo (a file's write sends no event); the system's pace
# here is about 0.5 s, the check allows 3 s.
for mode in pwait2 timerfd; do
	build "timer-$mode" '{
  "no_base_procs": true,
  "system": {"mem_total": "4G"},
  "meminfo": {"MemAvailable": 3000000},
  "cgroups": {"/a": {}},
  "procs": [ {"pid": 4100001, "cgroup": "/a", "rss": 300} ]
}' || exit 1
	d="$T/timer-$mode"
	env CGOOM_DEBUG=1 $([ $mode = timerfd ] && echo CGOOM_NO_PWAIT2=1) timeout 30 "$CGOOM" \
		--cgroup-root "$d/tree/cg" --proc-root "$d/tree/proc" \
		--config "$d/tree/cgoom.conf" run --dry-run > "$d/out" 2>&1 &
	dpid=$!
	wait_log 'watching [0-9]* domain' 5
	sleep 0.5
	grep -q 'trigger memory' "$d/out"; r0=$?
	sed 's/^MemAvailable:.*/MemAvailable:      100000 kB/' "$d/tree/proc/meminfo" > "$d/meminfo.low"
	cat "$d/meminfo.low" > "$d/tree/proc/meminfo" # the same inode: the daemon's kept fd
	wait_log '/: trigger memory: MemAvailable' 3; r1=$?
	kill -TERM $dpid 2>/dev/null
	wait $dpid 2>/dev/null
	want="epoll_pwait2's timeout"; [ $mode = timerfd ] && want="a timerfd"
	if grep -q "sampling timer: $want" "$d/out"; then
		ok "sampling timer ($mode): the daemon says it uses $want"
	elif [ $mode != timerfd ] && grep -q "sampling timer: a timerfd" "$d/out"; then
		N=$((N + 1)); echo "ok $N - sampling timer ($mode) # SKIP epoll_pwait2 missing or refused here (kernel $(uname -r))"
	else
		notok "sampling timer ($mode): the daemon says it uses $want" "$(grep 'sampling timer' "$d/out")"
	fi
	check "sampling timer ($mode): no trigger while MemAvailable is high" "$([ $r0 = 1 ]; echo $?)" "$d/out"
	check "sampling timer ($mode): MemAvailable fallen is seen within 3 s, on time alone" "$r1" "$d/out"
done

# 15. the tick asks /proc/vmstat for its head only (the kernel formats
# only the lines a read asks for): the bytes up to the line after the
# pgalloc_ block and 256 more, not a 64 KiB buffer; when the counters
# before the block outgrow that, one whole read and the new head size.
# Seen by strace (each pread64's size on the vmstat fd).
vmstat_file() { # vmstat_file DIGITS: 70 counters of DIGITS digits, the block, 150 after
	local i v; v=$(printf '%0*d' "$1" 7)
	for i in $(seq 70); do echo "nr_before_$i $v"; done
	printf 'pgalloc_dma32 1000\npgalloc_normal 50000\nallocstall_normal 3\n'
	for i in $(seq 150); do echo "after_$i 12345678"; done
}
head_of() { awk '{n += length($0) + 1} /^pgalloc_/ {p = 1; next} p {print n; exit}' "$1"; }
# traced_build NAME MEM_TOTAL PID: the fixture NAME (a quiet /work
# domain 300 MiB from its limit, one process), the daemon under strace
# (traced_start: each pread64 with its fd's path); its /proc/vmstat is
# the caller's
traced_build() {
	build "$1" '{
  "no_base_procs": true,
  "system": {"mem_total": "'"$2"'"},
  "cgroups": {"/work": {"max": "400M", "current": "100M"}, "/work/x": {}},
  "procs": [ {"pid": '"$3"', "cgroup": "/work/x", "rss": 50} ]
}' || exit 1
	d="$T/$1"
}
traced_start() {
	strace -f -y -e trace=pread64 -o "$d/strace" timeout 30 "$CGOOM" --cgroup-root "$d/tree/cg" \
		--proc-root "$d/tree/proc" --config "$d/tree/cgoom.conf" run --dry-run > "$d/out" 2>&1 &
	dpid=$!
	wait_log 'quiet domains on the allocation budget' 5
}
# can_trace || skip_traced NAME...: whether strace can trace here, and
# each NAME's check skipped with the reason where it cannot
can_trace() { command -v strace > /dev/null && strace -o /dev/null true 2> /dev/null; }
skip_traced() {
	for n in "$@"; do N=$((N + 1)); echo "ok $N - $n # SKIP strace missing or unable to trace here"; done
}
# traced_stop: the daemon stopped; $d/sizes: the sizes asked of
# /proc/vmstat, in order (pread64(FD</.../proc/vmstat>, "..."..., SIZE, 0))
traced_stop() {
	pkill -TERM -x cgoom -P "$(pgrep -P $dpid -x timeout)" 2>/dev/null # the daemon, not strace
	wait $dpid 2>/dev/null
	grep 'proc/vmstat>' "$d/strace" | sed -n 's/.*, \([0-9][0-9]*\), 0) = .*/\1/p' > "$d/sizes"
}
if ! can_trace; then
	skip_traced "vmstat head read" "vmstat head relearned"
else
	traced_build vmstat-head 4G 4100091
	vmstat_file 3 > "$d/tree/proc/vmstat"
	h1=$(head_of "$d/tree/proc/vmstat")
	traced_start
	sleep 1.5
	vmstat_file 10 > "$d/vmstat.long"
	# the same inode (the daemon's kept fd), never empty (a tick reading
	# a truncated file would stop the budget): written over, it is longer
	cat "$d/vmstat.long" 1<> "$d/tree/proc/vmstat"
	h2=$(head_of "$d/tree/proc/vmstat")
	sleep 1.5
	traced_stop
	n1=$(grep -cx "$((h1 + 256))" "$d/sizes"); n2=$(grep -cx "$((h2 + 256))" "$d/sizes")
	# after the first ask of the new size: none of the old; before it, a whole read
	first2=$(grep -nx "$((h2 + 256))" "$d/sizes" | head -n 1 | cut -d: -f1)
	old_after=$(tail -n +"${first2:-1}" "$d/sizes" | grep -cx "$((h1 + 256))")
	before=$([ -n "$first2" ] && sed -n "$((first2 - 1))p" "$d/sizes")
	check "vmstat head read: the tick asks for $((h1 + 256)) bytes ($n1 ticks), not the buffer" \
		"$([ "$n1" -ge 5 ]; echo $?)" "$d/sizes"
	check "vmstat head relearned: longer counters, a whole read, then $((h2 + 256)) bytes ($n2 ticks), never $((h1 + 256)) again" \
		"$([ "$n2" -ge 5 ] && [ "$old_after" = 0 ] && [ "${before:-0}" -gt 60000 ]; echo $?)" "$d/sizes"
fi

# 16. far from its line (64 GiB: sampled every second) the system reads
# /proc/vmstat's head through oom_kill once in ten seconds, not the whole
# file (three pages' worth of counter sums and formatting): the bytes
# through that line and 256 more; an OOM kill there is still reported,
# within the ten seconds. Seen by strace.
oom_file() { # oom_file N: the tick's block, 150 counters, oom_kill N, 80 after
	local i
	printf 'nr_free_pages 500000\npgalloc_dma32 1000\npgalloc_normal 50000\nallocstall_normal 3\n'
	for i in $(seq 150); do echo "after_$i 12345678"; done
	echo "oom_kill $1"
	for i in $(seq 80); do echo "later_$i 12345678"; done
}
if ! can_trace; then
	skip_traced "vmstat oom_kill head" "vmstat oom_kill head: a kill seen"
else
	traced_build vmstat-oom 64G 4100092
	oom_file 0 > "$d/tree/proc/vmstat"
	ho=$(awk '{n += length($0) + 1} /^oom_kill / {print n; exit}' "$d/tree/proc/vmstat")
	traced_start
	t0=$(date +%s%N)
	sleep 4
	# the same inode and size: one digit in place
	oom_file 1 > "$d/vmstat.kill"
	cat "$d/vmstat.kill" 1<> "$d/tree/proc/vmstat"
	wait_log '/: the kernel OOM-killed 1 process' 12; rk=$?
	secs=$((($(date +%s%N) - t0) / 1000000000))
	traced_stop
	no=$(grep -cx "$((ho + 256))" "$d/sizes")
	first=$(grep -nx "$((ho + 256))" "$d/sizes" | head -n 1 | cut -d: -f1)
	whole_after=$(tail -n +"${first:-1}" "$d/sizes" | awk '$1 > 60000' | wc -l)
	whole=$(awk '$1 > 60000' "$d/sizes" | wc -l)
	# the whole file at the start (the count's baseline, then the head's
	# length learned; the budget's ticks read their own head), the head
	# ten seconds on (the system sampled every second is sampled up to
	# 100 ms early: the read must not then wait for the sample after,
	# 11 s later): one or two in the 10-12 s the kill took to be seen,
	# not one a second
	check "vmstat oom_kill head: the quiet system asks for $((ho + 256)) bytes once in 10 s ($no in ${secs} s, $whole whole reads), never the whole file after" \
		"$([ "$no" -ge 1 ] && [ "$no" -le 2 ] && [ "$whole_after" = 0 ]; echo $?)" "$d/sizes"
	check "vmstat oom_kill head: a kill seen within 10 s (/: the kernel OOM-killed 1 process)" "$rk" "$d/out"
fi

# 17. an idle system wakes the daemon no more often than its pace: 1280
# MiB of MemTotal, MemAvailable 934,464 kB over its 5% line, so a sample
# every 152.1 ms at earlyoom's 6000 MiB/s (65.7 in 10 s). A wait that
# ends early shortens every period with it: counted from the coarse
# clock (12 ms early at HZ=250) the daemon woke 69 times in 10 s. The
# debug line's count over its second 10 s.
build idle-pace '{
  "no_base_procs": true,
  "system": {"mem_total": "1280M"},
  "meminfo": {"MemAvailable": 1000000},
  "cgroups": {"/a": {}},
  "procs": [ {"pid": 4100003, "cgroup": "/a", "rss": 50} ]
}' || exit 1
d="$T/idle-pace"
CGOOM_DEBUG=1 timeout 30 "$CGOOM" --cgroup-root "$d/tree/cg" --proc-root "$d/tree/proc" \
	--config "$d/tree/cgoom.conf" run --dry-run > "$d/out" 2>&1 &
dpid=$!
i=0
until [ "$(grep -cs 'sampling: .* wake-ups' "$d/out")" -ge 2 ] || [ $i -gt 500 ]; do
	i=$((i + 1)); sleep 0.05
done
kill -TERM $dpid 2>/dev/null
wait $dpid 2>/dev/null
w=$(grep 'sampling: .* wake-ups' "$d/out" | sed -n '2s/.*; \([0-9]*\) wake-ups (\([0-9]*\) by the timer.*/\1 \2/p')
set -- $w
# 10.1 s at most between the lines (their 100 ms early window), 2% for
# the kernel's slack: 68
check "idle pace: ${1:-?} wake-ups in 10 s (${2:-?} by the timer) at a 152.1 ms pace: 68 at most" \
	"$([ -n "${1:-}" ] && [ "$1" -ge 40 ] && [ "$1" -le 68 ]; echo $?)" "$d/out"

# 18. another OOM killer at start: each one running (earlyoom, nohang,
# another `cgoom run` that kills) is named in a warning, with how to stop
# it; a cgoom that only explains, one that is a dry run, and cgoom itself
# (/proc/self) are not; nothing of the kind on a tree without them
build peers '{
  "no_base_procs": true,
  "system": {"mem_total": "4G"},
  "cgroups": {"/a": {}},
  "procs": [
    {"pid": 4100901, "cgroup": "/a", "rss": 10, "comm": "earlyoom"},
    {"pid": 4100902, "cgroup": "/a", "rss": 10, "comm": "nohang"},
    {"pid": 4100903, "cgroup": "/a", "rss": 10, "comm": "cgoom"},
    {"pid": 4100904, "cgroup": "/a", "rss": 10, "comm": "cgoom"},
    {"pid": 4100905, "cgroup": "/a", "rss": 10, "comm": "cgoom"},
    {"pid": 4100906, "cgroup": "/a", "rss": 10, "comm": "cgoom"}
  ],
  "self": 4100906,
  "post": [
    {"write": "proc/4100903/cmdline", "data": "/usr/sbin/cgoom\u0000--config\u0000/etc/cgoom.conf\u0000run\u0000"},
    {"write": "proc/4100904/cmdline", "data": "cgoom\u0000explain\u0000--watch\u0000"},
    {"write": "proc/4100905/cmdline", "data": "cgoom\u0000run\u0000--dry-run\u0000"},
    {"write": "proc/4100906/cmdline", "data": "cgoom\u0000run\u0000"}
  ]
}' || exit 1
run peers
check "peers: earlyoom named, with how to stop it" \
	"$(grep -q 'earlyoom is running (PID 4100901): two userspace OOM killers would race.*systemctl disable --now earlyoom' "$T/peers/out"; echo $?)" "$T/peers/out"
check "peers: nohang named" \
	"$(grep -q 'nohang is running (PID 4100902): two userspace OOM killers' "$T/peers/out"; echo $?)" "$T/peers/out"
check "peers: another cgoom run named (not the explaining one, the dry run or itself)" \
	"$(grep -q 'another cgoom is running (PID 4100903): two userspace OOM killers' "$T/peers/out" &&
	   [ "$(grep -c 'OOM killers would race' "$T/peers/out")" = 3 ]; echo $?)" "$T/peers/out"
check "peers: no such warning without them" \
	"$(! grep -q 'OOM killers would race' "$T/quiet/out" "$T/sys-low/out"; echo $?)" "$T/quiet/out"

# 19. metrics_file not ending in .prom: node_exporter's textfile collector
# would never read it, so the daemon says so at start (and not for a
# .prom name: sys-low's)
run quiet "[daemon]" "metrics_file = $T/quiet/metrics.txt"
check "metrics_file without .prom: a warning naming it and the fix" \
	"$(grep -q "metrics_file $T/quiet/metrics.txt: node_exporter's textfile collector reads only files ending in .prom" "$T/quiet/out" &&
	   ! grep -q 'reads only files ending in .prom' "$T/sys-low/out"; echo $?)" "$T/quiet/out"

# 20. one guard_band for every domain: on a small domain it would be more
# than half the limit (memory.high 36 MiB of 100 MiB: throttled and
# killed there), which the daemon names with the way out; a large
# domain beside it is not named, nor one the band does not fit at all
build guard-small '{
  "no_base_procs": true,
  "system": {"mem_total": "4G"},
  "cgroups": {"/small": {"max": "100M"}, "/big": {"max": "1G"}, "/tiny": {"max": "48M"}},
  "procs": [{"pid": 4100031, "cgroup": "/small", "rss": 20}, {"pid": 4100032, "cgroup": "/big", "rss": 20}]
}' || exit 1
run guard-small "[daemon]" "guard_band = 64M"
check "guard_band over half a domain's memory.max: a warning naming it and the fix" \
	"$(grep -q '/small: guard_band 64.0 MiB is more than half of memory.max 100.0 MiB: memory.high 36.0 MiB throttles it' "$T/guard-small/out" &&
	   grep -q 'give it a smaller one (\[cgroup "/small"\] guard_band = SIZE, or no)' "$T/guard-small/out" &&
	   ! grep -q '/big: guard_band' "$T/guard-small/out" &&
	   grep -q '/tiny: guard_band 64.0 MiB >= memory.max 48.0 MiB; no guard band' "$T/guard-small/out"; echo $?)" "$T/guard-small/out"

# 21. the same for a margin given as a size: 64M of a 100M domain
run guard-small "margin = 64M"
check "margin over half a domain's memory.max: a warning naming it and the fix" \
	"$(grep -q '/small: margin 64.0 MiB is more than half of memory.max 100.0 MiB' "$T/guard-small/out" &&
	   grep -q 'give it a smaller one (\[cgroup "/small"\] margin = SHARE)' "$T/guard-small/out" &&
	   ! grep -q '/big: margin' "$T/guard-small/out"; echo $?)" "$T/guard-small/out"

# 22. without CAP_SYS_ADMIN the daemon cannot see trusted.cgoom.* (the
# kernel hides them): it says so at start, as explain notes it; as root
# (every run above) it does not
if command -v setpriv > /dev/null && [ "$(id -u)" = 0 ]; then
	d="$T/quiet"
	CGOOM_RUN_ONCE=1 timeout 20 setpriv --bounding-set -sys_admin -- "$CGOOM" --cgroup-root "$d/tree/cg" \
		--proc-root "$d/tree/proc" --config /dev/null run --dry-run > "$d/nocap.out" 2>&1
	check "no CAP_SYS_ADMIN: a warning that trusted.cgoom.* settings are ignored; none with it" \
		"$(grep -q "trusted.cgoom.\* settings cannot be read (they need CAP_SYS_ADMIN)" "$d/nocap.out" &&
		   ! grep -q 'settings cannot be read' "$d/out" "$T/sys-low/out"; echo $?)" "$d/nocap.out"
else
	ok "no CAP_SYS_ADMIN: a warning # SKIP needs root and setpriv"
fi

# 23. a reload that moves metrics_file (or drops it): the old file, which
# would say cgoom_up 1 for ever and, in the textfile collector's
# directory, give every series twice, is removed; the new one is written
# at once and says cgoom_up 0 at exit
d="$T/quiet"
printf '[daemon]\nmetrics_file = %s\n' "$d/a.prom" > "$d/metrics.conf"
rm -f "$d/a.prom" "$d/b.prom"
: > "$d/metrics.out"
"$CGOOM" --cgroup-root "$d/tree/cg" --proc-root "$d/tree/proc" \
	--config "$d/metrics.conf" run --dry-run > "$d/metrics.out" 2>&1 &
dpid=$!
(sleep 30; kill -KILL $dpid) >/dev/null 2>&1 &
watchdog=$!
i=0; until [ -f "$d/a.prom" ] || [ $i -ge 50 ]; do sleep 0.1; i=$((i + 1)); done
printf '[daemon]\nmetrics_file = %s\n' "$d/b.prom" > "$d/metrics.conf"
kill -HUP $dpid
i=0; until [ -f "$d/b.prom" ] || [ $i -ge 50 ]; do sleep 0.1; i=$((i + 1)); done
moved_a=$([ -e "$d/a.prom" ] && echo kept || echo removed)
printf '[daemon]\n' > "$d/metrics.conf"
kill -HUP $dpid
i=0; until [ "$(grep -c 'configuration reloaded' "$d/metrics.out")" -ge 2 ] || [ $i -ge 50 ]; do sleep 0.1; i=$((i + 1)); done
dropped_b=$([ -e "$d/b.prom" ] && echo kept || echo removed)
printf '[daemon]\nmetrics_file = %s\n' "$d/a.prom" > "$d/metrics.conf"
kill -HUP $dpid
i=0; until [ -f "$d/a.prom" ] || [ $i -ge 50 ]; do sleep 0.1; i=$((i + 1)); done
kill -TERM $dpid 2>/dev/null
wait $dpid 2>/dev/null
kill $watchdog 2>/dev/null
echo "moved: a.prom $moved_a; dropped: b.prom $dropped_b" >> "$d/metrics.out"
check "a reload moving metrics_file removes the old file; dropping it too; the new one ends with cgoom_up 0" \
	"$([ "$moved_a" = removed ] && [ "$dropped_b" = removed ] && grep -q '^cgoom_up 0' "$d/a.prom" &&
	   grep -q "metrics_file $d/a.prom: no longer written (now $d/b.prom): removed" "$d/metrics.out"; echo $?)" "$d/metrics.out"

# a malformed /proc/meminfo (a line without ':' first, MemTotal 0) makes
# the system domain blind: said, once, and its return (it was silent:
# "watching 1 domain" and never a trigger); without MemAvailable the
# MemFree fallback is said
# once_on NAME CONF [EDIT]: sys-low's tree copied to $T/NAME with CONF
# (printf %b) as its config, EDIT run in the copy, then cgoom run
# --dry-run once; its output in $T/NAME/out
once_on() {
	d="$T/$1"
	mkdir -p "$d" && cp -r "$T/sys-low/tree" "$d/tree"
	printf '%b' "$2" > "$d/tree/cgoom.conf"
	[ -z "${3:-}" ] || (cd "$d/tree" && eval "$3")
	CGOOM_RUN_ONCE=1 timeout 20 "$CGOOM" --cgroup-root "$d/tree/cg" --proc-root "$d/tree/proc" \
		--config "$d/tree/cgoom.conf" run --dry-run > "$d/out" 2>&1
}
once_on meminfo-garbage '' '{ echo garbage; cat "$T/sys-low/tree/proc/meminfo"; } > proc/meminfo'
once_on meminfo-total0 '' "sed -i 's/^MemTotal:.*/MemTotal: 0 kB/' proc/meminfo"
once_on meminfo-nomemavail '' "sed -i '/^MemAvailable/d' proc/meminfo"
check "meminfo with a line without ':', or MemTotal 0: the blind system domain said, no trigger" \
	"$(for v in garbage total0; do grep -q 'meminfo is unreadable or malformed .*cgoom does not act on it' "$T/meminfo-$v/out" &&
	   ! grep -q 'trigger memory' "$T/meminfo-$v/out" || exit 1; done; echo 0)" "$T/meminfo-garbage/out"
check "meminfo without MemAvailable: the MemFree fallback said" \
	"$(grep -q 'meminfo has no MemAvailable line .*measured on MemFree' "$T/meminfo-nomemavail/out"; echo $?)" "$T/meminfo-nomemavail/out"
d="$T/meminfo-garbage"
cp "$T/sys-low/tree/proc/meminfo" "$d/good"
timeout 30 "$CGOOM" --cgroup-root "$d/tree/cg" --proc-root "$d/tree/proc" \
	--config "$d/tree/cgoom.conf" run --dry-run > "$d/out2" 2>&1 &
dpid=$!
i=0; until grep -q 'unreadable or malformed' "$d/out2" || [ $i -ge 50 ]; do sleep 0.1; i=$((i + 1)); done
cp "$d/good" "$d/tree/proc/meminfo"
i=0; until grep -q 'would kill' "$d/out2" || [ $i -ge 100 ]; do sleep 0.1; i=$((i + 1)); done
kill -TERM $dpid 2>/dev/null
wait $dpid 2>/dev/null
check "meminfo mended while running: its return said once, then the trigger" \
	"$([ "$(grep -c 'unreadable or malformed' "$d/out2")" = 1 ] && grep -q 'meminfo reads well again' "$d/out2" &&
	   grep -q 'would kill \[4100001\]' "$d/out2"; echo $?)" "$d/out2"

# a section written with the mount point in front matches nothing: the
# daemon says so at start (explain noted it; the daemon was silent and
# would kill the process the section meant to omit)
once_on mount-section '[cgroup "/sys/fs/cgroup/a"]\npreference = omit\n'
check "a section with the mount point in front: the daemon says it matches nothing, and how to write it" \
	"$(grep -q '\[cgroup "/sys/fs/cgroup/a"\] (line 1) matches no cgroup: .* write \[cgroup "/a"\]' "$d/out"; echo $?)" "$d/out"

# explain --watch into a file (or a pipe): the periods one after another,
# no screen-clearing escape codes (they went into pipes and files)
d="$T/sys-low"
timeout 1 "$CGOOM" --cgroup-root "$d/tree/cg" --proc-root "$d/tree/proc" --config /dev/null \
	explain --watch=0.2 > "$d/watch.out" 2>&1
check "explain --watch into a file: periods one after another, no escape codes" \
	"$([ "$(grep -c 'every 0.2s (Ctrl-C to stop)' "$d/watch.out")" -ge 2 ] && ! grep -q "$(printf '\033')" "$d/watch.out"; echo $?)" "$d/watch.out"

# guard_band = 32 (a unit left out: 32 bytes, a one-page band) is said
# at start; margin = 5 is refused, a bare guard_band was taken silently
once_on tiny-band '[daemon]\nguard_band = 32\n[cgroup "/a"]\nguard_band = 64K\n'
check "guard_band under 1 MiB ([daemon] and a section): a unit left out? said" \
	"$(grep -q 'guard_band 32 (\[daemon\]) is under 1 MiB: a unit left out' "$d/out" &&
	   grep -q 'guard_band 65536 (\[cgroup\] line 3) is under 1 MiB' "$d/out"; echo $?)" "$d/out"

# RAM under its line and 1 GiB of swap free, but all but 10 MiB of the 3.07
# GiB of anon in RAM is /a's, whose memory.swap.max is 0: swap can take
# 10 MiB, with MemAvailable 98 MiB under the 205 MiB minimum of RAM: the
# line, said as such (before, the
# daemon waited for SwapFree while the kernel OOM-killed with swap free).
# With /a allowed to swap, nothing fires.
SWAPPED="sed -i -e 's/^SwapTotal:.*/SwapTotal: 1048576 kB/' -e 's/^SwapFree:.*/SwapFree: 1048576 kB/' \
-e 's/^Active(anon):.*/Active(anon): 2097152 kB/' -e 's/^Inactive(anon):.*/Inactive(anon): 1126400 kB/' proc/meminfo &&
sed -i -e 's/^anon .*/anon 3290431488/' -e 's/^shmem .*/shmem 0/' cg/a/memory.stat"
once_on noswap-cgroup '' "$SWAPPED && echo 0 > cg/a/memory.swap.max"
check "swap free but RAM's anon in a cgroup that cannot swap: the memory line, with why" \
	"$(grep -q 'trigger memory: MemAvailable .* and swap can take only 10.0 MiB more though 1.0 GiB of it is free: 3.1 GiB of the anon and shmem in RAM is in cgroups that cannot swap' "$d/out" &&
	   grep -q 'would kill \[4100001\]' "$d/out"; echo $?)" "$d/out"
once_on noswap-none '' "$SWAPPED && echo max > cg/a/memory.swap.max"
check "the same with the cgroup allowed to swap: no trigger (swap can take it)" \
	"$(! grep -q 'trigger memory' "$d/out"; echo $?)" "$d/out"

echo "1..$N"
[ $FAILED = 0 ]
