#!/usr/bin/env python3
"""bench/report.py RESULTS: the table and ratio lines of one bench/run.

Reads the BENCH-* lines the guests wrote (bench/guest.sh) and prints, per
tool and scenario: reaction (threshold crossing -> first death, ms; median
and worst), the killer's CPU while inside the band (ms from entering the
band to the first death, median, and as % of one CPU), the innocent
probe's worst wakeup latency (ms; median over the repetitions), the
reference monitor's resolution at the crossing (us, worst), what died and
whether it was the spec's choice, who killed it, the kernel's OOM kills;
then the idle cost of each daemon, the lines that could not run, and
`ratio METRIC/SCEN/PEER X` lines of cgoom's median over each peer's
(limit: the oracle), from this same run. The swap suites' lines
(BENCH-SWAP) have their own table: bench/report_swap.py.
"""
import collections
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import report_swap  # noqa: E402
from benchlib import kv, num  # noqa: E402

TOOLS = ["cgoom", "cgoom2", "limit", "earlyoom", "oomd", "systemd-oomd", "systemd-oomd-tuned", "kernel"]


def fmt(x):
    if x is None:
        return "-"
    if abs(x) >= 100:
        return "%.0f" % x
    return "%.1f" % x


def report_side(side, info=()):
    """The idle-side boot: every daemon idle alone in its turn, the same rounds;
    the guest's swap where it had one (bench/run --side-swap: a BENCH-INFO
    line with swap=zram)."""
    if not side:
        return
    print()
    if any("wakeups" in d for runs in side.values() for d in runs):
        print("idle in turns (one guest, each daemon alone in its turn of every round):")
    else:  # results from before 2026-12-06: every daemon idle at once
        print("idle side by side (one guest, every daemon at once, the same windows):")
    for i in info:
        d = kv("INFO " + i)
        if d.get("tool") == "idle-side" and "swap" in d:
            print("swap: %s %s MiB (SwapTotal %s KiB)"
                  % (d["swap"], d.get("swap_mib", "?"), d.get("swaptotal_kb", "?")))
    print("CPU time per turn (ms), its sum, and RSS at the end")
    tools = [t for t in TOOLS if t in side] + sorted(t for t in side if t not in TOOLS)
    for t in tools:
        w = [num(d["cpu_ms"]) for d in side[t]]
        secs = sum(num(d["secs"]) or 0 for d in side[t])
        ticks = any(d.get("cpu_from", "ticks") == "ticks" for d in side[t])
        print("  %-9s %3d turns, %5.0f s: cpu %7.1f ms (%.2f%% of one CPU)%s, per turn %s; RSS %s KiB"
              % (t, len(w), secs, sum(w), sum(w) / secs / 10.0 if secs else 0,
                 " [ticks]" if ticks else "", " ".join(fmt(x) for x in w), side[t][-1].get("rss_kb", "?")))
        wakes = [num(d.get("wakeups")) for d in side[t]]
        if secs and wakes and all(x is not None and x > 0 for x in wakes):
            print("            %d wake-ups (%.2f a second), %.0f us of CPU each"
                  % (sum(wakes), sum(wakes) / secs, 1000.0 * sum(w) / sum(wakes)))
    if "cgoom" not in side:
        return
    mine = {d["window"]: num(d["cpu_ms"]) for d in side["cgoom"]}
    for t in tools:
        if t == "cgoom":
            continue
        theirs = {d["window"]: num(d["cpu_ms"]) for d in side[t]}
        both = [w for w in mine if w in theirs and mine[w] is not None and theirs[w] is not None]
        a = sum(mine[w] for w in both)
        b = sum(theirs[w] for w in both)
        per = sorted(mine[w] / theirs[w] for w in both if theirs[w])
        print("ratio idle_side_cpu_ms/%s %s" % (t, "%.2f" % (a / b) if b else "n/a"))
        if per:
            print("  (per round %.2f-%.2f, median %.2f over %d rounds)"
                  % (per[0], per[-1], statistics.median(per), len(per)))


def main(path):
    reps = collections.defaultdict(list)
    idle = {}
    side = collections.defaultdict(list)
    cannot = []
    host = []
    info = []
    swap = []
    with open(path, errors="replace") as f:
        for line in f:
            line = line.strip()
            if line.startswith("BENCH-REP "):
                d = kv(line)
                reps[(d["tool"], d["scen"])].append(d)
            elif line.startswith("BENCH-IDLE "):
                d = kv(line)
                idle[d["tool"]] = d
            elif line.startswith("BENCH-IDLE-SIDE "):
                d = kv(line)
                side[d["tool"]].append(d)
            elif line.startswith("BENCH-CANNOT "):
                cannot.append(line[len("BENCH-CANNOT "):])
            elif line.startswith("BENCH-HOST "):
                host.append(line[len("BENCH-HOST "):])
            elif line.startswith("BENCH-INFO "):
                info.append(line[len("BENCH-INFO "):])
            elif line.startswith("BENCH-SWAP "):
                swap.append(line)

    for h in host:
        print("# " + h)
    for i in info:
        if ("innocents=" in i or "scen=c seed" in i or "memory.max" in i or "boot_wall_s" in i
                or "memtotal_kb" in i or "suite=swap" in i):
            print("# " + i)
    if not reps:
        report_side(side, info)
        report_swap.report(swap, info)
        if cannot:
            print()
            print("could not run:")
            for c in cannot:
                print("  " + c)
        return
    scens = sorted({s for (_, s) in reps}, key=lambda s: (s[0], int(s[1:]) if s[1:].isdigit() else 0, s))
    tools = [t for t in TOOLS if any(k[0] == t for k in reps)]
    summary = {}
    hdr = ("%-9s %-6s %3s %3s %8s %8s %7s %6s %7s %7s %7s %6s %-24s %-14s %6s %5s"
           % ("tool", "scen", "n", "pre", "react_md", "react_wc", "bandcpu", "cpu%", "probe",
              "gap_md", "gap_wc", "MiB/s", "died (count)", "killer", "kkills", "spec"))
    print()
    print("react: reference line crossed -> first death (ms, median and worst);")
    print("bandcpu: the killer's CPU from entering the band (the last BAND_KB before")
    print("the line) to the first death (ms, median), cpu%: that over the band's")
    print("length (% of one CPU, median); probe: the innocent's worst 10 ms-sleep")
    print("wakeup latency (ms, median); gap_md/gap_wc: the monitor's sampling gap")
    print("at the crossing (its resolution, us; median, worst); MiB/s: growth at")
    print("the crossing;")
    print("killer: by the kernel log vs the tool's own log; kkills: kernel OOM")
    print("kills summed over the runs (b*: vmstat/domain memory.events); spec:")
    print("runs where exactly the spec's choice died; pre: runs where the victim")
    print("died before the monitor saw the line crossed (not in react)")
    print(hdr)
    print("-" * len(hdr))
    for s in scens:
        for t in tools:
            rs = reps.get((t, s))
            if not rs:
                continue

            def col(key):
                return [num(r.get(key)) for r in rs if num(r.get(key)) is not None]
            react = col("react_ms")
            probe = col("probe_ms")
            rate = col("rate_mibs")
            gap = col("cross_gap_us")
            bcpu = col("band_cpu_ms")
            bpct = [100.0 * num(r["band_cpu_ms"]) / num(r["band_ms"]) for r in rs
                    if num(r.get("band_cpu_ms")) is not None and (num(r.get("band_ms")) or 0) > 0]
            died = collections.Counter(r["victim"] for r in rs)
            killer = collections.Counter(r["killer"] for r in rs)
            kk = sum(int(r.get("kernel_kills", "0") or 0) for r in rs)
            cgk = sum(int(r.get("cg_oom_kills", "0") or 0) for r in rs)
            spec = sum(1 for r in rs if r["spec"] == "yes")
            med = (lambda v: statistics.median(v) if v else None)
            summary[(t, s)] = {"reaction_ms": med(react), "probe_ms": med(probe),
                               "band_cpu_pct": med(bpct),
                               "reaction_worst_ms": max(react) if react else None}
            diedtxt = " ".join("%s(%d)" % (k, v) for k, v in died.most_common())
            killtxt = " ".join("%s(%d)" % (k, v) for k, v in killer.most_common())
            kk_txt = "%d/%d" % (kk, cgk) if s.startswith("b") else str(kk)
            pre = sum(1 for r in rs if r.get("react_ms") == "nocross")
            print("%-9s %-6s %3d %3d %8s %8s %7s %6s %7s %7s %7s %6s %-24s %-14s %6s %2d/%-2d"
                  % (t, s, len(rs), pre, fmt(med(react)), fmt(max(react) if react else None),
                     fmt(med(bcpu)), fmt(med(bpct)), fmt(med(probe)),
                     fmt(med(gap)), fmt(max(gap) if gap else None), fmt(med(rate)),
                     diedtxt, killtxt, kk_txt, spec, len(rs)))
    mon_cpu = [num(r.get("mon_cpu_ms")) / num(r["mon_span_ms"]) * 100 for rs in reps.values()
               for r in rs if num(r.get("mon_cpu_ms")) is not None and (num(r.get("mon_span_ms")) or 0) > 0]
    mon_n = [num(r.get("mon_samples")) / num(r["mon_span_ms"]) for rs in reps.values()
             for r in rs if num(r.get("mon_samples")) is not None and (num(r.get("mon_span_ms")) or 0) > 0]
    for s in scens:
        ex = [num(r.get("limit_exit_ms")) for r in reps.get(("limit", s), [])
              if num(r.get("limit_exit_ms")) is not None]
        if ex:
            print("(limit %s: its SIGKILL -> the death, median %s ms, worst %s ms)"
                  % (s, fmt(statistics.median(ex)), fmt(max(ex))))
    if mon_cpu and mon_n:
        print("(reference monitor: median %.2f samples/ms, median %.1f%% of one CPU)"
              % (statistics.median(mon_n), statistics.median(mon_cpu)))

    if idle:
        print()
        print("idle cost (daemon alone, no scenario): CPU time (schedstat run time, or"
              " utime+stime in ticks where said) and RSS")
        for t in TOOLS:
            if t in idle:
                d = idle[t]
                secs = float(d["secs"])
                cpu = float(d["cpu_ms"])
                print("  %-9s %5.0f s idle: cpu %7.1f ms (%.2f%% of one CPU)%s, RSS %6s KiB"
                      % (t, secs, cpu, cpu / secs / 10.0,
                         " [ticks]" if d.get("cpu_from", "ticks") == "ticks" else "", d["rss_kb"]))
    report_side(side, info)
    if cannot:
        print()
        print("could not run:")
        for c in cannot:
            print("  " + c)

    report_swap.report(swap, info)
    print()
    if not any(k[0] == "cgoom" for k in summary):
        print("ratio: none (no cgoom results in this run)")
        return
    for s in scens:
        if ("cgoom", s) not in summary:
            continue
        for t in tools:
            if t == "cgoom" or (t, s) not in summary:
                continue
            for m in ("reaction_ms", "probe_ms", "band_cpu_pct"):
                a, b = summary[("cgoom", s)][m], summary[(t, s)][m]
                if a is None or b is None or b <= 0 or a < 0:
                    r = "n/a"
                else:
                    r = "%.2f" % (a / b)
                print("ratio %s/%s/%s %s" % (m, s, t, r))
    if "cgoom" in idle:
        for t in TOOLS:
            if t == "cgoom" or t not in idle:
                continue
            for m, key in (("idle_cpu_ms", "cpu_ms"), ("idle_rss_kb", "rss_kb")):
                a, b = num(idle["cgoom"][key]), num(idle[t][key])
                r = "%.2f" % (a / b) if a is not None and b else "n/a"
                print("ratio %s/%s %s" % (m, t, r))


if __name__ == "__main__":
    main(sys.argv[1])
