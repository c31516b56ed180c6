#!/usr/bin/env python3
"""test_triton_real.py: the hook's sidecars as real Triton wrote them
(tests/triton/real/sidecars-*, made by scripts/triton-real.sh running
real_triton_check.py inside Triton 3.6), indexed without the cache and
rendered, checked against the program's source: no GPU and no Triton needed.

  test_triton_real.py --source-dir SRC --kwalk KWALK

The launch shapes are triton.launch_shapes' (arguments after `*x.stride()`,
`impl = kernel; impl[grid](...)`, a dispatch table's entry, constexprs from
`@triton.heuristics`, a two-config `@triton.autotune`, defaults, the launch,
a direct `triton.compile(...)`), here through real Triton's own frames.
Expected values come from the source (its `# KWT:` markers, its calls,
defs, decorators and literals parsed with ast, Python's own argument
binding with each star expanded to the tensors' 3 strides) and from the
driver's log (which ops launched for real), never from the sidecars' facts
or kwalk's pages. The sidecars' /opt/kwalk paths are the repository root
(kwalk index --map-prefix).
"""
import argparse
import ast
import os
import re
import subprocess
import sys
import tempfile
import unittest

import yaml

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_triton_launch_shapes as shapes  # noqa: E402  (its source checkers)

ARGS = None
FOLDERS = ("sidecars-hip", "sidecars-cuda")


def literal_keywords(call):
    """{name: value} of the call's keyword arguments written as literals."""
    out = {}
    for k in call.keywords:
        if k.arg is not None:
            try:
                out[k.arg] = ast.literal_eval(k.value)
            except ValueError:
                pass
    return out


def def_node(path, line):
    for node in ast.walk(ast.parse(shapes.read(path))):
        if isinstance(node, ast.FunctionDef) and node.lineno == line:
            return node
    return None


def def_defaults(node):
    args = node.args.args
    return {a.arg: ast.literal_eval(d) for a, d in zip(args[len(args) - len(node.args.defaults):],
                                                        node.args.defaults)}


def autotune_configs(node):
    """[{name: value}] of the triton.Config(...) dicts in the def's @triton.autotune."""
    for d in node.decorator_list:
        if isinstance(d, ast.Call) and getattr(d.func, "attr", None) == "autotune":
            for k in d.keywords:
                if k.arg == "configs":
                    return [ast.literal_eval(c.args[0]) for c in k.value.elts]
    return None


class RealTriton(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.src = ARGS.source_dir
        cls.real = os.path.join(cls.src, "tests/triton/real")
        cls.tmp = tempfile.TemporaryDirectory(prefix="kwalk-treal-")
        # markers: the driver and the package it runs
        cls.mk = shapes.markers(cls.real)
        drv = os.path.join(cls.src, "tests/triton/real_triton_check.py")
        for n, line in enumerate(shapes.read(drv).splitlines(), 1):
            for kind, ident in re.findall(r"#\s*KWT:([A-Z]+)\s+([\w.-]+)", line):
                cls.mk[(kind, ident)] = (drv, n)
        cls.runs = {}
        for folder in FOLDERS:
            sc = os.path.join(cls.real, folder)
            if not os.path.isdir(sc):
                continue
            docs = []
            for f in sorted(os.listdir(sc)):
                text = shapes.read(os.path.join(sc, f)).replace("/opt/kwalk/", cls.src + "/")
                docs.append(yaml.safe_load(text.replace("\n...\n", "\n")))
            d = os.path.join(cls.tmp.name, folder)
            db, pages_dir = d + ".db", d + "-pages"
            subprocess.run([ARGS.kwalk, "index", sc, "--map-prefix", "/opt/kwalk=" + cls.src, "-o", db],
                           check=True, capture_output=True)
            subprocess.run([ARGS.kwalk, "render", "--all", "--db", db, "-o", pages_dir],
                           check=True, capture_output=True)
            pages = {}
            for doc in docs:
                k = doc["kernels"][0]
                for c in os.listdir(pages_dir):
                    if c.startswith(k["name"]) and c.endswith(".md"):
                        text = shapes.read(os.path.join(pages_dir, c))
                        if k["triton"]["hash"] in text:
                            pages[k["symbol"]] = text
            log = shapes.read(os.path.join(cls.real, "log-%s.txt" % folder.split("-")[1]))
            launched = set(re.findall(r"^(\w+) \w+ launched$", log, re.M))
            cls.runs[folder] = (docs, pages, launched, log)
        assert "sidecars-hip" in cls.runs, "no committed sidecars-hip under %s" % cls.real

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def each(self):
        return sorted(self.runs.items())

    def docs_of(self, docs, kid):
        f, line = self.mk[("JIT", kid)]
        out = [d for d in docs if d["kernels"][0]["location"] == {"file": f, "line": line, "column": 1}]
        self.assertTrue(out, "a sidecar of %s" % kid)
        return out

    def page(self, pages, doc):
        p = pages.get(doc["kernels"][0]["symbol"])
        self.assertIsNotNone(p, "a page of %s" % doc["kernels"][0]["symbol"])
        return p

    def test_every_kernel_and_program_done(self):
        jits = sorted(k[1] for k in self.mk if k[0] == "JIT")
        self.assertEqual(len(jits), 7)
        for folder, (docs, pages, launched, log) in self.each():
            self.assertIn("PROGRAM-DONE", log)
            self.assertNotIn("kwalk: warning", log)
            for kid in jits:
                for doc in self.docs_of(docs, kid):
                    self.assertTrue(doc["kernels"][0]["triton"]["triton_version"].startswith("3.6"))
                    self.page(pages, doc)

    def test_starred_binding(self):
        for folder, (docs, pages, launched, log) in self.each():
            checked = 0
            for kid in ("rope", "quant"):
                lf, ll = self.mk[("LAUNCH", kid)]
                call, text = shapes.call_at(lf, ll)
                jf, jl = self.mk[("JIT", kid)]
                want = shapes.python_binding(call, text, shapes.def_params(jf, jl))
                one_star = sum(1 for w in want if w[1].startswith("*")) == 1
                for doc in self.docs_of(docs, kid):
                    (ln,) = doc["launches"]
                    got = [(a.get("param"), a["expr"], a.get("params")) for a in ln["args"]]
                    self.assertEqual([g[1] for g in got], [w[1] for w in want])
                    for (gp, ge, gps), (wp, we, between, wps) in zip(got, want):
                        if between or we.startswith("*"):
                            self.assertIsNone(gp, "%s: %s" % (kid, we))
                            self.assertEqual(gps, wps if we.startswith("*") and one_star else None)
                        else:
                            self.assertEqual(gp, wp, "%s: %s binds %s" % (kid, we, wp))
                            checked += 1
                    host = shapes.section(self.page(pages, doc), "1. Host Side")
                    rows = shapes.table_after(host, "Arguments as written at the launch:")
                    self.assertEqual([shapes.code(r[2]) for r in rows], [w[1] for w in want])
                    for r, (wp, we, between, wps) in zip(rows, want):
                        if we.startswith("*") and one_star:
                            self.assertEqual(r[0], ", ".join("`%s`" % p for p in wps))
                        elif we.startswith("*"):
                            self.assertEqual(r[0], "-")
                        elif between:
                            self.assertEqual(r[0], "not known")
                        else:
                            self.assertEqual(shapes.code(r[0]), wp)
            self.assertGreaterEqual(checked, 6)

    def test_callee_and_statement(self):
        for folder, (docs, pages, launched, log) in self.each():
            for kid in ("rope", "quant", "gemm", "pa", "silu", "table"):
                lf, ll = self.mk[("LAUNCH", kid)]
                call, text = shapes.call_at(lf, ll)
                seg = ast.get_source_segment(text, call.func.value)
                callee = " ".join(re.sub(r"#[^\n]*", "", seg).split())
                grid = " ".join(ast.get_source_segment(text, call.func.slice).split())
                for doc in self.docs_of(docs, kid):
                    (ln,) = doc["launches"]
                    self.assertEqual(ln["callee"], callee)
                    self.assertEqual(ln["config"]["grid"]["expr"], grid)
                    self.assertEqual((ln["location"]["file"], ln["location"]["line"]), (lf, ll))
                    self.assertEqual(ln["location"]["column"], call.col_offset + 1)
                    host = shapes.section(self.page(pages, doc), "1. Host Side")
                    self.assertNotIn("source changed since the build", host)
                    end = "-%d" % call.end_lineno if call.end_lineno > ll else ""
                    self.assertIn("```python\n# %s:%d%s\n" % (lf, ll, end), host)
                    self.assertIn("%d | %s" % (ll, text.splitlines()[ll - 1]), host)
                    self.assertIn("launches `%s[" % callee, host)

    def test_constexpr_origin_and_value(self):
        heur, auto, comp = self.mk[("HEUR", "gemm")], self.mk[("AUTOTUNE", "pa")], self.mk[("COMPILE", "probe")]
        loc = lambda at: {"file": at[0], "line": at[1], "column": 1}  # noqa: E731
        comp_col = shapes.comp_col(comp)
        want = {
            "rope": {"D": ("hook", None), "BLOCK_S": ("hook", None), "HAVE_NOPE": ("default", None)},
            "quant": {"BLOCK": ("hook", None)},
            "gemm": {"BLOCK_M": ("hook", None), "BLOCK_K": ("hook", None),
                     "EVEN_K": ("heuristics", loc(heur)), "GROUP_M": ("default", None)},
            "pa": {"KV_BLOCK": ("autotune", loc(auto)), "HEAD": ("default", None)},
            "silu": {"BLOCK": ("autotune", None)},  # autotune(...)(fn): no decorator line
            "table": {"B": ("hook", None)},
            "probe": {"B": ("compile", dict(loc(comp), column=comp_col))},
        }
        words = {"hook": "the launch passed it: ", "default": "'s default, not passed",
                 "heuristics": "`@triton.heuristics` computed it", "autotune": "the autotuner ran",
                 "compile": "`triton.compile(...)` passed it"}
        # the values, from the source: literal keywords of the launch, the
        # def's defaults, the autotune configs, the direct compile's dict
        cf, cl = comp
        ccall = [n for n in ast.walk(ast.parse(shapes.read(cf)))
                 if isinstance(n, ast.Call) and getattr(n.func, "id", None) == "ASTSource" and n.lineno == cl][0]
        values = {"probe": {shapes.def_params(*self.mk[("JIT", "probe")])[k[0]]: v
                            for k, v in ast.literal_eval(ccall.args[2]).items()}}
        for kid in want:
            node = def_node(*self.mk[("JIT", kid)])
            values.setdefault(kid, {}).update(def_defaults(node))
            if ("LAUNCH", kid) in self.mk:
                values[kid].update(literal_keywords(shapes.call_at(*self.mk[("LAUNCH", kid)])[0]))
        pa_configs = autotune_configs(def_node(*self.mk[("JIT", "pa")]))
        self.assertEqual(len(pa_configs), 2)
        for folder, (docs, pages, launched, log) in self.each():
            seen = 0
            for kid, names in want.items():
                kid_docs = self.docs_of(docs, kid)
                if kid == "pa":
                    got = sorted(c["value"] for d in kid_docs for c in d["kernels"][0]["triton"]["constexprs"]
                                 if c["name"] == "KV_BLOCK")
                    ok = sorted(repr(c["KV_BLOCK"]) for c in pa_configs)
                    # launched for real: the autotuner benchmarked (compiled) every
                    # config; else the first config's failed launch may end the
                    # benchmark before the next compile
                    self.assertIn(ok[0], got, folder)
                    self.assertLessEqual(set(got), set(ok), folder)
                    if "pa" in launched:
                        self.assertEqual(got, ok, folder)
                for doc in kid_docs:
                    cx = doc["kernels"][0]["triton"]["constexprs"]
                    got = {c["name"]: (c["from"], c.get("location")) for c in cx}
                    self.assertEqual(got, names, "%s %s" % (folder, kid))
                    for c in cx:
                        if c["name"] in values[kid] and c["from"] != "autotune":
                            self.assertEqual(c["value"], repr(values[kid][c["name"]]), "%s.%s" % (kid, c["name"]))
                    host = shapes.section(self.page(pages, doc), "1. Host Side")
                    rows = {shapes.code(r[0]): r for r in shapes.table_after(host, "as template arguments do in C++:")}
                    self.assertEqual(sorted(rows), sorted(names))
                    for c in cx:
                        frm, at = names[c["name"]]
                        self.assertEqual(shapes.code(rows[c["name"]][1]), c["value"])
                        self.assertIn(words[frm], rows[c["name"]][2], "%s.%s" % (kid, c["name"]))
                        if frm != "hook":
                            self.assertNotIn("the launch passed it", rows[c["name"]][2])
                        if at is not None:
                            self.assertIn("`%s:%d`" % (at["file"], at["line"]), rows[c["name"]][2])
                        seen += 1
            self.assertGreaterEqual(seen, 13)

    def test_direct_compile(self):
        f, line = self.mk[("COMPILE", "probe")]
        for folder, (docs, pages, launched, log) in self.each():
            (doc,) = self.docs_of(docs, "probe")
            self.assertEqual(doc["launches"], [])
            self.assertEqual(doc["kernels"][0]["triton"]["compiled_at"],
                             {"file": f, "line": line, "column": shapes.comp_col((f, line))})
            self.assertEqual(doc["translation_unit"]["offload_archs"], ["gfx942"])
            host = shapes.section(self.page(pages, doc), "1. Host Side")
            self.assertIn("Compiled directly, not launched: `triton.compile(...)` at `%s:%d`" % (f, line), host)
            self.assertNotIn("No launch recorded", host)


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
