# SPDX-License-Identifier: MIT
"""What bench/'s report scripts share: reading their KEY=VALUE lines and
printing ratio lines."""


def kv(line):
    """The KEY=VALUE words of a BENCH-* line (its first word left out)."""
    d = {}
    for w in line.split()[1:]:
        if "=" in w:
            k, v = w.split("=", 1)
            d[k] = v
    return d


def num(v):
    """v as a float, or None when it is missing or not a number."""
    try:
        return float(v)
    except (TypeError, ValueError):
        return None


def ratio(name, a, b):
    """Prints `ratio NAME a/b` (two decimals), or `ratio NAME n/a`."""
    if a is None or b is None or b <= 0:
        print("ratio %s n/a" % name)
    else:
        print("ratio %s %.2f" % (name, a / b))
