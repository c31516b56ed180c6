#!/usr/bin/env python3
"""test_decode_cache.py: the decode cache (docs/index-schema.md, "The decode
cache"): a code object is disassembled once, its record kept under its MD5
in the file KWALK_CACHE names.

On the corpus's objects (KWALK_CACHE a file of this test's own, never
$HOME's; KWALK_CACHE_STATS=1 makes kwalk say on stderr how many code
objects it read from the cache and how many it decoded):
- the code objects are found independently: each object's .hip_fatbin
  offload bundle read here (ELF sections, the bundle's entry table) and
  each amdgcn entry's MD5 taken with hashlib;
- `kwalk index` into a first database decodes each distinct code object
  once, and the cache then holds one record per code object, whose keys
  name exactly those MD5s;
- a second index of the same objects (another database) decodes nothing:
  the two indexes share the records; its listings are the first's, and
  those of an index with KWALK_CACHE=off;
- the page of a precompiled ASM kernel (its symbol read from the .co's
  ELF symbols) decodes its .co the first time and reads the cache the
  second, the same page;
- damaged records (every record's bytes cut) are decoded again, not used:
  the index's listings stay the same; a cache file that is not SQLite, or
  one that cannot be created, is no error (the index decodes in memory);
- two `kwalk index` runs at once on a new cache both succeed.

usage: test_decode_cache.py --kwalk KWALK --corpus-out DIR
"""
import argparse
import glob
import hashlib
import os
import re
import shutil
import sqlite3
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from kwcheck import Checker  # noqa: E402
from kwrun import run  # noqa: E402

STATS = re.compile(r"kwalk: decode cache: (\d+) code objects from the cache, (\d+) decoded")


def elf_sections(data):
    """{name: (type, bytes, link, entsize)} of an ELF64 little-endian file."""
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    hdrs = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]
    names = hdrs[shstrndx][4]
    out = {}
    for i, h in enumerate(hdrs):
        n0 = names + h[0]
        name = data[n0:data.index(b"\0", n0)].decode()
        body = data[h[4]:h[4] + h[5]] if h[1] != 8 else b""  # SHT_NOBITS
        out[name] = (h[1], body, h[6], h[9], i)
    return out


def bundle_md5s(path):
    """The MD5 of each amdgcn code object in the object's offload bundle."""
    with open(path, "rb") as f:
        data = f.read()
    sec = elf_sections(data).get(".hip_fatbin")
    if not sec:
        return []
    b = sec[1]
    magic = b"__CLANG_OFFLOAD_BUNDLE__"
    if not b.startswith(magic):
        return []
    n, = struct.unpack_from("<Q", b, len(magic))
    at, out = len(magic) + 8, []
    for _ in range(n):
        off, size, idlen = struct.unpack_from("<QQQ", b, at)
        ident = b[at + 24:at + 24 + idlen].decode()
        at += 24 + idlen
        if "amdgcn" in ident and size:
            out.append(hashlib.md5(b[off:off + size]).hexdigest())
    return out


def kd_symbols(path):
    """The kernels of a code object: its symbols NAME.kd, NAME each."""
    with open(path, "rb") as f:
        data = f.read()
    secs = elf_sections(data)
    by_index = {v[4]: v for v in secs.values()}
    out = set()
    for name in (".symtab", ".dynsym"):
        if name not in secs:
            continue
        _, body, link, entsize, _ = secs[name]
        strtab = by_index[link][1]
        for i in range(0, len(body), entsize or 24):
            st_name, = struct.unpack_from("<I", body, i)
            s = strtab[st_name:strtab.index(b"\0", st_name)].decode()
            if s.endswith(".kd"):
                out.add(s[:-3])
    return sorted(out)


def stats(c, err, what):
    m = STATS.search(err)
    c.check(m is not None, f"{what}: kwalk says what it decoded", err[-400:])
    return (int(m.group(1)), int(m.group(2))) if m else (-1, -1)


def listings(db):
    """Every kernel arch's listing and line table bytes, by (sidecar, symbol, arch)."""
    con = sqlite3.connect(db)
    rows = con.execute(
        "SELECT s.path, k.symbol, a.arch, x.isa, x.isa_size, p.data "
        "FROM _kernels_archs x JOIN kernels_archs a ON a._id = x._id "
        "JOIN kernels k ON k._id = a._parent JOIN sidecars s ON s._id = k._sidecar "
        "LEFT JOIN kernels_archs_lines_packed p ON p._id = x._id").fetchall()
    con.close()
    return {(r[0], r[1], r[2]): r[3:] for r in rows}


def cache_keys(path):
    """The keys of the cache file's records ([] when it has none)."""
    if not os.path.exists(path):
        return []
    con = sqlite3.connect(path)
    try:
        return [k for (k,) in con.execute("SELECT key FROM decoded")]
    except sqlite3.Error:
        return []
    finally:
        con.close()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kwalk", required=True)
    ap.add_argument("--corpus-out", required=True)
    args = ap.parse_args()
    c = Checker("index.decode_cache")
    objs = sorted(glob.glob(os.path.join(args.corpus_out, "*.o")))
    want = set()
    for o in objs:
        want.update(bundle_md5s(o))
    cos = sorted(glob.glob(os.path.join(args.corpus_out, "hsa", "*", "*.co")))
    if not want or not cos:
        c.skip("no corpus objects with code objects (build kw_corpus)")
    tmp = tempfile.mkdtemp(prefix="kw-decode-cache-")
    try:
        cache = os.path.join(tmp, "decoded.db")
        env = dict(os.environ, KWALK_CACHE=cache, KWALK_CACHE_STATS="1")

        def index(name, e=env):
            db = os.path.join(tmp, name)
            r = run([args.kwalk, "index", args.corpus_out, "-o", db], env=e)
            c.eq(r.returncode, 0, f"kwalk index -o {name}: exit status ({r.stderr[-300:]})")
            return db, r.stderr

        a, err = index("a.db")
        c.eq(stats(c, err, "first index"), (0, len(want)),
             "first index: every distinct code object decoded once, none from the cache")
        keys = cache_keys(cache)
        c.eq(len(keys), len(want), "the cache: one record per code object")
        got = {m for k in keys for m in re.findall(r"\b[0-9a-f]{32}\b", k)}
        c.eq(got, want, "the cache's keys: the MD5s of the objects' code objects")

        b, err = index("b.db")
        c.eq(stats(c, err, "second index"), (len(want), 0),
             "second index of the same objects: nothing decoded, every code object from the cache")
        la, lb = listings(a), listings(b)
        c.check(any(v[0] is not None for v in la.values()), "the first index has listings")
        c.check(la == lb, "the second index's listings and line tables are the first's")
        off, err = index("off.db", dict(env, KWALK_CACHE="off"))
        c.eq(stats(c, err, "KWALK_CACHE=off"), (0, len(want)), "KWALK_CACHE=off: decoded")
        c.check(listings(off) == la, "KWALK_CACHE=off: the same listings and line tables")

        # an ASM kernel's page: its .co decoded once, then read from the cache
        co = cos[0]
        syms = kd_symbols(co)
        c.check(len(syms) >= 1, f"{co}: a kernel symbol")
        if syms:
            pages = []
            for n in (1, 2):
                r = run([args.kwalk, "render", syms[0], "--db", a], env=env)
                c.eq(r.returncode, 0, f"render {syms[0]} ({n}): exit status ({r.stderr[-300:]})")
                pages.append(r.stdout)
                hits, decoded = stats(c, r.stderr, f"render {syms[0]} ({n})")
                if n == 1:
                    c.eq(decoded, 1, f"render {syms[0]}: its .co decoded once")
                else:
                    c.check(decoded == 0 and hits >= 1,
                            f"render {syms[0]} again: its .co from the cache, nothing decoded",
                            f"{hits} from the cache, {decoded} decoded")
            c.check(pages[0] == pages[1] and "s_endpgm" in pages[0],
                    "the ASM kernel's page, with its listing, the same both times")

        # damaged records are decoded again, not used
        con = sqlite3.connect(cache)
        try:
            con.execute("UPDATE decoded SET data = substr(data, 1, length(data) / 2)")
            con.commit()
        except sqlite3.Error as e:
            c.fail(f"damaging the records: {e}")
        con.close()
        d, err = index("d.db")
        c.eq(stats(c, err, "damaged records"), (0, len(want)), "damaged records: decoded again")
        c.check(listings(d) == la, "damaged records: the same listings and line tables")
        junk = os.path.join(tmp, "junk.db")
        with open(junk, "wb") as f:
            f.write(b"not a database\n" * 100)
        _, err = index("j.db", dict(env, KWALK_CACHE=junk))
        c.eq(stats(c, err, "a cache file that is not SQLite"), (0, len(want)),
             "a cache file that is not SQLite: decoded in memory")
        with open(junk, "rb") as f:
            c.eq(f.read(), b"not a database\n" * 100, "a cache file that is not SQLite: left alone")
        _, err = index("u.db", dict(env, KWALK_CACHE=os.path.join(tmp, "junk.db", "x", "c.db")))
        c.check("warning" not in err and "error" not in err,
                "a cache that cannot be created: no message", err[-300:])

        # two writers at once on a new cache
        env2 = dict(env, KWALK_CACHE=os.path.join(tmp, "two.db"))
        procs = [subprocess.Popen([args.kwalk, "index", args.corpus_out, "-o",
                                   os.path.join(tmp, f"p{i}.db")], env=env2,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                 for i in range(2)]
        for i, p in enumerate(procs):
            out, err = p.communicate(timeout=600)
            c.eq(p.returncode, 0, f"concurrent index {i}: exit status ({err[-300:]})")
            c.check(listings(os.path.join(tmp, f"p{i}.db")) == la,
                    f"concurrent index {i}: the same listings")
        c.eq(len(cache_keys(env2["KWALK_CACHE"])), len(want),
             "two writers at once: one record per code object")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    c.finish()


if __name__ == "__main__":
    main()
