#!/usr/bin/env python3
"""test_triton_launch_shapes.py: Triton launches shaped as aiter's wrappers
write them, through the hook (python/kwalk_triton) and the stand-in `triton`
(tests/triton/fake), indexed without Triton's cache and rendered.

  test_triton_launch_shapes.py --source-dir SRC --kwalk KWALK

The program is a small package laid out as aiter's (`pkg/_triton_kernels/`
holds the @triton.jit kernels, `pkg/ops/` the wrappers launching them) with
a model tree calling the wrappers. Its launches: positional arguments after
`*x.stride()` (rope, quant), a kernel launched under another name (`impl =
kernel; impl[grid](...)`, an autotuned kernel bound to another variable),
constexprs from `@triton.heuristics`, from an autotune `triton.Config`, from
defaults and from the launch, and a direct `triton.compile(...)`.

Expected values come from the program's own source (marker comments
`# KWT:<KIND> <id>`, the calls and defs parsed with Python's ast, Python's
own argument binding of the values the stars expand to), never from the
hook's sidecars or kwalk's pages.
"""
import argparse
import ast
import inspect
import os
import re
import subprocess
import sys
import tempfile
import textwrap
import unittest

import yaml

ARGS = None
NDIM = 3  # the stand-in tensor's x.stride() yields NDIM values

FILES = {
    "proj/pkg/__init__.py": "",
    "proj/pkg/_triton_kernels/__init__.py": "",
    "proj/pkg/_triton_kernels/rope.py": '''
        import triton


        @triton.jit
        def _rope_fwd_kernel(x_ptr, out_ptr, stride_s, stride_h, stride_d, S, H,  # KWT:JIT rope
                             D: "tl.constexpr", BLOCK_S: "tl.constexpr", HAVE_NOPE: "tl.constexpr" = False):
            pass
        ''',
    "proj/pkg/_triton_kernels/quant.py": '''
        import triton


        @triton.jit
        def _act_quant_kernel(x_ptr, sx0, sx1, sx2, y_ptr, sy0, sy1, sy2, n_rows,  # KWT:JIT quant
                              BLOCK: "tl.constexpr"):
            pass
        ''',
    "proj/pkg/_triton_kernels/gemm.py": '''
        import triton


        @triton.heuristics({"EVEN_K": lambda args: args["K"] % args["BLOCK_K"] == 0})  # KWT:HEUR gemm
        @triton.jit
        def _gemm_a8w8_kernel(a_ptr, b_ptr, c_ptr, M, N, K,  # KWT:JIT gemm
                              BLOCK_M: "tl.constexpr", BLOCK_K: "tl.constexpr", EVEN_K: "tl.constexpr",
                              GROUP_M: "tl.constexpr" = 4):
            pass


        @triton.autotune(configs=[triton.Config({"KV_BLOCK": 16}, num_warps=4),  # KWT:AUTOTUNE pa
                                  triton.Config({"KV_BLOCK": 32}, num_warps=8)], key=["n"])
        @triton.jit
        def _pa_decode_kernel(q_ptr, k_ptr, out_ptr, n, KV_BLOCK: "tl.constexpr",  # KWT:JIT pa
                              HEAD: "tl.constexpr" = 128):
            pass


        @triton.jit
        def _silu_mul_kernel(x_ptr, y_ptr, n, BLOCK: "tl.constexpr"):  # KWT:JIT silu
            pass


        silu_tuned = triton.autotune(configs=[triton.Config({"BLOCK": 1024}, num_warps=8)],
                                     key=["n"])(_silu_mul_kernel)


        @triton.jit
        def _probe_kernel(x_ptr, B: "tl.constexpr"):  # KWT:JIT probe
            pass


        @triton.jit
        def _table_kernel(x_ptr, B: "tl.constexpr"):  # KWT:JIT table
            pass
        ''',
    "proj/pkg/ops/__init__.py": "",
    "proj/pkg/ops/tensor.py": '''
        NDIM = %d


        class T:
            """A stand-in tensor: x.stride() yields NDIM values."""

            def __init__(self, *shape):
                self.shape = shape

            def stride(self):
                out, s = [], 1
                for d in reversed(self.shape):
                    out.append(s)
                    s *= d
                return tuple(reversed(out))
        ''' % NDIM,
    "proj/pkg/ops/rope.py": '''
        from pkg._triton_kernels.rope import _rope_fwd_kernel


        def rope_fwd(x, out):
            s, h, d = x.shape
            grid = (s, h)
            _rope_fwd_kernel[grid](  # KWT:LAUNCH rope
                x, out, *x.stride(), s, h,
                D=d, BLOCK_S=16,
            )
        ''',
    "proj/pkg/ops/quant.py": '''
        from pkg._triton_kernels.quant import _act_quant_kernel


        def act_quant(x, y):
            n_rows = x.shape[0]
            _act_quant_kernel[(n_rows,)](x, *x.stride(), y, *y.stride(), n_rows, BLOCK=256)  # KWT:LAUNCH quant
        ''',
    "proj/pkg/ops/gemm.py": '''
        from pkg._triton_kernels.gemm import _gemm_a8w8_kernel, _pa_decode_kernel, _table_kernel, silu_tuned

        _TABLE = {"bf16": _table_kernel}


        def gemm_a8w8(a, b, c, m, n, k):
            impl = _gemm_a8w8_kernel
            grid = ((m + 63) // 64,)
            impl[grid](a, b, c, m, n, k, BLOCK_M=64, BLOCK_K=128)  # KWT:LAUNCH gemm


        def pa_decode(q, kc, out, n):
            kernel = _pa_decode_kernel
            kernel[(n,)](q, kc, out, n)  # KWT:LAUNCH pa


        def silu_and_mul(x, y, n):
            silu_tuned[lambda META: (n // META["BLOCK"],)](x, y, n)  # KWT:LAUNCH silu


        def table_op(x, dtype):
            _TABLE[  # KWT:LAUNCH table
                dtype][(1,)](x, B=32)
        ''',
    "proj/run.py": '''
        import triton
        from triton.compiler import ASTSource, GPUTarget

        from pkg._triton_kernels.gemm import _probe_kernel
        from pkg.ops.gemm import gemm_a8w8, pa_decode, silu_and_mul, table_op
        from pkg.ops.quant import act_quant
        from pkg.ops.rope import rope_fwd
        from pkg.ops.tensor import T

        for op in (lambda: rope_fwd(T(8, 4, 64), T(8, 4, 64)),
                   lambda: act_quant(T(32, 2, 128), T(32, 2, 128)),
                   lambda: gemm_a8w8("a", "b", "c", 256, 256, 512),
                   lambda: pa_decode("q", "k", "o", 7),
                   lambda: silu_and_mul("x", "y", 4096),
                   lambda: table_op("x", "bf16")):
            try:
                op()
            except RuntimeError:
                pass
        triton.compile(ASTSource(_probe_kernel, {"x_ptr": "*fp32", "B": "constexpr"}, {(1,): 64}),  # KWT:COMPILE probe
                       GPUTarget("hip", "gfx942", 64), {})
        print("PROGRAM-DONE")
        ''',
    "model/mymodel/__init__.py": "",
    "model/mymodel/layers.py": '''
        from pkg.ops.rope import rope_fwd


        class Attention:
            def forward(self, x, out):
                rope_fwd(x, out)
        ''',
}


def read(path):
    with open(path) as f:
        return f.read()


def markers(root):
    """{(kind, id): (file, line)} of `# KWT:KIND id` comments under root."""
    out = {}
    for d, _, files in os.walk(root):
        for f in files:
            if f.endswith(".py"):
                p = os.path.join(d, f)
                for n, line in enumerate(read(p).splitlines(), 1):
                    for kind, ident in re.findall(r"#\s*KWT:([A-Z]+)\s+([\w.-]+)", line):
                        out[(kind, ident)] = (p, n)
    return out


def call_at(path, line):
    """The kernel[grid](...) call starting at line (ast), and the file text."""
    text = read(path)
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Subscript) and node.lineno == line:
            return node, text
    return None, text


def def_params(path, line):
    """The parameter names of the def at line (ast)."""
    for node in ast.walk(ast.parse(read(path))):
        if isinstance(node, ast.FunctionDef) and node.lineno == line:
            return [a.arg for a in node.args.args]
    return None


def python_binding(call, text, params):
    """[(param or None, expr, between, star_params)] by Python's own rules
    (inspect.Signature.bind) with every starred argument expanded to NDIM
    values: the truth. The hook may say None (not known) only for a
    positional between two starred arguments (between); star_params are the
    parameters a starred argument's values bind."""
    slots, exprs = [], []
    stars = [i for i, a in enumerate(call.args) if isinstance(a, ast.Starred)]
    for i, a in enumerate(call.args):
        if isinstance(a, ast.Starred):
            exprs.append(("*" + ast.get_source_segment(text, a.value), list(range(len(slots), len(slots) + NDIM))))
            slots += [i] * NDIM
        else:
            exprs.append((ast.get_source_segment(text, a), [len(slots)]))
            slots.append(i)
    sig = inspect.Signature([inspect.Parameter(p, inspect.Parameter.POSITIONAL_OR_KEYWORD) for p in params])
    kw = {k.arg: k.arg for k in call.keywords if k.arg}
    bound = sig.bind_partial(*range(len(slots)), **kw).arguments  # param -> slot index
    by_slot = {v: p for p, v in bound.items() if isinstance(v, int)}
    out = []
    for i, (expr, at) in enumerate(exprs):
        between = len(stars) > 1 and stars[0] < i < stars[-1]
        if expr.startswith("*"):
            out.append((None, expr, between, [by_slot[x] for x in at]))
        else:
            out.append((by_slot[at[0]], expr, between, None))
    for k in call.keywords:
        out.append((k.arg, ast.get_source_segment(text, k.value), False, None))
    return out


def section(page, title):
    m = re.search(r"^## " + re.escape(title) + r".*?$(.*?)(?=^## |\Z)", page, re.M | re.S)
    return m.group(1) if m else ""


def table_after(text, lead):
    """The rows (cells) of the first Markdown table after the line starting with lead."""
    part = text.split(lead, 1)
    if len(part) < 2:
        return []
    rows = []
    for line in part[1].lstrip("\n").splitlines():
        if not line.startswith("|"):
            if rows:
                break
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if set("".join(cells)) <= set("-: "):
            continue
        rows.append(cells)
    return rows[1:]  # the header row aside


def code(cell):
    m = re.fullmatch(r"`(.*)`", cell or "")
    return m.group(1) if m else cell


class LaunchShapes(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory(prefix="kwalk-tshapes-")
        d = cls.dir = cls.tmp.name
        for rel, text in FILES.items():
            p = os.path.join(d, rel)
            os.makedirs(os.path.dirname(p), exist_ok=True)
            with open(p, "w") as f:
                f.write(textwrap.dedent(text).lstrip("\n"))
        cls.proj = os.path.join(d, "proj")
        cls.model = os.path.join(d, "model")
        cls.out = os.path.join(d, "sidecars")
        env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1", FAKE_TRITON_CACHE=os.path.join(d, "cache"),
                   KWALK_TRITON_DIR=cls.out, KWALK_IRFACTS="off")
        env["PYTHONPATH"] = os.pathsep.join([cls.proj, os.path.join(ARGS.source_dir, "tests/triton/fake"),
                                             os.path.join(ARGS.source_dir, "python")])
        p = subprocess.run([sys.executable, os.path.join(cls.proj, "run.py")], env=env, cwd=d,
                           capture_output=True, text=True, timeout=120)
        assert p.returncode == 0 and "PROGRAM-DONE" in p.stdout and "kwalk: warning" not in p.stderr, \
            (p.stdout, p.stderr)
        cls.mk = markers(d)
        cls.docs = []
        for f in sorted(os.listdir(cls.out)):
            with open(os.path.join(cls.out, f)) as fh:
                cls.docs.append(yaml.safe_load(fh.read().replace("\n...\n", "\n")))
        # indexed without --triton-cache, as a user with the hook's sidecars alone
        cls.db = os.path.join(d, "t.db")
        subprocess.run([ARGS.kwalk, "index", cls.out, "-o", cls.db], check=True, capture_output=True)
        cls.pages_dir = os.path.join(d, "pages")
        subprocess.run([ARGS.kwalk, "render", "--all", "--db", cls.db, "-o", cls.pages_dir],
                       check=True, capture_output=True)
        cls.pages = {}
        for doc in cls.docs:
            k = doc["kernels"][0]
            name = "%s-%s.md" % (k["name"], k["triton"]["hash"][:12])
            cands = [x for x in os.listdir(cls.pages_dir) if x.startswith(k["name"]) and x.endswith(".md")]
            for c in cands:
                text = read(os.path.join(cls.pages_dir, c))
                if k["triton"]["hash"] in text:
                    cls.pages[k["symbol"]] = text
            del name

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def docs_of(self, kid):
        """The sidecars of the kernel with marker KWT:JIT kid (its def line)."""
        f, line = self.mk[("JIT", kid)]
        out = [d for d in self.docs if d["kernels"][0]["location"] == {"file": f, "line": line, "column": 1}]
        self.assertTrue(out, "a sidecar of %s" % kid)
        return out

    def page_of(self, doc):
        page = self.pages.get(doc["kernels"][0]["symbol"])
        self.assertIsNotNone(page, "a page of %s" % doc["kernels"][0]["symbol"])
        return page

    # ---- a positional argument after a starred one ----

    def test_starred_binding(self):
        checked = 0
        for kid in ("rope", "quant"):
            lf, ll = self.mk[("LAUNCH", kid)]
            call, text = call_at(lf, ll)
            jf, jl = self.mk[("JIT", kid)]
            want = python_binding(call, text, def_params(jf, jl))
            for doc in self.docs_of(kid):
                (ln,) = doc["launches"]
                got = [(a.get("param"), a["expr"], a.get("params")) for a in ln["args"]]
                self.assertEqual(len(got), len(want))
                one_star = sum(1 for _, we, _, _ in want if we.startswith("*")) == 1
                for (gp, ge, gps), (wp, we, between, wps) in zip(got, want):
                    self.assertEqual(ge, we)
                    if between or we.startswith("*"):
                        self.assertIsNone(gp, "%s: %s is not placed" % (kid, we))
                        # the only star: the parameters its values bound
                        self.assertEqual(gps, wps if we.startswith("*") and one_star else None)
                    else:
                        self.assertEqual(gp, wp, "%s: %s binds %s" % (kid, we, wp))
                        checked += 1
                # the page: the same table, "not known" where it is not placed
                host = section(self.page_of(doc), "1. Host Side")
                rows = table_after(host, "Arguments as written at the launch:")
                self.assertEqual([code(r[2]) for r in rows], [we for _, we, _, _ in want])
                for r, (wp, we, between, wps) in zip(rows, want):
                    if we.startswith("*") and one_star:
                        self.assertEqual(r[0], ", ".join("`%s`" % p for p in wps))
                    elif we.startswith("*"):
                        self.assertEqual(r[0], "-")
                    elif between:
                        self.assertEqual(r[0], "not known")
                    else:
                        self.assertEqual(code(r[0]), wp)
        # rope: `s` and `h` after *x.stride() are S and H; quant: `n_rows` after the last star
        self.assertGreaterEqual(checked, 6)

    # ---- a kernel launched under another name ----

    def test_launch_under_another_name(self):
        # table: a dispatch table's entry, its subscript over two lines
        for kid in ("gemm", "pa", "silu", "table"):
            lf, ll = self.mk[("LAUNCH", kid)]
            call, text = call_at(lf, ll)
            seg = ast.get_source_segment(text, call.func.value)
            callee = " ".join(re.sub(r"#[^\n]*", "", seg).split())  # no string holds a '#' here
            for doc in self.docs_of(kid):
                (ln,) = doc["launches"]
                self.assertEqual(ln["callee"], callee)
                self.assertEqual(ln["location"]["line"], ll)
                host = section(self.page_of(doc), "1. Host Side")
                self.assertNotIn("source changed since the build", host)
                end = "-%d" % call.end_lineno if call.end_lineno > ll else ""
                self.assertIn("```python\n# %s:%d%s\n" % (lf, ll, end), host)  # the statement quoted
                self.assertIn("%d | %s" % (ll, text.splitlines()[ll - 1]), host)
                self.assertIn("launches `%s[" % callee, host)

    # ---- where each constexpr value came from ----

    def test_constexpr_provenance(self):
        heur, auto, comp = self.mk[("HEUR", "gemm")], self.mk[("AUTOTUNE", "pa")], self.mk[("COMPILE", "probe")]
        loc = lambda at: {"file": at[0], "line": at[1], "column": 1}  # noqa: E731
        want = {
            "rope": {"D": ("hook", None), "BLOCK_S": ("hook", None), "HAVE_NOPE": ("default", None)},
            "quant": {"BLOCK": ("hook", None)},
            "gemm": {"BLOCK_M": ("hook", None), "BLOCK_K": ("hook", None),
                     "EVEN_K": ("heuristics", loc(heur)), "GROUP_M": ("default", None)},
            "pa": {"KV_BLOCK": ("autotune", loc(auto)), "HEAD": ("default", None)},
            "silu": {"BLOCK": ("autotune", None)},  # autotune(...)(fn): no decorator line
            "probe": {"B": ("compile", dict(loc(comp), column=comp_col(comp)))},
        }
        words = {"hook": "the launch passed it: ", "default": "'s default, not passed",
                 "heuristics": "`@triton.heuristics` computed it", "autotune": "the autotuner ran",
                 "compile": "`triton.compile(...)` passed it"}
        seen = 0
        for kid, names in want.items():
            for doc in self.docs_of(kid):
                got = {c["name"]: (c["from"], c.get("location")) for c in doc["kernels"][0]["triton"]["constexprs"]}
                self.assertEqual(got, names, kid)
                host = section(self.page_of(doc), "1. Host Side")
                rows = {code(r[0]): r[2] for r in table_after(host, "as template arguments do in C++:")}
                self.assertEqual(sorted(rows), sorted(names))
                for n, (frm, at) in names.items():
                    self.assertIn(words[frm], rows[n], "%s.%s" % (kid, n))
                    if frm != "hook":
                        self.assertNotIn("the launch passed it", rows[n])
                    if at is not None:
                        self.assertIn("`%s:%d`" % (at["file"], at["line"]), rows[n])
                    seen += 1
        self.assertGreaterEqual(seen, 12)

    # ---- the stand-in does what real Triton did ----

    def test_agrees_with_real_triton(self):
        # tests/triton/real/sidecars-hip: the same kernels and launches run
        # inside Triton 3.6 for gfx942 (scripts/triton-real.sh), each launch
        # failing as here. There an int argument equal to 1 (a stride) is
        # specialized, typed constexpr; and the two-config autotune compiled
        # only its first config: the failed launch left the benchmark.
        real = os.path.join(ARGS.source_dir, "tests/triton/real/sidecars-hip")
        rdocs = [yaml.safe_load(read(os.path.join(real, f)).replace("\n...\n", "\n"))
                 for f in sorted(os.listdir(real))]
        by_name = lambda docs, n: [d for d in docs if d["kernels"][0]["name"] == n]  # noqa: E731
        for kid, name in (("rope", "_rope_fwd_kernel"), ("quant", "_act_quant_kernel"),
                          ("pa", "_pa_decode_kernel")):
            (r,) = by_name(rdocs, name)
            mine = self.docs_of(kid)
            self.assertEqual(len(mine), len(by_name(rdocs, name)), kid)
            kinds = lambda d: [(p["name"], p["type"] == "constexpr") for p in d["kernels"][0]["params"]]  # noqa: E731
            self.assertEqual(kinds(mine[0]), kinds(r), kid)
            cx = lambda d: {c["name"]: c["value"] for c in d["kernels"][0]["triton"]["constexprs"]}  # noqa: E731
            self.assertEqual(cx(mine[0]), cx(r), kid)

    # ---- a direct triton.compile(...) ----

    def test_direct_compile_page(self):
        f, line = self.mk[("COMPILE", "probe")]
        (doc,) = self.docs_of("probe")
        self.assertEqual(doc["launches"], [])
        self.assertEqual(doc["kernels"][0]["triton"]["compiled_at"],
                         {"file": f, "line": line, "column": comp_col((f, line))})
        host = section(self.page_of(doc), "1. Host Side")
        self.assertIn("Compiled directly, not launched: `triton.compile(...)` at `%s:%d`" % (f, line), host)
        self.assertNotIn("No launch recorded", host)
        self.assertNotIn("cache-only", host)

    # ---- hook sidecars indexed without --triton-cache ----

    def test_hook_only_index_words(self):
        for doc in self.docs:
            isa = section(self.page_of(doc), "5. AMD ISA")
            self.assertIn("--triton-cache", isa)
            self.assertNotIn("plugin", isa)
            self.assertNotIn("host job", isa)
            self.assertIn("`%s`" % doc["kernels"][0]["triton"]["cache_dir"], isa)
        index = read(os.path.join(self.pages_dir, "index.md"))
        head = re.search(r"^Generated by kwalk from .*$", index, re.M).group(0)
        self.assertNotIn("templates", head)
        self.assertNotIn("the compiler recorded", head)
        jits = len([k for k in self.mk if k[0] == "JIT"])
        self.assertIn(": %d Triton specializations of %d `@triton.jit` functions," % (len(self.docs), jits),
                      head)

    def test_mixed_index_words(self):
        # with a HIP sidecar beside them (tests/sidecar's rmsnorm: its kernels
        # counted from the file), both kinds are counted apart
        hip = os.path.join(ARGS.source_dir, "tests/sidecar/fixtures/good/a/rmsnorm.kwalk.yaml")
        nhip = len(yaml.safe_load(read(hip).replace("\n...\n", "\n"))["kernels"])
        sc = os.path.join(self.dir, "mixed")
        os.makedirs(sc, exist_ok=True)
        for f in os.listdir(self.out):
            with open(os.path.join(sc, f), "w") as fh:
                fh.write(read(os.path.join(self.out, f)))
        with open(os.path.join(sc, "rmsnorm.kwalk.yaml"), "w") as fh:
            fh.write(read(hip))
        db, out = os.path.join(self.dir, "mixed.db"), os.path.join(self.dir, "mixed-pages")
        subprocess.run([ARGS.kwalk, "index", sc, "-o", db], check=True, capture_output=True)
        subprocess.run([ARGS.kwalk, "render", "--all", "--db", db, "-o", out], check=True, capture_output=True)
        head = re.search(r"^Generated by kwalk from .*$", read(os.path.join(out, "index.md")), re.M).group(0)
        self.assertIn(": %d kernels (%d HIP instantiations, %d Triton specializations) of " %
                      (nhip + len(self.docs), nhip, len(self.docs)), head)
        self.assertIn("every location is the file:line the compiler, the hook or Triton's cache recorded",
                      head)

    # ---- --python-root one folder too deep ----

    def test_python_root_too_deep(self):
        (doc,) = self.docs_of("rope")
        deep = os.path.join(self.proj, "pkg")

        def render(root, model=self.model):
            out = os.path.join(self.dir, "render-%s-%s" % (os.path.basename(model), os.path.basename(root)))
            p = subprocess.run([ARGS.kwalk, "render", "--all", "--db", self.db, "-o", out,
                                "--python-root", model, "--python-root", root],
                               capture_output=True, text=True, timeout=120)
            self.assertEqual(p.returncode, 0, p.stderr)
            name = [x for x in os.listdir(out) if x.startswith("_rope_fwd_kernel")]
            self.assertEqual(len(name), 1)
            return read(os.path.join(out, name[0])), p.stderr

        page, err = render(deep)
        host = section(page, "1. Host Side")
        # the import it cites is a line under the root importing pkg by that name
        self.assertIn("`--python-root %s` is the package `pkg` itself" % deep, host)
        self.assertIn("give the folder holding it, `--python-root %s`" % self.proj, host)
        self.assertEqual(len([ln for ln in err.splitlines() if "--python-root %s is the package" % deep in ln]), 1)
        cited = re.search(r"itself \(`(.*?):(\d+)` imports it by that name\)", host)
        self.assertIsNotNone(cited)
        self.assertTrue(cited.group(1).startswith(deep + os.sep))
        line = read(cited.group(1)).splitlines()[int(cited.group(2)) - 1]
        self.assertRegex(line, r"^\s*(from pkg[. ]|import pkg\b)")
        # the folder it names is the right one: the chains are found from there
        page, err = render(self.proj)
        host = section(page, "1. Host Side")
        self.assertNotIn("is the package", host)
        self.assertNotIn("is the package", err)
        lf, ll = self.mk[("LAUNCH", "rope")]
        self.assertIn("launches it at `%s:%d`" % (lf, ll), host)
        # a root that is a package nobody imports by its own name is not too deep
        page, err = render(self.proj, os.path.join(self.model, "mymodel"))
        self.assertNotIn("is the package", section(page, "1. Host Side"))
        self.assertNotIn("is the package", err)


def comp_col(at):
    """The column (1-based) of the triton.compile call at marker at."""
    line = read(at[0]).splitlines()[at[1] - 1]
    return line.index("triton.compile(") + 1


def main():
    global ARGS
    ap = argparse.ArgumentParser()
    ap.add_argument("--source-dir", required=True)
    ap.add_argument("--kwalk", required=True)
    ARGS, rest = ap.parse_known_args()
    ARGS.source_dir = os.path.abspath(ARGS.source_dir)
    unittest.main(argv=[sys.argv[0]] + rest, verbosity=2)


if __name__ == "__main__":
    main()
