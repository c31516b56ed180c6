#!/usr/bin/env python3
"""sidecar-cost: where the bytes of kwalk sidecars go (docs/plugin.md, "Cost").

    scripts/sidecar-cost.py [--depth N] [--top N] [--object OBJ] SIDECAR...

For each sidecar: its size (and, with --object or when the sidecar's
translation_unit.object exists, the object's size and the ratio), then the
bytes per key path (kernels.archs.ARCH.isa, host_calls.guards, ...), down to
--depth keys, largest first, and the bytes of a few repeated kinds of text
that a table of strings would write once: source locations ({file: ...,
line: N, column: N} mappings), file paths inside them, and mangled symbols
(distinct ones counted once). Several sidecars also get a total over all.

It reads the block-style YAML kwalk writes line by line (no YAML library, so
a 50 MB sidecar takes a second): a line's bytes count for the keys of the
lines above it by indentation; arch names (gfx942, ...) are folded into ARCH.
The bytes are those written: in a sidecar whose repeated subtrees are shared
(kwalk_schema 2, docs/sidecar-schema.md) an alias (`*3`) counts its own few
bytes where it stands, and the location and symbol counts see only the text
written (an aliased file path is not counted again).

--estimate (needs PyYAML) adds two estimates of the same document written
with every repeated subtree of 16 or more bytes (a mapping, list or string)
written once and referred to after that (as YAML anchors and aliases would:
5 bytes for an anchor, 6 for a reference; sizes counted as compact JSON),
with and without the ISA listings (`isa`, which kwalk can read back from the
object). They are estimates of what sharing saves, not a writer's output."""
import argparse
import collections
import os
import re

KEY = re.compile(r"^( *)(- )?([A-Za-z_][A-Za-z_0-9]*):")
LOC = re.compile(r"\{file: ([^,}]*), line: \d+(?:, column: \d+)?\}")
SYM = re.compile(r"\b_Z[A-Za-z0-9_.$]+")
ARCH = re.compile(r"^gfx[0-9a-f]+$")


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("sidecars", nargs="+")
    p.add_argument("--depth", type=int, default=5, help="key-path depth (default 5)")
    p.add_argument("--top", type=int, default=25, help="key paths shown per sidecar")
    p.add_argument("--estimate", action="store_true",
                   help="estimate the bytes with repeated subtrees written once (PyYAML)")
    p.add_argument("--object", help="the object of a single sidecar (default: the one it names)")
    return p.parse_args()


def object_of(path):
    """translation_unit.object as the sidecar names it (third line of kwalk's writer)."""
    with open(path, "rb") as f:
        for _ in range(8):
            line = f.readline().decode("utf-8", "replace")
            m = re.search(r"\bobject: ([^,}]+)", line)
            if line.startswith("translation_unit:") and m:
                value = re.sub(r"^&[A-Za-z0-9_-]+ +", "", m.group(1).strip())  # an anchor
                return None if value.startswith("*") else value.strip("'\"")
    return None


def measure(path, depth):
    paths = collections.Counter()
    stack = []  # (indent, key)
    loc_bytes = file_bytes = sym_bytes = 0
    files, syms = collections.Counter(), collections.Counter()
    total = 0
    with open(path, "rb") as f:
        for raw in f:
            total += len(raw)
            line = raw.decode("utf-8", "replace")
            m = KEY.match(line)
            if m:
                ind = len(m.group(1)) + (2 if m.group(2) else 0)
                while stack and stack[-1][0] >= ind:
                    stack.pop()
                key = m.group(3)
                stack.append((ind, "ARCH" if ARCH.match(key) else key))
            else:
                ind = len(line) - len(line.lstrip(" "))
                if not line.lstrip(" ").startswith("- "):
                    while stack and stack[-1][0] >= ind:
                        stack.pop()
            paths[".".join(k for _, k in stack[:depth])] += len(raw)
            for lm in LOC.finditer(line):
                loc_bytes += len(lm.group(0))
                file_bytes += len(lm.group(1))
                files[lm.group(1)] += 1
            for sm in SYM.finditer(line):
                sym_bytes += len(sm.group(0))
                syms[sm.group(0)] += 1
    return {
        "total": total, "paths": paths, "loc_bytes": loc_bytes, "file_bytes": file_bytes,
        "files": files, "sym_bytes": sym_bytes, "syms": syms,
    }


def shared_bytes(doc, drop_isa):
    """Estimated bytes of doc with every repeated subtree of >= 16 bytes written
    once (an anchor) and referred to after that (an alias)."""
    import json
    seen = set()

    def size(o):
        j = json.dumps(o, sort_keys=True, separators=(",", ":"))
        extra = 0
        if len(j) >= 16:
            if j in seen:
                return 6
            seen.add(j)
            extra = 5
        if isinstance(o, dict):
            return extra + 2 + sum(len(k) + 2 + size(v) for k, v in o.items()
                                   if not (drop_isa and k == "isa"))
        if isinstance(o, list):
            return extra + 2 + sum(size(v) + 2 for v in o)
        return extra + len(j)

    return size(doc)


def estimate(path):
    import json
    import yaml
    with open(path, encoding="utf-8") as f:
        doc = yaml.load(f, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    compact = len(json.dumps(doc, separators=(",", ":")))
    return compact, shared_bytes(doc, False), shared_bytes(doc, True)


def pct(n, d):
    return 100.0 * n / d if d else 0.0


def report(name, r, top, obj_size):
    t = r["total"]
    head = "%s: %d bytes" % (name, t)
    if obj_size:
        head += ", object %d bytes, sidecar/object %.2f" % (obj_size, t / obj_size)
    print(head)
    for p, b in r["paths"].most_common(top):
        print("  %12d %5.1f%%  %s" % (b, pct(b, t), p or "(top)"))
    uf = sum(len(k) for k in r["files"])
    us = sum(len(k) for k in r["syms"])
    print("  repeated text:")
    print("  %12d %5.1f%%  source locations {file, line, column} (%d)" %
          (r["loc_bytes"], pct(r["loc_bytes"], t), sum(r["files"].values())))
    print("  %12d %5.1f%%  file paths inside them (%d distinct paths, %d bytes once each)" %
          (r["file_bytes"], pct(r["file_bytes"], t), len(r["files"]), uf))
    print("  %12d %5.1f%%  mangled symbols (%d, %d distinct, %d bytes once each)" %
          (r["sym_bytes"], pct(r["sym_bytes"], t), sum(r["syms"].values()), len(r["syms"]), us))


def main():
    a = parse_args()
    all_paths = collections.Counter()
    grand = obj_total = 0
    for s in a.sidecars:
        r = measure(s, a.depth)
        obj = a.object if a.object and len(a.sidecars) == 1 else object_of(s)
        size = os.path.getsize(obj) if obj and os.path.isfile(obj) else 0
        report(s, r, a.top, size)
        if a.estimate:
            js, sh, sh_noisa = estimate(s)
            ratio = (lambda n: ", %.2f of the object" % (n / size) if size else "")
            print("  estimates: compact JSON %d bytes; repeated subtrees once %d bytes%s; "
                  "and no ISA listing %d bytes%s" % (js, sh, ratio(sh), sh_noisa, ratio(sh_noisa)))
        all_paths.update(r["paths"])
        grand += r["total"]
        obj_total += size
        print()
    if len(a.sidecars) > 1:
        print("all %d sidecars: %d bytes, objects %d bytes" % (len(a.sidecars), grand, obj_total))
        for p, b in all_paths.most_common(a.top):
            print("  %12d %5.1f%%  %s" % (b, pct(b, grand), p or "(top)"))


if __name__ == "__main__":
    main()
