"""bench/report_swap.py: the swap suites' table and lines (bench/report.py
calls report(); also runnable alone: report_swap.py RESULTS).

Per scenario and tool, over the repetitions (BENCH-SWAP lines written by
bench/swap-guest.sh): the probe's stalls (rounds over 100 ms) and its
worst round from the start of the squeeze to relief (or to the end of the
run when there was none), when the first stall came, time to relief, the
leak's life and that over the kernel alone's, what died, who killed, the
spec's victim, kernel OOM kills and processes killed. Then:
  ratio stalls/SCEN/PEER X      cgoom's stalls over the peer's (medians)
  ratio stalls_running/SCEN/PEER X  the same without the stalls spent half
                                or more with the whole guest stopped (the
                                canary's record, tests/vm/probe.c; runs
                                before it had none: not printed)
  ratio leak_life/SCEN/kernel X cgoom's leak life over the kernel alone's
  kills h TOOL N                processes killed in the healthy suite
  (lockup: ...)                 a run in which the guest's kernel locked up
                                (its soft-lockup watchdog or an RCU stall):
                                every task froze, the tool with it
  thrash_relief TOOL S...       s-thrash: each run's relief, in seconds after
                                the working sets stopped fitting (every job
                                had touched all of its set: "all active")
and zram's compression (from the series' mm_stat, at the most stored).
"""
import collections
import gzip
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import kv, num  # noqa: E402

TOOLS = ["cgoom", "cgoom2", "limit", "kernel", "earlyoom", "systemd-oomd", "systemd-oomd-user", "nohang", "oomd",
         "oomd-unified"]


def med(v):
    v = [x for x in v if x is not None]
    return statistics.median(v) if v else None


def fmt(x, unit=1.0):
    if x is None:
        return "-"
    x = x / unit
    if abs(x) >= 100:
        return "%.0f" % x
    return "%.1f" % x


def scen_key(s):
    order = {"s-leak": 0, "s-thrash": 1, "h": 2}
    grp = "s-leak" if s.startswith("s-leak") else ("s-thrash" if s == "s-thrash" else "h")
    rate = 0
    if grp == "s-leak":
        r = s[len("s-leak"):].split("-")[0]
        rate = int(r) if r.isdigit() else 0
        return (order[grp], s.endswith("disk"), rate, s)
    return (order[grp], False, rate, s)


def zram_peak(path):
    """(ratio, mem_ratio, orig_mib) at the block where zram held the most"""
    best = None
    try:
        f = gzip.open(path, "rt", errors="replace")
        want = False
        for line in f:
            if line.startswith("== "):
                want = line.strip() == "== /sys/block/zram0/mm_stat"
                continue
            if want:
                want = False
                p = line.split()
                if len(p) >= 3 and p[1] != "0" and p[2] != "0":
                    o, c, u = int(p[0]), int(p[1]), int(p[2])
                    if best is None or o > best[0]:
                        best = (o, c, u)
        f.close()
    except OSError:
        return None
    if not best:
        return None
    return best[0] / best[1], best[0] / best[2], best[0] / 1048576.0


def life_of(r):
    """(ms, exact): the leak's life, or the run's span when it outlived
    the run (a lower bound); (None, True) outside s-leak"""
    v = num(r.get("leak_life_ms"))
    if v is not None:
        return v, True
    if r.get("scen", "").startswith("s-leak") and "leak" not in r.get("died", "").split(","):
        return num(r.get("span_ms")), False
    return None, True


def report(lines, infos, out=sys.stdout):
    rows = collections.defaultdict(list)
    locked = []
    for line in lines:
        d = kv(line)
        rows[(d.get("tool"), d.get("scen"))].append(d)
        # the guest's kernel locked up (soft lockup, RCU stall): a
        # thrashing machine's own freeze, or the TCG guest's (s-thrash's
        # second repetition with memory to spare); counted, and said
        if (num(d.get("guest_lockups")) or 0) > 0:
            locked.append(d)
    if not rows:
        return
    run = None
    for i in infos:
        if "suite=swap" in i and "run=" in i:
            run = kv("x " + i).get("run")
    scens = sorted({s for (_, s) in rows}, key=scen_key)
    tools = [t for t in TOOLS if any(k[0] == t for k in rows)]
    tools += sorted({t for (t, _) in rows} - set(tools))
    p = lambda *a: print(*a, file=out)
    p()
    p("swap suites: stalls = the probe's rounds over 100 ms from the start of the squeeze to")
    p("relief (or to the end), median over the runs; worst: its worst round (ms); 1st: when")
    p("the first stall came (s after the squeeze's start); relief: the squeeze's start to the")
    p("end of the first probe round under 100 ms after the first death with 2 s of good rounds")
    p("after it (s; none: no relief in the run); life: the leak's life (s; >N: it outlived")
    p("the run) and over the kernel alone's; died, killer, spec (runs where exactly the")
    p("spec's victim died; h: nobody);")
    p("kk: kernel OOM kills; killed: processes killed (in h every one is a false kill);")
    p("cpu: the tool's own CPU time from the squeeze's start to its end (ms; its unit's")
    p("cpu.stat, median; -: no unit, or not recorded); ratio cpu_own: cgoom's less its process_mrelease")
    p("of its victims (their memory freed by cgoom, not by their exit), over the peer's;")
    p("stop: of the stalls, those spent half or more with the whole guest stopped / with a CPU")
    p("of it stopped (the canary's late wake-ups: the host did not run it, or the guest's kernel")
    p("held it), medians; and the")
    p("whole guest's stand-stills in the window (s, median)")
    hdr = ("%-15s %-17s %2s %6s %7s %6s %7s %6s %6s %-22s %-22s %5s %3s %6s %6s %11s"
           % ("scen", "tool", "n", "stalls", "worst", "1st", "relief", "life", "/kern",
              "died (count)", "killer", "spec", "kk", "killed", "cpu", "stop"))
    p(hdr)
    p("-" * len(hdr))
    summ = {}
    for s in scens:
        kl = [life_of(r) for r in rows.get(("kernel", s), [])]
        klife = med([v for v, _ in kl])
        kexact = all(e for _, e in kl)
        for t in tools:
            rs = rows.get((t, s))
            if not rs:
                continue
            stalls = med([num(r.get("stalls")) for r in rs])
            worst = med([num(r.get("worst_ms")) for r in rs])
            first = med([num(r.get("first_stall_ms")) for r in rs if (num(r.get("first_stall_ms")) or -1) >= 0])
            relief_v = [num(r.get("relief_ms")) for r in rs]
            relief = med(relief_v) if all(x is not None for x in relief_v) else None
            ll = [life_of(r) for r in rs]
            life = med([v for v, _ in ll])
            lexact = all(e for _, e in ll)
            died = collections.Counter(r.get("died", "none") for r in rs)
            killer = collections.Counter(r.get("killer", "none") for r in rs)
            spec = sum(1 for r in rs if r.get("spec") == "yes")
            kk = sum(int(num(r.get("kernel_kills")) or 0) for r in rs)
            killed = sum(int(num(r.get("killed")) or 0) for r in rs)
            cpu = med([num(r.get("tool_cpu_ms")) for r in rs if (num(r.get("tool_cpu_ms")) or -1) >= 0])
            # the tool's own work: its CPU less the victims' memory it
            # freed for them (cgoom's process_mrelease), which their
            # exit does for every other tool
            rels = [num(r.get("release_cpu_ms")) for r in rs]
            own = cpu
            if cpu is not None and rels and all(x is not None and x >= 0 for x in rels):
                own = cpu - med(rels)
            # the canary's columns (runs before it: none)
            st = [num(r.get("stopped_stalls")) for r in rs]
            running = None
            stop = "-"
            if all(x is not None for x in st):
                running = med([num(r.get("stalls")) - num(r.get("stopped_stalls")) for r in rs])
                stop = "%s/%s %s" % (fmt(med(st)), fmt(med([num(r.get("cpu_stopped_stalls")) for r in rs])),
                                     fmt(med([num(r.get("guest_stop_ms")) for r in rs]), 1000))
            summ[(t, s)] = {"stalls": stalls, "life": life, "exact": lexact, "killed": killed, "own": own,
                            "running": running}
            rel = "none" if relief is None else fmt(relief, 1000)
            lk = "-"
            if life is not None and klife and t != "kernel":
                # a bound when either leak outlived its run
                lk = {(True, True): "", (True, False): "<=", (False, True): ">=", (False, False): "?"}[
                    (lexact, kexact)] + fmt(life / klife)
            lf = ("" if lexact else ">") + fmt(life, 1000) if life is not None else "-"
            p("%-15s %-17s %2d %6s %7s %6s %7s %6s %6s %-22s %-22s %2d/%-2d %3d %6d %6s %11s"
              % (s, t, len(rs), fmt(stalls), fmt(worst), fmt(first, 1000), rel, lf, lk,
                 " ".join("%s(%d)" % kv_ for kv_ in died.most_common())[:22],
                 " ".join("%s(%d)" % kv_ for kv_ in killer.most_common())[:22],
                 spec, len(rs), kk, killed, fmt(cpu), stop))
    # zram's compression at its fullest, from the series
    if run and os.path.isdir(os.path.join(run, "series")):
        zs = []
        for fn in sorted(os.listdir(os.path.join(run, "series"))):
            if "-zram-" in fn or fn.startswith(("s-thrash", "h-")):
                z = zram_peak(os.path.join(run, "series", fn))
                if z and z[2] >= 64:
                    zs.append(z)
        if zs:
            p("(zram, /sys/block/zram0/mm_stat at its fullest in each of %d series: stored at %.2f:1 median"
              " (%.2f-%.2f), %.2f:1 against the RAM it used; up to %.0f MiB stored)"
              % (len(zs), statistics.median(z[0] for z in zs), min(z[0] for z in zs),
                 max(z[0] for z in zs), statistics.median(z[1] for z in zs), max(z[2] for z in zs)))
    p()
    if not any(t == "cgoom" for (t, _) in summ):
        p("ratio: none (no cgoom results in the swap suites)")
    for s in scens:
        c = summ.get(("cgoom", s))
        if not c:
            continue
        for t in tools:
            if t == "cgoom" or (t, s) not in summ:
                continue
            a, b = c["stalls"], summ[(t, s)]["stalls"]
            if a is None or b is None:
                r = "n/a"
            elif b == 0:
                r = "n/a (%s has 0 stalls, cgoom %g)" % (t, a)
            else:
                r = "%.2f" % (a / b)
            p("ratio stalls/%s/%s %s" % (s, t, r))
            a, b = c["running"], summ[(t, s)]["running"]
            if a is not None and b is not None:
                p("ratio stalls_running/%s/%s %s" % (s, t, "%.2f" % (a / b) if b else
                                                      "n/a (%s has 0 such stalls, cgoom %g)" % (t, a)))
            a, b = c.get("own"), summ[(t, s)].get("own")
            if a is not None and b:
                p("ratio cpu_own/%s/%s %.2f" % (s, t, a / b))
        k = summ.get(("kernel", s))
        if s.startswith("s-leak") and k and k["life"] and c["life"] is not None:
            bound = {(True, True): "", (True, False): "<=", (False, True): ">="}.get((c["exact"], k["exact"]))
            if bound is None:
                p("ratio leak_life/%s/kernel n/a (neither leak died within its run)" % s)
            else:
                p("ratio leak_life/%s/kernel %s%.2f%s" % (s, bound, c["life"] / k["life"],
                  " (the kernel's leak outlived its run)" if not k["exact"] else ""))
    for d in locked:
        p("(lockup: %s %s rep %s, the guest's kernel locked up %s time(s), soft lockup or RCU stall;"
          " worst round %s ms)" % (d.get("scen"), d.get("tool"), d.get("rep"), d.get("guest_lockups"),
                                  d.get("worst_ms")))
    for t in tools:
        hs = [v["killed"] for (tt, s), v in summ.items() if tt == t and s.startswith("h-")]
        if hs:
            p("kills h %s %d" % (t, sum(hs)))
    # s-thrash: relief counted from when the working sets stopped fitting
    # (the "all active" mark), each run (none: no relief in it)
    for t in tools:
        rs = rows.get((t, "s-thrash"))
        if rs:
            v = [num(r.get("active_relief_ms")) for r in rs]
            p("thrash_relief %s %s" % (t, " ".join("none" if x is None else "%.1fs" % (x / 1000.0) for x in v)))


def main(path):
    lines, infos = [], []
    with open(path, errors="replace") as f:
        for line in f:
            line = line.strip()
            if line.startswith("BENCH-SWAP "):
                lines.append(line)
            elif line.startswith("BENCH-INFO "):
                infos.append(line[len("BENCH-INFO "):])
    report(lines, infos)


if __name__ == "__main__":
    main(sys.argv[1])
