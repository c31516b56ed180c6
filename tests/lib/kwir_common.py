"""kwir_common.py: what the IR-analysis checks share: the generated inputs
(gen_ir.sh), kwir-dump's YAML per kernel, demangled names, llvm-dis text per
function, source lines found by markers or patterns, kernel parameter lists
parsed from the source, and an expression evaluator for the facts grammar
written here independently of the C one (model/kw_expr.c).

Expected values in the checks come from the kernels' source (template
arguments, constants, types, markers) and from llvm-dis / llvm-objdump text,
never from kwir-dump's own output."""
import math
import os
import re
import subprocess

import yaml


# libyaml's loader when PyYAML has it (the same documents, many times faster)
YAML_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

WORK = os.environ.get("KWIR_WORK", "")
SRC = os.environ.get("KWIR_SRC", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                                              "passes"))
CORPUS = os.environ.get("KWIR_CORPUS", os.path.join(SRC, "..", "corpus"))
LLVM_BIN = os.environ.get("LLVM_BIN", "/usr/lib/llvm-22/bin")
KWIR_EXPR = os.environ.get("KWIR_EXPR", "")
# the build's arches (KWALK_HIP_ARCHS): gen_ir.sh compiled rmsnorm_quant_kernels
# and ir_kernels for each; everything else for gfx942
ARCHES = os.environ.get("KWALK_TEST_ARCHS", "gfx942").split(",")

SIZEOF = {"float": 4, "__half": 2, "__bf16": 2, "signed char": 1, "kw::fp8_e4m3": 1,
          "int": 4, "long": 8}


# The side under test named in an eq() failure (kwcheck.Checker's who).
WHO = "kwir-dump"


# ---- inputs ----------------------------------------------------------------------------------

_yaml_cache = {}


def load(name):
    """kwir-dump's kernels of WORK/name.yaml, keyed by symbol."""
    if name not in _yaml_cache:
        with open(os.path.join(WORK, name + ".yaml")) as f:
            doc = yaml.load(f, Loader=YAML_LOADER)
        ks = doc["kernels"] or []
        for k in ks:
            number_records(k)
        _yaml_cache[name] = {k["symbol"]: k for k in ks}
    return _yaml_cache[name]


# Lists whose records are numbered by their position (`id`, left out since
# kwalk_schema 3: docs/ir-facts.md).
NUMBERED = ("accesses", "cross_lane", "idioms", "loops")


def number_records(facts):
    """Give the records of the numbered lists of one kernel's IR facts their
    position as `id` where the file leaves it out (a copy of each, since an
    alias may share one record between positions)."""
    for key in NUMBERED:
        recs = facts.get(key) or []
        for i, r in enumerate(recs):
            if isinstance(r, dict) and "id" not in r:
                recs[i] = dict(r, id=i)


def demangle(symbols):
    out = subprocess.run([os.path.join(LLVM_BIN, "llvm-cxxfilt")], input="\n".join(symbols),
                         capture_output=True, text=True, check=True).stdout.splitlines()
    dm = dict(zip(symbols, out))
    # LLVM 19's demangler does not know DF16b (__bf16) and leaves such symbols
    # as they are; binutils' c++filt names them as LLVM 22's does
    left = [s for s in symbols if dm.get(s) == s and s.startswith("_Z")]
    if left:
        gnu = subprocess.run(["c++filt"], input="\n".join(left), capture_output=True, text=True,
                             check=True).stdout.splitlines()
        dm.update(zip(left, gnu))
    return dm


def kernels_by_name(name):
    """{demangled name: facts} of WORK/name.yaml."""
    ks = load(name)
    dm = demangle(list(ks))
    return {dm[s]: k for s, k in ks.items()}


def ll_functions(name):
    """{symbol: body text} of WORK/name.ll."""
    text = open(os.path.join(WORK, name + ".ll")).read()
    funcs = {}
    for m in re.finditer(r"^define [^@]*@([\w.$]+)\(.*?^}", text, re.S | re.M):
        funcs[m.group(1)] = m.group(0)
    return funcs


def ll_count(body, pattern):
    return len(re.findall(pattern, body))


# ---- source ------------------------------------------------------------------------------------

def markers(path, prefix="KWIR"):
    """{id: (kind, line)} for `// KWIR:<KIND> <id>` comments."""
    out = {}
    for no, line in enumerate(open(path), 1):
        for m in re.finditer(prefix + r":(\w+) ([\w.-]+)", line):
            out[m.group(2)] = (m.group(1), no)
    return out


def find_line(path, pattern, nth=0):
    """1-based line of the nth line matching regex pattern."""
    hits = [no for no, line in enumerate(open(path), 1) if re.search(pattern, line)]
    if len(hits) <= nth:
        raise AssertionError(f"{pattern!r} not found in {path}")
    return hits[nth]


def kernel_params(path, kernel):
    """Parameter names of `kernel`'s definition in the source, in order."""
    text = open(path).read()
    m = re.search(r"\b" + re.escape(kernel) + r"\s*\(\s*(?://[^\n]*\n)?(.*?)\)\s*\{", text, re.S)
    if not m:
        raise AssertionError(f"kernel {kernel} not found in {path}")
    params = []
    for p in m.group(1).split(","):
        p = re.sub(r"//[^\n]*", "", p).strip()
        params.append(re.findall(r"\w+", p)[-1])
    return params


# ---- the facts grammar, evaluated independently ---------------------------------------------------

_TOK = re.compile(r"\s*(?:(\d+(?:\.\d+)?)|(\$\d+|[A-Za-z_](?:[A-Za-z0-9_.]|#\d)*)|(.))")


def evaluate(expr, env):
    """Value of a facts expression; names from env. Raises on syntax errors or
    unknown names. `/` is exact division; ceil/floor round; log2 real; min/max n-ary."""
    toks = []
    pos = 0
    while pos < len(expr):
        m = _TOK.match(expr, pos)
        if not m or m.end() == pos:
            break
        pos = m.end()
        if m.group(1):
            toks.append(("num", float(m.group(1))))
        elif m.group(2):
            toks.append(("name", m.group(2)))
        elif m.group(3) and not m.group(3).isspace():
            toks.append(("op", m.group(3)))
    i = 0

    def peek():
        return toks[i] if i < len(toks) else ("end", None)

    def take(kind, val=None):
        nonlocal i
        t = peek()
        if t[0] != kind or (val is not None and t[1] != val):
            raise ValueError(f"{expr!r}: expected {val or kind} at token {i}, got {t}")
        i += 1
        return t

    def expr_():
        v = term()
        while peek() in (("op", "+"), ("op", "-")):
            op = take("op")[1]
            r = term()
            v = v + r if op == "+" else v - r
        return v

    def term():
        v = unary()
        while peek() in (("op", "*"), ("op", "/")):
            op = take("op")[1]
            r = unary()
            v = v * r if op == "*" else v / r
        return v

    def unary():
        if peek() == ("op", "-"):
            take("op")
            return -unary()
        return atom()

    def atom():
        t = peek()
        if t == ("op", "("):
            take("op")
            v = expr_()
            take("op", ")")
            return v
        if t[0] == "num":
            take("num")
            return t[1]
        if t[0] == "name":
            take("name")
            if peek() == ("op", "(") and t[1] in ("ceil", "floor", "log2", "min", "max"):
                take("op")
                args = [expr_()]
                while peek() == ("op", ","):
                    take("op")
                    args.append(expr_())
                take("op", ")")
                if t[1] == "ceil":
                    assert len(args) == 1
                    return math.ceil(args[0] - 1e-9)
                if t[1] == "floor":
                    assert len(args) == 1
                    return math.floor(args[0] + 1e-9)
                if t[1] == "log2":
                    assert len(args) == 1 and args[0] > 0
                    return math.log2(args[0])
                assert len(args) >= 2
                return min(args) if t[1] == "min" else max(args)
            if t[1] not in env:
                raise KeyError(f"{expr!r}: no value for {t[1]}")
            return env[t[1]]
        raise ValueError(f"{expr!r}: unexpected {t}")

    v = expr_()
    if i != len(toks):
        raise ValueError(f"{expr!r}: trailing tokens from {i}")
    return v


def value(v, env):
    """A kw_ir_val as YAML gives it (int, expression string, 'unknown') -> number or None."""
    if v == "unknown" or v is None:
        return None
    if isinstance(v, (int, float)):
        return v
    return evaluate(v, env)


def args_env(params, **values):
    """env for expressions over argN names, from source parameter names."""
    env = {}
    for name, val in values.items():
        if name in params:
            env["arg%d" % params.index(name)] = val
            env[name] = val
    return env
