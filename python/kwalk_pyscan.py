#!/usr/bin/env python3
"""kwalk_pyscan.py: kwalk's Python reader, stdlib only (Python's own `ast`).

Two commands, both writing JSON to stdout:

  scan FILE...            the facts of each file: defs (qualified name, lines,
                          decorators with literal arguments), imports (module
                          level and inside functions, relative level, aliases,
                          star), `__all__`, every call (callee expression
                          text, line, column, enclosing function, the `if`
                          conditions it sits under), dispatch tables (names
                          assigned a dict/list/tuple/set display or dict(...),
                          with the names among their entries; `T[k] = f`
                          items) and local names bound to a table's entry
                          (`fn = T[k]`, `fn = T.get(k)`).
  chains --root DIR ...   resolve imports and calls statically across several
         [--from PKG]     roots (each a directory holding top-level packages,
         [--decorator D]  like a PYTHONPATH entry) and list, for each op (a def
                          decorated with D, default compile_ops), the chains
                          from functions of package PKG (default: every
                          function) to it, shortest first. Calls that cannot be
                          resolved statically (getattr, dispatch tables,
                          values of local variables) are listed as
                          unresolved, never guessed; per op, those that could
                          lead to it (by name, or a dispatch table holding a
                          function that reaches it). --format tsv: the
                          model-entry table instead (write_tsv).

A file that does not parse is reported with its error; the command still
exits 0. Bad usage: one line on stderr, exit 2.
"""

import ast
import builtins
import json
import os
import sys
from collections import deque

SCHEMA = 1


def _literal(node):
    """The value of a literal argument (str, int, float, bool, None), else None
    with a flag saying it was not a literal."""
    try:
        v = ast.literal_eval(node)
    except Exception:
        return None, False
    if isinstance(v, (str, int, float, bool)) or v is None:
        return v, True
    return None, False


def _decorator(node):
    call = node if isinstance(node, ast.Call) else None
    func = call.func if call else node
    d = {"line": node.lineno, "text": ast.unparse(node), "name": ast.unparse(func)}
    if call:
        args = []
        for a in call.args:
            v, ok = _literal(a)
            args.append({"value": v} if ok else {"expr": ast.unparse(a)})
        kwargs = {}
        for k in call.keywords:
            if k.arg is None:
                continue
            v, ok = _literal(k.value)
            kwargs[k.arg] = {"value": v} if ok else {"expr": ast.unparse(k.value)}
        d["args"] = args
        d["kwargs"] = kwargs
    return d


def _import_names(node):
    return [{"name": a.name, "as": a.asname} for a in node.names]


class _FileScan(ast.NodeVisitor):
    """One walk of a module: scope is the qualified name of the enclosing
    def/class ("" at module level), func the enclosing function's qualified
    name ("" outside functions), conds the enclosing `if` tests."""

    def __init__(self):
        self.defs, self.imports, self.calls, self.all = [], [], [], None
        self.tables, self.table_items, self.aliases = [], [], []
        self.scope, self.kinds, self.func, self.conds = [], [], "", []

    def _qual(self, name):
        return ".".join(self.scope + [name])

    def _def(self, node, kind):
        q = self._qual(node.name)
        self.defs.append({"name": q, "kind": kind, "line": node.lineno,
                          "end_line": getattr(node, "end_lineno", node.lineno),
                          "decorators": [_decorator(d) for d in node.decorator_list]})
        # decorators, defaults, annotations and bases run in the outer scope
        for d in node.decorator_list:
            self.visit(d)
        if kind == "class":
            for x in node.bases + node.keywords:
                self.visit(x)
        else:
            self.visit(node.args)
            if node.returns:
                self.visit(node.returns)
        saved = (self.func, self.conds)
        if kind != "class":
            self.func = q
        self.conds = [] if kind != "class" else self.conds
        self.scope.append(node.name)
        self.kinds.append(kind)
        for s in node.body:
            self.visit(s)
        self.scope.pop()
        self.kinds.pop()
        self.func, self.conds = saved

    def visit_FunctionDef(self, node):
        self._def(node, "def")

    def visit_AsyncFunctionDef(self, node):
        self._def(node, "def")

    def visit_ClassDef(self, node):
        self._def(node, "class")

    def visit_If(self, node):
        self.visit(node.test)
        text = ast.unparse(node.test)
        self.conds.append(text)
        for s in node.body:
            self.visit(s)
        self.conds[-1] = "not (%s)" % text
        for s in node.orelse:
            self.visit(s)
        self.conds.pop()

    def visit_Import(self, node):
        self.imports.append({"line": node.lineno, "func": self.func, "from": None,
                             "level": 0, "names": _import_names(node)})

    def visit_ImportFrom(self, node):
        self.imports.append({"line": node.lineno, "func": self.func,
                             "from": node.module or "", "level": node.level,
                             "names": _import_names(node)})

    def visit_Assign(self, node):
        if not self.scope and any(isinstance(t, ast.Name) and t.id == "__all__"
                                  for t in node.targets):
            try:
                v = ast.literal_eval(node.value)
                if isinstance(v, (list, tuple)) and all(isinstance(x, str) for x in v):
                    self.all = list(v)
            except Exception:
                pass
        for t in node.targets:
            self._assigned(t, node.value, node.lineno)
        self.generic_visit(node)

    def visit_AnnAssign(self, node):
        if node.value is not None:
            self._assigned(node.target, node.value, node.lineno)
        self.generic_visit(node)

    def _assigned(self, target, value, line):
        """A dispatch table (`NAME = {...}`, `self.NAME = [...]` in a method,
        `NAME[key] = f`) or, inside a function, a local name bound to an entry
        of one (`fn = NAME[key]`, `fn = NAME.get(key)`)."""
        if isinstance(value, (ast.Dict, ast.List, ast.Tuple, ast.Set)) or (
                isinstance(value, ast.Call) and ast.unparse(value.func) == "dict"):
            name = None
            if isinstance(target, ast.Name):
                name = self._qual(target.id)
            elif (isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name)
                  and target.value.id == "self" and len(self.kinds) >= 2
                  and self.kinds[-1] == "def" and self.kinds[-2] == "class"):
                name = ".".join(self.scope[:-1] + [target.attr])
            vals = table_values(value)
            if name and vals:
                self.tables.append({"name": name, "line": line, "func": self.func,
                                    "values": vals})
        elif isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name):
            vals = table_values(value)
            if vals:
                self.table_items.append({"table": target.value.id, "line": line,
                                         "func": self.func, "values": vals})
        if (self.func and isinstance(target, ast.Name) and
                (isinstance(value, ast.Subscript) or (
                    isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute)
                    and value.func.attr == "get"))):
            self.aliases.append({"name": target.id, "line": line, "func": self.func,
                                 "expr": ast.unparse(value)})

    def visit_Call(self, node):
        self.calls.append({"line": node.lineno, "col": node.col_offset,
                           "end_line": node.end_lineno, "end_col": node.end_col_offset,
                           "func": self.func, "callee": ast.unparse(node.func),
                           "conds": list(self.conds)})
        self.generic_visit(node)


def table_values(node):
    """The entries of a dispatch table that may be functions, as written: the
    names and attributes among a display's values (a dict's values, a list's,
    tuple's or set's elements, `dict(...)`'s arguments), through nested
    displays, a lambda's body when it is a call (its callee) and
    `partial(f, ...)` (f)."""
    if isinstance(node, (ast.Name, ast.Attribute)):
        return [ast.unparse(node)]
    if isinstance(node, ast.Dict):
        return [v for x in node.values if x is not None for v in table_values(x)]
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        return [v for x in node.elts for v in table_values(x)]
    if isinstance(node, ast.Lambda) and isinstance(node.body, ast.Call):
        return table_values(node.body.func)
    if isinstance(node, ast.Call):
        f = ast.unparse(node.func)
        if f == "dict":
            return [v for x in node.args + [k.value for k in node.keywords]
                    for v in table_values(x)]
        if f.split(".")[-1] == "partial" and node.args:
            return table_values(node.args[0])
    return []


def scan_text(path, text):
    out = {"path": path}
    try:
        tree = ast.parse(text, filename=path)
        v = _FileScan()
        v.visit(tree)
    except (SyntaxError, ValueError, RecursionError, MemoryError) as e:
        out["error"] = "%s: %s" % (type(e).__name__, str(e).split("\n")[0])
        return out, None
    out.update({"defs": v.defs, "imports": v.imports, "all": v.all, "calls": v.calls,
                "tables": v.tables, "table_items": v.table_items, "aliases": v.aliases})
    return out, tree


def scan_file(path):
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        return {"path": path, "error": "cannot read: %s" % e.strerror}
    return scan_text(path, data)[0]


# ---- resolution across roots -------------------------------------------------


def _too_deep(root, mods):
    """A root one folder too deep: itself a package (it holds __init__.py)
    that the code of the roots imports by its own name (`from aiter.ops
    import x`, with aiter/aiter given), a name no root provides. {root,
    package, parent, at} (at: the first such import, file:line; the root's
    own modules first), else None."""
    pkg = os.path.basename(root)
    if not pkg.isidentifier() or pkg in mods or not os.path.isfile(os.path.join(root, "__init__.py")):
        return None
    own = lambda name: not mods[name]["path"].startswith(root + os.sep)  # noqa: E731
    for name in sorted(mods, key=lambda n: (own(n), n)):
        s = mods[name]
        for imp in s["imports"]:
            if imp["level"] != 0:
                continue
            used = [imp["from"]] if imp["from"] is not None else [n["name"] for n in imp["names"]]
            if any(u == pkg or u.startswith(pkg + ".") for u in used):
                return {"root": root, "package": pkg, "parent": os.path.dirname(root),
                        "at": "%s:%d" % (s["path"], imp["line"])}
    return None


def _package_prefix(d):
    """The packages folder d sits in, dotted: "aiter" for .../aiter holding
    __init__.py ("a.b" when its parent is a package too); "" for no package."""
    pre = []
    while os.path.isfile(os.path.join(d, "__init__.py")) and os.path.dirname(d) != d:
        pre.insert(0, os.path.basename(d))
        d = os.path.dirname(d)
    return pre


class Index:
    """Every module under the roots, by dotted name, with its scan. A root
    in package_roots is named by the packages it sits in (as imported from
    the folder above its top package), rather than as a PYTHONPATH entry."""

    def __init__(self, roots, package_roots=()):
        self.mods = {}  # dotted name -> scan dict (+ "pkg": bool, "root": str)
        self.errors = []
        self._aliases_open = set()  # local names being resolved (table_access)
        package_roots = {os.path.abspath(r) for r in package_roots}
        for root in roots:
            root = os.path.abspath(root)
            prefix = _package_prefix(root) if root in package_roots else []
            # a package root may be one file: that module alone, by its name
            walk = [(os.path.dirname(root), [], [os.path.basename(root)])] \
                if os.path.isfile(root) else os.walk(root)
            for d, dirs, files in walk:
                dirs.sort()
                for f in sorted(files):
                    if not f.endswith(".py"):
                        continue
                    p = os.path.join(d, f)
                    rel = os.path.relpath(p, d if p == root else root)[:-3].split(os.sep)
                    pkg = rel[-1] == "__init__"
                    if pkg:
                        rel = rel[:-1]
                    rel = prefix + rel
                    if not rel or any(not x.isidentifier() for x in rel):
                        continue
                    name = ".".join(rel)
                    if name in self.mods:  # an earlier root wins, as on sys.path
                        continue
                    s = scan_file(p)
                    if "error" in s:
                        self.errors.append(s)
                        continue
                    s["pkg"] = pkg
                    s["module"] = name
                    s["root"] = root
                    self.mods[name] = s
        self.too_deep = [h for h in (_too_deep(os.path.abspath(r), self.mods) for r in roots
                                     if os.path.abspath(r) not in package_roots) if h]
        for s in self.mods.values():
            s["defmap"] = {d["name"]: d for d in s["defs"]}
            top = {}
            for imp in s["imports"]:
                if imp["func"] == "":
                    top.setdefault("", []).append(imp)
                else:
                    top.setdefault(imp["func"], []).append(imp)
            s["imports_by_func"] = top
            s["tablemap"] = {}  # qualified name -> [(func, values), ...]
            for t in s["tables"]:
                s["tablemap"].setdefault(t["name"], []).append((t["func"], t["values"]))
            s["aliasmap"] = {}  # (func, local name) -> [expr, ...]
            for a in s["aliases"]:
                s["aliasmap"].setdefault((a["func"], a["name"]), []).append(a["expr"])
        for m, s in self.mods.items():  # `NAME[key] = f` adds f to table NAME
            for it in s["table_items"]:
                b = self.lookup(m, it["func"], it["table"])
                if b[0] == "table":
                    self.mods[b[1]]["tablemap"][b[2]].append((it["func"], it["values"]))

    def absolute(self, mod, imp):
        """The absolute module a `from` import names."""
        if imp["level"] == 0:
            return imp["from"]
        s = self.mods[mod]
        parts = mod.split(".") if s["pkg"] else mod.split(".")[:-1]
        up = imp["level"] - 1
        if up > len(parts):
            return None
        base = parts[: len(parts) - up]
        if imp["from"]:
            base = base + imp["from"].split(".")
        return ".".join(base)

    # A binding is ("def", module, qualname) | ("module", name) |
    # ("table", module, qualname) (a dispatch table) | ("external", dotted) |
    # ("unbound", name).
    def bind_import(self, mod, imp, local, seen=None):
        """What `local` is bound to by import statement imp of module mod, or
        None when imp does not bind it."""
        if imp["from"] is None:
            for a in imp["names"]:
                if a["as"] == local:
                    return self.module_binding(a["name"])
                if a["as"] is None and a["name"].split(".")[0] == local:
                    return self.module_binding(local)
            return None
        src = self.absolute(mod, imp)
        if src is None:
            return None
        for a in imp["names"]:
            if a["name"] == "*":
                if src in self.mods and local in self.star_names(src):
                    return self.export(src, local, seen)
                continue
            if (a["as"] or a["name"]) == local:
                sub = src + "." + a["name"]
                if src in self.mods:
                    b = self.export(src, a["name"], seen)
                    if b[0] != "unbound":
                        return b
                if sub in self.mods:
                    return ("module", sub)
                if src not in self.mods:
                    return ("external", sub)
                return ("unbound", sub)
        return None

    def module_binding(self, name):
        return ("module", name) if name in self.mods else ("external", name)

    def star_names(self, mod, seen=None):
        s = self.mods[mod]
        if s["all"] is not None:
            return set(s["all"])
        seen = seen or set()
        if mod in seen:
            return set()
        seen.add(mod)
        names = {d["name"] for d in s["defs"] if "." not in d["name"]}
        names |= {t for t in s["tablemap"] if "." not in t}
        for imp in s["imports_by_func"].get("", []):
            for a in imp["names"]:
                if a["name"] == "*":
                    src = self.absolute(mod, imp)
                    if src in self.mods:
                        names |= self.star_names(src, seen)
                else:
                    names.add(a["as"] or a["name"].split(".")[0])
        return {n for n in names if not n.startswith("_")}

    def export(self, mod, name, seen=None):
        """What module-level name `name` of module mod is bound to."""
        seen = set() if seen is None else seen
        if (mod, name) in seen:
            return ("unbound", mod + "." + name)
        seen.add((mod, name))
        s = self.mods[mod]
        if name in s["defmap"]:
            return ("def", mod, name)
        if name in s["tablemap"]:
            return ("table", mod, name)
        # later imports win, as at run time; stars last-resort in order
        for imp in reversed(s["imports_by_func"].get("", [])):
            if any(a["name"] == "*" for a in imp["names"]):
                continue
            b = self.bind_import(mod, imp, name, seen)
            if b:
                return b
        for imp in reversed(s["imports_by_func"].get("", [])):
            if any(a["name"] == "*" for a in imp["names"]):
                src = self.absolute(mod, imp)
                if src in self.mods and name in self.star_names(src):
                    b = self.export(src, name, seen)
                    if b[0] != "unbound":
                        return b
        if s["pkg"] and (mod + "." + name) in self.mods:
            return ("module", mod + "." + name)
        return ("unbound", mod + "." + name)

    def attr(self, b, name):
        if b[0] == "module":
            return self.export(b[1], name)
        if b[0] == "external":
            return ("external", b[1] + "." + name)
        if b[0] == "def":
            q = b[2] + "." + name
            if q in self.mods[b[1]]["defmap"]:
                return ("def", b[1], q)
            if q in self.mods[b[1]]["tablemap"]:
                return ("table", b[1], q)
        return ("unbound", name)

    def is_triton(self, mod, qual):
        """A def decorated @triton.jit (or autotune/heuristics over it), or
        with a bare @jit/@autotune/@heuristics imported from triton."""
        d = self.mods[mod]["defmap"].get(qual)
        for dec in (d or {}).get("decorators", []):
            n = dec["name"]
            if n in ("triton.jit", "triton.autotune", "triton.heuristics"):
                return True
            if n in ("jit", "autotune", "heuristics"):
                b = self.lookup(mod, "", n)
                if b[0] == "external" and b[1].startswith("triton."):
                    return True
        return False

    def lookup(self, mod, func, name):
        """A bare name used in function func of module mod."""
        s = self.mods[mod]
        parts = func.split(".") if func else []
        # function-level imports of func and the functions around it
        for i in range(len(parts), 0, -1):
            f = ".".join(parts[:i])
            for imp in reversed(s["imports_by_func"].get(f, [])):
                b = self.bind_import(mod, imp, name)
                if b:
                    return b
        # defs and tables of the enclosing functions
        for i in range(len(parts), 0, -1):
            q = ".".join(parts[:i] + [name])
            if q in s["defmap"]:
                return ("def", mod, q)
            if q in s["tablemap"]:
                return ("table", mod, q)
        return self.export(mod, name)

    def resolve_call(self, mod, call):
        """A call's callee: a binding, or ("dynamic", why)."""
        try:
            node = ast.parse(call["callee"], mode="eval").body
        except SyntaxError:
            return ("dynamic", "callee not parsed")
        chain = []
        while isinstance(node, ast.Attribute):
            chain.append(node.attr)
            node = node.value
        chain.reverse()
        if isinstance(node, (ast.Call, ast.Subscript)) and not chain:
            t = self.table_access(mod, call["func"], node)
            if t:
                return ("dynamic", "dispatch table %s.%s%s" % (t[0][1], t[0][2], t[2]))
        if isinstance(node, ast.Call):
            f = ast.unparse(node.func)
            return ("dynamic", "getattr" if f == "getattr" else "result of a call")
        if isinstance(node, ast.Subscript):
            # kernel[grid](...): a Triton launch when the subscripted name
            # resolves to a @triton.jit def
            k = self.resolve_call(mod, dict(call, callee=ast.unparse(node.value)))
            if k[0] == "def" and self.is_triton(k[1], k[2]) and not chain:
                return ("triton", k[1], k[2])
            if chain:  # x[0].item(...), config["k"].split(...)
                return ("dynamic", "attribute of a subscript")
            return ("dynamic", "subscript (no dispatch table of the trees)")
        if not isinstance(node, ast.Name):
            return ("dynamic", type(node).__name__)
        func = call["func"]
        if node.id in ("self", "cls") and func and "." in func:
            cls = func[: func.rfind(".")]
            if not chain:
                return ("dynamic", "self")
            q = cls + "." + chain[0]
            if q in self.mods[mod]["defmap"]:
                b = ("def", mod, q)
                for a in chain[1:]:
                    b = self.attr(b, a)
                return b
            if q in self.mods[mod]["tablemap"] and len(chain) == 1:
                return ("table", mod, q)
            return ("dynamic", "attribute of " + node.id)
        b = self.lookup(mod, func, node.id)
        if b[0] == "unbound":
            if hasattr(builtins, node.id):
                return ("external", "builtins." + node.id)
            if chain:
                return ("dynamic", "attribute of local value " + node.id)
            t = self.table_access(mod, func, node)
            if t:
                return ("dynamic", "dispatch table %s.%s%s" % (t[0][1], t[0][2], t[2]))
            return ("dynamic", "local or unbound name " + node.id)
        for a in chain:
            b = self.attr(b, a)
        return b

    def table_access(self, mod, func, node, depth=0):
        """An entry of a dispatch table taken at run time: `T[key]` (nested
        `T[a][b]` too), `T.get(key[, default])`, or a local name of function
        func bound to one of those (`fn = T[key]`). (table binding, the
        default's expression text or None, how it is written) or None."""
        default, how = None, ""
        if isinstance(node, ast.Name) and depth == 0:
            key = (mod, func, node.id)
            if key in self._aliases_open:  # `fn = fn[k]`
                return None
            self._aliases_open.add(key)
            try:
                for expr in self.mods[mod]["aliasmap"].get((func, node.id), []):
                    t = self.table_access(mod, func, ast.parse(expr, mode="eval").body, 1)
                    if t:
                        return t[0], t[1], ", through local name " + node.id
            finally:
                self._aliases_open.discard(key)
            return None
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr == "get" and node.args):
            default = ast.unparse(node.args[1]) if len(node.args) > 1 else None
            how, node = " (.get)", node.func.value
        elif isinstance(node, ast.Subscript):
            while isinstance(node, ast.Subscript):
                node = node.value
        else:
            return None
        b = self.resolve_call(mod, {"callee": ast.unparse(node), "func": func, "line": 0,
                                    "conds": []})
        return (b, default, how) if b[0] == "table" else None

    def table_defs(self, mod, qual, seen=None):
        """The defs (module, qualname) a dispatch table's entries name (a class
        as its __init__), through tables it holds."""
        seen = set() if seen is None else seen
        if (mod, qual) in seen:
            return set()
        seen.add((mod, qual))
        out = set()
        for func, values in self.mods[mod]["tablemap"].get(qual, []):
            for v in values:
                b = _callee_def(self, self.resolve_call(
                    mod, {"callee": v, "func": func, "line": 0, "conds": []}))
                if b[0] == "def":
                    out.add((b[1], b[2]))
                elif b[0] == "table":
                    out |= self.table_defs(b[1], b[2], seen)
        return out


def _dynamic_target(ix, mod, call):
    """What an unresolved call may name: ("name", N) for an attribute call
    (`obj.N(...)`, `self.N(...)`, `f().N(...)`) or `getattr(obj, "N")(...)`;
    ("module", M) for `getattr(M, expr)(...)` with M a module of the roots and
    a name computed at run time; ("table", defs) for an entry of a dispatch
    table of the trees (`T[key](...)`, `T.get(key)(...)`, a local name bound
    to one), defs the functions its entries (and .get's default) name; else
    (None, reason) (the reasons below)."""
    try:
        node = ast.parse(call["callee"], mode="eval").body
    except SyntaxError:
        return (None, R_EXPR)
    t = ix.table_access(mod, call["func"], node)
    if t:
        defs = ix.table_defs(t[0][1], t[0][2])
        if t[1]:
            b = _callee_def(ix, ix.resolve_call(mod, dict(call, callee=t[1])))
            if b[0] == "def":
                defs.add((b[1], b[2]))
            elif b[0] == "table":
                defs |= ix.table_defs(b[1], b[2])
        return ("table", defs)
    if isinstance(node, ast.Attribute):
        return ("name", node.attr)
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
            and node.func.id == "getattr" and len(node.args) >= 2):
        name = node.args[1]
        if isinstance(name, ast.Constant) and isinstance(name.value, str):
            return ("name", name.value)
        b = ix.resolve_call(mod, dict(call, callee=ast.unparse(node.args[0])))
        if b[0] == "module":
            return ("module", b[1])
        return (None, R_GETATTR_VALUE)
    if isinstance(node, ast.Subscript):
        return (None, R_SUBSCRIPT)
    if isinstance(node, ast.Name):
        return (None, R_LOCAL)
    return (None, R_EXPR)


# Why an unresolved call is left out, each a phrase read after "N call(s)";
# "%s" is "the op" (per op) or "an op" (the calls no op's list holds).
R_NAME = "naming, as an attribute or through getattr, no function that reaches %s"
R_MODULE = "through getattr on a module of the roots that holds no function reaching %s"
R_TABLE = "through a dispatch table none of whose entries reaches %s"
R_GETATTR_VALUE = "through getattr on a value that is not a module of the roots"
R_SUBSCRIPT = "through a subscript of a value that is no dispatch table of the trees"
R_LOCAL = "of a local name or parameter (its value is not known statically)"
R_EXPR = "of a callee computed by an expression"


def _drop_reason(target, op_word):
    kind, what = target
    if kind is None:
        return what
    return {"name": R_NAME, "module": R_MODULE, "table": R_TABLE}[kind] % op_word


def _may_name(ix, reach, by_name, target):
    """The functions of reach (keys (module, qualname)) an unresolved call's
    target may name."""
    kind, what = target
    if kind == "name":
        return by_name.get(what, [])
    if kind == "module":
        return [k for k in reach if "." not in k[1] and
                (k[0] == what or ix.export(what, k[1]) == ("def", k[0], k[1]))]
    if kind == "table":
        return [k for k in what if k in reach]
    return []


def _could_lead(ix, reach, unresolved):
    """The unresolved calls that could lead to an op whose callers (and the op
    itself) are the keys of reach: (listed, dropped, ids) where listed has,
    per call, the functions it may name, dropped counts the others by
    reason, and ids are the listed calls' indexes in unresolved."""
    by_name = {}
    for k in reach:
        by_name.setdefault(k[1].split(".")[-1], []).append(k)
    listed, dropped, ids = [], {}, []
    for i, u in enumerate(unresolved):
        names = _may_name(ix, reach, by_name, u["target"])
        if names:
            v = {x: u[x] for x in ("module", "file", "function", "line", "callee", "why")}
            v["names"] = sorted("%s.%s" % k for k in names)
            listed.append(v)
            ids.append(i)
        else:
            why = _drop_reason(u["target"], "the op")
            dropped[why] = dropped.get(why, 0) + 1
    return listed, dropped, ids


def _callee_def(ix, b):
    """A binding to a class resolves to its __init__ when the class has one."""
    if b[0] != "def":
        return b
    d = ix.mods[b[1]]["defmap"].get(b[2])
    if d and d["kind"] == "class":
        init = b[2] + ".__init__"
        if init in ix.mods[b[1]]["defmap"]:
            return ("def", b[1], init)
    return b


def _private(mod, qual):
    return any(p.startswith("_") for p in mod.split(".") + qual.split("."))


def _outer(ix, mod, func):
    """The outermost def holding function func: "fn" or "Class.method"."""
    parts = func.split(".")
    if len(parts) > 1 and ix.mods[mod]["defmap"].get(parts[0], {}).get("kind") == "class":
        return ".".join(parts[:2])
    return parts[0]


def _public_callers(ix, callers, key, rounds=3):
    """The public functions of the op's own root that call it: directly, or
    through private top-level functions, `rounds` levels up (a function,
    class or module part starting with '_' is private; a call inside a
    nested def counts for the outermost def). Each {module, function, file,
    def_line, call_line (its first call of the op, or of via), via (the
    private function it calls, None when direct)}, by file and def line."""
    root = ix.mods[key[0]]["root"]
    found, targets, start = {}, [key], 0
    for rnd in range(rounds + 1):
        end = len(targets)
        for ti in range(start, end):
            tgt = targets[ti]
            for (cm, cf), call in callers.get(tgt, []):
                if ix.mods[cm]["root"] != root:
                    continue
                of = _outer(ix, cm, cf)
                if (cm, of) == tgt:
                    continue  # recursion
                if not _private(cm, of):
                    if (cm, of) not in found:
                        s = ix.mods[cm]
                        found[(cm, of)] = {"module": cm, "function": of, "file": s["path"],
                                           "def_line": s["defmap"][of]["line"],
                                           "call_line": call["line"],
                                           "via": tgt[1] if ti else None}
                elif "." not in of and rnd < rounds and (cm, of) not in targets:
                    targets.append((cm, of))
        start = end
    return sorted(found.values(), key=lambda c: (c["file"], c["def_line"]))


def _string_args(dec):
    """A decorator's arguments for the @decorator row: per positional
    argument `'VALUE` (a string literal) or `?` (anything else); per keyword
    `NAME'VALUE` or `NAME?`."""
    lit = lambda a: "'" + a["value"] if isinstance(a.get("value"), str) else "?"  # noqa: E731
    pos = [lit(a) for a in dec.get("args") or []]
    kws = [k + lit(a) for k, a in (dec.get("kwargs") or {}).items()]
    return pos, kws


def chains(roots, from_pkg, decorators, package_roots=()):
    ix = Index(roots, package_roots)
    ops = {}
    if isinstance(decorators, str):
        decorators = [decorators]
    for m, s in ix.mods.items():
        for d in s["defs"]:
            for dec in d["decorators"]:
                decorator = dec["name"].split(".")[-1]
                if decorator in decorators and (m, d["name"]) not in ops:
                    ops[(m, d["name"])] = {"kind": decorator, "module": m,
                                           "function": d["name"],
                                           "file": s["path"], "def_line": d["line"],
                                           "decorator": dec}
    callers = {}  # (mod, qual) -> list of (caller key, call)
    unresolved = []
    for m, s in ix.mods.items():
        for c in s["calls"]:
            if not c["func"]:
                continue
            b = _callee_def(ix, ix.resolve_call(m, c))
            if b[0] == "def":
                callers.setdefault((b[1], b[2]), []).append(((m, c["func"]), c))
            elif b[0] == "triton":
                # the function launching Triton kernels is the op of that chain
                kd = ix.mods[b[1]]["defmap"][b[2]]
                fd = s["defmap"].get(c["func"], {})
                op = ops.setdefault((m, c["func"]), {
                    "kind": "triton", "module": m, "function": c["func"], "file": s["path"],
                    "def_line": fd.get("line"), "launches": []})
                if op["kind"] == "triton":
                    op["launches"].append({"line": c["line"], "conds": c["conds"],
                                           "module": b[1], "function": b[2],
                                           "file": ix.mods[b[1]]["path"],
                                           "def_line": kd["line"]})
            elif b[0] == "dynamic" and (from_pkg is None or m == from_pkg
                                        or m.startswith(from_pkg + ".")):
                unresolved.append({"module": m, "file": s["path"], "function": c["func"],
                                   "line": c["line"], "callee": c["callee"], "why": b[1],
                                   "target": _dynamic_target(ix, m, c)})

    def in_from(key):
        return from_pkg is None or key[0] == from_pkg or key[0].startswith(from_pkg + ".")

    def frame(key, call):
        s = ix.mods[key[0]]
        d = s["defmap"].get(key[1], {})
        return {"module": key[0], "function": key[1], "file": s["path"],
                "def_line": d.get("line"), "call_line": call["line"],
                "callee": call["callee"], "conds": call["conds"]}

    out, listed_any = [], set()
    for key, op in sorted(ops.items()):
        # BFS backwards from the op: the first visit of a function is its
        # shortest chain to the op.
        nxt = {}
        dist = {key: 0}
        q = deque([key])
        while q:
            k = q.popleft()
            for ck, call in callers.get(k, []):
                if ck not in dist:
                    dist[ck] = dist[k] + 1
                    nxt[ck] = (k, call)
                    q.append(ck)
        found = [k for k in dist if k != key and in_from(k)]
        reach = set(found)
        entries = []
        for k in found:
            outer = not any(ck in reach for ck, _ in callers.get(k, []))
            path, cur = [], k
            while cur != key:
                tgt, call = nxt[cur]
                path.append(frame(cur, call))
                cur = tgt
            entries.append({"entry": k[0] + "." + k[1], "outermost": outer,
                            "length": dist[k], "frames": path})
        entries.sort(key=lambda e: (not e["outermost"], e["length"], e["entry"]))
        op["chains"] = entries
        if op["kind"] != "triton":
            op["callers"] = _public_callers(ix, callers, key)
        op["unresolved"], op["dropped"], ids = _could_lead(ix, dist, unresolved)
        listed_any.update(ids)
        out.append(op)
    unreached = {}  # the unresolved calls no op lists, by reason
    for i, u in enumerate(unresolved):
        if i not in listed_any:
            why = _drop_reason(u["target"], "an op")
            unreached[why] = unreached.get(why, 0) + 1
    return {"schema": SCHEMA, "roots": [os.path.abspath(r) for r in roots],
            "from": from_pkg, "decorator": ", ".join(decorators), "ops": out,
            "unresolved": [{k: v for k, v in u.items() if k != "target"}
                           for u in unresolved],
            "unreached": unreached,
            "errors": [{"path": e["path"], "error": e["error"]} for e in ix.errors],
            "too_deep": ix.too_deep}


def _lit(arg):
    return arg.get("value") if arg and "value" in arg else None


def _bound(op, function_kw):
    """An op's BOUND_MODULE and BOUND_FUNCTION (see write_tsv)."""
    if op["kind"] == "triton":
        return "triton", ", ".join(sorted({"%s.%s" % (k["module"], k["function"])
                                           for k in op["launches"]}))
    dec = op["decorator"]
    args = dec.get("args") or []
    mod = _lit(args[0]) if args else None
    fn = _lit((dec.get("kwargs") or {}).get(function_kw)) or op["function"].split(".")[-1]
    return (mod if isinstance(mod, str) else "-"), str(fn)


def write_tsv(res, function_kw, out):
    """The model-entry table. First one `@op` row per op, then one row per
    chain (outermost entries first, each group shortest first), then the
    Triton launches, the unresolved calls that could lead to an op and the
    counts of the others (docs/python-chains.md has every field).

    Chain rows: OP (module.function) OP_AT (file:def_line) BOUND_MODULE (the
    decorator's first argument when a string literal, else -)
    BOUND_FUNCTION (keyword function_kw when a string literal, else the
    def's name) ENTRY (module.function of the caller in --from PKG) ENTRY_AT
    (file:line of its call that starts the chain) OUTERMOST (yes|no) LENGTH
    (calls to the op) CONDITIONS (the `if` tests around the entry's call,
    "; "-joined, - when none) FRAMES (every call of the chain, entry first,
    as one list separated by US (0x1f; not a line break to str.splitlines):
    per call module.function, file:call_line, the callee as written, the
    number N of its `if` tests, then those N tests, outermost first).

    `@op OP OP_AT BOUND_MODULE BOUND_FUNCTION KIND`; after them, per op of a
    decorator, `@decorator OP DEF LINE NAME POSITIONAL KEYWORDS` (the def's
    own name, the decorator's line and name as written; its arguments, US-joined, each `'VALUE` for a
    string literal or `?` for anything else, keywords as `NAME'VALUE` or
    `NAME?`; - when none) and `@caller OP MODULE FUNCTION DEF_AT CALL_LINE
    VIA` (_public_callers: a public function of the op's root calling it,
    VIA the private function it calls on the way, - when direct);
    `@launch OP KERNEL KERNEL_AT LAUNCH_AT CONDS` (a Triton wrapper's
    `kernel[grid](...)`: the kernel's module.name and def line, the launch's
    line, CONDS the number N of its `if` tests then those tests, US-joined);
    `@unresolved OP FUNCTION AT CALLEE WHY NAMES` (a call in --from PKG not
    resolved statically whose name could be a function reaching OP: NAMES,
    ", "-joined module.function); `@dropped OP COUNT REASON` (the other
    unresolved calls of --from PKG, counted by reason, REASON a phrase read
    after "N call(s)"); `@unreached COUNT REASON` (the unresolved calls of
    --from PKG no op lists, counted by reason); `@too-deep ROOT PACKAGE
    PARENT AT` (a root that is itself package PACKAGE, imported by that name
    at AT: PARENT, the folder holding it, is the root to pass)."""
    def w(row, lists=""):  # lists: a last field already joined with US
        out.write("\t".join([_field(str(x)) for x in row] + ([lists] if lists else [])) + "\n")

    name = lambda op: "%s.%s" % (op["module"], op["function"])
    for op in res["ops"]:
        mod, fn = _bound(op, function_kw)
        w(["@op", name(op), "%s:%d" % (op["file"], op["def_line"]), mod, fn, op["kind"]])
    for op in res["ops"]:
        if op["kind"] == "triton":
            continue
        pos, kws = _string_args(op["decorator"])
        row = [_field(str(x)) for x in ["@decorator", name(op), op["function"].split(".")[-1],
                                        op["decorator"]["line"], op["decorator"]["name"]]]
        row += ["\x1f".join(_field(x) for x in xs) or "-" for xs in (pos, kws)]
        out.write("\t".join(row) + "\n")
        for c in op.get("callers", []):
            w(["@caller", name(op), c["module"], c["function"],
               "%s:%d" % (c["file"], c["def_line"]), c["call_line"], c["via"] or "-"])
    for op in res["ops"]:
        mod, fn = _bound(op, function_kw)
        for c in op["chains"]:
            f = c["frames"][0]
            row = [name(op), "%s:%d" % (op["file"], op["def_line"]), mod, fn, c["entry"],
                   "%s:%d" % (f["file"], f["call_line"]),
                   "yes" if c["outermost"] else "no", str(c["length"]),
                   "; ".join(f["conds"]) or "-"]
            row = [_field(x) for x in row]
            row.append("\x1f".join(
                _field(x) for g in c["frames"]
                for x in ["%s.%s" % (g["module"], g["function"]),
                          "%s:%d" % (g["file"], g["call_line"]), g["callee"],
                          str(len(g["conds"]))] + g["conds"]))
            out.write("\t".join(row) + "\n")
    for op in res["ops"]:
        for k in op.get("launches", []):
            w(["@launch", name(op), "%s.%s" % (k["module"], k["function"]),
               "%s:%d" % (k["file"], k["def_line"]), "%s:%d" % (op["file"], k["line"])],
              "\x1f".join([str(len(k["conds"]))] + [_field(t) for t in k["conds"]]))
        for u in op.get("unresolved", []):
            w(["@unresolved", name(op), "%s.%s" % (u["module"], u["function"]),
               "%s:%d" % (u["file"], u["line"]), u["callee"], u["why"], ", ".join(u["names"])])
        for why, n in sorted(op.get("dropped", {}).items(), key=lambda x: (-x[1], x[0])):
            w(["@dropped", name(op), n, why])
    for why, n in sorted(res.get("unreached", {}).items(), key=lambda x: (-x[1], x[0])):
        w(["@unreached", n, why])
    for h in res.get("too_deep", []):
        w(["@too-deep", h["root"], h["package"], h["parent"], h["at"]])


def _field(x):
    """A TSV field: tabs, line breaks (str.splitlines' too) and US as blanks."""
    for ch in "\t\n\r\x0b\x0c\x1c\x1d\x1e\x1f\x85\u2028\u2029":
        x = x.replace(ch, " ")
    return x


USAGE = ("kwalk_pyscan: usage: kwalk_pyscan.py scan FILE... | chains --root DIR... "
         "[--package-root DIR]... [--from PKG] [--decorator NAME]... [--function-kw NAME] "
         "[--format json|tsv]\n")


def main(argv):
    if len(argv) < 2 or argv[1] not in ("scan", "chains"):
        sys.stderr.write(USAGE)
        return 2
    if argv[1] == "scan":
        files = [scan_file(p) for p in argv[2:]]
        json.dump({"schema": SCHEMA, "files": files}, sys.stdout)
        sys.stdout.write("\n")
        return 0
    roots, package_roots, decorators = [], [], []
    opt = {"--from": None, "--function-kw": "fc_name", "--format": "json"}
    i = 2
    while i < len(argv):
        a = argv[i]
        if (a in ("--root", "--package-root", "--decorator") or a in opt) and i + 1 < len(argv):
            v = argv[i + 1]
            if a in ("--root", "--package-root"):
                if not os.path.isdir(v) and not (a == "--package-root" and os.path.isfile(v)):
                    sys.stderr.write("kwalk_pyscan: %s %s: not a directory\n" % (a, v))
                    return 2
                roots.append(v)
                if a == "--package-root":
                    package_roots.append(v)
            elif a == "--decorator":
                decorators.append(v)
            else:
                opt[a] = v
            i += 2
        else:
            sys.stderr.write("kwalk_pyscan: unknown or incomplete option %s\n" % a)
            return 2
    if not roots:
        sys.stderr.write("kwalk_pyscan: chains needs at least one --root DIR\n")
        return 2
    if opt["--format"] not in ("json", "tsv"):
        sys.stderr.write("kwalk_pyscan: --format is json or tsv\n")
        return 2
    res = chains(roots, opt["--from"], decorators or ["compile_ops"], package_roots)
    if opt["--format"] == "tsv":
        write_tsv(res, opt["--function-kw"], sys.stdout)
    else:
        json.dump(res, sys.stdout)
        sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
