#!/usr/bin/env python3
"""tests/python/test_triton_chains.py: Triton kernels joined to the Python
chains python/kwalk_pyscan.py finds statically, in `kwalk map` and in
section 1 of their pages.

Input: copies of ../shared/fixtures/atom-py, aiter-hip/aiter and
triton-aiter-3.6/src (aiter's Triton wrappers and kernels), and that
fixture's Triton cache indexed with --map-prefix onto the copy (no hook:
cache-only). Ground truth is found here with Python's `ast`, never taken from
kwalk: the `@triton.jit` kernels and their def lines, the wrappers that launch
them (`KERNEL[grid](...)` with KERNEL imported from the kernels' module) and
those launch lines, a public function of the wrappers' module that calls a
wrapper; marker comments are appended to those lines. The test writes into
ATOM's layernorm.py a function calling that public function, and a
`getattr(module, name)(...)` on the wrappers' module:

  map     a row per launch of each cached kernel, at the marked launch lines,
          the wrapper as its Python entry; the Model entry of the kernel the
          public function reaches is the ATOM function at its marked call,
          "-" for the others (--python-from atom); the Markdown map lists the
          getattr call, at its line, under the wrapper, and counts the others;
  render  section 1 of each page of that kernel: the chain's steps are the
          marked calls in order, ending at the wrapper's marked launch, with
          the `if` tests ast finds around each call; the getattr call listed;
          the calls left out counted once a page (several wrappers: "the
          same N ... as for" the first);
          a page of another kernel says no model caller reaches its wrapper.
  hook    kwalk's Triton corpus (tests/corpus/triton: hook sidecars, with a
          launch recorded): every row's Model entry is a call per ast (and
          `map --json`'s model_entries are the same), and
          each page's static chain passes through the corpus's `# KWT:OP` and
          `# KWT:CALL` lines of its kernel and ends at its `# KWT:LAUNCH`.

Exit 77 (ctest SKIP) where ../shared is absent.
"""

import argparse
import ast
import json
import os
import re
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from kwcheck import Checker  # noqa: E402
from kwrun import run  # noqa: E402
from kwpycallers import pyfiles  # noqa: E402

C = Checker("python.triton_chains")
check = C.check
MARK = "  # kwalk-test: "


def module_of(root, path):
    rel = os.path.relpath(path, root)[:-3].split(os.sep)
    return ".".join(rel[:-1] if rel[-1] == "__init__" else rel)


def mark(path, marks):
    lines = open(path, encoding="utf-8").read().split("\n")
    for ln, tag in marks:
        check(not lines[ln - 1].rstrip().endswith("\\"), "%s:%d markable" % (path, ln))
        if not lines[ln - 1].endswith(MARK + tag):
            lines[ln - 1] += MARK + tag
    open(path, "w", encoding="utf-8").write("\n".join(lines))


def conds_of(func, line):
    """The `if` tests around the statement at `line` inside func, outermost
    first; an else branch as `not (TEST)`."""
    out = []

    def walk(stmts, acc):
        for s in stmts:
            if not (s.lineno <= line <= s.end_lineno):
                continue
            if isinstance(s, ast.If):
                t = ast.unparse(s.test)
                if any(x.lineno <= line <= x.end_lineno for x in s.body):
                    walk(s.body, acc + [t])
                else:
                    walk(s.orelse, acc + ["not (%s)" % t])
            else:
                out.extend(acc)
                for f in ("body", "orelse", "finalbody", "handlers"):
                    if isinstance(getattr(s, f, None), list) and not isinstance(
                            s, (ast.FunctionDef, ast.ClassDef)):
                        walk(getattr(s, f), [])
                return

    walk(func.body, [])
    return out


def find_triton(src):
    """With ast: the kernels {(module, name): (file, def line)}, the launches
    [(file, module, wrapper, line, kernel name)] and, per wrapper, its def."""
    kernels, launches, defs = {}, [], {}
    for p in pyfiles(src):
        t = ast.parse(open(p, encoding="utf-8").read())
        m = module_of(src, p)
        for n in t.body:
            if isinstance(n, ast.FunctionDef) and any(
                    ast.unparse(d) == "triton.jit" for d in n.decorator_list):
                kernels[(m, n.name)] = (p, n.lineno)
    for p in pyfiles(src):
        t = ast.parse(open(p, encoding="utf-8").read())
        m = module_of(src, p)
        imported = {(a.asname or a.name): (n.module, a.name) for n in t.body
                     if isinstance(n, ast.ImportFrom) and n.module for a in n.names}
        for f in t.body:
            if not isinstance(f, ast.FunctionDef):
                continue
            defs[(m, f.name)] = (p, f)
            for c in ast.walk(f):
                if isinstance(c, ast.Call) and isinstance(c.func, ast.Subscript) and \
                        isinstance(c.func.value, ast.Name):
                    k = imported.get(c.func.value.id)
                    if k in kernels:
                        launches.append((p, m, f.name, c.lineno, k[1]))
    return kernels, launches, defs


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kwalk", required=True)
    ap.add_argument("--shared", required=True)
    args = ap.parse_args()
    fx = os.path.join(args.shared, "fixtures")
    need = [os.path.join(fx, x) for x in ("atom-py", "aiter-hip/aiter/aiter",
                                          "triton-aiter-3.6/src", "triton-aiter-3.6/cache")]
    if not all(os.path.isdir(x) for x in need):
        C.skip("../shared/fixtures/{atom-py,aiter-hip/aiter,triton-aiter-3.6} absent")
    tmp = tempfile.mkdtemp(prefix="kwalk-triton-chains-")
    try:
        test(args.kwalk, fx, tmp)
    finally:
        if not os.environ.get("KWALK_TEST_KEEP"):
            shutil.rmtree(tmp, ignore_errors=True)
    tmp = tempfile.mkdtemp(prefix="kwalk-triton-hook-")
    try:
        test_hook(args.kwalk, tmp)
    finally:
        if not os.environ.get("KWALK_TEST_KEEP"):
            shutil.rmtree(tmp, ignore_errors=True)
    C.finish()


ATOM_CALLER = '''

def _kwalk_test_triton(x, w):
    from %(mod)s import %(fn)s
    return %(fn)s(x, w, 1e-6)  # kwalk-test: triton-call


import %(mod)s as _kwalk_wrappers


def _kwalk_test_triton_dyn(name, x):
    return getattr(_kwalk_wrappers, name)(x)  # kwalk-test: triton-dyn
'''


def test(K, fx, tmp):
    a, b, s = (os.path.join(tmp, x) for x in ("atom-py", "aiter", "src"))
    shutil.copytree(os.path.join(fx, "atom-py"), a)
    shutil.copytree(os.path.join(fx, "aiter-hip", "aiter"), b, ignore=shutil.ignore_patterns(
        "csrc", "hsa", "*.so", "*.hip", "*.cu", "*.h", "*.cpp"))
    shutil.copytree(os.path.join(fx, "triton-aiter-3.6", "src"), s)
    env = dict(os.environ, KWALK_PYTHON=sys.executable)
    env.pop("KWALK_ANNOTATIONS", None)

    kernels, launches, defs = find_triton(s)
    if not check(launches, "ast: the Triton fixture launches kernels from wrappers"):
        return
    for p in sorted({x[0] for x in launches}):
        mark(p, [(x[3], "launch") for x in launches if x[0] == p])
    # the kernels in the cache, from the fixture's manifest (what was compiled)
    with open(os.path.join(fx, "triton-aiter-3.6", "manifest.json"), encoding="utf-8") as f:
        cached = {c["kernel"] for c in json.load(f)["compiled"]}
    # a public function of a wrappers' module calling, by name, a wrapper
    # whose kernel is in the cache
    wrappers = {(x[1], x[2]): x for x in launches}
    pub = None
    for (m, fn), (p, f) in sorted(defs.items()):
        if fn.startswith("_") or (m, fn) in wrappers:
            continue
        calls = [c for c in ast.walk(f) if isinstance(c, ast.Call) and
                 isinstance(c.func, ast.Name) and (m, c.func.id) in wrappers]
        if any(wrappers[(m, c.func.id)][4] in cached for c in calls) and not pub:
            pub = (m, fn, p, f, calls)
    if not check(pub, "ast: a public function calls a wrapper of a cached Triton kernel"):
        return
    m, fn, pfile, pfunc, wcalls = pub
    mark(pfile, [(c.lineno, "call-wrapper") for c in wcalls])
    ln = os.path.join(a, "atom", "model_ops", "layernorm.py")
    with open(ln, "a", encoding="utf-8") as f:
        f.write(ATOM_CALLER % {"mod": m, "fn": fn})
    lines = open(ln, encoding="utf-8").read().split("\n")
    tcall = [i for i, l in enumerate(lines, 1) if l.endswith(MARK + "triton-call")]
    tdyn = [i for i, l in enumerate(lines, 1) if l.endswith(MARK + "triton-dyn")]
    for p in {ln, pfile} | {x[0] for x in launches}:
        ast.parse(open(p, encoding="utf-8").read())  # still valid Python
    # per launch reached from the ATOM function: the steps of its chain
    reached = {}
    for c in wcalls:
        w = wrappers[(m, c.func.id)]  # file, module, wrapper, launch line, kernel
        wfunc = defs[(w[1], w[2])][1]
        reached["%s:%d" % (w[0], w[3])] = {
            "kernel": w[4], "wrapper": "%s.%s" % (w[1], w[2]),
            "steps": [(ln, tcall[0], []), (pfile, c.lineno, conds_of(pfunc, c.lineno)),
                      (w[0], w[3], conds_of(wfunc, w[3]))]}
    expect = {"entry": "atom.model_ops.layernorm._kwalk_test_triton", "call": (ln, tcall[0]),
              "dyn": (ln, tdyn[0]), "reached": reached}

    db = os.path.join(tmp, "t.yaml")
    rc, _, err = run([K, "index", "--triton-cache", os.path.join(fx, "triton-aiter-3.6", "cache"),
                      "--map-prefix", "/opt/aiter=" + s, "-o", db], env=env, timeout=300)
    if not check(rc == 0, "kwalk index --triton-cache: %s" % err):
        return
    roots = ["--python-root", a, "--python-root", b, "--python-root", s, "--python-from", "atom"]
    test_map(K, db, roots, env, launches, kernels, expect)
    test_render(K, db, roots, env, tmp, expect)


def test_map(K, db, roots, env, launches, kernels, expect):
    rc, out, err = run([K, "map", "--db", db, "--format", "tsv"] + roots, env=env, timeout=300)
    rows = [r.split("\t") for r in out.split("\n") if r and not r.startswith("@")]
    if not check(rc == 0 and err == "" and rows and all(len(r) == 12 for r in rows),
                 "map (tsv): exit %d, 12 fields a row %r" % (rc, err)):
        return
    cached = {r[0] for r in rows}
    for k in sorted(cached):
        got = sorted((r[7], r[3]) for r in rows if r[0] == k)
        want = sorted(("%s:%d" % (x[0], x[3]), "%s.%s" % (x[1], x[2]))
                      for x in launches if x[4] == k)
        check(got == want, "map: %s's rows at the launches ast finds: got %s want %s"
              % (k, got, want))
        defs = {"%s:%d" % v for (_, n), v in kernels.items() if n == k}
        check(all(r[4] == "triton" and r[8] in defs for r in rows if r[0] == k),
              "map: %s's rows are Triton rows, device code at its def per ast %s" % (k, defs))
        for r in rows:
            if r[0] != k:
                continue
            want = "%s %s:%d" % ((expect["entry"],) + expect["call"]) \
                if r[7] in expect["reached"] else "-"
            check(r[11] == want, "map: %s at %s: Model entry %r, want %r" % (k, r[7], r[11], want))
    hit = [x for at, x in expect["reached"].items() if x["kernel"] in cached]
    check(hit, "map: a kernel reached from ATOM is in the cache")
    rc, md, err = run([K, "map", "--db", db] + roots, env=env, timeout=300)
    check(rc == 0 and "| Model entry |" in md, "map (md): exit %d %r" % (rc, err))
    for at, x in expect["reached"].items():
        if x["kernel"] not in cached:
            continue
        row = [l for l in md.split("\n") if l.startswith("| `%s`" % x["kernel"]) and
               "`%s`" % at in l]
        check(len(row) == 1 and "`%s` `%s:%d`" % ((expect["entry"],) + expect["call"]) in row[0],
              "map (md): the Model entry of %s's row at %s" % (x["kernel"], at))
        after = md.split("Calls not resolved statically", 1)
        sect = after[1].split("\n\n")[1] if len(after) == 2 else ""
        item = sect.split("- `%s`:" % x["wrapper"], 1)
        item = item[1].split("\n- ", 1)[0] if len(item) == 2 else ""
        check("`%s:%d` calls `getattr(" % expect["dyn"] in item,
              "map (md): the getattr call listed under %s" % x["wrapper"])
    check(len(re.findall(r"\n\d+ other calls? not resolved statically could lead to none of "
                         r"the ops above, left out: \d+ calls? ", md)) == 1,
          "map (md): the other unresolved calls counted once, with their reasons")


def test_render(K, db, roots, env, tmp, expect):
    pages = os.path.join(tmp, "pages")
    rc, _, err = run([K, "render", "--all", "--db", db, "-o", pages] + roots, env=env, timeout=300)
    if not check(rc == 0, "render --all: %s" % err):
        return
    kernels = {x["kernel"]: x for x in expect["reached"].values()}
    mine, others = [], []
    for f in sorted(os.listdir(pages)):
        text = open(os.path.join(pages, f), encoding="utf-8").read()
        if "Language: Triton" not in text:
            continue
        check(len(re.findall(r"other calls? not resolved statically (is|are) left out, as none",
                             text)) <= 1, "render: %s counts the calls left out once" % f)
        k = [n for n in kernels if "`%s@" % n in text]
        (mine if k else others).append((kernels[k[0]] if k else None, text))
    check(mine and others, "render: pages of the kernels reached and of others")
    for x, text in mine:
        sec = text.split("## 1.", 1)[1].split("\n## 2.", 1)[0] if "## 1." in text else ""
        chain = sec.split("Python chain from `%s`" % expect["entry"], 1)
        steps = chain[1].split("\n\n", 2)[1].split("\n") if len(chain) == 2 else []
        got = [(re.findall(r"`([^`]+):(\d+)`", l), l) for l in steps]
        check(len(got) == 3 and all(
            g[0] and g[0][-1] == (f, str(n)) and all("`%s`" % t in g[1] for t in c)
            for g, (f, n, c) in zip(got, x["steps"])) and
            "launches `%s[grid](...)`" % x["kernel"] in steps[-1],
            "render: %s: the chain's steps are the marked calls and launch, with their if "
            "tests: %s" % (x["kernel"], steps))
        check("`%s:%d` (" % expect["dyn"] in sec and "getattr(" in sec,
              "render: %s: the getattr call listed in section 1" % x["kernel"])
    for _, text in others:
        sec = text.split("## 1.", 1)[1].split("\n## 2.", 1)[0] if "## 1." in text else ""
        check("Python chains to the launch (static)" in sec and
              "no outermost caller in the Python trees reaches the wrapper" in sec,
              "render: another kernel's page says no model caller reaches its wrapper")


def test_hook(K, tmp):
    repo = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    corpus = os.path.join(repo, "tests", "corpus", "triton")
    env = dict(os.environ, KWALK_PYTHON=sys.executable)
    env.pop("KWALK_ANNOTATIONS", None)
    marks = {}  # (KIND, id) -> (file, line)
    for p in pyfiles(corpus):
        for i, l in enumerate(open(p, encoding="utf-8").read().split("\n"), 1):
            m = re.search(r"# KWT:(JIT|LAUNCH|CALL|OP) (\w+)$", l)
            if m:
                marks[(m.group(1), m.group(2))] = (p, i)
    jit = {}  # kernel name -> id
    for (kind, i), (p, n) in marks.items():
        if kind == "JIT":
            t = ast.parse(open(p, encoding="utf-8").read())
            jit.update({f.name: i for f in t.body if isinstance(f, ast.FunctionDef)
                        and f.lineno == n})
    db, empty = os.path.join(tmp, "h.yaml"), os.path.join(tmp, "empty")
    os.makedirs(empty)
    rc, _, err = run([K, "index", os.path.join(corpus, "sidecars"), "--triton-cache",
                      os.path.join(corpus, "cache"), "--map-prefix", "/opt/kwalk=" + repo,
                      "-o", db], env=env, timeout=300)
    if not check(rc == 0 and jit, "hook: kwalk index of the corpus: %s" % err):
        return
    roots = ["--python-root", corpus, "--python-root", empty]
    rc, out, err = run([K, "map", "--db", db, "--format", "tsv"] + roots, env=env, timeout=300)
    rows = [r.split("\t") for r in out.split("\n") if r and not r.startswith("@")]
    check(rc == 0 and rows and all(len(r) == 12 for r in rows), "hook: map %d %r" % (rc, err))
    for r in rows:
        ok = r[11] != "-"
        for x in r[11].split("; "):
            m = re.fullmatch(r"(\S+) (\S+):(\d+)", x)
            ok = ok and m and int(m.group(3)) in {
                n.lineno for n in ast.walk(ast.parse(open(m.group(2), encoding="utf-8").read()))
                if isinstance(n, ast.Call)}
        check(ok, "hook: %s at %s: Model entry %r, each a call per ast" % (r[0], r[7], r[11]))
    # map --json: a Triton row's model_entries are the TSV's MODEL field
    rc, out, err = run([K, "map", "--db", db, "--json"] + roots, env=env, timeout=300)
    doc = json.loads(out) if rc == 0 else {}
    tsv = {(r[0], r[7]): r[11] for r in rows}
    js = [(x["kernel"], "%s:%d" % (x["launch"]["file"], x["launch"]["line"]),
           "; ".join("%s %s:%d" % (e["name"], e["file"], e["line"])
                     for e in x["model_entries"]) or "-")
          for x in doc.get("rows", []) if x["kind"] == "triton" and x["launch"]]
    check(js and all(tsv.get((k, at)) == me for k, at, me in js),
          "hook: map --json model_entries of the Triton rows are the TSV's (%d %r)" % (rc, err))
    pages = os.path.join(tmp, "pages")
    rc, _, err = run([K, "render", "--all", "--db", db, "-o", pages] + roots, env=env, timeout=300)
    seen = set()
    for f in sorted(os.listdir(pages)) if rc == 0 else []:
        text = open(os.path.join(pages, f), encoding="utf-8").read()
        k = [n for n in jit if "`%s@" % n in text]
        if not k:
            continue
        i = jit[k[0]]
        seen.add(k[0])
        sec = text.split("### Python chains to the launch (static)", 1)
        chain = sec[1].split("Python chain from ", 1)[1].split("\n\n", 2)[1] \
            if len(sec) == 2 and "Python chain from " in sec[1] else ""
        cited = [tuple(x) for x in re.findall(r"`([^`]+):(\d+)`", chain)]
        want = [marks.get((kind, i)) for kind in ("OP", "CALL", "LAUNCH")]
        check(all(w and (w[0], str(w[1])) in cited for w in want) and
              cited[-1:] == [(want[2][0], str(want[2][1]))],
              "hook: %s's static chain passes through KWT:OP/CALL %s and ends at KWT:LAUNCH: %s"
              % (k[0], i, cited))
    check(rc == 0 and seen == set(jit), "hook: a page of each corpus kernel (%d %r)" % (rc, err))


if __name__ == "__main__":
    sys.exit(main())
