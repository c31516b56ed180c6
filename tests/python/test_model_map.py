#!/usr/bin/env python3
"""tests/python/test_model_map.py: `kwalk map` and `kwalk render` with two
--python-root trees (a copy of ../shared/fixtures/atom-py and of
aiter-hip/aiter), which run python/kwalk_pyscan.py and join its chains to the
C++ entry point of aiter's add_rmsnorm_quant op.

No plugin build: the index is made by `kwalk index` from a sidecar this test
writes, whose kernel, launch and pybind entry sit at the lines of the aiter
fixture's C++ sources found here with regular expressions. The Python side is
checked against marker comments this test appends to the lines it finds with
Python's `ast` (the op's def, the calls of the op in ATOM's wrapper, the calls
of the wrapper) and against the `if` tests around those calls, unparsed here:

  map     the Model entry column (TSV field 12, Markdown column 4) names the
          functions holding the calls of the wrapper, at those marked lines,
          and not the wrapper (it has a caller); every place it lists is a
          call per ast; one --python-root keeps the 11 fields of today;
          after the table, the getattr call and the call through a dispatch
          table holding the wrapper this test writes into ATOM's copy are
          listed under the op at their marked lines, the other unresolved
          calls counted once, by reason, never "1 calls"; the same as TSV
          @unresolved/@left-out rows after the rows and as map --json's
          unresolved keys, listed plus left out being every unresolved call
          the helper finds;
  render  section 1 shows the chain: the call of the wrapper, the call of the
          op with its `if` tests, the op's def line and its bound module;
          then the getattr and table calls and the count of the others;
  nopy    without python3 (empty PATH): one `kwalk: note:` line, the table
          without the column;
  one     one --python-root (aiter's package folder): the op's Python entry
          at its def line per ast and its public callers those
          tests/lib/kwpycallers.py finds with ast, eleven fields; without
          python3 one note line and no Python entry; a root not there: a
          one-line error;
  bad     a helper (KWALK_PYTHON) that writes damaged rows (from a real row:
          a field short, a bad line number, a frame missing, a bad test
          count, a NUL byte; an @op twice, an unknown @-row, an @launch of an
          op not declared or with too few tests, an @unresolved a field
          short, an @dropped of 0) or fails, or a KWALK_PYTHON not there:
          one-line error, exit 1, nothing on stdout; the real row itself is
          read.

Exit 77 (ctest SKIP) where ../shared is absent.
"""

import argparse
import ast
import json
import os
import re
import shutil
import subprocess
import sys
import time
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from kwcheck import Checker  # noqa: E402
from kwrun import run  # noqa: E402
from kwmd import md_plain  # noqa: E402
import kwcmark  # noqa: E402
import kwpycallers  # noqa: E402

C = Checker("python.model_map")
check = C.check
MARK = "  # kwalk-test: "


def grep(path, pattern):
    with open(path, encoding="utf-8", errors="replace") as f:
        return [i for i, l in enumerate(f.read().split("\n"), 1) if re.search(pattern, l)]


def parents(tree):
    par = {}
    for n in ast.walk(tree):
        for c in ast.iter_child_nodes(n):
            par[c] = n
    return par


def func_of(par, node):
    """The function holding node and its qualified name (Class.method)."""
    n = par.get(node)
    while n is not None and not isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)):
        n = par.get(n)
    if n is None:
        return None, None
    names, c = [n.name], par.get(n)
    while c is not None:
        if isinstance(c, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            names.insert(0, c.name)
        c = par.get(c)
    return n, ".".join(names)


def conds_of(par, node, func):
    """The `if` tests around node inside func, outermost first; an else
    branch as `not (TEST)`."""
    out, k, n = [], node, par.get(node)
    while n is not None and n is not func:
        if isinstance(n, ast.If):
            t = ast.unparse(n.test)
            if k in n.body:
                out.insert(0, t)
            elif k in n.orelse:
                out.insert(0, "not (%s)" % t)
        k, n = n, par.get(n)
    return out


def mark(path, marks):
    lines = open(path, encoding="utf-8").read().split("\n")
    for ln, tag in marks:
        check(not lines[ln - 1].rstrip().endswith("\\"), "%s:%d markable" % (path, ln))
        lines[ln - 1] += MARK + tag
    open(path, "w", encoding="utf-8").write("\n".join(lines))


def marked(path, tag):
    return {i for i, l in enumerate(open(path, encoding="utf-8").read().split("\n"), 1)
            if l.endswith(MARK + tag)}


def call_lines(path):
    tree = ast.parse(open(path, encoding="utf-8").read())
    return {n.lineno for n in ast.walk(tree) if isinstance(n, ast.Call)}


SIDECAR = """kwalk_schema: 1
producer: {name: kwalk, version: "0.1.0", clang_version: "22.1.8"}
translation_unit: {source: %(cu)s, object: rmsnorm_quant.o, cuid: feed, offload_archs: [gfx942]}
kernels:
- symbol: _Z24add_rmsnorm_quant_kernelIfEvv
  name: add_rmsnorm_quant_kernel<float>
  template: add_rmsnorm_quant_kernel
  location: {file: %(cu)s, line: %(kline)d, column: 1}
  archs:
    gfx942: {}
launches:
- kernel: _Z24add_rmsnorm_quant_kernelIfEvv
  kernel_name: add_rmsnorm_quant_kernel<float>
  kind: triple_chevron
  location: {file: %(cu)s, line: %(lline)d, column: 5}
  function: aiter::add_rmsnorm_quant
  function_symbol: _ZN5aiter17add_rmsnorm_quantEv
entries:
- name: %(fn)s
  kind: pybind
  function: aiter::add_rmsnorm_quant
  function_symbol: _ZN5aiter17add_rmsnorm_quantEv
  module: %(module)s
  location: {file: %(hpp)s, line: %(dline)d, column: 5}
...
"""


DYNAMIC_CALL = '''

def _kwalk_test_dynamic(x):
    import aiter as _kwalk_a
    return getattr(_kwalk_a, "add_rmsnorm_quant")(x)  # kwalk-test: dynamic


_KWALK_TABLE = {"quant": %(w)s, "plain": print}


def _kwalk_test_table(x, k):
    return _KWALK_TABLE[k](x)  # kwalk-test: table
'''


def callee_at(path, line):
    """The callee texts of the calls at path:line, per ast."""
    tree = ast.parse(open(path, encoding="utf-8").read())
    return {ast.unparse(n.func) for n in ast.walk(tree) if isinstance(n, ast.Call)
            and n.lineno == line}


def helper_unresolved(a, b):
    """The helper's own JSON: every unresolved call of the trees."""
    helper = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__)))), "python", "kwalk_pyscan.py")
    p = subprocess.run([sys.executable, helper, "chains", "--root", a, "--root", b],
                       capture_output=True, text=True, timeout=300)
    return json.loads(p.stdout)["unresolved"] if p.returncode == 0 else None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kwalk", required=True)
    ap.add_argument("--shared", required=True)
    args = ap.parse_args()
    fx = os.path.join(args.shared, "fixtures")
    atom, aiter_root = os.path.join(fx, "atom-py"), os.path.join(fx, "aiter-hip", "aiter")
    if not (os.path.isdir(atom) and os.path.isdir(os.path.join(aiter_root, "aiter"))):
        C.skip("../shared/fixtures/atom-py or aiter-hip/aiter absent")
    tmp = tempfile.mkdtemp(prefix="kwalk-model-map-")
    try:
        test(args, atom, aiter_root, tmp)
    finally:
        if not os.environ.get("KWALK_TEST_KEEP"):
            shutil.rmtree(tmp, ignore_errors=True)
    C.finish()


def test(args, atom, aiter_root, tmp):
    K = args.kwalk
    a, b = os.path.join(tmp, "atom-py"), os.path.join(tmp, "aiter")
    shutil.copytree(atom, a)
    shutil.copytree(aiter_root, b, ignore=shutil.ignore_patterns(
        "csrc", "hsa", "*.so", "*.hip", "*.cu", "*.h", "*.cpp"))
    env = dict(os.environ, KWALK_PYTHON=sys.executable)
    env.pop("KWALK_ANNOTATIONS", None)

    # the op, with ast: add_rmsnorm_quant decorated @compile_ops("MODULE"...)
    op = None
    for d, _, files in os.walk(os.path.join(b, "aiter", "ops")):
        for f in sorted(files):
            p = os.path.join(d, f)
            if not f.endswith(".py"):
                continue
            for n in ast.walk(ast.parse(open(p, encoding="utf-8").read())):
                if isinstance(n, ast.FunctionDef) and n.name == "add_rmsnorm_quant":
                    for dec in n.decorator_list:
                        if isinstance(dec, ast.Call) and \
                                ast.unparse(dec.func).split(".")[-1] == "compile_ops":
                            fn = [k.value.value for k in dec.keywords if k.arg == "fc_name"]
                            op = (p, n.lineno, dec.args[0].value, fn[0] if fn else n.name)
    if not check(op, "aiter fixture defines @compile_ops add_rmsnorm_quant"):
        return
    op_file, op_line, op_module, op_fn = op
    mark(op_file, [(op_line, "op")])

    # ATOM's wrapper importing the op inside itself, its calls of the op, and
    # the calls of the wrapper, with ast
    ln = os.path.join(a, "atom", "model_ops", "layernorm.py")
    tree = ast.parse(open(ln, encoding="utf-8").read())
    par = parents(tree)
    wrapper, op_calls = None, []
    for f in ast.walk(tree):
        if isinstance(f, ast.FunctionDef) and any(
                isinstance(n, ast.ImportFrom) and n.module == "aiter" and
                any(x.name == "add_rmsnorm_quant" and not x.asname for x in n.names)
                for n in ast.walk(f)):
            wrapper = f.name
            op_calls = [n for n in ast.walk(f) if isinstance(n, ast.Call) and
                        isinstance(n.func, ast.Name) and n.func.id == "add_rmsnorm_quant"]
    if not check(wrapper and len(op_calls) == 1, "layernorm.py: one function imports and "
                 "calls add_rmsnorm_quant"):
        return
    wfunc, wqual = func_of(par, op_calls[0])
    op_conds = conds_of(par, op_calls[0], wfunc)
    wcalls = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and
              isinstance(n.func, ast.Name) and n.func.id == wrapper]
    callers = {}  # qualified caller -> (call line, conds)
    for n in wcalls:
        cf, q = func_of(par, n)
        if cf is not None and q != wqual:
            callers.setdefault(q, (n.lineno, conds_of(par, n, cf)))
    if not check(callers, "layernorm.py calls %s from another function" % wrapper):
        return
    mark(ln, [(op_calls[0].lineno, "call-op")] + [(n.lineno, "call-wrapper") for n in wcalls])
    with open(ln, "a", encoding="utf-8") as f:  # a call not resolved statically
        f.write(DYNAMIC_CALL % {"w": wrapper})
    ast.parse(open(ln, encoding="utf-8").read())  # the marks left it valid Python
    mod = "atom.model_ops.layernorm"
    rel_ln = os.path.relpath(ln, tmp)

    # the C++ side, with regular expressions on the fixture's sources
    cu = os.path.join(aiter_root, "csrc", "kernels", "rmsnorm_quant_kernels.cu")
    hpp = os.path.join(aiter_root, "csrc", "include", "rocm_ops.hpp")
    kline = grep(cu, r"^\s*(__global__\s+void\s+)?add_rmsnorm_quant_kernel\s*\(")
    lline = grep(cu, r"add_rmsnorm_quant_kernel<.*<<<")
    dline = grep(hpp, r'm\.def\("%s"' % op_fn)
    if not check(kline and lline and dline, "C++ lines of the fixture: %s %s %s"
                 % (kline, lline, dline)):
        return
    side = os.path.join(tmp, "side")
    os.makedirs(side)
    with open(os.path.join(side, "rmsnorm_quant.kwalk.yaml"), "w") as f:
        f.write(SIDECAR % dict(cu=cu, hpp=hpp, kline=kline[0], lline=lline[0],
                               dline=dline[0], fn=op_fn, module=op_module))
    db = os.path.join(tmp, "ix.db")
    rc, _, err = run([K, "index", side, "-o", db], env=env, timeout=300)
    if not check(rc == 0, "kwalk index: %s" % err):
        return

    roots = ["--python-root", a, "--python-root", b]
    test_map(K, db, roots, env, tmp, mod, wqual, callers, rel_ln, ln, a, b)
    test_crossing(K, db, roots, env, tmp, mod, wqual, rel_ln, ln)
    test_render(K, db, roots, env, tmp, mod, wrapper, wqual, callers, op_conds, rel_ln, ln,
                op_file, op_line, op_module, op_fn)
    test_nopy(K, db, roots, env, tmp)
    test_one(K, db, env, tmp, b, op_file, op_line)
    test_bad(K, db, roots, env, tmp, a, b)


def test_one(K, db, env, tmp, b, op_file, op_line):
    pkg = os.path.join(b, "aiter")
    want = sorted("%s %s:%d" % (n, os.path.relpath(f, tmp), d) + (" (via %s)" % v if v else "")
                  for n, f, d, v in kwpycallers.scan(pkg).callers(op_file, "add_rmsnorm_quant"))
    check(want, "ast finds public callers of add_rmsnorm_quant")
    args = [K, "map", "--db", db, "--root", tmp, "--format", "tsv", "--python-root", pkg]
    rc, out, err = run(args, env=env, timeout=300)
    rows = [r.split("\t") for r in out.split("\n") if r]
    ops = [r for r in rows if len(r) == 11 and r[3] == "add_rmsnorm_quant"]
    if check(rc == 0 and err == "" and ops and all(len(r) == 11 for r in rows),
             "one root: rows of 11 fields, one of the op (%d %r)" % (rc, err)):
        check(ops[0][2] == "%s:%d" % (os.path.relpath(op_file, tmp), op_line),
              "one root: the Python entry %s at the op's def line per ast" % ops[0][2])
        got = [] if ops[0][10] == "-" else sorted(ops[0][10].split("; "))
        check(got == want, "one root: public callers %s, ast: %s" % (got, want))
    empty = os.path.join(tmp, "empty-path-one")
    os.makedirs(empty, exist_ok=True)
    e = dict(env, PATH=empty)
    e.pop("KWALK_PYTHON")
    rc, out, err = run(args, env=e, timeout=300)
    rows = [r.split("\t") for r in out.split("\n") if r]
    check(rc == 0 and err.startswith("kwalk: note: ") and err.count("\n") == 1
          and rows and all(r[2] == "-" for r in rows),
          "one root, no python3: one note line, no Python entry (%d %r)" % (rc, err))
    rc, out, err = run(args[:-1] + [os.path.join(tmp, "nope")], env=env, timeout=300)
    check(rc != 0 and out == "" and err.startswith("kwalk: ") and err.count("\n") == 1,
          "one root not there: a one-line error (%d %r)" % (rc, err))


def test_crossing(K, db, roots, env, tmp, mod, wqual, rel_ln, ln):
    """The call crossing from ATOM into aiter: the wrapper's call of the op
    (found with ast, marked call-op), in the Markdown Model entry cell and the
    JSON row's crossings, and no crossing inside aiter."""
    calls = sorted(marked(ln, "call-op"))
    if not check(len(calls) == 1, "layernorm.py: one marked call of the op: %s" % calls):
        return
    want = "%s.%s" % (mod, wqual), "%s:%d" % (rel_ln, calls[0])
    rc, out, err = run([K, "map", "--db", db, "--root", tmp] + roots, env=env, timeout=300)
    rows = [l for l in out.split("\n") if l.startswith("| `") and "| `add_rmsnorm_quant` `" in l]
    if not check(rc == 0 and rows, "map (md): the op's rows: exit %d %s" % (rc, err[:200])):
        return
    for r in rows:
        cell = r.split(" | ")[3]
        got = re.findall(r"crossing at (.*)$", cell)
        check(got and got[0] == "`%s` `%s`" % want,
              "map (md): the crossing `%s` `%s` in the Model entry cell %r" % (want + (cell,)))
    rc, out, err = run([K, "map", "--db", db, "--root", tmp, "--json"] + roots, env=env,
                       timeout=300)
    doc = json.loads(out) if rc == 0 else {"rows": []}
    jr = [r for r in doc["rows"] if (r.get("python") or {}).get("function") == "add_rmsnorm_quant"]
    check(jr, "map --json: the op's rows")
    for r in jr:
        check([(c["name"], "%s:%d" % (c["file"], c["line"])) for c in r.get("crossings", [])]
              == [want], "map --json: crossings %r, want %r" % (r.get("crossings"), want))
    other = [c for r in doc["rows"] for c in r.get("crossings") or []
             if not c["name"].startswith("atom.")]
    check(not other, "map --json: crossings outside the model package: %r" % other[:3])


def test_map(K, db, roots, env, tmp, mod, wqual, callers, rel_ln, ln, a, b):
    rc, out, err = run([K, "map", "--db", db, "--root", tmp, "--format", "tsv"] + roots, env=env, timeout=300)
    rows = [r.split("\t") for r in out.split("\n") if r and not r.startswith("@")]
    tagged = [r.split("\t") for r in out.split("\n") if r.startswith("@")]
    if not check(rc == 0 and err == "" and rows, "map (tsv): exit %d %s" % (rc, err)):
        return
    check(all(len(r) == 12 for r in rows), "map: 12 fields a row with two roots")
    check(out.split("\n").index("\t".join(tagged[0])) > max(
        i for i, r in enumerate(out.split("\n")) if r and not r.startswith("@"))
          if tagged else False, "map (tsv): the @-rows follow the rows")
    test_map_unresolved(K, db, roots, env, tmp, mod, wqual, rel_ln, ln, a, b, tagged)
    ops = [r for r in rows if len(r) == 12 and r[3] == "add_rmsnorm_quant"]
    if not check(ops, "map: a row of the op add_rmsnorm_quant: %s" % rows):
        return
    model = ops[0][11].split("; ")
    want = ["%s.%s %s:%d" % (mod, q, rel_ln, line) for q, (line, _) in sorted(callers.items())]
    for w in want:
        check(w in model, "map: model entry %s (the call of the wrapper found with ast) "
              "in %s" % (w, model))
    for q, (line, _) in callers.items():
        check(line in marked(ln, "call-wrapper"), "map: %s:%d is marked" % (ln, line))
    check(not any(x.startswith("%s.%s " % (mod, wqual)) for x in model),
          "map: the wrapper %s has callers, it is no model entry: %s" % (wqual, model))
    check(len(set(model)) == len(model), "map: each model entry once")
    for x in model:
        m = re.fullmatch(r"(\S+) (\S+):(\d+)", x)
        if check(m, "map: 'ENTRY FILE:LINE': %r" % x):
            path = os.path.join(tmp, m.group(2))
            check(os.path.isfile(path) and int(m.group(3)) in call_lines(path),
                  "map: %s is a call per ast" % x)
    # --python-from: only chains that start in the package named
    for pkg in ("atom", "atom.model_ops", "nosuchpkg"):
        rc, out, err = run([K, "map", "--db", db, "--root", tmp, "--format", "tsv",
                            "--python-from", pkg] + roots, env=env, timeout=300)
        fops = [r.split("\t") for r in out.split("\n") if r]
        fops = [r for r in fops if len(r) == 12 and r[3] == "add_rmsnorm_quant"]
        if not check(rc == 0 and err == "" and fops, "map --python-from %s: the op's row "
                     "(%d %r)" % (pkg, rc, err)):
            continue
        fmodel = [x for x in fops[0][11].split("; ") if x and x != "-"]
        if pkg == "nosuchpkg":
            check(fmodel == [], "map --python-from nosuchpkg: no model entry: %s" % fmodel)
            continue
        check(all(x.startswith(pkg + ".") for x in fmodel),
              "map --python-from %s: every entry in the package: %s" % (pkg, fmodel))
        for w in want:
            check(w in fmodel, "map --python-from %s: %s still there: %s" % (pkg, w, fmodel))
    # Markdown: the column after the Python entry
    rc, out, err = run([K, "map", "--db", db, "--root", tmp] + roots, env=env, timeout=300)
    lines = out.split("\n")
    check(rc == 0 and lines[0].startswith(
        "| Kernel | Instantiations | Python entry | Model entry | C++ entry |"),
        "map (md): the header has the Model entry column: %s" % lines[:1])
    row = [l for l in lines if "`add_rmsnorm_quant` `" in l]
    if check(row, "map (md): the op's row"):
        cells = [c.strip() for c in row[0].strip("|").split(" | ")]
        first = sorted(callers.items())[0]
        check(len(cells) == 7 and "`%s.%s` `%s:%d`" % (mod, first[0], rel_ln, first[1][0])
              in cells[3], "map (md): the model entry in column 4: %s" % cells)
    # after the table: the getattr call and the call through the dispatch
    # table holding the wrapper, which could lead to the op, at their marked
    # lines; the other unresolved calls counted once for all ops
    dyn = sorted(marked(ln, "dynamic"))
    tab = sorted(marked(ln, "table"))
    sect = out.split("\nCalls not resolved statically that could lead to the ops above", 1)
    item = sect[1].split("\n- `aiter.ops.rmsnorm.add_rmsnorm_quant`: ", 1) if len(sect) == 2 \
        else []
    item = md_plain(item[1].split("\n- ", 1)[0].split("\n\n", 1)[0]) if len(item) == 2 else ""
    check(dyn and "`%s.%s` `%s:%d` calls `getattr(_kwalk_a, 'add_rmsnorm_quant')` (getattr), "
          "may name `aiter.ops.rmsnorm.add_rmsnorm_quant`" % (mod, "_kwalk_test_dynamic", rel_ln,
                                                                dyn[0]) in item,
          "map (md): the getattr call listed under the op: %r" % item)
    check(tab and "_KWALK_TABLE[k]" in callee_at(ln, tab[0]) and
          "`%s._kwalk_test_table` `%s:%d` calls `_KWALK_TABLE[k]` (dispatch table "
          "%s._KWALK_TABLE), may name `%s.%s`" % (mod, rel_ln, tab[0], mod, mod, wqual) in item,
          "map (md): the call through the dispatch table listed under the op: %r" % item)
    left = re.findall(r"\n\d+ other calls? not resolved statically could lead to none of the "
                      r"ops above, left out: \d+ calls? ", out)
    check(len(left) == 1, "map (md): the calls left out said once: %r" % left)
    check(not re.search(r"\b1 calls\b", out), "map (md): '1 call', never '1 calls'")
    test_site_map(K, db, roots, env, tmp, out)
    # one root: the table of today (11 fields), the helper not run
    rc, out, err = run([K, "map", "--db", db, "--format", "tsv", "--python-root", b], env=env, timeout=300)
    check(rc == 0 and all(len(r.split("\t")) == 11 for r in out.split("\n") if r),
          "map with one root: 11 fields (%d) %s" % (rc, err))


def test_site_map(K, db, roots, env, tmp, md):
    """`kwalk site`'s map.html, written by the HTML printer from the calls that
    wrote md (`kwalk map`'s Markdown with the same roots), is libcmark-gfm's
    HTML of md, its links (<a> around a code span) set aside: the unresolved
    calls' paragraphs and nested lists included."""
    site = os.path.join(tmp, "site")
    rc, _, err = run([K, "site", "--db", db, "--root", tmp, "-o", site] + roots, env=env,
                     timeout=300)
    if not check(rc == 0, "site: exit %d %s" % (rc, err)):
        return
    with open(os.path.join(site, "map.html"), encoding="utf-8") as f:
        body = f.read().split("<main>\n", 1)[1].rsplit("</main>", 1)[0]
    got = re.sub(r'<a href="[^"<>]*">(<code>[^<]*</code>)</a>', r"\1", body)
    want = kwcmark.html(md)
    check(got == want, "site: map.html is libcmark-gfm's HTML of kwalk map: %s" % next(
        ("line %d: %r vs %r" % (i, p, q) for i, (p, q) in
         enumerate(zip(got.split("\n"), want.split("\n")), 1) if p != q), "lengths differ"))
    check("<p>Calls not resolved statically" in got and "<ul>\n<li><code>" in got,
          "site: map.html has the unresolved calls' paragraph and list")


def test_map_unresolved(K, db, roots, env, tmp, mod, wqual, rel_ln, ln, a, b, tagged):
    """The TSV's @unresolved and @left-out rows and the JSON's unresolved
    keys: the getattr and dispatch-table calls the test wrote, at their
    marked lines (callee as ast unparses it); listed plus left out is every
    unresolved call the helper finds."""
    want_op = "aiter.ops.rmsnorm.add_rmsnorm_quant"
    unres = [r for r in tagged if r[0] == "@unresolved"]
    left = [r for r in tagged if r[0] == "@left-out"]
    check(len(unres) + len(left) == len(tagged) and all(len(r) == 7 for r in unres)
          and all(len(r) == 3 and r[1].isdigit() and int(r[1]) > 0 for r in left),
          "map (tsv): @unresolved (7 fields) and @left-out (3) rows only: %s" % tagged[:3])
    for tag in ("dynamic", "table"):
        at = sorted(marked(ln, tag))
        mine = [r for r in unres if r[1] == want_op and at and r[3] == "%s:%d" % (rel_ln, at[0])]
        check(len(mine) == 1 and mine[0][4] in callee_at(ln, at[0]) and
              mine[0][2] == "%s._kwalk_test_%s" % (mod, "dynamic" if tag == "dynamic" else tag),
              "map (tsv): the %s call at its marked line: %s" % (tag, mine))
        if tag == "table" and mine:
            check(mine[0][5].startswith("dispatch table %s._KWALK_TABLE" % mod),
                  "map (tsv): why names the table: %s" % mine[0][5])
    every = helper_unresolved(a, b)
    listed = {(r[2], r[3], r[4]) for r in unres}
    if check(every is not None, "the helper's JSON"):
        check(len(listed) + sum(int(r[1]) for r in left) == len(every),
              "map (tsv): %d listed + %d left out = %d unresolved calls"
              % (len(listed), sum(int(r[1]) for r in left), len(every)))
    rc, out, err = run([K, "map", "--db", db, "--root", tmp, "--json"] + roots, env=env, timeout=300)
    doc = json.loads(out) if rc == 0 else {}
    ops = {o["op"]: o for o in doc.get("unresolved", [])}
    op = ops.get(want_op, {})
    calls = {(c["file"], c["line"]): c for c in op.get("calls", [])}
    tab = sorted(marked(ln, "table"))
    c = calls.get((rel_ln, tab[0])) if tab else None
    check(c and c["names"] == ["%s.%s" % (mod, wqual)],
          "map --json: the table call under the op, naming the wrapper %s: %s" % (wqual, c))
    check(sorted((r[1], r[2], r[3], r[4]) for r in unres) == sorted(
        (o["op"], x["function"], "%s:%d" % (x["file"], x["line"]), x["callee"])
        for o in doc.get("unresolved", []) for x in o["calls"]),
        "map --json: the unresolved calls are the TSV's @unresolved rows")
    check(sorted((int(r[1]), r[2]) for r in left) == sorted(
        (x["count"], x["reason"]) for x in doc.get("unresolved_left_out", [])),
        "map --json: unresolved_left_out is the TSV's @left-out rows")
    check(all(len(r["model_entries"]) for r in doc.get("rows", [])
              if (r.get("python") or {}).get("function") == "add_rmsnorm_quant"),
          "map --json: the op's rows have model entries")


def test_render(K, db, roots, env, tmp, mod, wrapper, wqual, callers, op_conds, rel_ln, ln,
                op_file, op_line, op_module, op_fn):
    page = os.path.join(tmp, "page.md")
    rc, _, err = run([K, "render", "add_rmsnorm_quant_kernel<float>", "--db", db, "--root",
                      tmp, "-o", page] + roots, env=env, timeout=300)
    if not check(rc == 0 and os.path.isfile(page), "render: exit %d %s" % (rc, err)):
        return
    text = open(page, encoding="utf-8").read()
    sec = [x for x in text.split("\n## ") if x.split("\n")[0].startswith("1. Host Side")]
    if not check(len(sec) == 1, "render: one section 1 (\"## 1. Host Side\")"):
        return
    s1 = sec[0]
    q, (line, conds) = sorted(callers.items())[0]
    m = re.search(r"Python chain from `%s\.%s`, 2 calls down to `add_rmsnorm_quant`:\n\n"
                  r"1\. (.*)\n2\. (.*)\n3\. (.*)\n" % (re.escape(mod), re.escape(q)), s1)
    if not check(m, "render: the chain from %s.%s in section 1:\n%s" % (mod, q, s1[:3000])):
        return
    f1, f2, f3 = m.group(1), m.group(2), m.group(3)
    when1 = (", when " + " and ".join("`%s`" % c for c in conds)) if conds else ""
    check(f1 == "`%s.%s` calls `%s` at `%s:%d`%s" % (mod, q, wrapper, rel_ln, line, when1),
          "render: frame 1, the call of the wrapper (ast line and tests): %s" % f1)
    op_at = [x for x in marked(ln, "call-op")]
    when2 = (", when " + " and ".join("`%s`" % c for c in op_conds)) if op_conds else ""
    check(len(op_at) == 1 and f2 == "`%s.%s` calls `add_rmsnorm_quant` at `%s:%d`%s"
          % (mod, wqual, rel_ln, op_at[0], when2),
          "render: frame 2, the marked call of the op under %s: %s" % (op_conds, f2))
    check(op_conds, "the call of the op sits under an if (ast)")
    # section 6 cites the chain's calls: the layernorm copy with role
    # "Python call" at the marked lines
    row = [l for l in text.split("\n") if l.startswith("| `%s` |" % rel_ln)]
    want = sorted({line} | set(op_at))
    check(row and "Python call" in row[0] and all(
        re.search(r"[| ,]%d `" % x, row[0]) for x in want),
        "section 6: %s cited as Python call at %s: %s" % (rel_ln, want, row))
    dyn = sorted(marked(ln, "dynamic"))
    check(dyn and "- `%s._kwalk_test_dynamic` calls `getattr(_kwalk_a, 'add_rmsnorm_quant')` at "
          "`%s:%d` (getattr); it may name `aiter.ops.rmsnorm.add_rmsnorm_quant`"
          % (mod, rel_ln, dyn[0]) in s1,
          "render: section 1 lists the getattr call that could lead to the op")
    tab = sorted(marked(ln, "table"))
    check(tab and "- `%s._kwalk_test_table` calls `_KWALK_TABLE[k]` at `%s:%d` (dispatch table "
          "%s._KWALK_TABLE); it may name `%s.%s`" % (mod, rel_ln, tab[0], mod, mod, wqual)
          in md_plain(s1), "render: section 1 lists the call through the dispatch table")
    check(re.search(r"\d+ other calls? not resolved statically (is|are) left out, as none could "
                    r"lead to `aiter.ops.rmsnorm.add_rmsnorm_quant`: \d+ calls? ", s1),
          "render: section 1 counts the other unresolved calls")
    check(not re.search(r"\b1 calls\b", s1), "render: '1 call', never '1 calls'")
    check(len(re.findall(r"\d+ other calls? not resolved statically (is|are) left out, as none",
                         s1)) == 1, "render: the calls left out counted once in section 1")
    check(op_line in marked(op_file, "op") and
          f3 == "the op `aiter.ops.rmsnorm.add_rmsnorm_quant` at `%s:%d`, bound to `%s`.`%s`"
          % (os.path.relpath(op_file, tmp), op_line, op_module, op_fn),
          "render: frame 3, the op at its marked def line: %s" % f3)


def test_nopy(K, db, roots, env, tmp):
    empty = os.path.join(tmp, "empty-path")
    os.makedirs(empty)
    e = dict(env, PATH=empty)
    e.pop("KWALK_PYTHON")
    rc, out, err = run([os.path.abspath(K), "map", "--db", db] + roots, env=e, timeout=300)
    check(rc == 0 and len(err.strip().split("\n")) == 1 and err.startswith("kwalk: note: ")
          and "python3" in err, "no python3: one note line: %d %r" % (rc, err))
    check(out.startswith("| Kernel | Instantiations | Python entry | C++ entry |"),
          "no python3: the table without the Model entry column")


def test_bad(K, db, roots, env, tmp, a, b):
    helper = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__)))), "python", "kwalk_pyscan.py")
    p = subprocess.run([sys.executable, helper, "chains", "--root", a, "--root", b,
                        "--format", "tsv"], capture_output=True, text=True, timeout=300)
    rows = [r for r in p.stdout.split("\n") if r]
    real = [r for r in rows if len(r.split("\t")) == 10 and r.split("\t")[7] == "2"]
    if not check(real, "helper: a row of 10 fields with two frames"):
        return
    row = real[0].split("\t")
    tok = row[9].split("\x1f")  # FUNCTION FILE:LINE CALLEE N TEST*N, per frame
    second = tok[4 + int(tok[3]):]
    bad = {
        "a field short": "\t".join(row[:8]),
        "line 0": "\t".join(row[:5] + [row[5].rsplit(":", 1)[0] + ":0"] + row[6:]),
        "line not a number": "\t".join(row[:1] + [row[1] + "x"] + row[2:]),
        "OUTERMOST not yes/no": "\t".join(row[:6] + ["maybe"] + row[7:]),
        "a frame missing": "\t".join(row[:9] + ["\x1f".join(second)]),
        "a frame without its line": "\t".join(row[:9] + ["\x1f".join(
            tok[:1] + ["y.py"] + tok[2:])]),
        "a test count past the end": "\t".join(row[:9] + ["\x1f".join(
            tok[:3] + ["99"] + tok[4:])]),
        "a test count not a number": "\t".join(row[:9] + ["\x1f".join(
            tok[:3] + ["two"] + tok[4:])]),
        "a NUL byte": "\t".join(row[:4] + ["a\0b"] + row[5:]),
    }
    first = rows[0].split("\t")  # an @op row
    check(first[0] == "@op" and len(first) == 6, "helper: the table starts with an @op row")
    bad.update({
        "@op twice": rows[0],
        "an unknown @-row": "\t".join(["@bogus"] + first[1:]),
        "@launch of an op not declared": "\t".join(
            ["@launch", "no.such.op", "k.kern", "k.py:3", "w.py:9", "0"]),
        "@launch with a test count past the end": "\t".join(
            ["@launch", first[1], "k.kern", "k.py:3", "w.py:9", "2\x1fa"]),
        "@unresolved a field short": "\t".join(
            ["@unresolved", first[1], "m.f", "m.py:4", "x.y", "getattr"]),
        "@dropped count 0": "\t".join(["@dropped", first[1], "0", "a reason"]),
    })
    n = 0
    for what, line in [("the real row", real[0])] + sorted(bad.items()):
        n += 1
        payload = os.path.join(tmp, "payload%d.tsv" % n)
        with open(payload, "w", encoding="utf-8", newline="") as f:
            f.write(rows[0] + "\n" + line + "\n")
        fake = os.path.join(tmp, "fake%d.sh" % n)
        with open(fake, "w") as f:
            f.write("#!/bin/sh\ncat '%s'\n" % payload)
        os.chmod(fake, 0o755)
        rc, out, err = run([K, "map", "--db", db, "--format", "tsv"] + roots,
                           env=dict(env, KWALK_PYTHON=fake), timeout=300)
        if what == "the real row":
            check(rc == 0 and err == "", "fake helper, %s: read (%d %r)" % (what, rc, err))
            continue
        el = err.rstrip("\n").split("\n")
        check(rc == 1 and out == "" and len(el) == 1 and el[0].startswith("kwalk: ") and
              (":2: " in el[0] or "NUL" in el[0]),
              "fake helper, %s: one-line error naming line 2 (%d %r)" % (what, rc, err))
    fake = os.path.join(tmp, "fail.sh")
    with open(fake, "w") as f:
        f.write("#!/bin/sh\necho 'kwalk_pyscan: it broke' >&2\necho more >&2\nexit 3\n")
    os.chmod(fake, 0o755)
    rc, out, err = run([K, "map", "--db", db] + roots, env=dict(env, KWALK_PYTHON=fake), timeout=300)
    check(rc == 1 and out == "" and err.count("\n") == 1 and "(exit 3): kwalk_pyscan: it broke"
          in err, "a failing helper: one-line error with its first stderr line (%d %r)"
          % (rc, err))
    for what, body in [("sleeps", "sleep 60\n"),
                       ("closes its output and sleeps", "exec >&-\nsleep 60\n")]:
        fake = os.path.join(tmp, "slow.sh")
        with open(fake, "w") as f:
            f.write("#!/bin/sh\n" + body)
        os.chmod(fake, 0o755)
        began = time.monotonic()
        rc, out, err = run([K, "map", "--db", db] + roots,
                           env=dict(env, KWALK_PYTHON=fake, KWALK_PYTHON_TIMEOUT="1"), timeout=300)
        took = time.monotonic() - began
        check(rc == 1 and out == "" and err.count("\n") == 1 and
              "did not finish within 1 s" in err and took < 30,
              "a helper that %s: stopped after KWALK_PYTHON_TIMEOUT, one-line error "
              "(%d %r, %.1f s)" % (what, rc, err, took))
    rc, out, err = run([K, "map", "--db", db] + roots,
                       env=dict(env, KWALK_PYTHON=os.path.join(tmp, "no-such-python")), timeout=300)
    check(rc == 1 and out == "" and err.count("\n") == 1 and "no-such-python" in err,
          "KWALK_PYTHON not there: one-line error (%d %r)" % (rc, err))
    rc, out, err = run([K, "map", "--db", db, "--python-root", a, "--python-root",
                        os.path.join(tmp, "nope")], env=env, timeout=300)
    check(rc == 1 and err.count("\n") == 1, "a missing second root: one-line error (%d %r)"
          % (rc, err))


if __name__ == "__main__":
    sys.exit(main())
