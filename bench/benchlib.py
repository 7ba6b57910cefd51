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


def series(path):
    """A tests/vm/recorder.c series (gzipped or not), in file order: yields
    ("mark", T_MS, TEXT) for each '# T_MS TEXT' line and ("sample", T_MS,
    {PATH: [LINES]}) for each '@ T_MS' block of '== PATH' files."""
    import gzip

    op = gzip.open if path.endswith(".gz") else open
    cur = files = f = None
    with op(path, "rt", errors="replace") as fh:
        for line in fh:
            line = line.rstrip("\n")
            if line.startswith("@ "):
                if cur is not None:
                    yield "sample", cur, files
                cur, files, f = int(line.split()[1]), {}, None
            elif line.startswith("# "):
                p = line.split(" ", 2)
                if len(p) == 3 and p[1].isdigit():
                    yield "mark", int(p[1]), p[2]
            elif line.startswith("== "):
                f = line[3:].strip()
                if files is not None:
                    files[f] = []
            elif files is not None and f is not None:
                files[f].append(line)
    if cur is not None:
        yield "sample", cur, files
