"""_capture.py: one listener call -> one sidecar (docs/sidecar-schema.md,
"Triton specializations").

record(out_dir, call) reads the listener's arguments (src, metadata,
metadata_group, cache_hit), the @triton.jit function and the launch frames,
builds the sidecar document and writes it atomically as
OUT/<name>-<hash[0:16]>.kwalk.yaml. It raises on failure; the caller turns
that into one warning.
"""

import ast
import inspect
import json
import linecache
import os
import re
import tempfile

from . import _irfacts, _launch
from ._version import VERSION
from ._yaml import Flow, Raw, dump

# NAME.json keys that are metadata, not options (docs/sidecar-schema.md)
_NOT_OPTIONS = {
    "hash",
    "name",
    "arch",
    "target",
    "backend_name",
    "triton_version",
    "warp_size",
    "shared",
    "profile_scratch_size",
    "profile_scratch_align",
}


def _as_dict(md):
    if isinstance(md, dict):
        return md
    if hasattr(md, "_asdict"):
        return md._asdict()
    return dict(vars(md))


def _target(t):
    if t is None:
        return {}
    if isinstance(t, dict):
        return t
    if hasattr(t, "backend"):
        return {"backend": t.backend, "arch": t.arch, "warp_size": getattr(t, "warp_size", None)}
    if isinstance(t, (list, tuple)) and len(t) >= 2:
        return {"backend": t[0], "arch": t[1], "warp_size": t[2] if len(t) > 2 else None}
    return {}


def _option_value(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return v
    if isinstance(v, float):
        return json.dumps(v)
    return v


def _json_key_order(group, name):
    """The key order of the cache's NAME.json: on a cache hit Triton passes
    its KernelMetadata with the keys sorted, the schema wants the file's."""
    path = group.get("%s.json" % name)
    if not isinstance(path, str):
        return None
    try:
        with open(path, encoding="utf-8") as f:
            return list(json.load(f, object_pairs_hook=lambda kv: dict(kv)))
    except (OSError, ValueError):
        return None


def _options(md, order=None):
    if order:
        rank = {k: i for i, k in enumerate(order)}
        md = dict(sorted(md.items(), key=lambda kv: rank.get(kv[0], len(rank))))
    out = []
    for k, v in md.items():
        if k in _NOT_OPTIONS or not isinstance(v, (bool, int, float, str)):
            continue
        out.append({"name": k, "value": _option_value(v)})
    return out


def _jit_function(src):
    """(the JITFunction, the Python function) of the listener's src."""
    jf = getattr(src, "fn", None)
    fn = getattr(jf, "fn", None)
    while fn is not None and hasattr(fn, "fn") and not hasattr(fn, "__code__"):
        fn = fn.fn
    return jf, fn


def _def_location(fn, name):
    """file and line of the `def NAME` of fn (after its decorators)."""
    code = getattr(fn, "__code__", None)
    if code is None:
        return None
    path = os.path.abspath(code.co_filename)
    first = code.co_firstlineno
    try:
        first = inspect.getsourcelines(fn)[1] or first
    except (OSError, TypeError):
        pass
    lines = linecache.getlines(code.co_filename)
    pat = re.compile(r"\s*(async\s+)?def\s+%s\b" % re.escape(name))
    for i in range(first - 1, min(len(lines), first + 200)):
        if pat.match(lines[i]):
            return {"file": path, "line": i + 1, "column": 1}
    return {"file": path, "line": first, "column": 1}


def _param_names(src, jf, fn):
    names = list(getattr(jf, "arg_names", None) or [])
    if not names:
        sig = getattr(src, "signature", None) or {}
        names = list(sig.keys()) if isinstance(sig, dict) else []
    if not names and fn is not None:
        names = list(inspect.signature(fn).parameters)
    return names


def _declared_constexpr(jf, names, sig):
    out = set()
    for p in getattr(jf, "params", None) or []:
        if getattr(p, "is_constexpr", False):
            out.add(p.name)
    if not out:
        out = {n for n in names if sig.get(n) == "constexpr"}
    return out


def _constants_by_name(src, names):
    """{name: value} from src.constants ({(index,): value}, or name keys)."""
    got = {}
    for key, value in (getattr(src, "constants", None) or {}).items():
        if isinstance(key, tuple) and key and isinstance(key[0], int):
            if key[0] >= len(names):
                continue
            name = names[key[0]]
            if len(key) > 1:
                name += "".join("[%d]" % k for k in key[1:])
        elif isinstance(key, int) and key < len(names):
            name = names[key]
        else:
            name = str(key)
        got[name] = value
    return got


def _defaults(fn):
    try:
        return {
            k: p.default
            for k, p in inspect.signature(fn).parameters.items()
            if p.default is not inspect.Parameter.empty
        }
    except (TypeError, ValueError):
        return {}


def _decorator_loc(fn, word):
    """{file, line} of the decorator of fn's def whose callee names word
    (`@triton.autotune(...)` for "autotune"), or None."""
    code = getattr(fn, "__code__", None)
    if code is None:
        return None
    tree, _ = _launch.source_tree(code.co_filename)
    if tree is None:
        return None
    for node in ast.walk(tree):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) or node.name != fn.__name__:
            continue
        first = min([d.lineno for d in node.decorator_list] + [node.lineno])
        if not (first <= code.co_firstlineno <= node.end_lineno):
            continue
        for d in node.decorator_list:
            f = d.func if isinstance(d, ast.Call) else d
            last = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", "")
            if last == word:
                return {"file": os.path.abspath(code.co_filename), "line": d.lineno, "column": 1}
    return None


def _is_default(defaults, name, value):
    """The def has a default for name and value is it."""
    try:
        return name in defaults and bool(defaults[name] == value)
    except Exception:
        return False


def _passed_at_launch(name, names, launch):
    """True when the launch's own call gave name: by position (one of the
    first npos positional values JITFunction.run received, or bound in the
    call as written), by keyword, or through a **mapping (a keyword run
    received that no Triton wrapper set). None when it cannot be told."""
    args = launch.get("args") or []
    if any(a[0] == name or (len(a) > 2 and name in a[2]) for a in args):
        return True
    npos = launch.get("npos")
    if npos is not None and name in names[:npos]:
        return True
    kwargs = launch.get("kwargs")
    if kwargs is not None:
        return name in kwargs and name not in launch.get("set_by", {})
    return None


def _constexprs(src, jf, fn, names, sig, launch, compiled):
    declared = _declared_constexpr(jf, names, sig)
    consts = _constants_by_name(src, names)
    defaults = _defaults(fn) if fn is not None else {}
    set_by = launch.get("set_by", {}) if launch is not None else {}
    out = []
    for name in names:
        if name not in declared:
            continue
        rec = {"name": name}
        if name in consts:
            value = consts[name]
            rec["value"] = repr(value)
            rec["from"] = "hook"
            if launch is None:
                if compiled is not None:  # triton.compile(...) was given it
                    rec["from"] = "compile"
                    rec["location"] = _loc(compiled)
            elif name in set_by:
                kind, where = set_by[name]
                rec["from"] = kind
                if kind == "autotune":
                    where = _decorator_loc(fn, "autotune") if fn is not None else None
                if where is not None:
                    rec["location"] = _loc(where)
            elif _passed_at_launch(name, names, launch) is False and _is_default(defaults, name, value):
                rec["from"] = "default"  # else a wrapper the hook does not know set it: hook
        out.append(Flow(rec))
    return out


def _loc(d):
    return Flow({"file": d["file"], "line": d["line"], "column": d.get("column", 1)})


def build(call):
    """The sidecar document (a dict) for one listener call."""
    src = call.get("src")
    md = _as_dict(call.get("metadata"))
    group = call.get("metadata_group") or {}
    jf, fn = _jit_function(src)
    name = md.get("name") or getattr(fn, "__name__", None) or getattr(src, "name", None)
    digest = md.get("hash")
    if not name or not digest:
        raise ValueError("the listener's metadata has no name or hash")
    symbol = "%s@%s" % (name, digest)
    target = _target(md.get("target"))
    arch = target.get("arch") or md.get("arch")
    sig = getattr(src, "signature", None) or {}
    sig = dict(sig) if isinstance(sig, dict) else {}
    names = _param_names(src, jf, fn)

    files = sorted(os.path.abspath(p) for p in group.values() if isinstance(p, str))
    cache_dir = os.path.dirname(files[0]) if files else None
    if cache_dir:
        grp = os.path.join(cache_dir, "__grp__%s.json" % name)
        if grp not in files and os.path.isfile(grp):
            files = sorted(files + [grp])
    hsaco = [p for p in files if p.endswith(".hsaco")]

    launch = _launch.find(names)
    compiled = _launch.compiled_at() if launch is None else None
    # the .llir's parameters are the runtime arguments (constexprs folded away)
    runtime = [n for n in names if str(sig.get(n)) != "constexpr"]
    warp = target.get("warp_size") or md.get("warp_size")
    ir, ir_note = _irfacts.derive(files, name, arch, warp, runtime)
    definition = _def_location(fn, name) if fn is not None else None

    triton = {
        "hash": digest,
        "cache_key": os.path.basename(cache_dir) if cache_dir else None,
        "cache_dir": cache_dir,
        "files": Flow(files) if files else None,
        "triton_version": md.get("triton_version"),
        "backend": target.get("backend") or md.get("backend_name"),
        "warp_size": target.get("warp_size") or md.get("warp_size"),
        "shared_bytes": md.get("shared") if isinstance(md.get("shared"), int) else None,
        "options": Flow(_options(md, _json_key_order(group, name))),
        "constexprs": _constexprs(src, jf, fn, names, sig, launch, compiled),
        "cache_hit": bool(call.get("cache_hit")),
        "compiled_at": _loc(compiled) if compiled is not None else None,
        "ir_note": ir_note if arch else None,
    }
    kernel = {
        "symbol": symbol,
        "name": name,
        "language": "triton",
        "location": _loc(definition) if definition else None,
        "params": [Flow({"name": n, "type": str(sig[n]) if n in sig else None}) for n in names],
        "triton": triton,
        "archs": {arch: {"ir": Raw(ir)} if ir else {}} if arch else {},
    }
    launches = []
    if launch is not None:
        rec = {
            "kernel": symbol,
            "kernel_name": name,
            "kind": "triton",
            "location": _loc(launch),
            "function": launch["function"],
            "callee": launch.get("kernel_expr"),
        }
        grid = {}
        if launch.get("grid_expr") is not None:
            grid["expr"] = launch["grid_expr"]
        if launch.get("grid_value") is not None:
            grid["value"] = launch["grid_value"]
        rec["config"] = {"grid": Flow(grid)} if grid else None
        if launch.get("args") is not None:
            rec["args"] = [Flow({"param": a[0], "expr": a[1], "params": Flow(a[2]) if len(a) > 2 else None})
                           for a in launch["args"]]
        rec["call_chain"] = [
            Flow({"function": c["function"], "location": _loc(c)}) for c in launch["chain"]
        ]
        launches.append(rec)
    tu = {
        "source": definition["file"] if definition else None,
        "object": hsaco[0] if hsaco else None,
        "offload_archs": [arch] if arch else None,
    }
    return {
        "kwalk_schema": 1,
        "producer": Flow({"name": "kwalk_triton", "version": VERSION}),
        "translation_unit": Flow(tu),
        "kernels": [kernel],
        "launches": launches,
        "entries": [],
        "host_calls": [],
    }, "%s-%s.kwalk.yaml" % (name, digest[:16])


def write(out_dir, filename, text):
    os.makedirs(out_dir, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix="." + filename + ".", dir=out_dir)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, os.path.join(out_dir, filename))
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def record(out_dir, call):
    doc, filename = build(call)
    write(out_dir, filename, dump(doc))
    return os.path.join(out_dir, filename)
