#!/usr/bin/env python3
"""test_index_queries.py: the ten queries of docs/index-schema.md, run on an
index database that `kwalk index` builds from a directory of sidecars (the
corpus, and tests/index/fixtures/queries whose values give every query
rows), each result checked against rows computed here from the sidecar YAML
read with PyYAML (the ground truth kwalk does not produce). The SQL is taken
from the doc (its `<!-- query: NAME -->` comments), so the doc and the test
cannot drift apart. Also the round trip: the database exported as YAML is
byte-identical to the index built in memory (`-o X.yaml`), and `render
--all` writes the same pages from either.

usage: test_index_queries.py --kwalk KWALK --doc docs/index-schema.md --sidecars DIR
                             [--min-nonempty N]
"""
import argparse
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile

import yaml

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from kwcheck import Checker  # noqa: E402

Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def sidecar_paths(root):
    """The sidecars `kwalk index ROOT` finds, named as it names them."""
    out = []
    for d, dirs, files in os.walk(root):
        dirs.sort()
        for f in sorted(files):
            if f.endswith(".kwalk.yaml") and len(f) > len(".kwalk.yaml"):
                out.append(os.path.join(d, f))
    return out


def norm(v):
    if v is None:
        return None
    if isinstance(v, bool):
        return str(int(v))
    return str(v)


def row(*vals):
    return tuple(norm(v) for v in vals)


def key(r):
    return tuple((x is None, x or "") for x in r)


def archs(k):
    return (k.get("archs") or {}).items()


def res(a, field):
    return (a.get("resources") or {}).get(field)


def num(v):
    return v if isinstance(v, int) and not isinstance(v, bool) else None


def expected(docs):
    """name -> (rows, ordered): the rows each query must give."""
    kernels = [(p, k) for p, d in docs for k in d.get("kernels") or []]
    launches = [(p, l) for p, d in docs for l in d.get("launches") or []]
    e = {}
    e["spills"] = {row(k["symbol"], arch, res(a, "vgpr_spill"), res(a, "sgpr_spill"))
                   for _, k in kernels for arch, a in archs(k)
                   if (res(a, "vgpr_spill") or 0) > 0 or (res(a, "sgpr_spill") or 0) > 0}
    e["low_occupancy"] = {row(k["symbol"], arch, res(a, "occupancy"), res(a, "occupancy_limiter"),
                              res(a, "vgpr"), res(a, "agpr"))
                          for _, k in kernels for arch, a in archs(k)
                          if res(a, "occupancy") is not None and res(a, "occupancy") < 4}
    # entry points -> host call closure -> launches in a reached function
    calls = {}
    for _, d in docs:
        for h in d.get("host_calls") or []:
            calls.setdefault(h.get("caller"), set()).add(h.get("callee"))
    by_fn = {}
    for _, l in launches:
        by_fn.setdefault(l.get("function_symbol"), []).append(l)
    rows = set()
    for _, d in docs:
        for en in d.get("entries") or []:
            start = en.get("function_symbol")
            if start is None:
                continue
            seen, todo = {start}, [start]
            while todo:
                for c in calls.get(todo.pop(), ()):
                    if c not in seen:
                        seen.add(c)
                        todo.append(c)
            for fn in seen:
                for l in by_fn.get(fn, []):
                    loc = l.get("location") or {}
                    rows.add(row(en.get("kind"), en.get("name"), loc.get("file"), loc.get("line"),
                                 l.get("kernel")))
    e["launch_sites_per_entry"] = rows
    rows = set()
    for _, l in launches:
        cfg = l.get("config") or {}
        g, b = (cfg.get("grid") or {}).get("value"), (cfg.get("block") or {}).get("value")
        if not g or not b:
            continue
        loc = l.get("location") or {}
        for _, k in kernels:
            if k["symbol"] != l.get("kernel"):
                continue
            for arch, a in archs(k):
                w = (a.get("ir") or {}).get("work_per_thread") or {}
                r, wr = num(w.get("bytes_read")), num(w.get("bytes_written"))
                if r is None or wr is None:
                    continue
                rows.add(row(l["kernel"], arch, loc.get("file"), loc.get("line"),
                             (r + wr) * g[0] * g[1] * g[2] * b[0] * b[1] * b[2]))
    e["bytes_per_invocation"] = rows
    per = {}
    for _, k in kernels:
        if k.get("template") is not None:
            per.setdefault(k["template"], set()).add(k["symbol"])
    e["instantiations_per_template"] = {row(t, len(s)) for t, s in per.items()}
    e["type_args"] = {row(k["symbol"], i, ta.get("name"), ta.get("value"))
                      for _, k in kernels for i, ta in enumerate(k.get("template_args") or [])
                      if ta.get("kind") == "type"}
    e["launch_guards"] = [row(p, l.get("kernel"), (l.get("location") or {}).get("file"),
                              (l.get("location") or {}).get("line"), i, g.get("kind"),
                              g.get("condition"), bool(g.get("holds")))
                          for p, l in launches for i, g in enumerate(l.get("guards") or [])]
    lds = {(k["symbol"], arch, res(a, "lds_bytes")) for _, k in kernels for arch, a in archs(k)
           if (res(a, "lds_bytes") or 0) > 0}
    e["lds_users"] = ([row(*x) for x in sorted(lds, key=lambda x: (-x[2], x[0], x[1]))[:20]],
                      True)
    e["mfma"] = {row(k["symbol"], arch, (a.get("classes") or {}).get("mfma"),
                     (a.get("classes") or {}).get("insns"))
                 for _, k in kernels for arch, a in archs(k)
                 if ((a.get("classes") or {}).get("mfma") or 0) > 0}
    rows = []
    for p, k in kernels:
        for arch, a in archs(k):
            n = sum(1 for x in (a.get("ir") or {}).get("accesses") or []
                    if x.get("space") == "global" and x.get("coalesced") is False)
            if n:
                rows.append(row(p, k["symbol"], arch, n))
    e["uncoalesced"] = rows
    return {n: (v if isinstance(v, tuple) else (v, False)) for n, v in e.items()}


def queries(doc):
    text = open(doc).read()
    return re.findall(r"<!-- query: (\w+) -->\s*```sql\n(.*?)```", text, re.S)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kwalk", required=True)
    ap.add_argument("--doc", required=True)
    ap.add_argument("--sidecars", required=True)
    ap.add_argument("--min-nonempty", type=int, default=3)
    a = ap.parse_args()
    a.kwalk = os.path.abspath(a.kwalk)
    c = Checker("index.queries")
    qs = queries(a.doc)
    c.check(len(qs) == 10, f"{a.doc}: {len(qs)} queries, want 10")
    paths = sidecar_paths(a.sidecars)
    c.check(paths, f"{a.sidecars}: no sidecars")
    docs = []
    for p in paths:
        with open(p) as f:
            docs.append((p, yaml.load(f, Loader=Loader)))
    want = expected(docs)
    with tempfile.TemporaryDirectory() as tmp:
        db = os.path.join(tmp, "kwalk.db")
        r = subprocess.run([a.kwalk, "index", a.sidecars, "-o", db], capture_output=True,
                           text=True)
        c.check(r.returncode == 0, f"kwalk index: exit {r.returncode}: {r.stderr}")
        # the round trip: the database reads as the index built in memory
        # (its YAML export byte-identical), and renders the same pages
        mem, back = os.path.join(tmp, "mem.yaml"), os.path.join(tmp, "back.yaml")
        r1 = subprocess.run([a.kwalk, "index", a.sidecars, "-o", mem], capture_output=True)
        r2 = subprocess.run([a.kwalk, "index", "--db", db, "-o", back], capture_output=True)
        c.check(r1.returncode == 0 and r2.returncode == 0, f"export: {r1.stderr} {r2.stderr}")
        if r1.returncode == 0 and r2.returncode == 0:
            c.check(open(mem, "rb").read() == open(back, "rb").read(),
                    "the database's YAML export differs from the in-memory index's")
        pages = {}
        ydir = os.path.join(tmp, "y")
        os.makedirs(ydir)
        shutil.copy(mem, os.path.join(ydir, "kwalk.db"))  # YAML under the same name
        for name, cwd in (("db", tmp), ("yaml", ydir)):
            out = os.path.join(tmp, "pages-" + name)
            r = subprocess.run([a.kwalk, "render", "--all", "--db", "kwalk.db", "-o", out],
                               capture_output=True, text=True, cwd=cwd)
            c.check(r.returncode == 0, f"render --all --db {name}: {r.stderr}")
            pages[name] = {f: open(os.path.join(out, f), "rb").read()
                           for f in sorted(os.listdir(out))} if r.returncode == 0 else {}
        c.check(pages["db"] and pages["db"] == pages["yaml"],
                f"render --all: {len(pages['db'])} pages from the database, "
                f"{len(pages['yaml'])} from YAML, or different bytes")
        con = sqlite3.connect(db)
        nonempty = 0
        for name, sql in qs:
            c.check(name in want, f"query {name}: no expected rows computed for it")
            if name not in want:
                continue
            rows, ordered = want[name]
            got = [row(*r) for r in con.execute(sql).fetchall()]
            nonempty += bool(got)
            if ordered:
                c.check(got == rows, f"query {name}: {got[:5]} ... != {rows[:5]} ...")
            else:
                exp = sorted(rows, key=key)
                have = sorted(got, key=key)
                c.check(have == exp, f"query {name}: {len(have)} rows, want {len(exp)}; "
                        f"extra {sorted(set(have) - set(exp), key=key)[:3]}, "
                        f"missing {sorted(set(exp) - set(have), key=key)[:3]}")
            print(f"{name}: {len(got)} rows")
        con.close()
        c.check(nonempty >= a.min_nonempty,
                f"only {nonempty} queries return rows on this data, want {a.min_nonempty}")
    c.finish()


if __name__ == "__main__":
    main()
