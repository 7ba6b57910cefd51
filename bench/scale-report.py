#!/usr/bin/env python3
"""bench/scale-report.py RESULTS: the table and ratio lines of bench/scale.

Reads the SCALE-* and BENCH-REP lines bench/scale-guest.sh wrote and
prints the idle cost per number of quiet domains (and per peer), the b2
race beside 10 and beside 1000 quiet domains (reaction from the
reference crossing to the first death, median and worst; the spec's
victim; the killer; kernel OOM kills), the ten-at-once and churn
summaries (and the churn's RSS and fds each minute), then `ratio METRIC/WHAT/AGAINST X` lines as bench/run prints
them (bench/report.py), all from this one run.
"""
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import kv, num, ratio  # noqa: E402


def main():
    idle, reps, ten, churn, churn_rss = [], [], [], [], []
    for line in open(sys.argv[1]):
        if line.startswith("SCALE-IDLE"):
            idle.append(kv(line))
        elif line.startswith("BENCH-REP"):
            reps.append(kv(line))
        elif line.startswith("SCALE-TEN"):
            ten.append(kv(line))
        elif line.startswith("SCALE-CHURN-RSS"):
            churn_rss.append(kv(line))
        elif line.startswith("SCALE-CHURN "):
            churn.append(kv(line))
    print("\n%-9s %6s %6s %9s %8s %9s %8s %8s %9s %9s" % ("tool", "n", "limits", "fleet_mib", "secs", "cpu_ms",
                                                          "rss_kb", "fds", "ready_ms", "alloc_mib"))
    cg = {}
    peer = {}
    for d in idle:
        print("%-9s %6s %6s %9s %8s %9s %8s %8s %9s %9s" % (d.get("tool"), d.get("n"), d.get("limits"),
                                                          d.get("fleet_mib", "64"), d.get("secs"),
                                                          d.get("cpu_ms"), d.get("rss_kb"), d.get("fds"),
                                                          d.get("ready_ms"), d.get("alloc_mib", "-")))
        if d.get("tool") == "cgoom" and d.get("limits") == "yes":
            cg[int(d["n"])] = d
        elif d.get("tool") != "cgoom":
            peer[d.get("tool")] = d
    by = {}
    for r in reps:
        by.setdefault(r.get("scen"), []).append(r)
    if by:
        print("\n%-8s %4s %9s %9s %6s %-14s %s" % ("scen", "n", "react_md", "react_wc", "spec", "killer",
                                                 "kernel_kills"))
    med = {}
    for scen, rs in sorted(by.items()):
        xs = [num(r.get("react_ms")) for r in rs if num(r.get("react_ms")) is not None]
        med[scen] = statistics.median(xs) if xs else None
        spec = sum(1 for r in rs if r.get("spec") == "yes")
        killers = {}
        for r in rs:
            killers[r.get("killer")] = killers.get(r.get("killer"), 0) + 1
        kk = sum(int(num(r.get("kernel_kills")) or 0) for r in rs)
        print("%-8s %4d %9s %9s %3d/%-2d %-14s %d" % (
            scen, len(rs), "%.1f" % med[scen] if med[scen] is not None else "-",
            "%.1f" % max(xs) if xs else "-", spec, len(rs),
            ",".join("%s(%d)" % kv_ for kv_ in sorted(killers.items())), kk))
    for t in ten:
        print("\nten at once: " + " ".join("%s=%s" % (k, v) for k, v in t.items()))
    for c in churn:
        print("\nchurn: " + " ".join("%s=%s" % (k, v) for k, v in c.items()))
    if churn_rss:
        print("churn, each minute (s: RSS KiB / fds): " +
              " ".join("%s:%s/%s" % (c.get("t_s"), c.get("rss_kb"), c.get("fds")) for c in churn_rss))
        if any(c.get("heap_kb") for c in churn_rss):
            print("churn, heap in use each minute (s: KiB; SCALE_DEBUG=1): " +
                  " ".join("%s:%s" % (c.get("t_s"), c.get("heap_kb") or "-") for c in churn_rss))
    print()
    ns = sorted(cg)
    if ns:
        lo = cg[ns[0]]
        for n in ns[1:]:
            ratio("idle_cpu_ms/n%d/n%d" % (n, ns[0]), num(cg[n].get("cpu_ms")), num(lo.get("cpu_ms")))
        for n in ns:
            for p, pd in sorted(peer.items()):
                ratio("idle_cpu_ms/n%d/%s" % (n, p), num(cg[n].get("cpu_ms")), num(pd.get("cpu_ms")))
        for n in ns:
            print("rss_kb n%d %s" % (n, cg[n].get("rss_kb")))
    for d in idle:
        if d.get("tool") == "cgoom" and d.get("limits") == "no" and ns:
            ratio("idle_cpu_ms/unlimited%s/n%d" % (d["n"], ns[0]), num(d.get("cpu_ms")),
                  num(cg[ns[0]].get("cpu_ms")))
    alone = [s for s in med if s == "b2n10"]
    among = [s for s in med if s == "b2n1000"]
    if alone and among:
        ratio("reaction_ms/b2n1000/b2n10", med["b2n1000"], med["b2n10"])


if __name__ == "__main__":
    main()
