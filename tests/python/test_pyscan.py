#!/usr/bin/env python3
"""tests/python/test_pyscan.py: python/kwalk_pyscan.py against ground truth it
does not produce.

  scan    every .py file of ../shared/fixtures/atom-py and
          ../shared/fixtures/aiter-hip/aiter: defs, decorators, imports,
          __all__ and calls checked against Python's `ast` walked here, and
          against the source text at the reported lines; dispatch tables
          and local names bound to their entries are assignments ast finds.
  chains  copies of both fixtures with marker comments this test appends to
          the lines it finds with `ast` (the op's def, the calls of it, the
          calls of the wrapper) plus a few callers it writes (alias,
          module attribute, relative import, getattr, dispatch tables
          holding the wrapper: subscript, .get, a local name, self.table,
          a table imported; a table of builtins only): the chains reported
          from package atom to aiter's add_rmsnorm_quant must pass exactly
          through the marked lines; the getattr call must be listed as
          unresolved and be in no chain; the table calls listed under the
          op naming the wrapper, the builtins' one under no op and counted;
          the calls no op lists are the `unreached` counts; an `__all__`
          appended to the op's module must stop the star re-export of the
          ops it leaves out; a
          caller of a Triton wrapper (a def launching KERNEL[grid](...)) must
          reach it, the launches at the lines marked.

Exit 77 (ctest SKIP) where ../shared is absent.
"""

import argparse
import ast
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from kwcheck import Checker  # noqa: E402
import kwpycallers  # noqa: E402

C = Checker("test_pyscan")
check = C.check


def pyfiles(root):
    out = []
    for d, dirs, files in os.walk(root):
        dirs.sort()
        out += [os.path.join(d, f) for f in sorted(files) if f.endswith(".py")]
    return out


def run_helper(helper, args):
    p = subprocess.run([sys.executable, helper] + args, capture_output=True, text=True,
                       timeout=300)
    if p.returncode != 0:
        print("helper failed:", p.stderr.strip())
        sys.exit(1)
    return json.loads(p.stdout)


def parents(tree):
    par = {}
    for n in ast.walk(tree):
        for c in ast.iter_child_nodes(n):
            par[c] = n
    return par


def enclosing_func(par, node):
    """The function whose body holds node (decorators, defaults and
    annotations belong to the scope around the def)."""
    k, n = node, par.get(node)
    while n is not None:
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and k in n.body:
            return n
        k, n = n, par.get(n)
    return None


def check_tables(path, tree, par, g):
    """Dispatch tables and local names bound to their entries, against the
    assignments ast finds at the reported lines: a table's name is a target
    there (a name, or `self.NAME`), assigned a display or dict(...), and each
    entry reported is the text of a name or attribute inside that value;
    every assignment of a display holding a bare name to a name is reported.
    An alias is an assignment of a subscript or `.get(...)` to that name
    inside a function."""
    assigns = {}
    for n in ast.walk(tree):
        if isinstance(n, (ast.Assign, ast.AnnAssign)) and n.value is not None:
            assigns.setdefault(n.lineno, []).append(n)
    names = lambda v: {ast.unparse(x) for x in ast.walk(v)
                       if isinstance(x, (ast.Name, ast.Attribute))}
    for t in g["tables"] + g["table_items"]:
        short = t.get("name", t.get("table", "")).split(".")[-1]
        ok = False
        for n in assigns.get(t["line"], []):
            tg = n.targets if isinstance(n, ast.Assign) else [n.target]
            tg_names = {x.id if isinstance(x, ast.Name) else x.attr if isinstance(
                x, ast.Attribute) else x.value.id if isinstance(x, ast.Subscript) and isinstance(
                    x.value, ast.Name) else None for x in tg}
            ok = ok or (short in tg_names and set(t["values"]) <= names(n.value))
        check(ok and t["values"], "%s:%d: table %s and its entries as ast reads them"
              % (path, t["line"], short))
    have = {(t["line"], t["name"].split(".")[-1]) for t in g["tables"]}
    for line, ns in assigns.items():
        for n in ns:
            v = n.value
            tg = n.targets if isinstance(n, ast.Assign) else [n.target]
            display = isinstance(v, (ast.List, ast.Tuple, ast.Set, ast.Dict))
            elems = (v.values if isinstance(v, ast.Dict) else v.elts) if display else []
            if any(isinstance(e, ast.Name) for e in elems):
                for x in tg:
                    if isinstance(x, ast.Name):
                        check((line, x.id) in have, "%s:%d: table %s reported" % (path, line, x.id))
    for a in g["aliases"]:
        ok = any(isinstance(n, ast.Assign) and any(isinstance(x, ast.Name) and x.id == a["name"]
                                                   for x in n.targets)
                 and ast.unparse(n.value) == a["expr"] and enclosing_func(par, n) is not None
                 and (isinstance(n.value, ast.Subscript) or (
                     isinstance(n.value, ast.Call) and isinstance(n.value.func, ast.Attribute)
                     and n.value.func.attr == "get"))
                 for n in assigns.get(a["line"], []))
        check(ok, "%s:%d: local name %s bound to %s" % (path, a["line"], a["name"], a["expr"]))


def test_scan(helper, roots):
    files = [f for r in roots for f in pyfiles(r)]
    check(len(files) > 50, "both fixtures hold .py files (%d)" % len(files))
    got = {f["path"]: f for f in run_helper(helper, ["scan"] + files)["files"]}
    for path in files:
        text = open(path, encoding="utf-8").read()
        lines = text.splitlines()
        tree = ast.parse(text)
        par = parents(tree)
        g = got.get(path)
        check(g is not None and "error" not in g, "%s scanned" % path)
        if not g or "error" in g:
            continue
        # defs: (name, line), kind, decorator lines; the def line's text
        want = sorted((n.name, n.lineno, [d.lineno for d in n.decorator_list])
                      for n in ast.walk(tree)
                      if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)))
        have = sorted((d["name"].split(".")[-1], d["line"], [x["line"] for x in d["decorators"]])
                      for d in g["defs"])
        check(want == have, "%s: defs and decorator lines as ast sees them" % path)
        for d in g["defs"]:
            short = d["name"].split(".")[-1]
            src = lines[d["line"] - 1].lstrip()
            check(src.startswith(("def %s" % short, "async def %s" % short, "class %s" % short)),
                  "%s:%d: the source line defines %s" % (path, d["line"], short))
            for x in d["decorators"]:
                check(lines[x["line"] - 1].lstrip().startswith("@"),
                      "%s:%d: decorator line starts with @" % (path, x["line"]))
        # decorator literal args (the @compile_ops module names among them)
        for n in ast.walk(tree):
            if not isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for dec in n.decorator_list:
                if not (isinstance(dec, ast.Call) and dec.args
                        and isinstance(dec.args[0], ast.Constant)):
                    continue
                hd = [x for d in g["defs"] if d["line"] == n.lineno
                      for x in d["decorators"] if x["line"] == dec.lineno]
                check(len(hd) == 1 and hd[0]["args"][0].get("value") == dec.args[0].value,
                      "%s:%d: decorator's first literal argument" % (path, dec.lineno))
        # imports, with their level and whether inside a function
        want = sorted((n.lineno, getattr(n, "module", None) if isinstance(n, ast.ImportFrom)
                       else None, getattr(n, "level", 0) or 0,
                       [(a.name, a.asname) for a in n.names],
                       enclosing_func(par, n) is not None)
                      for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom)))
        have = sorted((i["line"], (i["from"] or None) if i["from"] is not None else None,
                       i["level"], [(a["name"], a["as"]) for a in i["names"]], i["func"] != "")
                      for i in g["imports"])
        check(want == have, "%s: imports (line, module, level, names, in a function)" % path)
        # __all__
        alls = [n for n in tree.body if isinstance(n, ast.Assign)
                and any(isinstance(t, ast.Name) and t.id == "__all__" for t in n.targets)]
        if alls:
            check(g["all"] == list(ast.literal_eval(alls[-1].value)), "%s: __all__" % path)
        else:
            check(g["all"] is None, "%s: no __all__" % path)
        check_tables(path, tree, par, g)
        # calls: position, callee text, enclosing function, number of ifs
        calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call)]
        have = {(c["line"], c["col"], c["end_line"], c["end_col"]): c for c in g["calls"]}
        check(len(have) == len(calls) == len(g["calls"]), "%s: %d calls" % (path, len(calls)))
        for n in calls:
            c = have.get((n.lineno, n.col_offset, n.end_lineno, n.end_col_offset))
            check(c is not None, "%s:%d:%d: call reported" % (path, n.lineno, n.col_offset))
            if not c:
                continue
            check(c["callee"] == ast.unparse(n.func), "%s:%d: callee text" % (path, n.lineno))
            f = enclosing_func(par, n)
            check((c["func"] != "") == (f is not None)
                  and (f is None or c["func"].split(".")[-1] == f.name),
                  "%s:%d: enclosing function" % (path, n.lineno))
            ifs, k = 0, n
            while par.get(k) is not None and par[k] is not f:
                if isinstance(par[k], ast.If) and k is not par[k].test:
                    ifs += 1
                k = par[k]
            check(len(c["conds"]) == ifs, "%s:%d: %d enclosing ifs" % (path, n.lineno, ifs))
            if isinstance(n.func, ast.Name):
                seg = lines[n.lineno - 1][n.col_offset:]
                check(seg.startswith(n.func.id), "%s:%d: source at the call names %s"
                      % (path, n.lineno, n.func.id))


MARK = "  # kwalk-test: "

EXTRA_LAYERNORM = '''

def _kwalk_test_alias(x):
    from aiter import add_rmsnorm_quant as arq
    return arq(x)  # kwalk-test: alias


import aiter as _kwalk_aiter


def _kwalk_test_attr(x):
    return _kwalk_aiter.add_rmsnorm_quant(x)  # kwalk-test: attr


def _kwalk_test_dynamic(x):
    return getattr(_kwalk_aiter, "add_rmsnorm_quant")(x)  # kwalk-test: dynamic
'''

EXTRA_DYNAMIC = '''

def _kwalk_test_dyn_module(x, name):
    return getattr(_kwalk_aiter, name)(x)  # kwalk-test: dyn-module


def _kwalk_test_dyn_attr(obj, x):
    return obj.%(w)s(x)  # kwalk-test: dyn-attr
'''

EXTRA_TABLES = '''

_KWALK_OPS = {"quant": %(w)s, "plain": print}
_KWALK_NONE = [print, len]


def _kwalk_test_table(x, k):
    return _KWALK_OPS[k](x)  # kwalk-test: table


def _kwalk_test_table_get(x, k):
    return _KWALK_OPS.get(k, print)(x)  # kwalk-test: table-get


def _kwalk_test_table_local(x, k):
    fn = _KWALK_OPS[k]
    return fn(x)  # kwalk-test: table-local


def _kwalk_test_table_none(x, k):
    return _KWALK_NONE[k](x)  # kwalk-test: table-none


class _KwalkDisp:
    def __init__(self):
        self.ops = {"quant": %(w)s}

    def run(self, k, x):
        return self.ops[k](x)  # kwalk-test: table-self
'''

EXTRA_REL = '''"""Written by tests/python/test_pyscan.py: a relative, aliased import."""
from .layernorm import _kwalk_test_alias as kw_alias
from .layernorm import _KWALK_OPS as kw_ops


def kwalk_test_rel(x):
    return kw_alias(x)  # kwalk-test: rel


def kwalk_test_rel_table(x, k):
    return kw_ops[k](x)  # kwalk-test: table-import
'''

# dispatch tables written above: the calls through the table that holds
# ATOM's wrapper, and the one through a table of builtins only
TABLE_TAGS = ("table", "table-get", "table-local", "table-self", "table-import")


def append_marks(path, marks):
    lines = open(path, encoding="utf-8").read().split("\n")
    for ln, tag in marks:
        check(not lines[ln - 1].rstrip().endswith("\\"), "%s:%d markable" % (path, ln))
        lines[ln - 1] += MARK + tag
    open(path, "w", encoding="utf-8").write("\n".join(lines))


def marked(path):
    out = {}
    for i, l in enumerate(open(path, encoding="utf-8").read().split("\n"), 1):
        if MARK.strip() in l:
            out.setdefault(l.split("kwalk-test: ")[1].strip(), set()).add(i)
    return out


def check_tagged(out, tagged, tw):
    """The table's @-rows are the JSON's ops, launches, unresolved calls and
    dropped counts; the Triton wrapper's @launch rows are at the launches ast
    found, the kernel at its def line per ast."""
    name = lambda o: "%s.%s" % (o["module"], o["function"])
    got = {k: [r for r in tagged if r[0] == k]
           for k in ("@op", "@decorator", "@caller", "@launch", "@unresolved", "@dropped",
                     "@unreached")}
    check(len(tagged) == sum(len(v) for v in got.values()), "tsv: every @-row of a known kind")
    check(sorted((r[1], r[2]) for r in got["@op"]) ==
          sorted((name(o), "%s:%d" % (o["file"], o["def_line"])) for o in out["ops"])
          and all(len(r) == 6 for r in got["@op"]), "tsv: one @op row per op")
    want = sorted((name(o), "%s.%s" % (k["module"], k["function"]), "%s:%d" % (o["file"], k["line"]))
                  for o in out["ops"] for k in o.get("launches", []))
    check(sorted((r[1], r[2], r[4]) for r in got["@launch"]) == want, "tsv: @launch rows")
    want = sorted((name(o), "%s.%s" % (u["module"], u["function"]), "%s:%d" % (u["file"], u["line"]),
                   u["callee"]) for o in out["ops"] for u in o["unresolved"])
    check(sorted(tuple(r[1:5]) for r in got["@unresolved"]) == want, "tsv: @unresolved rows")
    check(sorted((r[1], int(r[2]), r[3]) for r in got["@dropped"]) ==
          sorted((name(o), n, why) for o in out["ops"] for why, n in o["dropped"].items()),
          "tsv: @dropped rows")
    check(sorted((int(r[1]), r[2]) for r in got["@unreached"]) ==
          sorted((n, why) for why, n in out["unreached"].items())
          and all(len(r) == 3 for r in got["@unreached"]), "tsv: @unreached rows")
    if not tw:
        return
    p, fn, launches = tw
    mt = ast.parse(open(p, encoding="utf-8").read())
    jit = {n.name: n.lineno for n in mt.body if isinstance(n, ast.FunctionDef)}
    mine = [r for r in got["@launch"] if r[1].endswith("." + fn) and r[4].startswith(p + ":")]
    check(sorted((int(r[4].rsplit(":", 1)[1]), r[2].split(".")[-1]) for r in mine)
          == sorted(launches), "tsv: %s's @launch rows at the launches ast finds" % fn)
    check(mine and all(r[3] == "%s:%d" % (p, jit.get(r[2].split(".")[-1], -1)) for r in mine),
          "tsv: the kernels' def lines per ast")
    conds = [r[5].split("\x1f") for r in got["@launch"]]
    check(all(c[0].isdigit() and len(c) == int(c[0]) + 1 for c in conds),
          "tsv: @launch CONDS is a count and that many tests")


def check_entries(out, tagged, lib_root):
    """The @decorator and @caller rows, which kwalk reads for the Python
    entry column and the public callers: per op of a decorator one
    @decorator row with its def's name, the decorator's line and arguments
    as ast finds them at the op's def; the @caller rows of every op of the
    library's package are the public callers tests/lib/kwpycallers.py finds
    with ast (directly, or through private functions: via), each CALL_LINE
    a line of that file where ast finds a call inside the caller's def."""
    name = lambda o: "%s.%s" % (o["module"], o["function"])  # noqa: E731
    ops = {name(o): o for o in out["ops"] if o["kind"] != "triton"}
    decs = [r for r in tagged if r[0] == "@decorator"]
    check(sorted(r[1] for r in decs) == sorted(ops) and all(len(r) == 7 for r in decs),
          "tsv: one @decorator row of 7 fields per op of a decorator (%d)" % len(decs))
    trees, calls = {}, {}

    def tree(path):
        if path not in trees:
            trees[path] = ast.parse(open(path, encoding="utf-8").read())
            calls[path] = {n.lineno for n in ast.walk(trees[path]) if isinstance(n, ast.Call)}
        return trees[path]

    lit = lambda a: "'" + a.value if isinstance(a, ast.Constant) and isinstance(a.value, str) \
        else "?"  # noqa: E731
    for r in decs:
        o = ops.get(r[1])
        if not o:
            continue
        d = [n for n in ast.walk(tree(o["file"])) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
             and n.lineno == o["def_line"] and n.name == r[2]]
        dec = [x for x in (d[0].decorator_list if d else [])
               if ast.unparse(x.func if isinstance(x, ast.Call) else x).split(".")[-1] == "compile_ops"]
        check(dec and dec[0].lineno == int(r[3]), "@decorator %s: def %s, decorator at line %s (ast: %s)"
              % (r[1], r[2], r[3], dec and dec[0].lineno))
        if not dec:
            continue
        call = dec[0] if isinstance(dec[0], ast.Call) else None
        pos = [lit(a) for a in call.args] if call else []
        kws = [k.arg + lit(k.value) for k in call.keywords if k.arg] if call else []
        check(r[5] == ("\x1f".join(pos) or "-") and r[6] == ("\x1f".join(kws) or "-"),
              "@decorator %s: arguments %r %r, ast: %r %r" % (r[1], r[5], r[6], pos, kws))
    pkg = kwpycallers.scan(os.path.join(lib_root, "aiter"))
    got = {}
    for r in tagged:
        if r[0] == "@caller" and len(r) == 7:
            f, dl = r[4].rsplit(":", 1)
            got.setdefault(r[1], set()).add((r[3], f, int(dl), None if r[6] == "-" else r[6]))
            fn = [n for n in ast.walk(tree(f)) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
                  and n.lineno == int(dl)]
            cl = int(r[5])
            check(fn and fn[0].lineno <= cl <= fn[0].end_lineno and cl in calls[f],
                  "@caller %s of %s: call line %d is a call inside its def (ast)" % (r[3], r[1], cl))
    n = 0
    for (path, fn), line in sorted(pkg.ops.items()):
        o = [k for k, v in ops.items() if v["file"] == path and v["function"].split(".")[-1] == fn]
        if not check(len(o) == 1, "the op %s of %s (ast) has one @op row" % (fn, path)):
            continue
        want = set(pkg.callers(path, fn))
        n += len(want)
        check(got.get(o[0], set()) == want, "@caller rows of %s: %s, ast: %s"
              % (o[0], sorted(got.get(o[0], set()), key=str), sorted(want, key=str)))
    check(n >= 100, "public callers compared: %d (the aiter fixture has 176)" % n)


def check_unresolved(out, op, roots, ln_path, wrapper, rel):
    """The calls not resolved statically that could lead to the op: the
    marked getattr calls, the attribute call named like ATOM's wrapper and
    the calls through the dispatch tables holding the wrapper are listed with
    the function they may name; the call through a table of builtins is
    listed for no op and counted; every listed call is, per ast, a call at
    that line whose attribute (or getattr's constant, or an entry of a
    table display of the trees) names a def of the trees; no attribute call
    of ATOM whose name is no def of the trees (tensor methods) is listed for
    any op; the listed and dropped calls of each op add up to every
    unresolved call of the package, and the calls no op lists are the
    `unreached` counts."""
    lm = marked(ln_path)
    opname = "%s.%s" % (op["module"], op["function"])
    wq = "atom.model_ops.layernorm." + wrapper
    listed = {(u["file"], u["line"]): u for u in op["unresolved"]}
    tagged = [("dynamic", ln_path, opname), ("dyn-module", ln_path, opname),
              ("dyn-attr", ln_path, wq)]
    tagged += [(t, rel if t == "table-import" else ln_path, wq) for t in TABLE_TAGS]
    for tag, path, want in tagged:
        at = marked(path).get(tag, ())
        check(at, "%s: a call marked %s" % (path, tag))
        for x in at:
            u = listed.get((path, x))
            check(u and want in u["names"], "%s call at line %d listed for the op, naming %s"
                  % (tag, x, want))
            check(not tag.startswith("table") or (u and u["why"].startswith(
                "dispatch table atom.model_ops.layernorm.")),
                  "%s call at line %d: why names its table: %s" % (tag, x, u and u["why"]))
    for x in lm.get("table-none", ()):
        check(not any(u["file"] == ln_path and u["line"] == x
                      for o in out["ops"] for u in o["unresolved"]),
              "the call through a table of builtins (line %d) is listed for no op" % x)
    check(op["dropped"].get("through a dispatch table none of whose entries reaches the op", 0)
          >= 1, "the op's dropped calls count the call through a table of builtins")
    defs, trees = set(), {}
    for r in roots:
        for p in pyfiles(r):
            try:
                t = ast.parse(open(p, encoding="utf-8").read())
            except SyntaxError:
                continue
            trees[p] = t
            defs |= {n.name for n in ast.walk(t)
                     if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}
    # the names among the entries of list, tuple, set and dict displays
    table_names = {ast.unparse(x).split(".")[-1] for t in trees.values() for n in ast.walk(t)
                   if isinstance(n, (ast.Dict, ast.List, ast.Tuple, ast.Set))
                   for x in (n.values if isinstance(n, ast.Dict) else n.elts)
                   if isinstance(x, (ast.Name, ast.Attribute))}
    for o in out["ops"]:
        for u in o["unresolved"]:
            calls = [n for n in ast.walk(trees.get(u["file"], ast.Module(body=[])))
                     if isinstance(n, ast.Call) and n.lineno == u["line"]
                     and ast.unparse(n.func) == u["callee"]]
            check(calls, "%s:%d: a call of %s per ast" % (u["file"], u["line"], u["callee"]))
            for c in calls[:1]:
                f = c.func
                if u["why"].startswith("dispatch table "):
                    ok = all(x.split(".")[-1] in defs and x.split(".")[-1] in table_names
                             for x in u["names"]) and isinstance(f, (ast.Subscript, ast.Call,
                                                                      ast.Name))
                elif isinstance(f, ast.Attribute):
                    ok = f.attr in defs and all(x.split(".")[-1] == f.attr for x in u["names"])
                elif isinstance(f, ast.Call) and len(f.args) > 1 and \
                        isinstance(f.args[1], ast.Constant):
                    ok = f.args[1].value in defs and all(
                        x.split(".")[-1] == f.args[1].value for x in u["names"])
                else:
                    ok = ast.unparse(f).startswith("getattr(")
                check(ok, "%s:%d: the name of %s is a def of the trees" %
                      (u["file"], u["line"], u["callee"]))
        total = len(o["unresolved"]) + sum(o["dropped"].values())
        check(total == len(out["unresolved"]), "%s: %d listed + dropped = %d unresolved"
              % (o["function"], total, len(out["unresolved"])))
    key = lambda u: (u["file"], u["line"], u["function"], u["callee"])
    anywhere = {key(u) for o in out["ops"] for u in o["unresolved"]}
    rest = sum(1 for u in out["unresolved"] if key(u) not in anywhere)
    check(sum(out["unreached"].values()) == rest and rest > 0,
          "unreached: %d counted, %d unresolved calls no op lists"
          % (sum(out["unreached"].values()), rest))
    check(not any(r.endswith(" the op") for r in out["unreached"]),
          "unreached: reasons about no op in particular: %s" % sorted(out["unreached"]))
    atom_files = [p for p in trees if os.sep + "atom" + os.sep in p]
    tensorish = {(p, n.lineno, ast.unparse(n.func)) for p in atom_files
                 for n in ast.walk(trees[p]) if isinstance(n, ast.Call)
                 and isinstance(n.func, ast.Attribute) and n.func.attr not in defs}
    check(tensorish, "ATOM calls methods that are no def of the trees")
    shown = {(u["file"], u["line"], u["callee"]) for o in out["ops"] for u in o["unresolved"]}
    bad = tensorish & shown
    check(not bad, "no call of a method that is no def of the trees listed: %s" % sorted(bad))
    check(op["dropped"].get(
        "naming, as an attribute or through getattr, no function that reaches the op", 0) > 0,
        "the op's dropped calls count the attribute calls naming nothing that reaches it")


def test_bad_inputs(helper, tmp):
    """Files Python cannot parse: each listed with an error, the others read,
    exit 0; bad usage: one line on stderr, exit 2."""
    bad = {"syntax.py": "def f(:\n", "binary.py": "\x00\x01", "deep.py":
           "x = 1" + " + 1" * 200000 + "\n", "ok.py": "def g():\n    h()\n"}
    paths = []
    for name, text in bad.items():
        paths.append(os.path.join(tmp, name))
        open(paths[-1], "w", encoding="utf-8").write(text)
    got = {os.path.basename(f["path"]): f for f in run_helper(helper, ["scan"] + paths)["files"]}
    for name in ("syntax.py", "binary.py", "deep.py"):
        check("error" in got.get(name, {}), "%s reported with an error" % name)
    check(got.get("ok.py", {}).get("calls", [{}])[0].get("callee") == "h",
          "the good file beside them is read")
    for args in (["bogus"], ["chains"], ["chains", "--root", os.path.join(tmp, "nope")],
                 ["chains", "--root", tmp, "--format", "xml"]):
        p = subprocess.run([sys.executable, helper] + args, capture_output=True, text=True,
                           timeout=60)
        check(p.returncode == 2 and len(p.stderr.strip().splitlines()) == 1 and not p.stdout,
              "usage error %s: one line, exit 2" % args)


def test_chains(helper, atom, aiter_root, tmp):
    a = os.path.join(tmp, "atom-py")
    b = os.path.join(tmp, "aiter")
    keep_py = shutil.ignore_patterns("csrc", "hsa", "*.so", "*.hip", "*.cu", "*.h", "*.cpp")
    shutil.copytree(atom, a)
    shutil.copytree(aiter_root, b, ignore=keep_py)
    # the op, found with ast: add_rmsnorm_quant decorated with compile_ops
    op_file, op_line, op_module = None, None, None
    for p in pyfiles(os.path.join(b, "aiter", "ops")):
        for n in ast.walk(ast.parse(open(p, encoding="utf-8").read())):
            if isinstance(n, ast.FunctionDef) and n.name == "add_rmsnorm_quant":
                for d in n.decorator_list:
                    f = d.func if isinstance(d, ast.Call) else d
                    if ast.unparse(f).split(".")[-1] == "compile_ops":
                        op_file, op_line = p, n.lineno
                        op_module = d.args[0].value
    check(op_file is not None, "aiter fixture defines @compile_ops add_rmsnorm_quant")
    if not op_file:
        return
    append_marks(op_file, [(op_line, "op")])
    # in layernorm.py: the functions importing add_rmsnorm_quant from aiter
    # inside themselves, their calls of it, and the calls of those functions
    # a Triton wrapper, found with ast: a def of aiter/ops whose body calls
    # KERNEL[grid](...) with KERNEL a @triton.jit def of the same file
    tw = None
    for p in pyfiles(os.path.join(b, "aiter", "ops")):
        mt = ast.parse(open(p, encoding="utf-8").read())
        jit = {n.name for n in mt.body if isinstance(n, ast.FunctionDef)
               and any(ast.unparse(d) == "triton.jit" for d in n.decorator_list)}
        for f in mt.body:
            if not isinstance(f, ast.FunctionDef):
                continue
            ls = [(n.lineno, n.func.value.id) for n in ast.walk(f) if isinstance(n, ast.Call)
                  and isinstance(n.func, ast.Subscript) and isinstance(n.func.value, ast.Name)
                  and n.func.value.id in jit]
            if ls and not tw:
                tw = (p, f.name, ls)
    check(tw is not None, "aiter fixture has a Triton wrapper")
    if tw:
        append_marks(tw[0], [(x, "launch") for x, _ in tw[2]])
    ln_path = os.path.join(a, "atom", "model_ops", "layernorm.py")
    tree = ast.parse(open(ln_path, encoding="utf-8").read())
    wrappers, op_calls = set(), []
    for f in ast.walk(tree):
        if not isinstance(f, ast.FunctionDef):
            continue
        imps = [n for n in ast.walk(f) if isinstance(n, ast.ImportFrom) and n.module == "aiter"
                and any(x.name == "add_rmsnorm_quant" and x.asname is None for x in n.names)]
        if imps:
            wrappers.add(f.name)
            op_calls += [n.lineno for n in ast.walk(f) if isinstance(n, ast.Call)
                         and isinstance(n.func, ast.Name) and n.func.id == "add_rmsnorm_quant"]
    check(len(wrappers) == 1 and op_calls, "layernorm.py imports add_rmsnorm_quant in a function")
    wrap_calls = [n.lineno for n in ast.walk(tree) if isinstance(n, ast.Call)
                  and isinstance(n.func, ast.Name) and n.func.id in wrappers]
    check(wrap_calls, "layernorm.py calls %s" % wrappers)
    append_marks(ln_path, [(x, "call-op") for x in op_calls] + [(x, "call-wrapper")
                                                               for x in wrap_calls])
    with open(ln_path, "a", encoding="utf-8") as f:
        f.write(EXTRA_LAYERNORM)
        f.write(EXTRA_DYNAMIC % {"w": sorted(wrappers)[0]})
        f.write(EXTRA_TABLES % {"w": sorted(wrappers)[0]})
        if tw:
            mod = os.path.relpath(tw[0], b)[:-3].replace(os.sep, ".")
            f.write("\n\ndef _kwalk_test_triton(*a):\n    from %s import %s\n"
                    "    return %s(*a)  # kwalk-test: triton-call\n" % (mod, tw[1], tw[1]))
    rel = os.path.join(a, "atom", "model_ops", "_kwalk_rel.py")
    open(rel, "w", encoding="utf-8").write(EXTRA_REL)
    for p in (op_file, ln_path, rel):
        ast.parse(open(p, encoding="utf-8").read())  # the marks left it valid Python

    out = run_helper(helper, ["chains", "--root", a, "--root", b, "--from", "atom"])
    if tw:
        t = [o for o in out["ops"] if o["kind"] == "triton" and o["file"] == tw[0]
             and o["function"] == tw[1]]
        check(len(t) == 1, "Triton wrapper %s is an op" % tw[1])
        if t:
            check(sorted((k["line"], k["function"]) for k in t[0]["launches"])
                  == sorted(tw[2]) and {k["line"] for k in t[0]["launches"]}
                  == marked(tw[0]).get("launch"), "Triton launches at the marked lines")
            check(any(c["entry"].endswith("._kwalk_test_triton") and c["frames"][-1]["call_line"]
                      in marked(ln_path).get("triton-call", ()) for c in t[0]["chains"]),
                  "chain from the model to the Triton wrapper")
    ops = [o for o in out["ops"] if o["function"] == "add_rmsnorm_quant"]
    check(len(ops) == 1, "one add_rmsnorm_quant op")
    if not ops:
        return
    op = ops[0]
    check(op["file"] == op_file and op["def_line"] in marked(op_file).get("op", ()),
          "op's def line is the marked one")
    check(op["decorator"]["args"][0].get("value") == op_module,
          "op's module %s as ast reads it" % op_module)
    lm = marked(ln_path)
    rm = marked(rel)
    direct = {(c["frames"][-1]["file"], c["frames"][-1]["call_line"]) for c in op["chains"]}
    want = {(ln_path, x) for t in ("call-op", "alias", "attr") for x in lm.get(t, ())}
    check(direct == want, "the calls of the op are the marked ones: got %s want %s"
          % (sorted(direct), sorted(want)))
    frames = [(f["file"], f["call_line"]) for c in op["chains"] for f in c["frames"]]
    for x in lm.get("call-wrapper", ()):
        check((ln_path, x) in frames, "wrapper call at marked line %d is a frame" % x)
    for x in rm.get("rel", ()):
        check((rel, x) in frames, "relative-import call at marked line %d is a frame" % x)
    for x in lm.get("dynamic", ()):
        check((ln_path, x) not in frames, "getattr call at line %d is in no chain" % x)
        check(any(u["file"] == ln_path and u["line"] == x and "getattr" in u["why"]
                  for u in out["unresolved"]), "getattr call at line %d listed unresolved" % x)
    # every chain's frames link: each frame's call resolves to the next one's
    # function, the last one's to the op; shortest first among outermost
    for c in op["chains"]:
        fr = c["frames"]
        alias = {"kw_alias": "_kwalk_test_alias", "arq": "add_rmsnorm_quant"}
        name = [alias.get(f["callee"], f["callee"]).split(".")[-1] for f in fr]
        ok = len(fr) == c["length"] and all(
            name[i] == fr[i + 1]["function"].split(".")[-1]
            for i in range(len(fr) - 1)) and name[-1] == "add_rmsnorm_quant"
        check(ok, "chain from %s links call to def" % c["entry"])
    outer = [c for c in op["chains"] if c["outermost"]]
    check([c["length"] for c in outer] == sorted(c["length"] for c in outer),
          "outermost chains shortest first")
    outer_fns = {c["entry"].split(".")[-1] for c in outer}
    # the functions that hold the marked wrapper calls, found with ast
    holders = set()
    for f in ast.walk(tree):
        if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if any(f.lineno <= x <= f.end_lineno for x in lm.get("call-wrapper", ())):
                holders.add(f.name)
    check(holders and holders <= outer_fns, "outermost callers %s include %s"
          % (sorted(outer_fns), sorted(holders)))
    check("kwalk_test_rel" in outer_fns, "relative-import caller is outermost")
    check(not any(w in outer_fns for w in wrappers), "the wrapper itself is not outermost")
    # the if conditions of the op calls: the tests of the ifs around them
    for c in op["chains"]:
        f = c["frames"][-1]
        if f["call_line"] in lm.get("call-op", ()):
            want = []
            for n in ast.walk(tree):
                if isinstance(n, ast.If):
                    t = ast.unparse(n.test)
                    if any(s.lineno <= f["call_line"] <= s.end_lineno for s in n.body):
                        want.append((n.lineno, t))
                    elif any(s.lineno <= f["call_line"] <= s.end_lineno for s in n.orelse):
                        want.append((n.lineno, "not (%s)" % t))
            check(f["conds"] == [t for _, t in sorted(want)],
                  "conditions of the call at line %d" % f["call_line"])
    # the model-entry table (--format tsv): the outermost entries of
    # add_rmsnorm_quant start at the marked calls of the wrapper, the module
    # attribute call and the relative-import caller, shortest first
    p = subprocess.run([sys.executable, helper, "chains", "--root", a, "--root", b, "--from",
                        "atom", "--format", "tsv"], capture_output=True, text=True, timeout=300)
    tagged = [l.split("\t") for l in p.stdout.splitlines() if l.startswith("@")]
    rows = [l.split("\t") for l in p.stdout.splitlines() if not l.startswith("@")]
    check(p.returncode == 0 and rows and all(len(r) == 10 for r in rows), "tsv: 10 fields a row")
    check_tagged(out, tagged, tw)
    check_entries(out, tagged, b)
    check_unresolved(out, op, [a, b], ln_path, sorted(wrappers)[0], rel)
    mine = [r for r in rows if r[0].endswith(".add_rmsnorm_quant")]
    # FRAMES (field 10): the chain's calls, entry first, as the JSON checked
    # above has them; the last one a marked call of the op
    by_entry = {c["entry"]: c for c in op["chains"]}
    op_calls = {"%s:%d" % (ln_path, x) for t in ("call-op", "alias", "attr")
                for x in lm.get(t, ())}
    for r in mine:
        fr, tok = [], r[9].split("\x1f") if len(r) == 10 else []
        while len(tok) >= 4 and tok[3].isdigit() and len(tok) >= 4 + int(tok[3]):
            n = int(tok[3])
            fr.append(tok[:3] + tok[4:4 + n])
            tok = tok[4 + n:]
        check(not tok, "tsv: FRAMES of %s read to its end" % r[4])
        c = by_entry.get(r[4])
        check(c and len(fr) == int(r[7]) == len(c["frames"]) and fr[0][1] == r[5] and
              [(x[0], x[1], x[2], x[3:]) for x in fr] ==
              [("%s.%s" % (f["module"], f["function"]), "%s:%d" % (f["file"], f["call_line"]),
                f["callee"], f["conds"]) for f in c["frames"]],
              "tsv: the frames of the chain from %s" % r[4])
        check(fr and fr[-1][1] in op_calls, "tsv: the chain from %s ends at a marked call of "
              "the op" % r[4])
    check(all(r[1] == "%s:%d" % (op_file, op_line) and r[2] == op_module
              and r[3] == "add_rmsnorm_quant" for r in mine),
          "tsv: the op's def line and module %s as ast reads them" % op_module)
    outer_at = {r[5] for r in mine if r[6] == "yes"}
    want = {"%s:%d" % (ln_path, x) for t in ("call-wrapper", "attr") for x in lm.get(t, ())}
    want |= {"%s:%d" % (rel, x) for x in rm.get("rel", ())}
    check(outer_at == want, "tsv: outermost entries at the marked lines: got %s want %s"
          % (sorted(outer_at), sorted(want)))
    lens = [int(r[7]) for r in mine if r[6] == "yes"]
    check(lens == sorted(lens) and [r[6] for r in mine] == sorted(r[6] for r in mine)[::-1],
          "tsv: outermost first, shortest first")
    # __all__ limits a star import: with rmsnorm.py's __all__ naming only
    # add_rmsnorm_quant, aiter's `from .ops.rmsnorm import *` no longer
    # exports rmsnorm_quant, so atom's `from aiter import rmsnorm_quant`
    # reaches no op while add_rmsnorm_quant still does
    with open(op_file, "a", encoding="utf-8") as f:
        f.write('\n__all__ = ["add_rmsnorm_quant"]\n')
    out = run_helper(helper, ["chains", "--root", a, "--root", b, "--from", "atom"])
    by = {o["function"]: o for o in out["ops"] if o["file"] == op_file}
    check(by.get("add_rmsnorm_quant", {}).get("chains"), "__all__: add_rmsnorm_quant reached")
    check("rmsnorm_quant" in by and not any(
        c["frames"][-1]["file"] == ln_path for c in by["rmsnorm_quant"]["chains"]),
          "__all__: rmsnorm_quant not exported, so layernorm.py's import of it reaches no op")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--helper", required=True)
    ap.add_argument("--shared", required=True)
    ap.add_argument("--what", choices=("scan", "chains"), required=True)
    o = ap.parse_args()
    atom = os.path.join(o.shared, "fixtures", "atom-py")
    aiter_root = os.path.join(o.shared, "fixtures", "aiter-hip", "aiter")
    if not (os.path.isdir(atom) and os.path.isdir(os.path.join(aiter_root, "aiter"))):
        C.skip("%s/fixtures/{atom-py,aiter-hip/aiter} absent" % o.shared)
    if o.what == "scan":
        test_scan(o.helper, [atom, aiter_root])
        with tempfile.TemporaryDirectory(prefix="kwalk-pyscan-") as tmp:
            test_bad_inputs(o.helper, tmp)
    else:
        with tempfile.TemporaryDirectory(prefix="kwalk-pychain-") as tmp:
            test_chains(o.helper, atom, aiter_root, tmp)
    C.finish()


if __name__ == "__main__":
    sys.exit(main())
