#!/usr/bin/env python3
"""bench/canary-align.py: were the guest's stand-stills the host's own?

  canary-align.py HOST_CANARY GUEST_CANARY... [--min-ms MS]

Both files are `probe canary` records (tests/vm/probe.c): one run on the
host during a bench run (`probe canary FILE` as root, by hand), the
others the guest's, bench/swap's probe/SCEN-TOOL-repN.canary.txt. The
two clocks differ by the guest's boot time (QEMU's TCG runs the guest's
clock on the host's), so the offset is found from the stand-stills
themselves: every pair of a host and a guest stand-still of --min-ms (50)
or more votes for its start's difference (20 ms bins); the bin with the
most votes (3 at least) is the offset. Then, per guest file: how much of
its whole-guest stand-still time (every CPU in a gap) lies in the host's
(every host CPU in a gap), and in any host CPU's gap.
"""
import sys


def load(path):
    """(every, any): merged [a, b) lists in us"""
    per, ncpu = {}, None
    with open(path, errors="replace") as f:
        for line in f:
            p = line.split()
            if len(p) >= 3 and p[0] == "ready":
                ncpu = int(p[2])
            elif len(p) == 4 and p[0] == "g":
                cpu, due, late = int(p[1]), int(p[2]), int(p[3])
                per.setdefault(cpu, []).append((due * 1000, due * 1000 + late))
    if ncpu is None:
        sys.exit("%s: not a canary file (no \"ready PID NCPU\" line)" % path)
    per = {c: merge(v) for c, v in per.items()}
    anyc = merge([s for v in per.values() for s in v])
    every = []
    if len(per) == ncpu:
        lists = list(per.values())
        every = lists[0]
        for v in lists[1:]:
            every = intersect(every, v)
    return every, anyc


def merge(v):
    out = []
    for a, b in sorted(v):
        if out and a <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], b))
        else:
            out.append((a, b))
    return out


def intersect(x, y):
    i = k = 0
    out = []
    while i < len(x) and k < len(y):
        a, b = max(x[i][0], y[k][0]), min(x[i][1], y[k][1])
        if a < b:
            out.append((a, b))
        if x[i][1] < y[k][1]:
            i += 1
        else:
            k += 1
    return out


def covered(spans, by, off):
    """us of spans inside by shifted by -off (by's clock = spans' + off)"""
    t = 0
    for a, b in spans:
        for c, d in by:
            c, d = c - off, d - off
            if d <= a:
                continue
            if c >= b:
                break
            t += min(b, d) - max(a, c)
    return t


def main(argv):
    min_us = 50000
    files = []
    i = 0
    while i < len(argv):
        if argv[i] == "--min-ms":
            min_us = int(argv[i + 1]) * 1000
            i += 2
            continue
        files.append(argv[i])
        i += 1
    if len(files) < 2:
        sys.exit(__doc__)
    h_every, h_any = load(files[0])
    # a stopped host CPU stops every CPU of the guest it ran (QEMU
    # waits for all of them in some of its work; the guest's kernel
    # waits for one in a TLB shootdown): align on any host CPU's gaps
    hbig = [s for s in h_any if s[1] - s[0] >= min_us]
    # one offset for all the guest files (they are one boot's: the
    # guest's clock runs on the host's): every file's stand-stills vote
    gs = [(g,) + load(g) for g in files[1:]]
    votes = {}
    for _, g_every, _ in gs:
        for ga, gb in g_every:
            if gb - ga < min_us:
                continue
            for ha, _ in hbig:
                votes.setdefault((ha - ga) // 20000, []).append(ha - ga)
    best = max(votes.values(), key=len) if votes else []
    nbig = sum(1 for _, g_every, _ in gs for a, b in g_every if b - a >= min_us)
    if len(best) < 3:
        sys.exit("no alignment of the guest's stand-stills with the host's: %d votes at best, of %d guest"
                 " stand-stills of %d ms or more" % (len(best), nbig, min_us // 1000))
    off = sorted(best)[len(best) // 2]
    print("offset %.3f s: %d of %d guest stand-stills of %d ms or more start with a host CPU's gap"
          % (off / 1e6, len(best), nbig, min_us // 1000))
    for g, g_every, _ in gs:
        total = sum(b - a for a, b in g_every)
        ce, ca = covered(g_every, h_every, off), covered(g_every, h_any, off)
        print("%s: whole-guest stand-stills %d ms (%d); in the host's whole stand-stills %d ms (%.0f%%),"
              " in a host CPU's gap %d ms (%.0f%%)"
              % (g, total // 1000, len(g_every), ce // 1000, 100.0 * ce / total if total else 0,
                 ca // 1000, 100.0 * ca / total if total else 0))


if __name__ == "__main__":
    main(sys.argv[1:])
