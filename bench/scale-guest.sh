# bench/scale-guest.sh: cgoom at host scale (issue 21), in the QEMU
# guest (busybox sh). bench/scale prepends the plan (NS UNLIM IDLE REPS
# TEN TEN_RATE CHURN_SECS PEERS) and bench/guest.sh's functions
# (everything before its "main" section: run_rep, the hogs, the 1 kHz
# reference monitor), and runs it with tests/vm/run --script.
#
# Result lines (to $RES, the second serial port):
#   SCALE-IDLE  tool=T n=N limits=yes|no fleet_mib=M secs=S cpu_ms=C rss_kb=R fds=F domains=D ready_ms=M alloc_mib=A
#               (A: MiB of pages allocated system-wide during the S s)
#   BENCH-REP   tool=cgoom scen=b2nN ...   (guest.sh's run_rep: one squeeze
#               of b2's domain beside N quiet domains)
#   SCALE-TEN   n=N rate=R spec=K/10 cgoom_kills=K kernel_kills=K decisions=K react_ms=...
#   SCALE-CHURN secs=S made=N watched=W missed=M fds0=F fds1=F rss0=R rss1=R squeezes=Q won=W kernel_kills=K
#               vmstat_oom_kills=K rate=R churn_failed=F behind_ms=B
#   SCALE-INFO  key=value...
# A "domain" is a memcg with a finite memory.max; the quiet ones are
# /fleet/cI, memory.max (FLEET_MIB + I mod 64) MiB (FLEET_MIB 64 unless
# bench/scale --fleet-mib says), one in ten holding a
# sleeping process (issue 21's set-up). cgoom runs as its unit would:
# RLIMIT_NOFILE 524288.

TOOL=cgoom
export PATH=/bench:$PATH
[ "${SCALE_DEBUG:-0}" = 1 ] && export CGOOM_DEBUG=1
ulimit -n 524288 2> /dev/null || ulimit -n 65536

fleet_make() { # N LIMITS(yes|no)
	mkdir -p $CG/fleet
	echo +memory > $CG/fleet/cgroup.subtree_control
	: > $T/sleepers
	i=0
	while [ $i -lt "$1" ]; do
		mkdir $CG/fleet/c$i
		[ "$2" = yes ] && echo $(((${FLEET_MIB:-64} + i % 64) * 1048576)) > $CG/fleet/c$i/memory.max
		if [ $((i % ${SLEEP_EVERY:-10})) = 0 ]; then
			sh -c 'echo $$ > "$1/cgroup.procs"; exec sleep 1000000' s $CG/fleet/c$i &
			echo $! >> $T/sleepers
		fi
		i=$((i + 1))
	done
}
fleet_clear() {
	while read -r p; do kill -9 "$p" 2> /dev/null; done < $T/sleepers
	: > $T/sleepers
	sleep 0.5
	for d in $CG/fleet/*/; do rmdir "$d" 2> /dev/null; done
	rmdir $CG/fleet 2> /dev/null
}
# pages allocated system-wide since boot (the sum of /proc/vmstat's
# pgalloc_* lines, what cgoom's allocation budget counts)
pgalloc_pages() { awk '/^pgalloc_/ { s += $2 } END { printf "%d\n", s }' /proc/vmstat; }
rss_of() { sed -n 's/^VmRSS:[[:space:]]*\([0-9]*\).*/\1/p' "/proc/$1/status"; }
fds_of() { ls "/proc/$1/fd" 2> /dev/null | wc -l; }

# idle_one TOOL N LIMITS: the daemon's CPU (utime + stime) over IDLE s,
# 3 s after it said it was up, its RSS and fds at the end
idle_one() {
	tool=$1 n=$2 lim=$3
	TLOG=$T/idle.$tool.$n.log
	t0=$(now_ns)
	case $tool in
	cgoom)
		printf '[daemon]\nevent_log = %s/ev.idle.jsonl\n' $T > /etc/cgoom.conf
		cgoom --config /etc/cgoom.conf run > "$TLOG" 2>&1 &
		P=$! ready='watching [0-9]* domain' ;;
	earlyoom)
		earlyoom -m 5 -r 0 > "$TLOG" 2>&1 &
		P=$! ready='mem total' ;;
	esac
	i=0
	until grep -qE "$ready" "$TLOG"; do
		i=$((i + 1))
		if [ $i -gt 600 ] || is_dead $P; then
			out "SCALE-INFO cannot=$tool n=$n why=$(tail -n 2 "$TLOG" | tr ' \n' '__' | cut -c1-160)"
			kill -9 $P 2> /dev/null
			return 0
		fi
		sleep 0.1
	done
	ready_ms=$(ms_between $t0 $(now_ns))
	sleep 3
	set -- $(benchhelp cpu $P)
	c0=$2
	a0=$(pgalloc_pages)
	sleep "$IDLE"
	set -- $(benchhelp cpu $P)
	cpu=$(($2 - c0)) rss=$4
	alloc_mib=$((($(pgalloc_pages) - a0) * 4 / 1024))
	fds=$(fds_of $P)
	doms=$(grep -c 'domain /fleet/' "$TLOG")
	out "SCALE-IDLE tool=$tool n=$n limits=$lim fleet_mib=${FLEET_MIB:-64} secs=$IDLE cpu_ms=$cpu rss_kb=$rss fds=$fds domains=$doms ready_ms=$ready_ms alloc_mib=$alloc_mib"
	[ "${SCALE_DEBUG:-0}" = 1 ] && grep 'sampling:' "$TLOG" | tail -n 4 | sed "s/^/    $tool $n: /"
	kill -TERM $P 2> /dev/null
	i=0
	while ! is_dead $P && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
	kill -9 $P 2> /dev/null
	wait $P 2> /dev/null
}

# b2 (bench/guest.sh's cgroup race: the kernel's choice is not the
# spec's) beside N quiet domains: scenario name b2nN
scale_b2() { # N
	name=b2n$1
	race_up $name quiet_domains=$1 || return 1
	tool_start $name || { hogs_clear; return 1; }
	sleep 3 # discovery of the fleet, the first samples
	race_reps $name
}

# ten domains squeezed at once beside N quiet ones: each /hotK (memory.max
# 138M) holds a tree child t (a 26 + b 24 MiB: the largest entity, so the
# spec's victim is t's largest process, hK-a), big (48 MiB: the largest
# process, the kernel's pick) and a grower started in all ten within a
# few ms, at TEN_RATE MiB/s to 4 MiB past the limit (less than any
# victim frees).
scale_ten() { # N
	n=$1
	printf '[daemon]\nevent_log = %s/ev.ten.jsonl\n[cgroup "/hot*"]\noom_policy = cgroup\n[cgroup "/hot*/t"]\noom_policy = tree\n' $T > /etc/cgoom.conf
	rm -f $T/ev.ten.jsonl
	: > $T/hogs
	k=1
	while [ $k -le $TEN ]; do
		mkdir -p $CG/hot$k
		echo 138M > $CG/hot$k/memory.max
		echo +memory > $CG/hot$k/cgroup.subtree_control
		mkdir -p $CG/hot$k/t $CG/hot$k/big $CG/hot$k/grow
		echo +memory > $CG/hot$k/t/cgroup.subtree_control
		mkdir -p $CG/hot$k/t/a $CG/hot$k/t/b
		hog_start h$k-a /hot$k/t/a 26
		hog_start h$k-b /hot$k/t/b 24
		hog_start h$k-big /hot$k/big 48
		k=$((k + 1))
	done
	hogs_ready || return 1
	wait_settle
	cgoom --config /etc/cgoom.conf run > $T/ten.log 2>&1 &
	P=$!
	[ "${SCALE_NICE:-0}" != 0 ] && renice -n "$SCALE_NICE" -p $P > /dev/null
	i=0
	until grep -q 'watching [0-9]* domain' $T/ten.log || [ $i -gt 600 ]; do sleep 0.1; i=$((i + 1)); done
	sleep 3
	vm0=$(vm_ooms)
	k=1
	while [ $k -le $TEN ]; do
		cur=$(cat $CG/hot$k/memory.current)
		g=$(((138 * 1048576 - cur) / 1048576 + 4))
		sh -c 'echo $$ > "$1/cgroup.procs" || exit 99; exec memhog "$2" "$3"' \
			grow $CG/hot$k/grow $g $TEN_RATE > $T/grow.$k.out 2>&1 &
		echo $! > $T/grow.$k.pid
		k=$((k + 1))
	done
	sleep 6
	spec=0 kk=0
	k=1
	while [ $k -le $TEN ]; do
		a=$(hog_pid h$k-a)
		ok=yes
		is_dead "$a" || ok=no
		for l in h$k-b h$k-big; do is_dead "$(hog_pid $l)" && ok=no; done
		[ $ok = yes ] && spec=$((spec + 1))
		kk=$((kk + $(sed -n 's/^oom_kill //p' $CG/hot$k/memory.events)))
		kill -9 "$(cat $T/grow.$k.pid)" 2> /dev/null
		k=$((k + 1))
	done
	dec=$(grep -c '"event": "decision"' $T/ev.ten.jsonl)
	kills=$(grep -c '"event": "kill"' $T/ev.ten.jsonl)
	react=$(grep '"event": "kill"' $T/ev.ten.jsonl | grep -o '"reaction_ms": [0-9.]*' | sed 's/.*: //' | tr '\n' ,)
	standby=$(grep '"event": "kill"' $T/ev.ten.jsonl | grep -c '"standby": true')
	out "SCALE-TEN n=$n rate=$TEN_RATE spec=$spec/$TEN cgoom_kills=$kills kernel_kills=$kk vmstat_oom_kills=$(($(vm_ooms) - vm0)) decisions=$dec standby=$standby react_ms=${react%,}"
	grep 'hot[0-9]*: \(trigger\|sent\|the kernel\|no victim\|standby\|act:\)\|sampling:' $T/ten.log | head -n 60 | sed 's/^/    ten: /'
	kill -TERM $P 2> /dev/null
	sleep 1
	kill -9 $P 2> /dev/null
	wait $P 2> /dev/null
	hogs_clear
	sleep 0.5
	k=1
	while [ $k -le $TEN ]; do
		rmdir $CG/hot$k/t/a $CG/hot$k/t/b $CG/hot$k/t $CG/hot$k/big $CG/hot$k/grow $CG/hot$k 2> /dev/null
		k=$((k + 1))
	done
}

# churn: cgroups made with a limit and removed at CHURN_RATE a second
# (50: each lives 5 s), for CHURN_SECS beside the fleet, while /sq is
# squeezed every 10 s (memory.max 200M, a 60 MiB static hog and a grower
# at 100 MiB/s to 150 MiB: the spec's victim is the grower). Every churned
# cgroup must have been watched (its "domain ...: memory.max" line); the
# daemon's fds and RSS after must be what they were before (and each
# minute's, SCALE-CHURN-RSS, say whether they grow).
scale_churn() {
	printf '[daemon]\nevent_log = %s/ev.churn.jsonl\n' $T > /etc/cgoom.conf
	rm -f $T/ev.churn.jsonl
	mkdir -p $CG/churn $CG/sq/static $CG/sq/grow
	echo +memory > $CG/churn/cgroup.subtree_control
	echo 200M > $CG/sq/memory.max
	echo +memory > $CG/sq/cgroup.subtree_control
	: > $T/hogs
	hog_start sq-static /sq/static 60
	hogs_ready || return 1
	cgoom --config /etc/cgoom.conf run > $T/churn.log 2>&1 &
	P=$!
	i=0
	until grep -q 'watching [0-9]* domain' $T/churn.log || [ $i -gt 600 ]; do sleep 0.1; i=$((i + 1)); done
	sleep 3
	fds0=$(fds_of $P) rss0=$(rss_of $P)
	vm0=$(vm_ooms)
	# the churn itself at a steady CHURN_RATE a second (benchhelp churn:
	# a shell making them one at a time reached about 24 a second under
	# TCG), the last 250 kept; squeezes and the minutely RSS from here
	: > $T/churn.out
	benchhelp churn $T/churn.out $CG/churn "${CHURN_RATE:-50}" "$CHURN_SECS" 250 67108864 &
	CH=$!
	made=0 sq=0 won=0 next_sq=$(($(now_ns) + 5000000000))
	t_start=$(now_ns) next_rss=$(($(now_ns) + 60000000000))
	while ! is_dead $CH; do
		# the daemon's RSS and fds each minute: flat, or growing?
		if [ "$(now_ns)" -gt $next_rss ]; then
			set -- $(tail -n 1 $T/churn.out)
			heap=
			[ "${SCALE_DEBUG:-0}" = 1 ] && heap=" heap_kb=$(grep -o 'heap in use [0-9]*' $T/churn.log | tail -n 1 | grep -o '[0-9]*$')"
			out "SCALE-CHURN-RSS t_s=$(( ($(now_ns) - t_start) / 1000000000 )) made=${2:-0} squeezes=$sq rss_kb=$(rss_of $P) fds=$(fds_of $P)$heap"
			next_rss=$((next_rss + 60000000000))
		fi
		if [ "$(now_ns)" -gt $next_sq ]; then
			sh -c 'echo $$ > "$1/cgroup.procs" || exit 99; exec memhog 150 100' g $CG/sq/grow > /dev/null 2>&1 &
			gp=$!
			sq=$((sq + 1))
			next_sq=$(($(now_ns) + 10000000000))
			echo $gp >> $T/churn.growers
		fi
		sleep 0.5
	done
	wait $CH 2> /dev/null
	set -- $(tail -n 1 $T/churn.out)
	made=${2:-0} chfail=${6:-0} behind=${8:-0}
	sleep 2
	for p in $(cat $T/churn.growers 2> /dev/null); do
		is_dead $p && grep -q "sent SIGKILL to 1 process \[$p\]" $T/churn.log && won=$((won + 1))
		kill -9 $p 2> /dev/null
	done
	rm -f $T/churn.growers
	for d in $CG/churn/*/; do rmdir "$d" 2> /dev/null; done
	sleep 5 # the removals seen
	fds1=$(fds_of $P) rss1=$(rss_of $P)
	# every churned cgroup with a limit was watched
	grep -o 'domain /churn/x[0-9]*: memory.max' $T/churn.log | sed 's/domain \/churn\/x//; s/:.*//' | sort -n -u > $T/watched
	watched=$(wc -l < $T/watched)
	missed=$((made - watched))
	kk=$(sed -n 's/^oom_kill //p' $CG/sq/memory.events)
	out "SCALE-CHURN secs=$CHURN_SECS made=$made watched=$watched missed=$missed fds0=$fds0 fds1=$fds1 rss0=$rss0 rss1=$rss1 squeezes=$sq won=$won kernel_kills=$kk vmstat_oom_kills=$(($(vm_ooms) - vm0)) rate=${CHURN_RATE:-50} churn_failed=$chfail behind_ms=$behind"
	kill -TERM $P 2> /dev/null
	sleep 1
	kill -9 $P 2> /dev/null
	wait $P 2> /dev/null
	hogs_clear
	sleep 0.5
	rmdir $CG/churn $CG/sq/static $CG/sq/grow $CG/sq 2> /dev/null
}

# --- main of the scale bench ---------------------------------------------------

: "${NS:=10 100 1000 5000}" "${UNLIM:=10000}" "${IDLE:=30}" "${REPS:=3}" "${TEN:=10}"
: "${TEN_RATE:=100}" "${CHURN_SECS:=60}" "${PEERS:=earlyoom}" "${B_RATE:=100}" "${C_RATE:=50}"
: "${BAND_KB:=65536}" "${MON_US:=1000}" "${PHASES:=idle b2 ten churn}"
MT=$(mem_kb MemTotal)
THR_KB=$((MT / 20))
probe_start
out "SCALE-INFO memtotal_kb=$MT cpus=$(grep -c ^processor /proc/cpuinfo) kernel=$(uname -r) ns=$(echo $NS | tr ' ' ,) unlim=$UNLIM idle=$IDLE reps=$REPS ten=$TEN ten_rate=$TEN_RATE churn_secs=$CHURN_SECS phases=$(echo $PHASES | tr ' ' ,) nofile=$(ulimit -n)"
for phase in $PHASES; do
	case $phase in
	idle)
		for n in $NS; do
			fleet_make $n yes
			idle_one cgoom $n yes
			[ "$n" = "$(echo $NS | cut -d' ' -f1)" ] && for p in $PEERS; do idle_one $p $n yes; done
			fleet_clear
		done
		if [ "$UNLIM" -gt 0 ]; then
			SLEEP_EVERY=100 fleet_make $UNLIM no
			idle_one cgoom $UNLIM no
			fleet_clear
		fi ;;
	b2)
		for n in 10 1000; do
			fleet_make $n yes
			scale_b2 $n
			fleet_clear
		done ;;
	ten)
		fleet_make 1000 yes
		scale_ten 1000
		fleet_clear ;;
	churn)
		fleet_make 1000 yes
		scale_churn
		fleet_clear ;;
	esac
done
kill $PROBE 2> /dev/null
out "SCALE-DONE"
exit 0
