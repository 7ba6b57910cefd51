#!/usr/bin/env python3
"""bench/trace-gaps.py: where the probe's threads waited, from a trace of
bench/swap's CGOOM_BENCH_TRACE=1 (trace/SCEN-TOOL-repN.txt.gz: the guest's
sched_switch into and out of the probe and sched_wakeup of it, each with
a kernel stack).

    bench/trace-gaps.py TRACE.txt[.gz] [--top N] [--min-ms MS] [--sleeps]
                        [--rounds PROBE-ROUNDS]

For each of the probe's threads, every time it was off a CPU: blocked
(switched out not runnable, until woken: the stack it blocked in and the
stack of whoever woke it) or waiting for a CPU (switched out runnable, or
woken and not yet on a CPU: what ran instead). Prints the N longest of
MS or more, longest first, with the timestamp (CLOCK_MONOTONIC, s: the
probe's rounds are in ms of the same clock), then the time off a CPU
summed by where (blocked: the first frames of its stack; or waiting for a
CPU: preempted, by the task switched to, or after a wake-up). The
probe's own sleeps (nanosleep: its pace) are left out unless
--sleeps, and so are the harness's `probe now` processes and `probe
canary`'s real-time threads (same name).

On a CPU: the timer interrupts that found a probe thread running, by the
code they interrupted (the first frames after the interrupt's entry;
"user space" when it was not in the kernel). With --rounds (the run's
probe/SCEN-TOOL-repN.txt), only those within its rounds over 100 ms:
where a stalled round's time went while it ran; and for each such
round, each thread's time off a CPU in it, the ticks that found it
running, and what is neither (the guest's CPU not running at all: the
host did not run it)."""
import gzip
import re
import signal
import sys

EV = re.compile(r'^\s*(?P<task>.+?)-(?P<pid>\d+)\s+\[(?P<cpu>\d+)\]\s+\S+\s+(?P<ts>\d+\.\d+):\s+(?P<ev>\w+):\s+(?P<rest>.*)$')
KV = re.compile(r'(\w+)=(\S+)')


def events(path):
    op = gzip.open if path.endswith('.gz') else open
    cur = None
    with op(path, 'rt', errors='replace') as f:
        for line in f:
            if line.startswith('#'):
                continue
            if line.lstrip().startswith('=>'):
                if cur is not None:
                    cur['stack'].append(line.strip()[3:])
                continue
            m = EV.match(line)
            if not m:
                continue
            if cur is not None:
                yield cur
            rest = m['rest']
            kv = dict(KV.findall(rest.replace(' ==> ', ' ')))
            # sched_switch: the second prev_/next_ set is after "==>"
            if m['ev'] == 'sched_switch' and '==>' in rest:
                a, b = rest.split('==>', 1)
                kv = {**dict(KV.findall(a)), **dict(KV.findall(b))}
            cur = {'task': m['task'].strip(), 'pid': int(m['pid']), 'cpu': int(m['cpu']),
                   'ts': float(m['ts']), 'ev': m['ev'], 'kv': kv, 'stack': []}
    if cur is not None:
        yield cur


def short(stack, n=12):
    skip = ('__schedule', 'schedule', '<stack trace>', 'ftrace', 'trace_', '__traceiter')
    out = [s for s in stack if not s.startswith(skip)]
    return out[:n]


def interrupted(stack, n=6):
    for i in range(len(stack) - 1, -1, -1):
        if stack[i].startswith('asm_sysvec') or stack[i].startswith('asm_common_interrupt'):
            rest = [f for f in stack[i + 1:] if not f.startswith('<')]
            return ' < '.join(rest[:n]) if rest else 'user space'
    return '?'


def stalled_windows(path):
    out = []
    with open(path) as f:
        for line in f:
            w = line.split()
            if len(w) == 3 and w[0] in ('h', 'c') and int(w[2]) > 100000:
                t0 = int(w[1]) / 1000.0
                out.append((t0, t0 + int(w[2]) / 1e6, w[0]))
    return out


def pieces(t0, w, t1, stk, nxt, frames, unknown):
    """A time off a CPU from t0 to t1 as (from, to, where): blocked (in
    the first `frames` frames of stk) until the wake-up w, then waiting
    for a CPU; or, never woken, preempted by nxt all along."""
    if not w:
        return [(t0, t1, 'waiting for a CPU, preempted by %s' % nxt)]
    return [(t0, w[0], 'blocked in ' + (' < '.join(short(stk, frames)) or unknown)),
            (w[0], t1, 'waiting for a CPU after a wake-up')]


def add(where, key, ms):
    v = where.setdefault(key, [0.0, 0])
    v[0] += ms
    v[1] += 1


def main(argv):
    top, min_ms, path, sleeps, rounds = 10, 100.0, None, False, None
    i = 0
    while i < len(argv):
        if argv[i] == '--top':
            top = int(argv[i + 1]); i += 2
        elif argv[i] == '--rounds':
            rounds = stalled_windows(argv[i + 1]); i += 2
        elif argv[i] == '--sleeps':
            sleeps = True; i += 1
        elif argv[i] == '--min-ms':
            min_ms = float(argv[i + 1]); i += 2
        else:
            path = argv[i]; i += 1
    if not path:
        print(__doc__, file=sys.stderr)
        return 2
    off = {}     # pid -> (ts, state, stack) when switched out
    woken = {}   # pid -> (ts, waker task, waker stack)
    gaps = []
    where = {}   # where -> [ms, count]
    ticks = {}   # interrupted code -> [samples, 1]
    # tids left out: those that exited (the harness's `probe now`s) and
    # the real-time ones (prio under 100: `probe canary`'s threads, also
    # named probe, switched every 10 ms, more often than the probe's)
    gone = set()
    offs = []    # (tid, from, to, where): every time off a CPU
    tks = []     # (tid, ts): the ticks that found it running
    evs = list(events(path))
    for e in evs:
        kv = e['kv']
        if e['ev'] == 'sched_switch' and kv.get('prev_comm') == 'probe' and \
                (kv.get('prev_state', '').startswith(('Z', 'X')) or int(kv.get('prev_prio', 120)) < 100):
            gone.add(int(kv['prev_pid']))
    for e in evs:
        kv = e['kv']
        if e['ev'] == 'hrtimer_expire_entry':
            if e['pid'] not in gone:
                tks.append((e['pid'], e['ts']))
                if rounds is None or any(a <= e['ts'] <= b for a, b, _ in rounds):
                    add(ticks, interrupted(e['stack']), 1)
            continue
        if int(kv.get('prev_pid', kv.get('next_pid', kv.get('pid', -1)))) in gone:
            continue
        if e['ev'] == 'sched_switch':
            if kv.get('prev_comm') == 'probe':
                p = int(kv['prev_pid'])
                off[p] = (e['ts'], kv.get('prev_state', '?'), e['stack'], kv.get('next_comm', '?'))
                woken.pop(p, None)
            if kv.get('next_comm') == 'probe':
                p = int(kv['next_pid'])
                if p in off:
                    t0, state, stk, nxt = off.pop(p)
                    w = woken.pop(p, None)
                    total = (e['ts'] - t0) * 1000
                    offs.extend((p, a, b, k) for a, b, k in pieces(t0, w, e['ts'], stk, nxt, 3, '?'))
                    if not sleeps and any('do_nanosleep' in f for f in stk):
                        continue
                    for a, b, k in pieces(t0, w, e['ts'], stk, nxt, 4, '? (no stack recorded)'):
                        add(where, k, (b - a) * 1000)
                    if total >= min_ms:
                        gaps.append({'pid': p, 'at': t0, 'ms': total, 'state': state, 'stack': stk,
                                     'instead': nxt,
                                     'blocked_ms': (w[0] - t0) * 1000 if w else None,
                                     'waker': w[1] if w else None, 'waker_stack': w[2] if w else [],
                                     'runq_ms': (e['ts'] - w[0]) * 1000 if w else total,
                                     'ran_before': e['task']})
        elif e['ev'] == 'sched_wakeup' and kv.get('comm') == 'probe':
            woken[int(kv['pid'])] = (e['ts'], '%s-%d' % (e['task'], e['pid']), e['stack'])
    print('time off a CPU by where (ms, times), the probe\'s sleeps %s:' % ('included' if sleeps else 'left out'))
    for k, (ms, n) in sorted(where.items(), key=lambda kv: -kv[1][0])[:top]:
        print('  %9.1f %6d  %s' % (ms, n, k))
    if ticks:
        n = sum(v[0] for v in ticks.values())
        print('on a CPU: %d timer interrupts found a probe thread running%s, by the code interrupted:' % (
            n, ' within its rounds over 100 ms' if rounds is not None else ''))
        for k, (c, _) in sorted(ticks.items(), key=lambda kv: -kv[1][0])[:top]:
            print('  %6d %5.1f%%  %s' % (c, 100.0 * c / n, k))
    if rounds:
        # each stalled round: how its time splits for each probe thread
        # (the hot thread is the one switched most: every 10 ms)
        nsw = {}
        for tid, _, _, _ in offs:
            nsw[tid] = nsw.get(tid, 0) + 1
        order = sorted(nsw, key=lambda t: -nsw[t])
        names = {t: ('hot' if i == 0 else 'cold' if i == 1 else 'other') for i, t in enumerate(order)}
        print('its rounds over 100 ms, longest first (tick: one found it running, about 4 ms each at HZ 250):')
        for a, b, kind in sorted(rounds, key=lambda r: r[0] - r[1])[:top]:
            print('  %s round at %.3f s, %.0f ms:' % ({'h': 'hot', 'c': 'cold'}[kind], a, (b - a) * 1000))
            for tid in order[:2]:
                per = {}
                for t, x, y, k in offs:
                    if t == tid and y > a and x < b:
                        per[k] = per.get(k, 0) + (min(y, b) - max(x, a)) * 1000
                nt = sum(1 for t, ts in tks if t == tid and a <= ts <= b)
                offms = sum(per.values())
                top3 = '; '.join('%s %.0f ms' % (k, v) for k, v in sorted(per.items(), key=lambda kv: -kv[1])[:3])
                print('    %s thread %d: off a CPU %.0f ms (%s), %d ticks on it, %.0f ms neither' % (
                    names[tid], tid, offms, top3 or '-', nt, max(0.0, (b - a) * 1000 - offms - 4 * nt)))
    gaps.sort(key=lambda g: -g['ms'])
    print('%d times off a CPU for %.0f ms or more' % (len(gaps), min_ms))
    for g in gaps[:top]:
        print('\n== tid %d off %.1f ms at %.3f s (state %s, %s ran instead)' % (
            g['pid'], g['ms'], g['at'], g['state'], g['instead']))
        if g['blocked_ms'] is not None:
            print('   blocked %.1f ms, woken by %s, then %.1f ms waiting for a CPU (%s ran last)' % (
                g['blocked_ms'], g['waker'], g['runq_ms'], g['ran_before']))
        else:
            print('   runnable all along (preempted): %.1f ms waiting for a CPU' % g['runq_ms'])
        print('   blocked in: ' + ' < '.join(short(g['stack'])))
        if g['waker_stack']:
            print('   woken from: ' + ' < '.join(short(g['waker_stack'])))
    return 0


if __name__ == '__main__':
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    sys.exit(main(sys.argv[1:]))
