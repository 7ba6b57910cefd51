#!/usr/bin/env python3
"""Reduce a test-bed series (tests/vm/recorder.c: blocks '@ T_MS', '== PATH'
and the file's contents, marks '# T_MS TEXT') to the numbers the thrashing
history reads (cgoom/thrash.h), one sample per line, for
tests/unit/test-thrash-series.c:

  # mark T_MS TEXT
  T_MS SOME_US FULL_US REFAULTS ACTIVATIONS PSWPIN PSWPOUT STOLEN SCANNED
       ALLOCSTALLS MEMTOTAL_KB MEMAVAILABLE_KB SWAPTOTAL_KB SWAPFREE_KB
       ZRAM_ORIG ZRAM_USED ZRAM_LIMIT [ZSWAPPED_KB]

ZSWAPPED_KB (what zswap stores, /proc/meminfo's Zswapped) is written
only when the series has zswap in use (a line over 0); older series and
readers have 17 columns.

usage: reduce.py SERIES[.gz] [--every MS] [--cgroup PATH --max BYTES] > NAME.txt

With --cgroup, the numbers are the cgroup's, as the daemon reads a cgroup
domain: PSI from its memory.pressure, the counters from its memory.stat
(no swap-ins there: 0), MEMTOTAL its memory.max, MEMAVAILABLE max -
memory.current, SWAPTOTAL its swap in use plus what the system still has
free, SWAPFREE that (memory.swap.max is taken as max)."""
import gzip, sys

def blocks(path):
    op = gzip.open if path.endswith('.gz') else open
    cur, f = None, None
    marks = []
    for line in op(path, 'rt', errors='replace'):
        line = line.rstrip('\n')
        if line.startswith('@ '):
            if cur: yield cur, marks; marks = []
            cur, f = {'t': int(line.split()[1])}, None
        elif line.startswith('# '):
            p = line.split(' ', 2)
            if len(p) > 2 and p[1].isdigit():
                marks.append((int(p[1]), p[2]))
        elif line.startswith('== '):
            f = line[3:]
            if cur is not None: cur[f] = []
        elif cur is not None and f is not None:
            cur[f].append(line)
    if cur: yield cur, marks

def kv(lines):
    d = {}
    for l in lines or []:
        p = l.replace(':', ' ').split()
        if len(p) >= 2 and p[1].isdigit():
            d[p[0]] = int(p[1])
    return d

def psi(lines):
    d = {}
    for l in lines or []:
        p = l.split()
        if p and p[0] in ('some', 'full'):
            for x in p[1:]:
                k, _, v = x.partition('=')
                if k == 'total': d[p[0]] = int(v)
    return d

def arg(name, default=None):
    return sys.argv[sys.argv.index(name) + 1] if name in sys.argv else default

def main():
    path = sys.argv[1]
    every = int(arg('--every', 100))
    cg = arg('--cgroup')
    cgmax = int(arg('--max', 0))
    print(f"# reduced from {path.split('/')[-1]} by tests/unit/data/series/reduce.py, every {every} ms")
    last = None
    for b, marks in blocks(path):
        for t, m in marks: print(f"# mark {t} {m}")
        if last is not None and b['t'] - last < every: continue
        mi, vm, ps = kv(b.get('/proc/meminfo')), kv(b.get('/proc/vmstat')), psi(b.get('/proc/pressure/memory'))
        if 'MemTotal' not in mi: continue
        z = (b.get('/sys/block/zram0/mm_stat') or [''])[0].split()
        zo, zu, zl = (int(z[0]), int(z[2]), int(z[3])) if len(z) >= 4 else (0, 0, 0)
        if cg:
            cur = kv(['v ' + l for l in b.get(cg + '/memory.current') or []]).get('v')
            sw = kv(['v ' + l for l in b.get(cg + '/memory.swap.current') or []]).get('v', 0)
            ps, vm = psi(b.get(cg + '/memory.pressure')), kv(b.get(cg + '/memory.stat'))
            if cur is None: continue
            free_kb = mi.get('SwapFree', 0)
            mi = {'MemTotal': cgmax >> 10, 'MemAvailable': max(cgmax - cur, 0) >> 10,
                  'SwapTotal': (sw >> 10) + free_kb, 'SwapFree': free_kb}
            zo = zu = zl = 0
        if 'some' not in ps or 'full' not in ps: continue
        ref = vm.get('workingset_refault_anon', 0) + vm.get('workingset_refault_file', 0) or vm.get('workingset_refault', 0)
        act = vm.get('workingset_activate_anon', 0) + vm.get('workingset_activate_file', 0) or vm.get('workingset_activate', 0)
        stl = sum(vm.get(k, 0) for k in ('pgsteal_kswapd', 'pgsteal_direct', 'pgsteal_khugepaged'))
        scn = sum(vm.get(k, 0) for k in ('pgscan_kswapd', 'pgscan_direct', 'pgscan_khugepaged'))
        als = sum(v for k, v in vm.items() if k.startswith('allocstall_'))
        zsw = [mi['Zswapped']] if mi.get('Zswapped', 0) > 0 and not cg else []
        print(b['t'], ps['some'], ps['full'], ref, act, vm.get('pswpin', 0), vm.get('pswpout', 0), stl, scn, als,
              mi['MemTotal'], mi.get('MemAvailable', 0), mi.get('SwapTotal', 0), mi.get('SwapFree', 0), zo, zu, zl,
              *zsw)
        last = b['t']

main()
