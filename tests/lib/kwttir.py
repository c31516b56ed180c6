"""kwttir.py: ground truth from a Triton cache's IR text, read with regular
expressions, for the tests of the TTGIR reading (model.ttgir, triton.dot):
the Python position (line, column) of each tt.dot through the #loc table,
the trip counts of the scf.for loops around each tt.dot of a NAME.ttir (the
IR before pipelining: the Python loop as written), its bounds evaluated
through the TTIR's own integer arith ops, and kwalk's trip-count
expressions (C integer arithmetic) evaluated for the same arguments."""
import math
import re
from fractions import Fraction


def loc_table(text):
    return {m.group(1): m.group(2) for m in re.finditer(r"^#(loc\d*) = loc\((.*)\)$", text, re.M)}


def position(locs, lid):
    """(line, column) of a #loc alias, through names and call sites."""
    for _ in range(64):
        body = locs.get(lid)
        if body is None:
            return None
        f = re.match(r'^"[^"]*":(\d+):(\d+)$', body)
        if f:
            return int(f.group(1)), int(f.group(2))
        r = re.match(r'^(?:callsite\(#|"[^"]*"\(#)(loc\d*)', body)
        if not r:
            return None
        lid = r.group(1)
    return None


def dot_positions(text):
    """[(line, column)] of the tt.dot ops of an IR text, in order."""
    locs = loc_table(text)
    return [position(locs, m.group(1)) for m in
            re.finditer(r"^\s+%[\w.$-]+ = tt\.dot .* loc\(#(loc\d*)\)$", text, re.M)]


def int_args(text):
    """The names of the public function's integer arguments."""
    args = re.search(r"tt\.func public @\w+\((.*?)\) attributes", text)
    return re.findall(r"%(\w+): i(?:32|64)\b", args.group(1)) if args else []


ARITH = {"addi": lambda a, b: a + b, "subi": lambda a, b: a - b, "muli": lambda a, b: a * b,
         "divsi": lambda a, b: int(a / b), "remsi": lambda a, b: a - int(a / b) * b,
         "minsi": min, "maxsi": max, "ceildivsi": lambda a, b: -(-a // b)}


def ttir_dot_trips(text, env):
    """{(line, column): trips} of the tt.dot ops of a NAME.ttir: the product
    of the trip counts of the scf.for loops around each, the bounds
    evaluated through the TTIR's integer arith ops with env binding the
    function's arguments (program ids 0); None where a bound is not such."""
    locs = loc_table(text)
    vals, stack, out = dict(env), [], {}

    def val(name):
        return vals.get(name)
    for line in text.splitlines():
        s = line.strip()
        m = re.match(r"^(%[\w.$-]+) = arith\.constant (-?\d+) : i\d+", s)
        if m:
            vals[m.group(1)] = int(m.group(2))
        m = re.match(r"^(%[\w.$-]+) = tt\.get_program_id [xyz] : i32", s)
        if m:
            vals[m.group(1)] = 0
        m = re.match(r"^(%[\w.$-]+) = arith\.(\w+) (%[\w.$-]+), (%[\w.$-]+) : i\d+ ", s)
        if m and m.group(2) in ARITH and val(m.group(3)) is not None and \
                val(m.group(4)) is not None:
            vals[m.group(1)] = ARITH[m.group(2)](val(m.group(3)), val(m.group(4)))
        if s.startswith("}") and stack:  # a region closes ("} else {": and one opens)
            stack.pop()
        m = re.search(r"scf\.for %[\w.$-]+ = (%[\w.$-]+) to (%[\w.$-]+) step (%[\w.$-]+)", s)
        if m:
            lb, ub, st = (val(x) for x in m.groups())
            trips = max(0, -(-(ub - lb) // st)) if None not in (lb, ub, st) else None
            stack.append(["for", trips])
        elif s.endswith("{"):
            stack.append(["other", None])
        d = re.match(r"^%[\w.$-]+ = tt\.dot .* loc\(#(loc\d*)\)$", s)
        if d:
            t = 1
            for kind, n in stack:
                if kind == "for":
                    t = None if t is None or n is None else t * n
            out[position(locs, d.group(1))] = t
    return out


def c_eval(expr, env):
    """The model's expression (C integer arithmetic) with env bound."""
    py = re.sub(r"(?<![/])/(?![/])", "//", expr)
    names = dict(env, min=min, max=max, blockIdx_x=0, blockIdx_y=0, blockIdx_z=0)
    py = py.replace("blockIdx.", "blockIdx_")
    return eval(py, {"__builtins__": {}}, names)  # noqa: S307 - a test's own arithmetic


def ir_eval(expr, env):
    """An IR facts expression (docs/ir-facts.md: '/' exact, floor, ceil, max,
    min) with env bound, in exact fractions."""
    names = {k: Fraction(v) for k, v in env.items()}
    names.update(floor=math.floor, ceil=math.ceil, max=max, min=min, blockIdx_x=0)
    py = re.sub(r"(\d+)", r"Fraction(\1)", expr.replace("blockIdx.", "blockIdx_"))
    names["Fraction"] = Fraction
    return eval(py, {"__builtins__": {}}, names)  # noqa: S307 - a test's own arithmetic
