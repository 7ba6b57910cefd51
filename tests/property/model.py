# SPDX-License-Identifier: MIT
"""Reference model of cgoom's victim selection (doc/SPEC.md sections 2-5, 7).

Written from the SPEC text alone, independently of src/lib/: it reads a
fixture tree the way the spec describes it (T/cg looks like cgroupfs, T/proc
like procfs, an optional git-config style cgoom.conf) and returns what
`cgoom explain DOMAIN --json` must answer: the domain's policy and the
victim (entity cgroup, process P, kill scope, victim.pids) or None.

Where the spec text admits more than one reading, the model takes a
`variant` dict of booleans (see VARIANTS) and the runner evaluates every
combination: the engine must match at least one, and the runner reports
which readings it was seen to take.

Python 3 standard library only.
"""

import ctypes
import ctypes.util
import itertools
import os
import re
import stat as statmod

PAGE = 4096
KiB = 1024
PF_KTHREAD = 0x00200000

TIER = {"prefer": 0, "none": 1, "avoid": 2}
PREFS = ("omit", "avoid", "none", "prefer")
POLICIES = ("none", "cgroup", "tree")

# Readings of sentences that the spec leaves open. False = the model's
# primary reading.
VARIANTS = {
    # SPEC 3 "An entity whose biased score is <= 0 stays a candidate, ranked
    # last within its tier": primary = still ordered by score among
    # themselves; alt = all such entities are equal, walk order decides.
    "nonpos_walk_order": "entities with biased score <= 0 ordered by walk order",
    # SPEC 2/5: processes in a non-memory child of the root count as members
    # of the root memcg (primary) vs "only those attached to the root memcg
    # itself" read literally (alt).
    "root_nomem_excluded": "root entity excludes non-memory children of /",
}


class ModelError(Exception):
    pass


def _read(path):
    """whole file, or None; a symlinked file counts as unreadable"""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return None
    try:
        with os.fdopen(fd, "rb") as f:
            return f.read(1 << 20)
    except OSError:
        return None


def _readint(path):
    b = _read(path)
    if b is None:
        return None
    s = b.strip()
    if s == b"max":
        return "max"
    try:
        return int(s)
    except ValueError:
        return None


def parse_config(path):
    """Minimal git-config reader: {section_path: {key: value}}, sections in
    order of first appearance (a repeated section merges)."""
    out = {}
    if path is None:
        return out
    sect = None
    with open(path, "rb") as f:
        text = f.read().decode("utf-8", "surrogateescape")
    for line in text.splitlines():
        s = line.strip()
        if not s or s[0] in "#;":
            continue
        m = re.fullmatch(r'\[\s*cgroup\s+"((?:[^"\\]|\\.)*)"\s*\]', s)
        if m:
            name = re.sub(r"\\(.)", r"\1", m.group(1))
            sect = out.setdefault(name, {})
            continue
        if s.startswith("["):
            sect = None
            continue
        if sect is None:
            continue
        k, _, v = s.partition("=")
        v = v.split("#")[0].strip()
        sect[k.strip().lower()] = v
    return out


def _component_regex(comp):
    return re.compile("".join(".*" if ch == "*" else re.escape(ch) for ch in comp), re.DOTALL)


def section_matches(section, path):
    """SPEC 7 / issue 14: a section path matches a cgroup path with as
    many components, a '*' matching any run of characters within one
    component (never a '/'). The root has no component: only "/" names it."""
    sc = [c for c in section.split("/") if c]
    pc = [c for c in path.split("/") if c]
    return len(sc) == len(pc) and all(_component_regex(a).fullmatch(b) for a, b in zip(sc, pc))


def conf_lookup(conf, path, key):
    """The value of `key` for cgroup `path`: among the sections that match
    it and set the key, the one with the most literal (non-'*')
    characters, then the fewest '*', then the first in the file.
    -> (value, section) or (None, None)."""
    best = None
    for n, (sec, keys) in enumerate(conf.items()):
        if key not in keys or not section_matches(sec, path):
            continue
        rank = (-(len(sec) - sec.count("*")), sec.count("*"), n)
        if best is None or rank < best[0]:
            best = (rank, keys[key], sec)
    return (best[1], best[2]) if best else (None, None)


class Cg:
    def __init__(self, path, d):
        self.path = path
        self.dir = d
        self.children = []       # Cg, bytewise name order
        self.parent = None
        self.memcg = False
        self.pids = []
        self.owner = 0
        self.xattrs = {}
        self.eff = {}            # policy, preference, bias

    def name(self):
        return self.path.rsplit("/", 1)[1].encode("utf-8", "surrogateescape")


class Proc:
    pass


MiB = 1 << 20
# doc/SPEC.md "Shmem held open, not mapped": under this much left out
# nothing is given back (and no descriptor is read)
HELD_MIN = MiB
TMPFS_MAGIC = 0x01021994
_libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)


def _fs_type(path):
    """statfs(path).f_type (the first word of struct statfs), or None"""
    buf = ctypes.create_string_buffer(256)
    if _libc.statfs(os.fsencode(path), buf) != 0:
        return None
    return ctypes.c_long.from_buffer(buf).value


def held_files(procroot, pid):
    """What process pid holds open of memory only its death frees: each
    /proc/PID/fd/N that is a regular file with no link left and blocks
    allocated, on tmpfs -> {(dev, ino): bytes}. None without the fd
    directory."""
    d = os.path.join(procroot, str(pid), "fd")
    try:
        names = os.listdir(d)
    except OSError:
        return None
    out = {}
    for n in names:
        if not n.isdigit():
            continue
        path = os.path.join(d, n)
        try:
            st = os.stat(path)
        except OSError:
            continue
        if not statmod.S_ISREG(st.st_mode) or st.st_nlink != 0 or st.st_blocks <= 0:
            continue
        if _fs_type(path) != TMPFS_MAGIC:
            continue
        out[(st.st_dev, st.st_ino)] = st.st_blocks * 512
    return out


class Tree:
    """A fixture tree read from disk."""

    def __init__(self, cgroot, procroot, config=None):
        self.cgroot = cgroot
        self.procroot = procroot
        self.conf = parse_config(config)
        self.cgs = {}
        self._load_cg("/", cgroot, None)
        self.procs = {}
        for cg in self.cgs.values():
            for pid in cg.pids:
                p = self._load_proc(pid, cg.path)
                if p is not None:
                    self.procs[pid] = p
        self.self_pid = None
        try:
            self.self_pid = int(os.readlink(os.path.join(procroot, "self")))
        except (OSError, ValueError):
            pass
        self.meminfo = {}
        for line in (_read(os.path.join(procroot, "meminfo")) or b"").decode().splitlines():
            k, _, v = line.partition(":")
            try:
                self.meminfo[k.strip()] = int(v.split()[0])
            except (IndexError, ValueError):
                pass
        self.sock_pages = 0
        for line in (_read(os.path.join(procroot, "net", "sockstat")) or b"").decode().splitlines():
            f = line.split()
            if f and f[0] in ("TCP:", "UDP:") and "mem" in f:
                self.sock_pages += int(f[f.index("mem") + 1])
        self._resolve()

    # -- reading ----------------------------------------------------------
    def _load_cg(self, path, d, parent):
        cg = Cg(path, d)
        cg.parent = parent
        self.cgs[path] = cg
        if parent is None:
            cg.memcg = True
        else:
            ctl = (_read(os.path.join(d, "cgroup.controllers")) or b"").split()
            cg.memcg = b"memory" in ctl
        procs = _read(os.path.join(d, "cgroup.procs")) or b""
        cg.pids = [int(x) for x in procs.split() if x.isdigit()]
        st = os.lstat(d)
        cg.owner = st.st_uid
        try:
            cg.procs_owner = os.lstat(os.path.join(d, "cgroup.procs")).st_uid
        except OSError:
            cg.procs_owner = 0
        try:
            for n in os.listxattr(d, follow_symlinks=False):
                try:
                    cg.xattrs[n] = os.getxattr(d, n, follow_symlinks=False).decode(
                        "utf-8", "replace").strip()
                except OSError:
                    pass
        except OSError:
            pass
        names = []
        with os.scandir(d) as it:
            for e in it:
                if e.is_dir(follow_symlinks=False):
                    names.append(os.fsencode(e.name))
        for n in sorted(names):            # bytewise
            sn = os.fsdecode(n)
            cpath = (path.rstrip("/") + "/" + sn)
            child = self._load_cg(cpath, os.path.join(d, sn), cg)
            cg.children.append(child)
        return cg

    def _load_proc(self, pid, cgpath):
        d = os.path.join(self.procroot, str(pid))
        if os.path.islink(d) or not os.path.isdir(d):
            return None
        p = Proc()
        p.pid = pid
        p.cgroup = cgpath
        status = (_read(os.path.join(d, "status")) or b"").decode("utf-8", "replace")
        kv = {}
        for line in status.splitlines():
            k, _, v = line.partition(":")
            kv[k] = v.strip()
        stat = _read(os.path.join(d, "stat")) or b""
        rest = stat[stat.rfind(b")") + 2:].split()
        flags = int(rest[6]) if len(rest) > 6 else 0
        state = rest[0].decode() if rest else kv.get("State", "?")[:1]
        p.kthread = bool(flags & PF_KTHREAD) or "VmRSS" not in kv
        p.zombie = state in ("Z", "X")

        def kb(k):
            v = kv.get(k)
            return int(v.split()[0]) * KiB if v else 0
        p.rss, p.swap, p.pte = kb("VmRSS"), kb("VmSwap"), kb("VmPTE")
        # RssShmem: the shmem it maps; None when the line is missing (a
        # process without an address space maps nothing)
        p.rss_shmem = kb("RssShmem") if "RssShmem" in kv else (0 if "VmRSS" not in kv else None)
        adj = _readint(os.path.join(d, "oom_score_adj"))
        p.adj = adj if isinstance(adj, int) else 0
        p.held = None if p.zombie else held_files(self.procroot, pid)
        return p

    # -- settings (SPEC 3 and 7) -------------------------------------------
    def _conf(self, cg, key):
        return conf_lookup(self.conf, cg.path, key)[0]

    def _delegated(self, cg):
        """strictly inside a subtree the config marks delegate = yes: the
        nearest strict ancestor whose config sets delegate decides"""
        a = cg.parent
        while a is not None:
            v = self._conf(a, "delegate")
            if v is not None:
                return v.lower() in ("yes", "true", "1", "on")
            a = a.parent
        return False

    def _resolve(self, variant=None):
        v = variant or {}
        self.variant = v
        KILLABLE = ["omit", "avoid", "none", "prefer"]     # ascending
        TRUSTED = ("trusted", "config", "systemd")         # above user.cgoom

        # pass 1: preference and bias, each with (value, source, depth of
        # the cgroup it was set on)
        def walk1(cg, inh, depth):
            x = cg.xattrs
            deleg = self._delegated(cg)
            cg.depth = depth
            eff = {}
            pref = None
            cp = self._conf(cg, "preference")
            if x.get("trusted.cgoom.preference") in PREFS:
                pref = (x["trusted.cgoom.preference"], "trusted")
            elif cp in PREFS:
                pref = (cp, "config")
            elif cg.owner == 0 and "user.oomd_omit" in x and x["user.oomd_omit"] not in ("0", ""):
                pref = ("omit", "systemd")
            elif cg.owner == 0 and "user.oomd_avoid" in x and x["user.oomd_avoid"] not in ("0", ""):
                pref = ("avoid", "systemd")
            elif deleg and x.get("user.cgoom.preference") in PREFS:
                # SPEC 7: a delegatee's preference moves only towards prefer
                u = x["user.cgoom.preference"]
                if KILLABLE.index(u) > KILLABLE.index(inh["preference"]):
                    pref = (u, "user")
            if inh["preference"] == "omit":
                pref = None                          # omit is absolute
            if pref is None:
                eff["preference"], eff["pref_src"] = inh["preference"], inh["pref_src"]
            else:
                eff["preference"], eff["pref_src"] = pref[0], (pref[1], depth)
            bias = None
            cb = self._conf(cg, "bias")
            if "trusted.cgoom.bias" in x and _int_or_none(x["trusted.cgoom.bias"]) is not None:
                bias = (_int_or_none(x["trusted.cgoom.bias"]), "trusted")
            elif cb is not None and _int_or_none(cb) is not None:
                bias = (_int_or_none(cb), "config")
            elif deleg and "user.cgoom.bias" in x:
                # SPEC 7: bias = max(inherited, delegatee's)
                u = _int_or_none(x["user.cgoom.bias"])
                if u is not None and u > inh["bias"]:
                    bias = (u, "user")
            if bias is None:
                eff["bias"], eff["bias_src"] = inh["bias"], inh["bias_src"]
            else:
                eff["bias"], eff["bias_src"] = bias[0], (bias[1], depth)
            cg.eff = eff
            cg.deleg = deleg
            for c in cg.children:
                walk1(c, eff, depth + 1)

        def hides(cg):
            """SPEC 7: a delegatee's tree on cg is ignored when a memcg inside
            has, from a source above the delegatee set strictly inside cg, a
            higher tier, or the same tier and a higher bias"""
            for y in self.subtree(cg)[1:]:
                if not y.memcg:
                    continue
                ye, ce = y.eff, cg.eff
                ps, bs = ye["pref_src"], ye["bias_src"]
                if (KILLABLE.index(ye["preference"]) > KILLABLE.index(ce["preference"])
                        and ps[0] in TRUSTED and ps[1] > cg.depth):
                    return True
                if (ye["preference"] == ce["preference"] and ye["bias"] > ce["bias"]
                        and bs[0] in TRUSTED and bs[1] > cg.depth):
                    return True
            return False

        # pass 2: policy
        def walk2(cg, inh):
            x = cg.xattrs
            pol = None
            cpol = self._conf(cg, "oom_policy")
            if x.get("trusted.cgoom.oom_policy") in POLICIES and not (
                    cg.parent is None and x["trusted.cgoom.oom_policy"] == "tree"):
                pol = x["trusted.cgoom.oom_policy"]
            elif cpol in POLICIES:
                pol = cpol
            elif cg.deleg and x.get("user.cgoom.oom_policy") in POLICIES:
                pol = x["user.cgoom.oom_policy"]
                if pol == "tree" and inh != "tree" and hides(cg):
                    pol = None
            cg.eff["policy"] = pol if pol is not None else inh
            cg.eff["policy_explicit"] = pol is not None
            for c in cg.children:
                walk2(c, cg.eff["policy"])

        walk1(self.cgs["/"], {"preference": "none", "pref_src": ("default", -1),
                              "bias": 0, "bias_src": ("default", -1)}, 0)
        walk2(self.cgs["/"], "none")

    # -- helpers -------------------------------------------------------------
    def memcg_children(self, cg):
        return [c for c in cg.children if c.memcg]

    def subtree(self, cg):
        out = [cg]
        for c in cg.children:
            out += self.subtree(c)
        return out

    def members(self, cg):
        """processes attached to cg or to its non-memory descendants"""
        out = list(cg.pids)
        for c in cg.children:
            if not c.memcg:
                out += self.members(c)
        return out

    def all_pids(self, cg):
        out = []
        for c in self.subtree(cg):
            out += c.pids
        return out

    def eligible(self, pid):
        p = self.procs.get(pid)
        if p is None or p.kthread or p.zombie or p.adj == -1000:
            return False
        if pid == 1 or pid == self.self_pid:
            return False
        return self.cgs[p.cgroup].eff["preference"] != "omit"

    def charge(self, cg):
        """SPEC 4: the footprint's parts of memcg cg, kept apart so that a
        remainder can be taken counter by counter: raw (the footprint
        formula), the anon LRU (where shmem lives), shmem and file_mapped
        (None when memory.stat lacks either), fallback"""
        st = _read(os.path.join(cg.dir, "memory.stat"))
        swap = _readint(os.path.join(cg.dir, "memory.swap.current"))
        swap = swap if isinstance(swap, int) else 0
        vals = None
        if st is not None:
            vals = {}
            try:
                for line in st.decode("ascii").splitlines():
                    k, n = line.split()
                    vals[k] = int(n)
            except (UnicodeDecodeError, ValueError):
                vals = None
            if vals is not None and not ({"active_anon", "inactive_anon"} <= set(vals)):
                vals = None
        if vals is None:
            cur = _readint(os.path.join(cg.dir, "memory.current"))
            return {"raw": (cur if isinstance(cur, int) else 0) + swap, "lru": 0,
                    "shmem": None, "mapped": None, "fallback": True}
        lru = vals.get("active_anon", 0) + vals.get("inactive_anon", 0)
        known = "shmem" in vals and "file_mapped" in vals
        return {"raw": lru + vals.get("slab_unreclaimable", 0) + vals.get("kernel_stack", 0)
                + vals.get("sock", 0) + swap, "lru": lru,
                "shmem": vals["shmem"] if known else None,
                "mapped": vals["file_mapped"] if known else None, "fallback": False}

    @staticmethod
    def net(ch):
        """SPEC 4 memory no kill can free: the footprint leaves out shmem no
        process maps, measured as shmem - file_mapped (file_mapped counts
        every mapped file page, shmem included: a lower bound), never
        more than the anon LRU it sits on; unknown -> nothing left out.
        -> (footprint, what was left out)"""
        un = 0
        if ch["shmem"] is not None and ch["mapped"] is not None:
            un = max(0, min(ch["shmem"] - ch["mapped"], ch["lru"]))
        return max(0, ch["raw"] - un), un

    @staticmethod
    def kept(ch):
        """the mapped shmem the footprint still counts: the shmem on the
        anon LRU less what net() left out; 0 when unknown"""
        if ch["shmem"] is None or ch["mapped"] is None or ch["fallback"]:
            return 0
        un = max(0, min(ch["shmem"] - ch["mapped"], ch["lru"]))
        return max(0, min(ch["shmem"], ch["lru"]) - un)

    def cap_elsewhere(self, fp, kept, fallback, pids):
        """SPEC 4 (doc/SPEC.md 10): of the mapped shmem an entity's footprint
        counts, no more than its own processes map (the sum of their
        RssShmem); nothing when one of them has no RssShmem line, or the
        entity holds a fallback figure"""
        if kept <= 0 or fallback:
            return fp
        tot = 0
        for pid in pids:
            p = self.procs[pid]
            if p.kthread:
                continue
            if p.rss_shmem is None:
                return fp
            tot += p.rss_shmem
        return max(0, fp - max(0, kept - tot))

    @staticmethod
    def minus(a, b):
        out = {"raw": a["raw"] - b["raw"], "lru": a["lru"] - b["lru"], "fallback": a["fallback"]}
        for k in ("shmem", "mapped"):
            out[k] = None if a[k] is None or b[k] is None else a[k] - b[k]
        return out

    def footprint(self, cg):
        ch = self.charge(cg)
        return self.net(ch)[0], ch["fallback"]

    def holds_processes(self, cg):
        """a memcg holding processes (not kernel threads) keeps its own charge"""
        return any(not self.procs[p].kthread for p in self.members(cg) if p in self.procs)

    def deleg_root(self, cg):
        """SPEC 7: a section marked delegate = yes (the most specific one
        setting delegate for this cgroup), or the topmost cgroup whose
        cgroup.procs a non-root user owns"""
        v = self._conf(cg, "delegate")
        if v is not None and v.lower() in ("yes", "true", "1", "on"):
            return True
        if cg.procs_owner == 0:
            return False
        a = cg.parent
        while a is not None:
            if a.procs_owner != 0:
                return False
            a = a.parent
        return True

    def parked(self, r, entity=False):
        """SPEC 4: R's own charge minus that of the outermost memcgs inside R
        that hold processes, the rule no kill can free applied to what is
        left -> (footprint, unmapped). For R's own unattributed entity
        (entity=True, rule 2; doc/SPEC.md "Nested delegation roots") a
        delegation root inside R with memcg children that a tree entity
        holds, or with a process (not a kernel thread) in its subtree, is
        taken off whole: what is parked below it is counted once, by it."""
        return self.parked_charge(r, entity)[0]

    def parked_charge(self, r, entity=False):
        """-> ((footprint, unmapped), mapped shmem kept, fallback)"""
        rem = self.charge(r)
        fb = rem["fallback"]

        def held(k):
            if not (self.memcg_children(k) and self.deleg_root(k)):
                return False
            a = k
            while a is not None and a is not r:
                if self.memcg_children(a) and a.eff["policy"] == "tree":
                    return True
                a = a.parent
            # a zombie is a process (ineligible), not a kernel thread,
            # though it has no VmRSS either
            return any(not self.procs[p].kthread or self.procs[p].zombie
                       for p in self.all_pids(k) if p in self.procs)

        def walk(c):
            nonlocal rem, fb
            for k in self.memcg_children(c):
                if self.holds_processes(k) or (entity and held(k)):
                    ck = self.charge(k)
                    fb = fb or ck["fallback"]
                    rem = self.minus(rem, ck)
                else:
                    walk(k)
        walk(r)
        rem["fallback"] = fb
        return self.net(rem), self.kept(rem), fb

    def domain_size(self, d):
        swap_total = self.meminfo.get("SwapTotal", 0) * KiB
        if d.path == "/":
            return self.meminfo.get("MemTotal", 0) * KiB + swap_total
        mx = _readint(os.path.join(d.dir, "memory.max"))
        if not isinstance(mx, int):
            # unlimited: not specified by SPEC 3; the generator never picks it
            return self.meminfo.get("MemTotal", 0) * KiB + swap_total
        smx = _readint(os.path.join(d.dir, "memory.swap.max"))
        if not isinstance(smx, int):
            smx = swap_total
        return mx + min(smx, swap_total)

    def badness(self, pid, T):
        p = self.procs[pid]
        return p.rss + p.swap + p.pte + p.adj * (T // 1000)

    def oom_group(self, cg):
        if not cg.memcg or cg.path == "/":
            return False
        return _readint(os.path.join(cg.dir, "memory.oom.group")) == 1

    # -- held open, not mapped (doc/SPEC.md) ---------------------------------
    def protected(self, pid):
        """no kill may touch it: a kernel thread, pid 1, cgoom, -1000, omit"""
        p = self.procs[pid]
        return (p.kthread or pid == 1 or pid == self.self_pid or p.adj <= -1000
                or self.cgs[p.cgroup].eff["preference"] == "omit")

    def nearest_memcg(self, cg):
        while not cg.memcg:
            cg = cg.parent
        return cg

    def fds_read(self, pid):
        """cgoom reads a process's descriptors where its memcg, or one above
        it but the root, leaves out HELD_MIN or more; never the root's own"""
        m = self.nearest_memcg(self.cgs[self.procs[pid].cgroup])
        while m is not None and m.path != "/":
            ch = self.charge(m)
            if not ch["fallback"] and self.net(ch)[1] >= HELD_MIN:
                return True
            m = m.parent
        return False

    def domain_unmapped(self, d):
        if d.path == "/" and not os.path.exists(os.path.join(d.dir, "memory.current")):
            mi = self.meminfo
            if "Shmem" not in mi or "Mapped" not in mi:
                return 0
            lru = (mi.get("Active(anon)", 0) + mi.get("Inactive(anon)", 0)) * KiB
            return max(0, min((mi["Shmem"] - mi["Mapped"]) * KiB, lru))
        return self.net(self.charge(d))[1]

    def held_credits(self, d, entities):
        """order -> what a leaf or tree entity gets back: the files only its
        own unprotected processes hold (of the holders inside the domain
        whose descriptors are read), less all the shmem its processes map,
        capped at what it left out and at what the domain left out and no
        entity walked before took back; nothing under HELD_MIN"""
        left = self.domain_unmapped(d)
        if left < HELD_MIN:
            return {}
        files = {}     # (dev, ino) -> (bytes, [pid])
        for pid in self.all_pids(d):
            p = self.procs.get(pid)
            if p is None or not p.held or not self.fds_read(pid):
                continue
            for k, b in p.held.items():
                fb, holders = files.get(k, (0, []))
                files[k] = (max(fb, b), holders + [pid])
        out = {}
        for cg, _fp, o, _el, kind, _kept, fb, un in entities:
            if kind not in ("leaf", "tree") or fb or un < HELD_MIN:
                continue
            mine = set(self.all_pids(cg))
            mapped = 0
            for pid in mine:
                p = self.procs.get(pid)
                if p is None or p.kthread:
                    continue
                if p.rss_shmem is None:
                    mapped = None
                    break
                mapped += p.rss_shmem
            if mapped is None:
                continue
            h = sum(b for b, holders in files.values()
                    if all(q in mine and not self.protected(q) for q in holders))
            if h <= mapped:
                continue
            c = min(h - mapped, un, left)
            left -= c
            out[o] = c
        return out

    # -- selection (SPEC 4, 5) -----------------------------------------------
    def select(self, domain, variant=None):
        """-> dict(policy, victim, info) ; victim = None or dict(cgroup,
        kind, process, scope, pids)"""
        self._resolve(variant)
        v = variant or {}
        d = self.cgs.get(domain)
        if d is None or not d.memcg:
            raise ModelError("domain %s is not a memcg" % domain)
        T = self.domain_size(d)
        policy = d.eff["policy"]
        info = {"T": T, "policy": policy}
        if policy == "none":
            cands = [pid for pid in self.all_pids(d) if self.eligible(pid)]
            if not cands:
                return {"policy": policy, "victim": None, "info": info}
            cands.sort(key=lambda pid: (TIER[self.cgs[self.procs[pid].cgroup].eff["preference"]],
                                        -self.badness(pid, T), pid))
            P = cands[0]
            info["entity"] = ("process", P)
            return {"policy": policy, "info": info,
                    "victim": self._kill(d, "process", self.procs[P].cgroup, [P], T)}

        # cgroup / tree: pre-order walk
        entities = []        # [cg, footprint, order, has eligible leaf, kind, kept, fallback]
        group = None
        order = 0

        def inside(c, g):
            return c.path == g.path or c.path.startswith(g.path.rstrip("/") + "/")

        def tree_of(c):
            """the tree entity c is in: the outermost memcg from D down to c
            with policy tree and memcg children, or None"""
            chain = []
            a = c
            while a is not None:
                chain.append(a)
                if a.path == d.path:
                    break
                a = a.parent
            for a in reversed(chain):
                if a.path != "/" and self.memcg_children(a) and a.eff["policy"] == "tree":
                    return a
            return None

        def parking(c):
            """SPEC 4: a delegation root strictly inside D; one without memcg
            children parks nothing (populated, the charge is its own;
            empty, there is nobody in it to kill)"""
            return c.path != d.path and self.memcg_children(c) and self.deleg_root(c)

        counted = []         # roots whose parked charge a tree entity holds

        def visit(c):
            nonlocal group, order
            kids = self.memcg_children(c)
            if c.path != "/" and not (kids and c.eff["policy"] != "tree"):
                if group is None or not inside(c, group[0]):
                    group = [c, 0, order, False, "tree" if kids else "leaf", 0, False, 0]
                    order += 1
                    entities.append(group)
                if not kids:
                    if any(self.eligible(p) for p in self.members(c)):
                        ch = self.charge(c)
                        group[1] += self.net(ch)[0]
                        group[7] += self.net(ch)[1]
                        group[3] = True
                        group[5] += self.kept(ch)
                        group[6] = group[6] or ch["fallback"]
            t = tree_of(c) if c.path != "/" else None
            if parking(c) and t is not None and not any(inside(c, r) for r in counted):
                # rule 1: the tree entity holds what is parked below R
                (pfp, pun), pk, pfb = self.parked_charge(c)
                group[1] += pfp
                group[7] += pun
                group[5] += pk
                group[6] = group[6] or pfb
                counted.append(c)
            for k in kids:
                visit(k)
            if parking(c) and t is None:
                # rule 2: one more entity, walked right after R's subtree
                (fp, _), pk, pfb = self.parked_charge(c, entity=True)
                if fp > 0:
                    pids = self.all_pids(c)
                    elig = any(self.eligible(p) for p in pids)
                    entities.append([c, fp, order, elig, "unattributed", pk, pfb, 0])
                    order += 1
        visit(d)
        credit = self.held_credits(d, entities)
        ents = [e for e in entities if e[3]]
        ranked = []
        for cg, fp, o, _, kind, kept, fb, _un in ents:
            fp = self.cap_elsewhere(fp, kept, fb, self.all_pids(cg))
            fp += credit.get(o, 0)
            score = fp + cg.eff["bias"] * (T // 1000)
            ranked.append({"cg": cg, "kind": kind, "footprint": fp, "score": score, "order": o,
                           "tier": TIER[cg.eff["preference"]]})
        if d.path == "/":
            root = d
            mi = self.meminfo
            lru = (mi.get("Active(anon)", 0) + mi.get("Inactive(anon)", 0)) * KiB
            sysch = {"raw": lru + (mi.get("SUnreclaim", 0) + mi.get("KernelStack", 0)
                                   + mi.get("SwapTotal", 0) - mi.get("SwapFree", 0)) * KiB
                     + self.sock_pages * PAGE,
                     "lru": lru,
                     "shmem": mi["Shmem"] * KiB if "Shmem" in mi and "Mapped" in mi else None,
                     "mapped": mi["Mapped"] * KiB if "Shmem" in mi and "Mapped" in mi else None,
                     "fallback": False}
            for c in self.memcg_children(root):
                sysch = self.minus(sysch, self.charge(c))
            sysfp = self.net(sysch)[0]
            rmembers = root.pids if v.get("root_nomem_excluded") else self.members(root)
            sysfp = self.cap_elsewhere(sysfp, self.kept(sysch), False, self.members(root))
            info["root_fp"] = sysfp
            if sysfp > 0 and any(self.eligible(p) for p in rmembers) and root.eff["preference"] != "omit":
                ranked.append({"cg": root, "kind": "root", "footprint": sysfp,
                               "score": sysfp + root.eff["bias"] * (T // 1000),
                               "order": 1 << 30, "tier": TIER[root.eff["preference"]],
                               "members": rmembers})

        def key(e):
            if v.get("nonpos_walk_order") and e["score"] <= 0:
                return (e["tier"], 1, 0, e["order"])
            return (e["tier"], 0 if e["score"] > 0 else 1, -e["score"], e["order"])
        ranked.sort(key=key)
        info["ranking"] = [(e["cg"].path, e["kind"], e["footprint"], e["score"], e["tier"])
                           for e in ranked]
        if not ranked:
            return {"policy": policy, "victim": None, "info": info}
        E = ranked[0]
        if E["kind"] == "root":
            procs = E["members"]
        else:
            procs = self.all_pids(E["cg"])
        el = [p for p in procs if self.eligible(p)]
        el.sort(key=lambda pid: (-self.badness(pid, T), pid))
        P = el[0]
        return {"policy": policy, "info": info,
                "victim": self._kill(d, E["kind"], E["cg"].path, [P], T, pcg=self.procs[P].cgroup)}

    def _kill(self, d, kind, ecg, P, T, pcg=None):
        P = P[0]
        pcg = pcg or ecg
        # path from D down to P's cgroup; the highest with memory.oom.group=1
        path = []
        c = self.cgs[pcg]
        while c is not None:
            path.append(c)
            if c.path == d.path:
                break
            c = c.parent
        path.reverse()
        scope = None
        for c in path:
            if self.oom_group(c):
                scope = c
                break
        if scope is not None:
            pids = sorted(p for p in self.all_pids(scope) if self.eligible(p))
        else:
            pids = [P]
        return {"cgroup": ecg, "kind": kind, "process": P,
                "scope": scope.path if scope is not None else None, "pids": pids}


def _int_or_none(s):
    try:
        return int(str(s).strip())
    except ValueError:
        return None


def all_variants():
    keys = sorted(VARIANTS)
    for bits in itertools.product((False, True), repeat=len(keys)):
        yield dict(zip(keys, bits))


def outcome_key(res):
    v = res["victim"]
    if v is None:
        return (res["policy"], None)
    return (res["policy"], v["cgroup"] if v["kind"] != "process" else None,
            v["process"], v["scope"], tuple(v["pids"]))
