#!/usr/bin/env python3
"""bench/report.py RESULTS: the table and ratio lines of one bench/run.

Reads the BENCH-* lines the guests wrote (bench/guest.sh) and prints, per
tool and scenario: reaction (threshold crossing -> first death, ms; median
and worst), the innocent probe's worst wakeup latency (ms; median over the
repetitions and the worst of all), what died and whether it was the spec's
choice, who killed it, the kernel's OOM kills; then the idle cost of each
daemon, the lines that could not run, and `ratio METRIC/SCEN/PEER X` lines
of cgoom's median over each peer's, from this same run.
"""
import collections
import statistics
import sys

TOOLS = ["cgoom", "earlyoom", "oomd", "systemd-oomd", "systemd-oomd-tuned", "kernel"]


def kv(line):
    d = {}
    for w in line.split()[1:]:
        if "=" in w:
            k, v = w.split("=", 1)
            d[k] = v
    return d


def num(v):
    try:
        return float(v)
    except (TypeError, ValueError):
        return None


def fmt(x):
    if x is None:
        return "-"
    if abs(x) >= 100:
        return "%.0f" % x
    return "%.1f" % x


def main(path):
    reps = collections.defaultdict(list)
    idle = {}
    cannot = []
    host = []
    info = []
    with open(path, errors="replace") as f:
        for line in f:
            line = line.strip()
            if line.startswith("BENCH-REP "):
                d = kv(line)
                reps[(d["tool"], d["scen"])].append(d)
            elif line.startswith("BENCH-IDLE "):
                d = kv(line)
                idle[d["tool"]] = d
            elif line.startswith("BENCH-CANNOT "):
                cannot.append(line[len("BENCH-CANNOT "):])
            elif line.startswith("BENCH-HOST "):
                host.append(line[len("BENCH-HOST "):])
            elif line.startswith("BENCH-INFO "):
                info.append(line[len("BENCH-INFO "):])

    for h in host:
        print("# " + h)
    for i in info:
        if "innocents=" in i or "scen=c seed" in i or "memory.max" in i or "boot_wall_s" in i:
            print("# " + i)
    scens = sorted({s for (_, s) in reps}, key=lambda s: (s[0], int(s[1:]) if s[1:].isdigit() else 0, s))
    tools = [t for t in TOOLS if any(k[0] == t for k in reps)]
    summary = {}
    hdr = ("%-9s %-6s %4s %8s %8s %8s %8s %6s %-22s %-11s %6s %5s"
           % ("tool", "scen", "n", "react_md", "react_wc", "probe_md", "probe_wc",
              "MiB/s", "died (count)", "killer", "kkills", "spec"))
    print()
    print("reaction: threshold crossing -> first death (ms); probe: the innocent's worst")
    print("10 ms-sleep wakeup latency per run (ms); MiB/s: growth rate at the crossing;")
    print("kkills: kernel OOM kills (vmstat oom_kill) summed over the runs; spec: runs")
    print("where what died was exactly the spec's choice (a, b: the grower; c: cg31-99)")
    print(hdr)
    print("-" * len(hdr))
    for s in scens:
        for t in tools:
            rs = reps.get((t, s))
            if not rs:
                continue
            react = [num(r["react_ms"]) for r in rs if num(r.get("react_ms")) is not None]
            probe = [num(r["probe_ms"]) for r in rs if num(r.get("probe_ms")) is not None]
            rate = [num(r.get("rate_mibs")) for r in rs if num(r.get("rate_mibs")) is not None]
            died = collections.Counter(r["victim"] for r in rs)
            killer = collections.Counter(r["killer"] for r in rs)
            kk = sum(int(r.get("kernel_kills", "0") or 0) for r in rs)
            cgk = sum(int(r.get("cg_oom_kills", "0") or 0) for r in rs)
            spec = sum(1 for r in rs if r["spec"] == "yes")
            rmd = statistics.median(react) if react else None
            rwc = max(react) if react else None
            pmd = statistics.median(probe) if probe else None
            pwc = max(probe) if probe else None
            summary[(t, s)] = {"reaction_ms": rmd, "probe_ms": pmd,
                               "reaction_worst_ms": rwc, "probe_worst_ms": pwc}
            diedtxt = " ".join("%s(%d)" % (k, v) for k, v in died.most_common())
            killtxt = " ".join("%s(%d)" % (k, v) for k, v in killer.most_common())
            if s.startswith("b"):
                kk_txt = "%d/%d" % (kk, cgk)
            else:
                kk_txt = str(kk)
            print("%-9s %-6s %4d %8s %8s %8s %8s %6s %-22s %-11s %6s %2d/%-2d"
                  % (t, s, len(rs), fmt(rmd), fmt(rwc), fmt(pmd), fmt(pwc),
                     fmt(statistics.median(rate)) if rate else "-",
                     diedtxt, killtxt, kk_txt, spec, len(rs)))
    print("(scenario b: kkills is vmstat/memory.events oom_kill)")

    if idle:
        print()
        print("idle cost (daemon alone, no scenario): CPU time (utime+stime) and RSS")
        for t in TOOLS:
            if t in idle:
                d = idle[t]
                secs = float(d["secs"])
                cpu = float(d["cpu_ms"])
                print("  %-9s %5.0f s idle: cpu %6.0f ms (%.2f%% of one CPU), RSS %6s KiB"
                      % (t, secs, cpu, cpu / secs / 10.0, d["rss_kb"]))
    if cannot:
        print()
        print("could not run:")
        for c in cannot:
            print("  " + c)

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
            for m in ("reaction_ms", "probe_ms"):
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
