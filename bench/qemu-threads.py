#!/usr/bin/env python3
"""bench/qemu-threads.py OUT: the host's view of a running guest.

Every 50 ms, one line for the QEMU process on this host (the first
qemu-system-* found; it waits for one and follows the next):
  HOST_MONO_MS io_full_us=N STATE:WCHAN ...
the host's CLOCK_MONOTONIC in ms, the host's /proc/pressure/io full total,
and each of QEMU's threads as its state (R, S, D) and where it sleeps.
Run by hand beside a bench run; with the offset bench/canary-align.py
prints (host = guest + offset) it says what QEMU's threads did while the
guest's canary found the whole guest stopped (bench/README.md,
2026-12-06: the threads were running, none waited for I/O).
"""
import os
import sys
import time


def qemu_pid():
    for p in os.listdir("/proc"):
        if p.isdigit():
            try:
                with open("/proc/%s/comm" % p) as f:
                    if f.read().startswith("qemu-system"):
                        return p
            except OSError:
                pass
    return None


def read(path):
    with open(path) as f:
        return f.read()


def main(path):
    out = open(path, "w", buffering=1)
    pid = None
    while True:
        if pid is None or not os.path.exists("/proc/%s" % pid):
            pid = qemu_pid()
            if pid is None:
                time.sleep(0.5)
                continue
        t = int(time.clock_gettime(time.CLOCK_MONOTONIC) * 1000)
        parts = []
        try:
            for tid in os.listdir("/proc/%s/task" % pid):
                b = "/proc/%s/task/%s/" % (pid, tid)
                try:
                    st = read(b + "stat")
                    parts.append("%s:%s" % (st[st.rindex(")") + 2], read(b + "wchan").strip() or "-"))
                except OSError:
                    pass
            io = [x for x in read("/proc/pressure/io").split() if x.startswith("total=")][-1][6:]
        except OSError:
            pid = None
            continue
        out.write("%d io_full_us=%s %s\n" % (t, io, " ".join(sorted(parts))))
        time.sleep(0.05)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
