"""kwpycallers.py: ground truth for the Python column of `kwalk map`, from
Python's own parser (ast), written apart from kwalk's Python reader
(python/kwalk_pyscan.py: its @caller rows are checked against callers()):

  scan(root) -> Package with
    ops:     {(file, def name): def line} for every def decorated with
             @compile_ops(...) (or @anything.compile_ops(...)); the def line is
             ast's FunctionDef.lineno, the `def` keyword's line;
    callers(file, name): {(caller, caller file, caller def line, via)}: the
             public functions of the package that call the op, directly or
             through private ('_'-prefixed) top-level functions, 3 levels up.

A call is the op's when its name resolves to the op's def through the calling
module's top-level defs, its imports (import X [as Y], from X import a [as b],
relative or absolute) and star imports (non-'_' names), across the modules
under root (a package prefix comes from the __init__.py files above root).
"""
import ast
import os


class Module:
    def __init__(self, name, path, package):
        self.name, self.path, self.package = name, path, package
        self.defs = {}    # top-level def name -> line
        self.binds = {}   # name -> (module, attr or None); the last import wins
        self.stars = []
        self.calls = []   # (caller, top, def line, call line, chain)


def pyfiles(root):
    """Every *.py file under root, in sorted order (folders sorted too)."""
    for d, dirs, files in os.walk(root):
        dirs.sort()
        for f in sorted(files):
            if f.endswith(".py"):
                yield os.path.join(d, f)


def _prefix(root):
    pre, d = [], os.path.abspath(root)
    while os.path.isfile(os.path.join(d, "__init__.py")) and os.path.dirname(d) != d:
        pre.insert(0, os.path.basename(d))
        d = os.path.dirname(d)
    return ".".join(pre)


def _modname(root, path, prefix):
    rel = os.path.relpath(path, root)[:-3].split(os.sep)
    package = rel[-1] == "__init__"
    if package:
        rel = rel[:-1]
    return ".".join([p for p in [prefix] + rel if p]), package


def _chain(func):
    out = []
    while isinstance(func, ast.Attribute):
        out.insert(0, func.attr)
        func = func.value
    if not isinstance(func, ast.Name):
        return None
    return [func.id] + out


def _module_level(body):
    """Statements at module level, through if/try/with/for/while blocks."""
    for s in body:
        yield s
        if isinstance(s, (ast.If, ast.For, ast.While, ast.With)):
            yield from _module_level(s.body + getattr(s, "orelse", []))
        elif isinstance(s, ast.Try):
            yield from _module_level(s.body + s.orelse + s.finalbody +
                                     [x for h in s.handlers for x in h.body])


class Package:
    def __init__(self, root):
        self.root = os.path.abspath(root)
        prefix = _prefix(self.root)
        self.mods = {}
        self.ops = {}
        for dp, dn, fn in os.walk(self.root):
            dn[:] = sorted(d for d in dn if not d.startswith(".") and d != "__pycache__")
            for f in sorted(fn):
                if f.endswith(".py") and not f.startswith("."):
                    path = os.path.join(dp, f)
                    name, package = _modname(self.root, path, prefix)
                    m = Module(name, path, package)
                    self._read(m)
                    self.mods[name] = m
        self._memo = {}

    def _read(self, m):
        with open(m.path, encoding="utf-8") as f:
            tree = ast.parse(f.read(), m.path)
        imports = sorted((n for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom))),
                         key=lambda n: (n.lineno, n.col_offset))
        for n in imports:
            if isinstance(n, ast.Import):
                for a in n.names:
                    if a.asname:
                        m.binds[a.asname] = (a.name, None)
                    else:
                        top = a.name.split(".")[0]
                        m.binds[top] = (top, None)
                continue
            base = n.module or ""
            if n.level:
                pkg = m.name.split(".") if m.package else m.name.split(".")[:-1]
                up = n.level - 1
                if up > len(pkg):
                    continue
                pkg = pkg[:len(pkg) - up]
                base = ".".join(pkg + ([n.module] if n.module else []))
            for a in n.names:
                if a.name == "*":
                    m.stars.append(base)
                else:
                    m.binds[a.asname or a.name] = (base, a.name)
        for s in _module_level(tree.body):
            if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)):
                m.defs[s.name] = s.lineno
                self._calls(m, s.name, True, s)
                if any(_chain(d.func if isinstance(d, ast.Call) else d) and
                       _chain(d.func if isinstance(d, ast.Call) else d)[-1] == "compile_ops"
                       for d in s.decorator_list):
                    self.ops[(m.path, s.name)] = s.lineno
            elif isinstance(s, ast.ClassDef):
                self._class(m, s.name, s)

    def _class(self, m, prefix, cls):
        for s in cls.body:
            if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)):
                self._calls(m, prefix + "." + s.name, False, s)
            elif isinstance(s, ast.ClassDef):
                self._class(m, prefix + "." + s.name, s)

    def _calls(self, m, caller, top, fn):
        for stmt in fn.body:
            for n in ast.walk(stmt):
                if isinstance(n, ast.Call):
                    ch = _chain(n.func)
                    if ch:
                        m.calls.append((caller, top, fn.lineno, n.lineno, ch))

    # ---- resolution: ("m", module) or ("d", module, name) or None
    def _name(self, module, name, depth=0):
        m = self.mods.get(module)
        if m is None or depth > 8:
            return None
        key = (module, name)
        if key in self._memo:
            return self._memo[key]
        self._memo[key] = None
        v = self._lookup(m, name, depth)
        self._memo[key] = v
        return v

    def _attr(self, v, name, depth):
        if not v or v[0] != "m":
            return None
        sub = v[1] + "." + name if v[1] else name
        if sub in self.mods:
            return ("m", sub)
        return self._name(v[1], name, depth + 1)

    def _lookup(self, m, name, depth):
        if name in m.defs:
            return ("d", m.name, name)
        if name in m.binds:
            mod, attr = m.binds[name]
            if attr is None:
                return ("m", mod)
            return self._attr(("m", mod), attr, depth)
        if name.startswith("_"):
            return None
        for s in m.stars:
            v = self._name(s, name, depth + 1)
            if v:
                return v
        return None

    def _target(self, m, chain):
        v = self._name(m.name, chain[0])
        for c in chain[1:]:
            v = self._attr(v, c, 0)
        return v

    def callers(self, path, name):
        mod = [m for m in self.mods.values() if m.path == path][0]
        targets = [(mod.name, name, None)]
        out, seen_public = set(), set()
        frontier = list(targets)
        for rnd in range(4):
            nxt = []
            for tm, tn, _ in frontier:
                for m in self.mods.values():
                    for caller, top, dline, line, chain in m.calls:
                        if chain[-1] != tn or self._target(m, chain) != ("d", tm, tn):
                            continue
                        if m.name == tm and caller == tn:
                            continue
                        private = any(p.startswith("_") for p in caller.split(".")) or \
                            any(p.startswith("_") for p in m.name.split(".") if p)
                        if not private:
                            if (m.name, caller) not in seen_public:
                                seen_public.add((m.name, caller))
                                out.add((caller, m.path, dline,
                                         None if (tm, tn) == (mod.name, name) else tn))
                        elif top and rnd < 3 and (m.name, caller) not in \
                                [(a, b) for a, b, _ in targets]:
                            targets.append((m.name, caller, None))
                            nxt.append((m.name, caller, None))
            frontier = nxt
        return out


def scan(root):
    return Package(root)
