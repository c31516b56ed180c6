#!/usr/bin/env python3
"""realistic_build.py: a generated build of N kernel instantiations made of
renamed copies of real ones: each generated translation unit is a copy of a
real sidecar the plugin wrote (its exact bytes: kernels, IR facts, device
call graph, launches, entries, shared subtrees) and of the object it names,
with every kernel's identifier renamed the same way in both, so that the
sizes and shapes of sidecars and code objects are those of the real build
and `kwalk index` disassembles real code objects, as it does for a real
build.

usage: realistic_build.py SRC_DIR OUT_DIR [--kernels N] [--compress zstd|none]

SRC_DIR holds real sidecars (plain `*.kwalk.yaml`, schema 2 or 3, as the
corpus's build dir does) with the objects they name. OUT_DIR receives
`tNNNN/<name>_<code>.o` and its sidecar (`.kwalk.yaml.zst` by default,
compressed by the zstd command like the plugin's: one frame, default level,
content checksum).

Renaming: each kernel's identifier (the last component of its template, or
of its name for a non-template kernel) keeps its length and gets its last
two characters replaced by the copy's number in base 36, everywhere in the
object (symbols, code-object metadata, host stubs) and in the sidecar text
outside paths. The host functions' symbols the sidecar names (launchers,
entries, host call edges) get `.k<code>` appended in the sidecar (the
object's host code is not read by kwalk): without it every copy's launches
would hang off the same host call graph and each page would list every
copy's entry points. Equal length keeps the mangled names valid and every offset
in the object unchanged; each code object's size stays and its new MD5
replaces the old one in `translation_unit.code_objects`. A kernel
identifier shorter than 6 characters is not renamed (its bytes could occur
by chance inside machine code): a source holding one is refused.

Copies go round the real sidecars that have kernels, in name order; the
last round takes the sidecars whose kernel counts sum to what is left
(fewest sidecars), so the build has exactly N kernels when some choice
does, else the largest count below N (the caller reads the count from
`write_build`'s result).
"""
import argparse
import glob
import hashlib
import os
import re
import subprocess
import sys

import yaml

LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
DIGITS = "0123456789abcdefghijklmnopqrstuvwxyz"
MIN_IDENT = 6
# a path in the sidecar text (left as it is: the source must stay readable)
PATH_RE = re.compile(r"(/[^\s,{}\[\]\"']*)")
CO_RE = re.compile(r"\{arch: [^,]+, target_id: [^,]+, bytes: (\d+), md5: \"?([0-9a-f]{32})\"?\}")


def code(c):
    if c >= len(DIGITS) ** 2:
        raise ValueError(f"copy {c}: at most {len(DIGITS) ** 2} copies")
    return DIGITS[c // len(DIGITS)] + DIGITS[c % len(DIGITS)]


def host_symbols(doc):
    """The host functions' symbols a sidecar names (launchers, their
    instantiation chains, entries, host call edges)."""
    out = set()
    for ln in doc.get("launches") or []:
        out.add(ln.get("function_symbol"))
        for link in (ln.get("instantiation_chain") or []) + (ln.get("call_chain") or []):
            if isinstance(link, dict):
                out.add(link.get("symbol"))
    for e in doc.get("entries") or []:
        out.add(e.get("function_symbol"))
    for h in doc.get("host_calls") or []:
        out.add(h.get("caller"))
        out.add(h.get("callee"))
    return {x for x in out if isinstance(x, str) and x}


def ident_of(k):
    """The identifier a kernel is renamed by."""
    base = k.get("template") or k.get("name") or ""
    base = base.split("<", 1)[0].split("(", 1)[0].strip()
    return base.rsplit("::", 1)[-1]


class Source:
    """One real sidecar: its text, object bytes, kernel count and identifiers."""

    def __init__(self, path):
        self.path = path
        with open(path, encoding="utf-8") as f:
            self.text = f.read()
        doc = yaml.load(self.text, Loader=LOADER)
        self.kernels = len(doc.get("kernels") or [])
        self.symbols = [k["symbol"] for k in doc.get("kernels") or []]
        self.host = sorted(host_symbols(doc) - set(self.symbols), key=len, reverse=True)
        tu = doc["translation_unit"]
        self.object = tu["object"]
        self.cuid = str(tu.get("cuid", ""))
        self.idents = sorted({ident_of(k) for k in doc.get("kernels") or []}, key=len, reverse=True)
        short = [i for i in self.idents if len(i) < MIN_IDENT]
        if short:
            raise ValueError(f"{path}: kernel identifier {short[0]!r} shorter than {MIN_IDENT}")
        with open(self.object, "rb") as f:
            self.obj = f.read()
        # where each named code object lies in the object (found by its MD5)
        self.cos = []
        elf = [m.start() for m in re.finditer(re.escape(b"\x7fELF"), self.obj)]
        for m in CO_RE.finditer(self.text):
            size, md5 = int(m.group(1)), m.group(2)
            at = [p for p in elf if hashlib.md5(self.obj[p:p + size]).hexdigest() == md5]
            if not at:
                raise ValueError(f"{path}: code object {md5} not in {self.object}")
            self.cos.append((at[0], size, md5))

    def renamed(self, c):
        """The kernel symbols of copy c."""
        rx = re.compile("|".join(re.escape(i) for i in self.idents)) if self.idents else None
        sfx = code(c)
        return [rx.sub(lambda m: m.group(0)[:-2] + sfx, s) if rx else s for s in self.symbols]

    def copy(self, c, out_dir):
        """Writes copy c into out_dir; returns the sidecar's path."""
        sfx = code(c)
        ren = {i: i[:-2] + sfx for i in self.idents}
        obj = self.obj
        for old, new in ren.items():
            obj = obj.replace(old.encode(), new.encode())
        name = os.path.basename(self.object)
        stem = name[:-2] if name.endswith(".o") else name
        obj_path = os.path.join(out_dir, f"{stem}_{sfx}.o")
        with open(obj_path, "wb") as f:
            f.write(obj)
        rx = re.compile("|".join(re.escape(i) for i in self.idents)) if ren else None
        hx = re.compile(r"(?<![\w$.])(?:%s)(?![\w$.])" % "|".join(re.escape(h) for h in self.host)) if self.host else None
        parts = PATH_RE.split(self.text)
        for j in range(0, len(parts), 2):  # the even parts are not paths
            if hx:  # host symbols first: a kernel identifier may be part of one
                parts[j] = hx.sub(lambda m: m.group(0) + ".k" + sfx, parts[j])
            if rx:
                parts[j] = rx.sub(lambda m: ren[m.group(0)], parts[j])
        text = "".join(parts)
        for at, size, md5 in self.cos:
            text = text.replace(md5, hashlib.md5(obj[at:at + size]).hexdigest())
        text = text.replace(f"object: {self.object},", f"object: {obj_path},", 1)
        if self.cuid:
            text = text.replace(f"cuid: {self.cuid},", f"cuid: {self.cuid}_{sfx},", 1)
        side = obj_path + ".kwalk.yaml"
        with open(side, "w", encoding="utf-8") as f:
            f.write(text)
        return side


def last_round(sources, left):
    """Indexes of sources (a source may repeat) whose kernels sum to `left`
    (else the largest sum below it), as few as possible."""
    best = {0: []}
    for total in range(left + 1):
        if total not in best:
            continue
        for i, s in enumerate(sources):
            t = total + s.kernels
            if t <= left and (t not in best or len(best[t]) > len(best[total]) + 1):
                best[t] = best[total] + [i]
    return best[max(best)]


def write_build(src_dir, out_dir, n, compress="zstd"):
    """Writes the build; returns (kernel records, sidecar paths, sources
    used, distinct kernel symbols: fewer than the records when one kernel
    is in several sidecars, as aiter's flush_cache is)."""
    out_dir = os.path.abspath(out_dir)
    sources = [Source(p) for p in sorted(glob.glob(os.path.join(src_dir, "*.kwalk.yaml")))]
    sources = [s for s in sources if s.kernels > 0]
    if not sources:
        raise ValueError(f"{src_dir}: no sidecar with kernels")
    per_round = sum(s.kernels for s in sources)
    rounds, left = divmod(n, per_round)
    plan = [(c, s) for c in range(rounds) for s in sources]
    seen = {}
    for i in last_round(sources, left):  # a repeated source takes the next copy number
        seen[i] = seen.get(i, -1) + 1
        plan.append((rounds + seen[i], sources[i]))
    sides = []
    for j, (c, s) in enumerate(plan):
        d = os.path.join(out_dir, f"t{j // 50:04d}")
        os.makedirs(d, exist_ok=True)
        sides.append(s.copy(c, d))
    if compress == "zstd":
        for j in range(0, len(sides), 500):
            subprocess.run(["zstd", "-q", "--rm", "-f", *sides[j:j + 500]], check=True)
        sides = [p + ".zst" for p in sides]
    distinct = len({sym for c, s in plan for sym in s.renamed(c)})
    return sum(s.kernels for _, s in plan), sides, sources, distinct


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("src_dir")
    ap.add_argument("out_dir")
    ap.add_argument("--kernels", type=int, default=10000)
    ap.add_argument("--compress", choices=["zstd", "none"], default="zstd")
    a = ap.parse_args()
    try:
        n, sides, _, distinct = write_build(a.src_dir, a.out_dir, a.kernels, a.compress)
    except (OSError, ValueError, subprocess.CalledProcessError) as e:
        sys.exit(f"realistic_build.py: {e}")
    print(f"{n} kernels ({distinct} distinct symbols) in {len(sides)} sidecars under {a.out_dir}")


if __name__ == "__main__":
    main()
