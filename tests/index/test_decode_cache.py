#!/usr/bin/env python3
"""test_decode_cache.py: listings decoded on use and the decode cache
(docs/index-schema.md, "Listings decoded on use", "The decode cache"):
`kwalk index` decodes nothing; a page decodes the code objects it shows,
once, their records kept under their MD5s in the file KWALK_CACHE names.

On the corpus's objects (KWALK_CACHE a file of this test's own, never
$HOME's; KWALK_CACHE_STATS=1 makes kwalk say on stderr how many code
objects it read from the cache and how many it decoded):
- the code objects are found independently: each object's .hip_fatbin
  offload bundle read here (ELF sections, the bundle's entry table), each
  amdgcn entry's MD5 taken with hashlib and its kernels read from its ELF
  symbols (NAME.kd);
- `kwalk index` decodes nothing (0 decoded, the cache empty) and the
  database holds no listing, line table or instruction class of a unit
  that names its code objects;
- the first page of a kernel of rope_kernels.o decodes exactly the code
  objects that hold it (the cache's keys then name exactly their MD5s) and
  shows a listing per arch; the second page decodes nothing and is the
  same, as is the page with KWALK_CACHE=off (decoded in memory) and the
  page after every record was damaged (decoded again): cut to half,
  one byte flipped halfway (its CRC-32 then differs), or its form byte set
  to form 1's (an earlier kwalk's record);
- a page reads (inflates) only its own kernel's entry of each record: the
  second page reads as many kernel entries as code objects hold its kernel,
  while those code objects hold more kernels (their ELF symbols);
- `kwalk site` decodes every code object of the corpus's objects once
  (each MD5 a key of the cache), a second `site` none;
- a code object changed after the index (one byte of its .text flipped in
  a copy of the object the index names through --map-prefix): the page
  exits 0, says `ARCH ISA not shown: ... changed since the compile` with the
  new and the recorded MD5 (hashlib's), and lists only the other arch;
- the page of a precompiled ASM kernel (its symbol read from the .co's
  ELF symbols) decodes its .co the first time and reads the cache the
  second, the same page;
- a cache file that is not SQLite, or one that cannot be created, is no
  error (the page decodes in memory); two pages at once on a new cache
  both succeed, the same page.

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

import yaml

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from kwcheck import Checker  # noqa: E402
from kwdecoded import cache_keys, key_md5s, stats, stored_listings  # noqa: E402
from kwrun import run  # noqa: E402

TU = "rope_kernels"
ENTRIES = re.compile(r"kwalk: decode cache: .*, (\d+) kernel entries read")


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
        out[name] = (h[1], body, h[6], h[9], i, h[4])
    return out


def bundle_cos(path):
    """The amdgcn code objects of the object's offload bundle: (MD5, bytes,
    offset of the bytes in the object file) each."""
    with open(path, "rb") as f:
        data = f.read()
    sec = elf_sections(data).get(".hip_fatbin")
    if not sec:
        return []
    b = sec[1]
    base = data.find(b)
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
            co = b[off:off + size]
            out.append((hashlib.md5(co).hexdigest(), co, base + off))
    return out


def kd_symbols(path):
    """The kernels of a code object (a file, or its bytes): its symbols
    NAME.kd, NAME each."""
    if isinstance(path, bytes):
        data = path
    else:
        with open(path, "rb") as f:
            data = f.read()
    secs = elf_sections(data)
    by_index = {v[4]: v for v in secs.values()}
    out = set()
    for name in (".symtab", ".dynsym"):
        if name not in secs:
            continue
        _, body, link, entsize, _, _ = secs[name]
        strtab = by_index[link][1]
        for i in range(0, len(body), entsize or 24):
            st_name, = struct.unpack_from("<I", body, i)
            s = strtab[st_name:strtab.index(b"\0", st_name)].decode()
            if s.endswith(".kd"):
                out.add(s[:-3])
    return sorted(out)


def text_at(co):
    """Offset of an instruction word halfway through the code object's .text."""
    sec = elf_sections(co).get(".text")
    off, size = sec[5], len(sec[1])
    return off + (size // 8) * 4


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kwalk", required=True)
    ap.add_argument("--corpus-out", required=True)
    args = ap.parse_args()
    c = Checker("index.decode_cache")
    objs = sorted(glob.glob(os.path.join(args.corpus_out, "*.o")))
    cos = {o: bundle_cos(o) for o in objs}
    want = {m for v in cos.values() for m, _, _ in v}
    asm = sorted(glob.glob(os.path.join(args.corpus_out, "hsa", "*", "*.co")))
    obj = os.path.join(args.corpus_out, TU + ".o")
    if not want or not asm or not cos.get(obj):
        c.skip("no corpus objects with code objects (build kw_corpus)")
    # a kernel of TU's code objects found in no other object: its page
    # decodes exactly the code objects of TU that hold it
    holds = {}
    for o, v in cos.items():
        for m, co, _ in v:
            for s in kd_symbols(co):
                holds.setdefault(s, set()).add((o, m))
    sym = next((s for s in sorted(holds) if {o for o, _ in holds[s]} == {obj}), None)
    c.check(sym is not None, f"{obj}: a kernel no other object holds")
    if sym is None:
        c.finish()
    want_sym = {m for _, m in holds[sym]}
    tmp = tempfile.mkdtemp(prefix="kw-decode-cache-")
    try:
        cache = os.path.join(tmp, "decoded.db")
        env = dict(os.environ, KWALK_CACHE=cache, KWALK_CACHE_STATS="1")
        db = os.path.join(tmp, "a.db")
        r = run([args.kwalk, "index", args.corpus_out, "-o", db], env=env)
        c.eq(r.returncode, 0, f"kwalk index: exit status ({r.stderr[-300:]})")
        c.eq(stats(c, r.stderr, "kwalk index"), (0, 0), "kwalk index: nothing decoded")
        c.eq(cache_keys(cache), [], "kwalk index: no record in the cache")
        stored, n = stored_listings(
            db, "SELECT _id FROM _kernels WHERE _sidecar IN "
            "(SELECT DISTINCT _sidecar FROM translation_unit_code_objects)")
        c.check(n > 0, "the index has kernel archs of units that name code objects")
        c.eq(stored, 0, "the index: no listing, line table or class of those archs")

        last_err = [""]

        def page(what, e=env, d=db, s=sym):
            r = run([args.kwalk, "render", s, "--db", d], env=e)
            c.eq(r.returncode, 0, f"{what}: exit status ({r.stderr[-300:]})")
            last_err[0] = r.stderr
            return r.stdout, stats(c, r.stderr, what)

        first, st = page(f"render {sym}")
        c.eq(st, (0, len(want_sym)), f"render {sym}: its {len(want_sym)} code objects decoded")
        c.eq(key_md5s(cache_keys(cache)), want_sym,
             f"render {sym}: the cache holds the MD5s of the code objects holding it")
        listed = re.findall(r"<summary>(\S+) ISA listing", first)
        c.eq(len(listed), len(want_sym), f"render {sym}: a listing per code object holding it")
        c.check("s_endpgm" in first, f"render {sym}: the listing is on the page")
        again, st = page(f"render {sym} again")
        c.eq(st, (len(want_sym), 0), f"render {sym} again: from the cache, nothing decoded")
        c.check(again == first, f"render {sym} again: the same page")
        m = ENTRIES.search(last_err[0])
        c.check(m is not None, f"render {sym} again: kwalk says how many entries it read")
        nk = [len(kd_symbols(co)) for v in cos.values() for m5, co, _ in v if m5 in want_sym]
        c.check(min(nk, default=0) > 1, f"the code objects holding {sym} hold more kernels: {nk}")
        if m:
            c.eq(int(m.group(1)), len(want_sym),
                 f"render {sym} again: one kernel entry read per code object, of {nk} kernels")
        off, st = page(f"render {sym}, KWALK_CACHE=off", dict(env, KWALK_CACHE="off"))
        c.eq(st, (0, len(want_sym)), "KWALK_CACHE=off: decoded in memory")
        c.check(off == first, "KWALK_CACHE=off: the same page")

        # damaged records are decoded again, not used
        con = sqlite3.connect(cache)
        try:
            con.execute("UPDATE decoded SET data = substr(data, 1, length(data) / 2)")
            con.commit()
        except sqlite3.Error as e:
            c.check(False, f"damaging the records: {e}")
        con.close()
        dmg, st = page("damaged records")
        c.eq(st, (0, len(want_sym)), "damaged records: decoded again")
        c.check(dmg == first, "damaged records: the same page")

        def damage(what, edit):
            con = sqlite3.connect(cache)
            rows = con.execute("SELECT key, data FROM decoded").fetchall()
            for k, d in rows:
                con.execute("UPDATE decoded SET data = ? WHERE key = ?", (edit(bytes(d)), k))
            con.commit()
            con.close()
            c.eq(len(rows), len(want_sym), f"{what}: the records damaged")
            got, st = page(what)
            c.eq(st, (0, len(want_sym)), f"{what}: decoded again")
            c.check(got == first, f"{what}: the same page")

        damage("a byte flipped halfway",
               lambda d: d[:len(d) // 2] + bytes([d[len(d) // 2] ^ 0x20]) + d[len(d) // 2 + 1:])
        # "KWCO", then the form: 1 is an earlier kwalk's record
        damage("a record of form 1", lambda d: d[:4] + b"\x01" + d[5:])

        # site: every code object decoded once, first
        senv = dict(env, KWALK_CACHE=os.path.join(tmp, "site.db"))
        for n in (1, 2):
            r = run([args.kwalk, "site", "--db", db, "-o", os.path.join(tmp, f"site{n}")],
                    env=senv)
            c.eq(r.returncode, 0, f"site {n}: exit status ({r.stderr[-300:]})")
            hits, dec = stats(c, r.stderr, f"site {n}")
            if n == 1:
                c.check(want <= key_md5s(cache_keys(senv["KWALK_CACHE"])),
                        "site: every code object of the objects in the cache")
                c.check(dec >= len(want), f"site: {dec} decoded, {len(want)} code objects")
            else:
                c.eq(dec, 0, "site again: nothing decoded")

        # a code object changed after the index: the page refuses its listing
        with open(sidecar_of(obj)) as f:
            tu = yaml.safe_load(f)["translation_unit"]
        cdir = os.path.join(tmp, "copy")
        os.makedirs(cdir)
        copy = os.path.join(cdir, os.path.basename(obj))
        shutil.copy(obj, copy)
        cdb = os.path.join(tmp, "copy.db")
        r = run([args.kwalk, "index", sidecar_of(obj), "-o", cdb, "--map-prefix",
                 "%s=%s" % (os.path.dirname(tu["object"]), cdir)], env=env)
        c.eq((r.returncode, stats(c, r.stderr, "index of the copy")), (0, (0, 0)),
             f"index of the copy: exit status, nothing decoded ({r.stderr[-300:]})")
        ok, _ = page("the copy, unchanged", d=cdb)
        c.check(ok == first.replace(db, cdb), "the copy, unchanged: the same page")
        md5, co, at = next((m, co, at) for m, co, at in cos[obj] if m in want_sym)
        with open(copy, "rb") as f:
            data = bytearray(f.read())
        pos = at + text_at(co)
        data[pos] ^= 0x01
        with open(copy, "wb") as f:
            f.write(data)
        new = bytearray(co)
        new[pos - at] ^= 0x01
        new_md5 = hashlib.md5(bytes(new)).hexdigest()
        bad, st = page("a code object changed since the index", d=cdb)
        notes = re.findall(r"^(\S+) ISA not shown: (.*)$", bad, re.M)
        c.check(len(notes) == 1 and "changed since the compile" in notes[0][1]
                and new_md5 in notes[0][1] and md5 in notes[0][1],
                "changed since the index: one arch's ISA not shown, naming both MD5s", notes)
        arch = notes[0][0] if notes else None
        c.eq(re.findall(r"<summary>(\S+) ISA listing", bad), [a for a in listed if a != arch],
             "changed since the index: the other arch's listing only")

        # an ASM kernel's page: its .co decoded once, then read from the cache
        co = asm[0]
        syms = kd_symbols(co)
        c.check(len(syms) >= 1, f"{co}: a kernel symbol")
        if syms:
            pages = []
            for n in (1, 2):
                out, (hits, decoded) = page(f"render {syms[0]} ({n})", s=syms[0])
                pages.append(out)
                if n == 1:
                    c.eq(decoded, 1, f"render {syms[0]}: its .co decoded once")
                else:
                    c.check(decoded == 0 and hits >= 1,
                            f"render {syms[0]} again: its .co from the cache, nothing decoded",
                            f"{hits} from the cache, {decoded} decoded")
            c.check(pages[0] == pages[1] and "s_endpgm" in pages[0],
                    "the ASM kernel's page, with its listing, the same both times")

        junk = os.path.join(tmp, "junk.db")
        with open(junk, "wb") as f:
            f.write(b"not a database\n" * 100)
        out, st = page("a cache file that is not SQLite", dict(env, KWALK_CACHE=junk))
        c.eq(st, (0, len(want_sym)), "a cache file that is not SQLite: decoded in memory")
        c.check(out == first, "a cache file that is not SQLite: the same page")
        with open(junk, "rb") as f:
            c.eq(f.read(), b"not a database\n" * 100, "a cache file that is not SQLite: left alone")
        r = run([args.kwalk, "render", sym, "--db", db],
                env=dict(env, KWALK_CACHE=os.path.join(tmp, "junk.db", "x", "c.db")))
        c.check(r.returncode == 0 and "warning" not in r.stderr and "error" not in r.stderr,
                "a cache that cannot be created: no message", r.stderr[-300:])

        # two pages at once on a new cache
        env2 = dict(env, KWALK_CACHE=os.path.join(tmp, "two.db"))
        procs = [subprocess.Popen([args.kwalk, "render", sym, "--db", db], env=env2,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                 for _ in range(2)]
        for i, p in enumerate(procs):
            out, err = p.communicate(timeout=600)
            c.eq(p.returncode, 0, f"concurrent page {i}: exit status ({err[-300:]})")
            c.check(out == first, f"concurrent page {i}: the same page")
        c.eq(key_md5s(cache_keys(env2["KWALK_CACHE"])), want_sym,
             "two pages at once: one record per code object")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    c.finish()


def sidecar_of(obj):
    return obj + ".kwalk.yaml"


if __name__ == "__main__":
    main()
