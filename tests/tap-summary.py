#!/usr/bin/env python3
"""Sum TAP results over log files: prints 'N passed, N failed, N skipped'.

Each argument is a file holding one or more TAP streams. A line
'ok N - name # SKIP reason' counts as skipped, other 'ok' lines as passed,
'not ok' lines as failed (a '# TODO' on a 'not ok' line is not a failure).
Nested (indented) subtest lines are ignored; meson's TAP logs are flat.
"""
import re
import sys

OK = re.compile(r"^(not ok|ok)\b(.*)$")


def count(path, totals):
    with open(path, errors="replace") as f:
        for line in f:
            m = OK.match(line.rstrip("\n"))
            if not m:
                continue
            status, rest = m.groups()
            directive = rest.split("#", 1)[1].strip().upper() if "#" in rest else ""
            if status == "ok":
                totals["skipped" if directive.startswith("SKIP") else "passed"] += 1
            elif directive.startswith("TODO"):
                totals["skipped"] += 1
            else:
                totals["failed"] += 1


def main():
    totals = {"passed": 0, "failed": 0, "skipped": 0}
    for p in sys.argv[1:]:
        count(p, totals)
    print(f"{totals['passed']} passed, {totals['failed']} failed, {totals['skipped']} skipped")
    return 1 if totals["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
