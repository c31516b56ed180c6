"""_launch.py: the Python frames of a Triton launch.

From the listener's own frame outwards: the grid, positional values and
keywords Triton's JITFunction.run was given, the keywords Triton's
Heuristics and Autotuner frames on the way set, the first frame outside
Triton, Python's library, torch and this package (the frame that called
kernel[grid](...), or triton.compile(...) directly), the call's text read
from its source (callee, grid and arguments as written, via ast, each
argument bound to its parameter where that can be told), and the frames
above it up to the outermost user frame.
"""

import ast
import io
import linecache
import os
import sys
import sysconfig
import tokenize

_MAX_CHAIN = 32
_ast_cache = {}


def _dirs_of(modname):
    m = sys.modules.get(modname)
    f = getattr(m, "__file__", None) if m is not None else None
    return [os.path.dirname(os.path.abspath(f))] if f else []


def _internal_dirs():
    here = os.path.dirname(os.path.abspath(__file__))
    lib = []
    paths = sysconfig.get_paths()
    for key in ("stdlib", "platstdlib"):
        if paths.get(key):
            lib.append(os.path.abspath(paths[key]))
    return [here] + _dirs_of("triton") + _dirs_of("torch"), lib


def _under(path, dirs):
    return any(path == d or path.startswith(d + os.sep) for d in dirs)


def is_internal(filename, dirs):
    """True for frames of Triton, torch, this package and Python's library
    (site-packages and dist-packages other than those are user code)."""
    own, lib = dirs
    if filename.startswith("<") or not filename:
        return True
    path = os.path.abspath(filename)
    if _under(path, own):
        return True
    if _under(path, lib):
        parts = path.split(os.sep)
        return "site-packages" not in parts and "dist-packages" not in parts
    return False


def _position(frame):
    """(line, col0, end_line, end_col0) of the instruction the frame is at,
    or (line, None, None, None) where Python has no positions."""
    line = frame.f_lineno
    code = frame.f_code
    if hasattr(code, "co_positions") and frame.f_lasti >= 0:
        try:
            for i, pos in enumerate(code.co_positions()):
                if i == frame.f_lasti // 2:
                    if pos[0] is not None:  # (line, end_line, col, end_col)
                        return (pos[0], pos[2], pos[1], pos[3])
                    break
        except Exception:
            pass
    return (line, None, None, None)


def source_tree(filename):
    lines = linecache.getlines(filename)
    if not lines:
        return None, None
    text = "".join(lines)
    key = (filename, len(text), hash(text))
    hit = _ast_cache.get(filename)
    if hit is not None and hit[0] == key:
        return hit[1], text
    try:
        tree = ast.parse(text, filename)
    except (SyntaxError, ValueError):
        tree = None
    _ast_cache[filename] = (key, tree)
    return tree, text


def _call_at(filename, pos):
    """The ast.Call the frame is executing: the one with exactly the
    instruction's span, else the innermost kernel[...](...) call on its line."""
    tree, text = source_tree(filename)
    if tree is None:
        return None, text
    line, col, end_line, end_col = pos
    exact, around = None, []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or not hasattr(node, "end_lineno"):
            continue
        if col is not None and (node.lineno, node.col_offset, node.end_lineno, node.end_col_offset) == (
            line,
            col,
            end_line,
            end_col,
        ):
            exact = node
        if node.lineno <= line <= node.end_lineno and isinstance(node.func, ast.Subscript):
            around.append(node)
    if exact is not None and isinstance(exact.func, ast.Subscript):
        return exact, text
    if around:
        around.sort(key=lambda n: (n.end_lineno - n.lineno, n.end_col_offset - n.col_offset))
        return around[0], text
    return exact, text


def _uncommented(s):
    """s with its comments blanked (a segment over several lines may hold
    some); s itself when it does not tokenize."""
    if "#" not in s:
        return s
    lines = s.splitlines(True)
    try:
        for tok in tokenize.generate_tokens(io.StringIO(s).readline):
            if tok.type == tokenize.COMMENT:
                row, col = tok.start
                ln = lines[row - 1]
                lines[row - 1] = ln[:col] + " " * (tok.end[1] - col) + ln[tok.end[1]:]
    except (tokenize.TokenError, SyntaxError, IndexError):
        return s
    return "".join(lines)


def _seg(text, node):
    """The node's source text, comments out, each run of blanks and line
    breaks one blank."""
    s = ast.get_source_segment(text, node)
    return " ".join(_uncommented(s).split()) if s is not None else None


def _func_name(code):
    return getattr(code, "co_qualname", None) or code.co_name


def _grid_value(grid):
    if isinstance(grid, tuple) and 1 <= len(grid) <= 3 and all(type(g) is int for g in grid):
        return list(grid) + [1] * (3 - len(grid))
    return None


def _bind(call, text, params, npos):
    """[(param, expr[, params])] for the call's arguments as written.
    Positional ones before a starred argument bind by position; those after
    the last starred one bind from the end of the npos positional values
    JITFunction.run received (None when npos is not known); those between
    two starred ones, and the starred ones themselves, bind to no single
    parameter (None). A call's only starred argument also gets the
    parameters its values bound (params), when npos is known."""
    stars = [i for i, a in enumerate(call.args) if isinstance(a, ast.Starred)]
    args = []
    for i, a in enumerate(call.args):
        if isinstance(a, ast.Starred):
            rec = (None, "*" + (_seg(text, a.value) or "?"))
            end = npos - (len(call.args) - i - 1) if npos is not None else None
            if len(stars) == 1 and end is not None and i <= end <= len(params):
                rec += (params[i:end],)  # the one star: what lies between the placed ones
            args.append(rec)
            continue
        if not stars or i < stars[0]:
            p = i
        elif i > stars[-1] and npos is not None and npos >= len(call.args) - len(stars):
            p = npos - (len(call.args) - i)
        else:
            p = None
        args.append((params[p] if p is not None and 0 <= p < len(params) else None, _seg(text, a)))
    for kw in call.keywords:
        if kw.arg is None:
            args.append((None, "**" + (_seg(text, kw.value) or "?")))
        else:
            args.append((kw.arg, _seg(text, kw.value)))
    return args


def _code_loc(fn):
    """{file, line} of a Python function's def (a heuristic's lambda), or None."""
    code = getattr(fn, "__code__", None)
    if code is None or not code.co_filename or code.co_filename.startswith("<"):
        return None
    return {"file": os.path.abspath(code.co_filename), "line": code.co_firstlineno, "column": 1}


def _wrapper(frame, seen):
    """("heuristics" | "autotune", {name: location or None}) for a frame of
    Triton's Heuristics or Autotuner (the decorators' run between the user's
    kernel[grid](...) and JITFunction.run), else None."""
    try:
        me = frame.f_locals.get("self")
    except Exception:
        return None
    if me is None or id(me) in seen:
        return None
    cls = type(me).__name__
    values = getattr(me, "values", None)
    if "Heuristic" in cls and isinstance(values, dict):
        seen.add(id(me))
        return "heuristics", {str(k): _code_loc(v) for k, v in values.items()}
    configs = getattr(me, "configs", None)
    if "Autotune" in cls and configs is not None:
        seen.add(id(me))  # every config's keys: the autotuner sets them, whichever config ran
        names = {}
        for config in configs:
            kwargs = getattr(config, "kwargs", None)
            for k in kwargs if isinstance(kwargs, dict) else ():
                names[str(k)] = None
        return "autotune", names
    return None


def _user_frame(frame, dirs):
    """The first frame from frame outwards that is not internal, and what
    the internal frames on the way show: (frame, run frame or None, the
    wrappers (kind, names) innermost first)."""
    run, wrappers, seen = None, [], set()
    while frame is not None and is_internal(frame.f_code.co_filename, dirs):
        if run is None and frame.f_code.co_name == "run" and "grid" in frame.f_code.co_varnames:
            run = frame  # Triton's JITFunction.run(*args, grid=..., ...)
        elif run is not None:
            w = _wrapper(frame, seen)
            if w is not None:
                wrappers.append(w)
        frame = frame.f_back
    return frame, run, wrappers


def _run_locals(run):
    """(grid, the number of positional values, the keyword names) that
    JITFunction.run was given; None for what it does not show."""
    try:
        loc = run.f_locals
    except Exception:
        return None, None, None
    args, kwargs = loc.get("args"), loc.get("kwargs")
    return (
        loc.get("grid"),
        len(args) if isinstance(args, tuple) else None,
        set(kwargs) if isinstance(kwargs, dict) else None,
    )


def compiled_at():
    """The frame that called triton.compile(...) directly (no launch): a dict
    with file, line, column and function, or None."""
    dirs = _internal_dirs()
    frame, run, _ = _user_frame(sys._getframe(1), dirs)
    if frame is None or run is not None:
        return None
    pos = _position(frame)
    return {
        "file": os.path.abspath(frame.f_code.co_filename),
        "line": pos[0],
        "column": (pos[1] + 1) if pos[1] is not None else 1,
        "function": _func_name(frame.f_code),
    }


def find(params):
    """The launch seen from here: a dict with location, function, kernel
    expression, grid (expr/value), args [(param, expr)], chain, and what
    set each keyword JITFunction.run received (set_by: {name: (kind,
    location)} for the autotuner's config and heuristics; npos, kwargs), or
    None when the compile was not reached through JITFunction.run (a direct
    triton.compile) or no user frame called into Triton."""
    dirs = _internal_dirs()
    frame, run, wrappers = _user_frame(sys._getframe(1), dirs)
    if frame is None or run is None:
        return None
    grid, npos, kwargs = _run_locals(run)
    set_by = {}
    for kind, names in wrappers:  # innermost first: the last to set a name wins
        for name, loc in names.items():
            set_by.setdefault(name, (kind, loc))
    filename = os.path.abspath(frame.f_code.co_filename)
    pos = _position(frame)
    launch = {
        "file": filename,
        "line": pos[0],
        "column": 1,
        "function": _func_name(frame.f_code),
        "set_by": set_by,
        "npos": npos,
        "kwargs": kwargs,
    }
    call, text = _call_at(frame.f_code.co_filename, pos)
    if call is not None and isinstance(call.func, ast.Subscript):
        launch["line"], launch["column"] = call.lineno, call.col_offset + 1
        launch["kernel_expr"] = _seg(text, call.func.value)
        launch["grid_expr"] = _seg(text, call.func.slice)
        launch["args"] = _bind(call, text, params, npos)
    elif pos[1] is not None:
        launch["column"] = pos[1] + 1
    launch["grid_value"] = _grid_value(grid)
    chain = []
    f = frame.f_back
    while f is not None and len(chain) < _MAX_CHAIN:
        if not is_internal(f.f_code.co_filename, dirs):
            p = _position(f)
            chain.append(
                {
                    "function": _func_name(f.f_code),
                    "file": os.path.abspath(f.f_code.co_filename),
                    "line": p[0],
                    "column": (p[1] + 1) if p[1] is not None else 1,
                }
            )
        f = f.f_back
    launch["chain"] = chain
    return launch
