#!/usr/bin/env python3
"""bench/trace-gaps.py: where the probe's threads waited, from a trace of
bench/swap's CGOOM_BENCH_TRACE=1 (trace/SCEN-TOOL-repN.txt.gz: the guest's
sched_switch into and out of the probe and sched_wakeup of it, each with
a kernel stack).

    bench/trace-gaps.py TRACE.txt[.gz] [--top N] [--min-ms MS] [--sleeps]

For each of the probe's threads, every time it was off a CPU: blocked
(switched out not runnable, until woken: the stack it blocked in and the
stack of whoever woke it) or waiting for a CPU (switched out runnable, or
woken and not yet on a CPU: what ran instead). Prints the N longest of
MS or more, longest first, with the timestamp (CLOCK_MONOTONIC, s: the
probe's rounds are in ms of the same clock), then the time off a CPU
summed by where (blocked: the first frames of its stack; or waiting for a
CPU: preempted, by the task switched to, or after a wake-up). The
probe's own sleeps (nanosleep: its pace) are left out unless
--sleeps."""
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


def add(where, key, ms):
    v = where.setdefault(key, [0.0, 0])
    v[0] += ms
    v[1] += 1


def main(argv):
    top, min_ms, path, sleeps = 10, 100.0, None, False
    i = 0
    while i < len(argv):
        if argv[i] == '--top':
            top = int(argv[i + 1]); i += 2
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
    for e in events(path):
        kv = e['kv']
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
                    if not sleeps and any('do_nanosleep' in f for f in stk):
                        continue
                    if w:
                        key = 'blocked in ' + (' < '.join(short(stk, 4)) or '? (no stack recorded)')
                        add(where, key, (w[0] - t0) * 1000)
                        add(where, 'waiting for a CPU after a wake-up', (e['ts'] - w[0]) * 1000)
                    else:
                        add(where, 'waiting for a CPU, preempted by %s' % nxt, total)
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
