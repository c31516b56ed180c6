#!/usr/bin/env python3
"""test_triton_decode.py: a Triton specialization's listing decoded on use
(index version 6; docs/index-schema.md, "Triton specializations decoded on
use"; docs/triton.md, "The .hsaco in the index: decoded on use").

On a copy of the committed corpus cache (tests/corpus/triton/cache), indexed
with --map-prefix /opt/kwalk=<repo> (KWALK_CACHE a file of this test's own;
KWALK_CACHE_STATS=1 makes kwalk say how many code objects it read from the
cache and how many it decoded), against what kwalk does not produce: each
folder's .hsaco MD5 taken with hashlib, its NAME.json, llvm-dwarfdump
--debug-line of the .hsaco and the Python source read here:
- `kwalk index --triton-cache` decodes nothing (0 decoded, the cache
  empty); the database names each .hsaco (its path as the unit's object,
  its size and MD5 as the unit's code object) and holds no listing, line
  table or instruction class of a Triton specialization;
- the first page of a specialization decodes exactly its .hsaco (the
  cache's keys then name exactly its MD5) and shows its listing, every
  source position it cites a row of the .hsaco's line table under the
  prefix map, quoting that line of the source; the second page decodes
  nothing and is the same, as is the page with KWALK_CACHE=off;
- `kwalk site` decodes every .hsaco once, a second `site` none;
- the hook's sidecars indexed with the cache: a page of a specialization
  decodes the cache's .hsaco and shows its listing;
- a .hsaco changed after the index (one byte of its .text flipped): the
  page exits 0 and says in one line `ARCH ISA not shown: ... changed since
  the compile` with the new and the recorded MD5 (hashlib's), no listing.

usage: test_triton_decode.py --kwalk KWALK --source-dir DIR --llvm-bin DIR
"""
import argparse
import glob
import hashlib
import json
import os
import re
import shutil
import sqlite3
import struct
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from kwcheck import Checker  # noqa: E402
from kwllvm import LineTable, tool  # noqa: E402
from kwdecoded import cache_keys, key_md5s, stats, stored_listings  # noqa: E402
from kwrun import run  # noqa: E402

OLD = "/opt/kwalk"


def text_offset(path):
    """File offset of an instruction word halfway through the ELF's .text."""
    with open(path, "rb") as f:
        data = f.read()
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    hdrs = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]
    names = hdrs[shstrndx][4]
    for h in hdrs:
        n0 = names + h[0]
        if data[n0:data.index(b"\0", n0)] == b".text":
            return h[4] + (h[5] // 8) * 4
    return None


def folders(cache):
    """{hash: (folder, name, .hsaco path, its MD5)} from each NAME.json."""
    out = {}
    for grp in sorted(glob.glob(os.path.join(cache, "*", "__grp__*.json"))):
        d = os.path.dirname(grp)
        name = os.path.basename(grp)[len("__grp__"):-len(".json")]
        with open(os.path.join(d, name + ".json")) as f:
            meta = json.load(f)
        co = os.path.join(d, name + ".hsaco")
        with open(co, "rb") as f:
            md5 = hashlib.md5(f.read()).hexdigest()
        out[meta["hash"]] = (d, meta["name"], co, md5, meta.get("target", {}).get("arch"))
    return out


def llvm_knows(llvm_bin, arch):
    """Whether this LLVM knows processor arch (its llvm-mc says so): gfx950
    needs LLVM 20, so a kwalk on LLVM 19 gives its .hsaco no listing."""
    r = run([tool(llvm_bin, "llvm-mc"), "-triple=amdgcn-amd-amdhsa", f"-mcpu={arch}",
             "-filetype=null"], input="")
    return r.returncode == 0 and "not a recognized processor" not in r.stderr


def units(db):
    """{.hsaco path: (bytes, md5)} of the units that name a code object."""
    con = sqlite3.connect(db)
    rows = con.execute("SELECT s.translation_unit_object, c.bytes, c.md5 FROM sidecars s "
                       "JOIN translation_unit_code_objects c ON c._sidecar = s._id").fetchall()
    con.close()
    return {o: (b, m) for o, b, m in rows}


def check_lines(c, page, co, dwarfdump, src, what):
    """Every `; FILE:LINE  text` of the page's listing: a row of the .hsaco's
    line table (its path under the prefix map), quoting that source line."""
    rows = {(p, ln) for _, p, ln, end in LineTable(dwarfdump, co).rows if ln and not end}
    cited = re.findall(r"^; (/\S+):(\d+)  (.*)$", page, re.M)
    c.check(len(cited) > 0, f"{what}: the listing cites source lines")
    bad = []
    for f, ln, text in cited:
        raw = OLD + f[len(src):] if f.startswith(src + "/") else f
        if (raw, int(ln)) not in rows:
            bad.append((f, ln, "not in the line table"))
            continue
        with open(f) as fh:
            lines = fh.read().splitlines()
        if lines[int(ln) - 1].strip() != text.strip():
            bad.append((f, ln, "quoted text"))
    c.eq(bad, [], f"{what}: each cited line is a line-table row, the source's text")
    c.check(OLD + "/" not in page, f"{what}: no unmapped {OLD} path on the page")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kwalk", required=True)
    ap.add_argument("--source-dir", required=True)
    ap.add_argument("--llvm-bin", required=True)
    args = ap.parse_args()
    c = Checker("triton.decode")
    src = os.path.realpath(args.source_dir)
    corpus = os.path.join(src, "tests", "corpus", "triton")
    dwarfdump = tool(args.llvm_bin, "llvm-dwarfdump")
    tmp = tempfile.mkdtemp(prefix="kw-triton-decode-")
    try:
        cache = os.path.join(tmp, "cache")
        shutil.copytree(os.path.join(corpus, "cache"), cache)
        fold = folders(cache)
        if not fold:
            c.skip("no Triton corpus cache")
        md5s = {v[3] for v in fold.values()}
        known = {a: llvm_knows(args.llvm_bin, a) for a in {v[4] for v in fold.values()}}
        ok = {h: v for h, v in fold.items() if known[v[4]]}  # those with a listing
        if not ok:
            c.skip("this LLVM disassembles none of the corpus cache's .hsaco")
        ok_md5s = {v[3] for v in ok.values()}
        kcache = os.path.join(tmp, "decoded.db")
        env = dict(os.environ, KWALK_CACHE=kcache, KWALK_CACHE_STATS="1")
        db = os.path.join(tmp, "t.db")
        prefix = f"{OLD}={src}"
        r = run([args.kwalk, "index", "--triton-cache", cache, "--map-prefix", prefix, "-o", db],
                env=env)
        c.eq(r.returncode, 0, f"kwalk index: exit status ({r.stderr[-300:]})")
        c.eq(stats(c, r.stderr, "kwalk index"), (0, 0), "kwalk index: nothing decoded")
        c.eq(key_md5s(cache_keys(kcache)), set(), "kwalk index: no record in the cache")
        s, n = stored_listings(db, "SELECT _parent FROM _kernels_triton")
        c.eq(n, len(fold), "the index: an arch per specialization")
        c.eq(s, 0, "the index: no listing, line table or class of a Triton specialization")
        c.eq(units(db), {os.path.realpath(v[2]): (os.path.getsize(v[2]), v[3])
                         for v in fold.values()},
             "the index: each .hsaco's path, size and MD5 as its unit's code object")

        h = sorted(ok)[0]
        d, name, co, md5, _ = ok[h]

        def page(what, e=env, dbf=db):
            r = run([args.kwalk, "render", h, "--db", dbf], env=e)
            c.eq(r.returncode, 0, f"{what}: exit status ({r.stderr[-300:]})")
            return r.stdout, stats(c, r.stderr, what)

        first, st = page(f"render {name}@{h[:8]}")
        c.eq(st, (0, 1), f"render {name}: its .hsaco decoded")
        c.eq(key_md5s(cache_keys(kcache)), {md5}, f"render {name}: the cache holds its .hsaco's MD5")
        c.eq(len(re.findall(r"<summary>\S+ ISA listing", first)), 1, f"render {name}: a listing")
        c.check("s_endpgm" in first, f"render {name}: the listing is on the page")
        check_lines(c, first, co, dwarfdump, src, f"render {name}")
        again, st = page(f"render {name} again")
        c.eq(st, (1, 0), f"render {name} again: from the cache, nothing decoded")
        c.check(again == first, f"render {name} again: the same page")
        off, st = page(f"render {name}, KWALK_CACHE=off", dict(env, KWALK_CACHE="off"))
        c.eq(st, (0, 1), "KWALK_CACHE=off: decoded in memory")
        c.check(off == first, "KWALK_CACHE=off: the same page")

        # site: every .hsaco decoded once, first
        senv = dict(env, KWALK_CACHE=os.path.join(tmp, "site.db"))
        for i in (1, 2):
            r = run([args.kwalk, "site", "--db", db, "-o", os.path.join(tmp, f"site{i}")],
                    env=senv)
            c.eq(r.returncode, 0, f"site {i}: exit status ({r.stderr[-300:]})")
            got = stats(c, r.stderr, f"site {i}")
            # one this LLVM cannot disassemble is tried again (no record)
            c.eq(got, (0, len(md5s)) if i == 1 else (len(ok_md5s), len(md5s) - len(ok_md5s)),
                 f"site {i}: every .hsaco decoded once" if i == 1 else "site again: none decoded")
        c.eq(key_md5s(cache_keys(senv["KWALK_CACHE"])), ok_md5s,
             "site: the cache holds the MD5 of every .hsaco this LLVM disassembles")

        # the hook's sidecars with the cache: the cache's arch, decoded on use
        hdb = os.path.join(tmp, "hook.db")
        r = run([args.kwalk, "index", os.path.join(corpus, "sidecars"), "--triton-cache", cache,
                 "--map-prefix", prefix, "-o", hdb], env=env)
        c.eq((r.returncode, stats(c, r.stderr, "index with the hook")), (0, (0, 0)),
             f"index with the hook's sidecars: exit status, nothing decoded ({r.stderr[-300:]})")
        hook, st = page("a hook specialization's page", e=dict(env, KWALK_CACHE="off"), dbf=hdb)
        c.eq(st, (0, 1), "a hook specialization's page: its .hsaco decoded")
        c.check("s_endpgm" in hook and "No launch recorded" not in hook,
                "a hook specialization's page: the hook's launch and the cache's listing")
        check_lines(c, hook, co, dwarfdump, src, "a hook specialization's page")

        # a .hsaco changed after the index: refused in one line
        at = text_offset(co)
        with open(co, "rb") as f:
            data = bytearray(f.read())
        data[at] ^= 0x01
        with open(co, "wb") as f:
            f.write(data)
        new_md5 = hashlib.md5(bytes(data)).hexdigest()
        bad, _ = page("a .hsaco changed since the index")
        notes = [(a, t.replace("\\_", "_"))  # Markdown's escaped underscores
                 for a, t in re.findall(r"^(\S+) ISA not shown: (.*)$", bad, re.M)]
        c.check(len(notes) == 1 and "changed since the compile" in notes[0][1]
                and new_md5 in notes[0][1] and md5 in notes[0][1]
                and os.path.realpath(co) in notes[0][1],
                "changed since the index: one line naming the .hsaco and both MD5s", notes)
        c.eq(re.findall(r"<summary>(\S+) ISA listing", bad), [],
             "changed since the index: no listing")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    c.finish()


if __name__ == "__main__":
    main()
