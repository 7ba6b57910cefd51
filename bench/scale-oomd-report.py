#!/usr/bin/env python3
"""bench/scale-oomd-report.py RESULTS: the table and ratio lines of
bench/scale-oomd.

Reads the SCALE-OOMD lines (one per tool and number of fleet slices)
and prints each tool's idle CPU, RSS and fds beside N slices, then
`ratio idle_cpu_ms/nN/systemd-oomd X` (cgoom over systemd-oomd beside
the same N) and `ratio idle_cpu_ms/TOOL/nBIG/nSMALL X` (each tool beside
the most slices over the fewest), all from this one run.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import kv, num, ratio  # noqa: E402


def main():
    rows = [kv(line) for line in open(sys.argv[1]) if line.startswith("SCALE-OOMD")]
    print("%-13s %6s %6s %8s %8s %8s %9s" % ("tool", "n", "secs", "cpu_ms", "rss_kb", "fds",
                                             "watching"))
    cpu = {}
    for r in rows:
        print("%-13s %6s %6s %8s %8s %8s %9s" % (r.get("tool"), r.get("n"), r.get("secs"),
                                                 r.get("cpu_ms"), r.get("rss_kb"),
                                                 r.get("fds"), r.get("watching")))
        cpu[(r.get("tool"), int(r.get("n", "0")))] = num(r.get("cpu_ms"))
    print()
    ns = sorted({n for (_, n) in cpu})
    for n in ns:
        ratio("idle_cpu_ms/n%d/systemd-oomd" % n, cpu.get(("cgoom", n)),
              cpu.get(("systemd-oomd", n)))
    if len(ns) > 1:
        for tool in ("cgoom", "systemd-oomd"):
            ratio("idle_cpu_ms/%s/n%d/n%d" % (tool, ns[-1], ns[0]), cpu.get((tool, ns[-1])),
                  cpu.get((tool, ns[0])))


if __name__ == "__main__":
    main()
