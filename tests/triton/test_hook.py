#!/usr/bin/env python3
"""test_hook.py: kwalk's Triton hook (python/kwalk_triton) against a fake
`triton` package (tests/triton/fake, stdlib only) that calls the compile
listener as Triton 3.6 does.

  test_hook.py --source-dir SRC --version X.Y.Z

Each case runs a small program in a fresh interpreter. Expected values come
from the program's own source (marker comments `# KWT:<KIND> <id>`, found
here), from what the program passed, and from the fake cache on disk, never
from the hook's output.
"""
import argparse
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import textwrap
import unittest

import yaml

ARGS = None

PROGRAM = '''
import triton


@triton.jit
def _scale_kernel(x_ptr, y_ptr, n, alpha, BLOCK: "tl.constexpr", RELU: "tl.constexpr" = False):  # KWT:JIT scale
    pass


def scale(x, y, n, block):
    grid = (triton_cdiv(n, block),)
    _scale_kernel[grid](  # KWT:LAUNCH scale
        x, y,
        n, 0.5,
        BLOCK=block, num_warps=8,
    )


def triton_cdiv(a, b):
    return (a + b - 1) // b


def user_op(n):
    scale("x", "y", n, 256)  # KWT:CALL scale


try:
    user_op(1000)  # KWT:OP scale
except RuntimeError as e:
    print("LAUNCH-FAILED", e)
print("PROGRAM-DONE")
'''


def markers(path):
    """{(kind, id): line} of `# KWT:KIND id` comments, counted here."""
    out = {}
    with open(path) as f:
        for n, line in enumerate(f, 1):
            for kind, ident in re.findall(r"#\s*KWT:([A-Z]+)\s+([\w.-]+)", line):
                out[(kind, ident)] = n
    return out


class HookTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="kwalk-thook-")
        self.dir = self.tmp.name
        self.out = os.path.join(self.dir, "sidecars")
        self.cache = os.path.join(self.dir, "cache")

    def tearDown(self):
        self.tmp.cleanup()

    def run_prog(self, text, env_out=True, extra_path=(), name="prog.py"):
        prog = os.path.join(self.dir, name)
        with open(prog, "w") as f:
            f.write(text)
        env = dict(os.environ)
        env.pop(ARGS.env, None)
        env["PYTHONPATH"] = os.pathsep.join(
            list(extra_path) + [os.path.join(ARGS.source_dir, "tests/triton/fake"), ARGS.python_dir]
        )
        env["FAKE_TRITON_CACHE"] = self.cache
        env["PYTHONDONTWRITEBYTECODE"] = "1"
        if env_out:
            env[ARGS.env] = self.out
        p = subprocess.run([sys.executable, prog], env=env, cwd=self.dir, capture_output=True, text=True, timeout=60)
        return prog, p

    def sidecars(self):
        if not os.path.isdir(self.out):
            return []
        docs = []
        for f in sorted(os.listdir(self.out)):
            self.assertTrue(f.endswith(".kwalk.yaml"), "only sidecars in the out dir: %s" % f)
            with open(os.path.join(self.out, f)) as fh:
                text = fh.read()
            self.assertTrue(text.endswith("\n...\n"), "%s ends with the end marker" % f)
            doc = yaml.safe_load(text.replace("\n...\n", "\n"))
            docs.append((f, doc))
        return docs

    def test_env_sidecar_facts(self):
        prog, p = self.run_prog(PROGRAM)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("LAUNCH-FAILED", p.stdout)  # Triton's own launch error still reaches the program
        self.assertNotIn("kwalk: warning", p.stderr)
        docs = self.sidecars()
        self.assertEqual(len(docs), 1)
        fname, doc = docs[0]
        m = markers(prog)
        self.assertEqual(doc["kwalk_schema"], 1)
        self.assertEqual(doc["producer"], {"name": "kwalk_triton", "version": ARGS.version})
        k = doc["kernels"][0]
        # the fake cache on disk: one folder; its files and name
        folders = os.listdir(self.cache)
        self.assertEqual(len(folders), 1)
        folder = os.path.join(self.cache, folders[0])
        files = sorted(os.path.join(folder, f) for f in os.listdir(folder))
        self.assertEqual(k["triton"]["files"], files)
        self.assertEqual(k["triton"]["cache_dir"], folder)
        self.assertEqual(k["triton"]["cache_key"], folders[0])
        self.assertEqual(doc["translation_unit"]["object"], os.path.join(folder, "_scale_kernel.hsaco"))
        self.assertEqual(doc["translation_unit"]["source"], prog)
        self.assertEqual(doc["translation_unit"]["offload_archs"], ["gfx942"])
        self.assertEqual(k["name"], "_scale_kernel")
        self.assertEqual(k["language"], "triton")
        self.assertEqual(k["symbol"], "_scale_kernel@" + k["triton"]["hash"])
        self.assertEqual(fname, "_scale_kernel-%s.kwalk.yaml" % k["triton"]["hash"][:16])
        self.assertEqual(k["location"], {"file": prog, "line": m[("JIT", "scale")], "column": 1})
        self.assertEqual([x["name"] for x in k["params"]], ["x_ptr", "y_ptr", "n", "alpha", "BLOCK", "RELU"])
        self.assertEqual([x["type"] for x in k["params"]], ["*fp16", "*fp16", "i32", "fp32", "constexpr", "constexpr"])
        self.assertEqual(
            k["triton"]["constexprs"],
            [{"name": "BLOCK", "value": "256", "from": "hook"}, {"name": "RELU", "value": "False", "from": "default"}],
        )
        opts = {o["name"]: o["value"] for o in k["triton"]["options"]}
        self.assertEqual(opts["num_warps"], 8)  # passed at the launch
        self.assertEqual(opts["debug"], "false")
        for meta in ("hash", "name", "arch", "target", "shared", "warp_size", "triton_version", "backend_name"):
            self.assertNotIn(meta, opts)
        self.assertNotIn("extern_libs", opts)
        self.assertEqual(k["triton"]["cache_hit"], False)
        self.assertEqual(k["archs"], {"gfx942": {}})
        (ln,) = doc["launches"]
        self.assertEqual(ln["kernel"], k["symbol"])
        self.assertEqual(ln["kind"], "triton")
        launch_line = m[("LAUNCH", "scale")]
        with open(prog) as f:
            src_line = f.read().splitlines()[launch_line - 1]
        self.assertEqual(ln["location"], {"file": prog, "line": launch_line, "column": src_line.index("_scale_kernel[") + 1})
        self.assertEqual(ln["function"], "scale")
        self.assertEqual(ln["config"]["grid"], {"expr": "grid", "value": [4, 1, 1]})  # cdiv(1000, 256)
        self.assertEqual(
            ln["args"],
            [{"param": "x_ptr", "expr": "x"}, {"param": "y_ptr", "expr": "y"}, {"param": "n", "expr": "n"},
             {"param": "alpha", "expr": "0.5"}, {"param": "BLOCK", "expr": "block"},
             {"param": "num_warps", "expr": "8"}],
        )
        chain = [(c["function"], c["location"]["file"], c["location"]["line"]) for c in ln["call_chain"]]
        self.assertEqual(chain, [("user_op", prog, m[("CALL", "scale")]), ("<module>", prog, m[("OP", "scale")])])

    def test_no_env_no_hook(self):
        prog, p = self.run_prog(PROGRAM + "print('LISTENER', triton.knobs.compilation.listener)\n", env_out=False)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("LISTENER None", p.stdout)
        self.assertEqual(self.sidecars(), [])

    def test_cache_hit_second_run(self):
        self.run_prog(PROGRAM)
        first = self.sidecars()[0][1]
        prog, p = self.run_prog(PROGRAM)
        self.assertEqual(p.returncode, 0, p.stderr)
        (fname, doc), = self.sidecars()
        self.assertEqual(doc["kernels"][0]["triton"]["hash"], first["kernels"][0]["triton"]["hash"])
        self.assertIs(doc["kernels"][0]["triton"]["cache_hit"], True)
        # options in NAME.json's key order although the hit passes them sorted
        jpath = [f for f in doc["kernels"][0]["triton"]["files"] if f.endswith("/_scale_kernel.json")][0]
        with open(jpath) as f:
            keys = list(json.load(f))
        meta = {"hash", "name", "arch", "target", "backend_name", "triton_version", "warp_size", "shared",
                "profile_scratch_size", "profile_scratch_align", "extern_libs"}
        names = [o["name"] for o in doc["kernels"][0]["triton"]["options"]]
        self.assertEqual(names, [k for k in keys if k not in meta])
        self.assertNotEqual(names, sorted(names))

    def test_chains_existing_listener_and_its_errors(self):
        pre = textwrap.dedent('''
            import triton, kwalk_triton
            SEEN = []
            def mine(**kw):
                SEEN.append(sorted(kw))
                raise KeyError("from the user's listener")
            triton.knobs.compilation.listener = mine
            kwalk_triton.enable(%r)
        ''' % self.out)
        body = PROGRAM.replace("except RuntimeError as e:", "except KeyError as e:")
        body = body.replace('print("PROGRAM-DONE")', 'print("SEEN", SEEN)\nprint("PROGRAM-DONE")')
        prog, p = self.run_prog(pre + body, env_out=False)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("LAUNCH-FAILED", p.stdout)  # the user's listener's KeyError reached the program
        self.assertIn("SEEN [['cache_hit', 'metadata', 'metadata_group', 'src', 'times']]", p.stdout)
        self.assertEqual(len(self.sidecars()), 1)

    def test_hook_failure_is_one_warning(self):
        os.makedirs(self.dir, exist_ok=True)
        with open(os.path.join(self.dir, "sidecars"), "w") as f:
            f.write("a file where the directory should be\n")
        prog, p = self.run_prog(PROGRAM + "print('AFTER')\n")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("LAUNCH-FAILED", p.stdout)  # Triton went on to its launch
        self.assertIn("PROGRAM-DONE", p.stdout)
        lines = [ln for ln in p.stderr.splitlines() if ln.strip()]
        self.assertEqual(len(lines), 1, p.stderr)
        self.assertTrue(lines[0].startswith("kwalk: warning: triton hook: no sidecar for _scale_kernel"), lines[0])

    def test_listener_raising_inside_hook(self):
        # the hook's own code raising (metadata without a hash): one warning, the
        # listener chain and the program go on
        pre = textwrap.dedent('''
            import triton.compiler as C
            _orig = C.compile
            def compile(src, target, options):
                import triton.knobs as K
                lis = K.compilation.listener
                lis(src=src, metadata={"name": "_scale_kernel"}, metadata_group={}, times=None, cache_hit=False)
                return _orig(src, target, options)
            C.compile = compile
        ''')
        prog, p = self.run_prog(pre + PROGRAM)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("PROGRAM-DONE", p.stdout)
        warn = [ln for ln in p.stderr.splitlines() if ln.startswith("kwalk: warning:")]
        self.assertEqual(len(warn), 1, p.stderr)
        self.assertIn("no name or hash", warn[0])
        self.assertEqual(len(self.sidecars()), 1)  # the real call still recorded

    def test_enable_after_import_and_direct_compile(self):
        body = textwrap.dedent('''
            import triton
            from triton.compiler import ASTSource, GPUTarget, compile
            import kwalk_triton
            kwalk_triton.enable(%r)

            @triton.jit
            def _k(x_ptr, B: "tl.constexpr"):  # KWT:JIT k
                pass

            compile(ASTSource(_k, {"x_ptr": "*fp32", "B": "constexpr"}, {(1,): 64}), GPUTarget("hip", "gfx950", 64), {})  # KWT:COMPILE k
        ''' % self.out)
        prog, p = self.run_prog(body, env_out=False)
        self.assertEqual(p.returncode, 0, p.stderr)
        (fname, doc), = self.sidecars()
        self.assertEqual(doc["launches"], [])  # no kernel[grid](...): no launch
        k = doc["kernels"][0]
        self.assertEqual(k["archs"], {"gfx950": {}})
        # the value came from the triton.compile(...) call, which the kernel records
        at = {"file": prog, "line": markers(prog)[("COMPILE", "k")], "column": 1}
        self.assertEqual(k["triton"]["constexprs"], [{"name": "B", "value": "64", "from": "compile",
                                                      "location": at}])
        self.assertEqual(k["triton"]["compiled_at"], at)
        self.assertEqual(k["location"]["line"], markers(prog)[("JIT", "k")])

    def test_autotuned_constexpr_from_config(self):
        body = textwrap.dedent('''
            import triton

            @triton.autotune(configs=[triton.Config({"BLOCK": 512}, num_warps=2)], key=["n"])  # KWT:AUTOTUNE a
            @triton.jit
            def _a(x_ptr, n, BLOCK: "tl.constexpr" = 512):  # KWT:JIT a
                pass

            def op():
                _a[lambda META: (1,)](  # KWT:LAUNCH a
                    "x", 7)

            try:
                op()
            except RuntimeError:
                pass
        ''')
        prog, p = self.run_prog(body)
        self.assertEqual(p.returncode, 0, p.stderr)
        (fname, doc), = self.sidecars()
        k = doc["kernels"][0]
        m = markers(prog)
        # BLOCK equals its default but the autotuner's config passed it: from
        # the autotuner, located at its decorator
        self.assertEqual(k["triton"]["constexprs"], [
            {"name": "BLOCK", "value": "512", "from": "autotune",
             "location": {"file": prog, "line": m[("AUTOTUNE", "a")], "column": 1}}])
        self.assertEqual(k["location"]["line"], m[("JIT", "a")])
        ln = doc["launches"][0]
        self.assertEqual(ln["location"]["line"], m[("LAUNCH", "a")])
        self.assertEqual(ln["config"]["grid"], {"expr": "lambda META: (1,)"})
        self.assertEqual(ln["function"], "op")
        opts = {o["name"]: o["value"] for o in k["triton"]["options"]}
        self.assertEqual(opts["num_warps"], 2)

    def test_sitecustomize_chains_the_shadowed_one(self):
        other = os.path.join(self.dir, "other")
        os.makedirs(other)
        with open(os.path.join(other, "sitecustomize.py"), "w") as f:
            f.write("import builtins\nbuiltins.SHADOWED_RAN = True\n")
        # kwalk's python dir comes first on PYTHONPATH, so its sitecustomize shadows other's
        env = dict(os.environ, PYTHONPATH=os.pathsep.join([ARGS.python_dir, other]), PYTHONDONTWRITEBYTECODE="1")
        env[ARGS.env] = self.out
        p = subprocess.run([sys.executable, "-c", "import sys; print(SHADOWED_RAN, 'triton' in sys.modules)"],
                           env=env, capture_output=True, text=True, timeout=60)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stdout.strip(), "True False")  # other's ran; triton not imported by the hook
        self.assertEqual(p.stderr, "")

    # ---- IR facts: the hook runs kwalk-irfacts on the cache folder's NAME.llir ----

    def fake_irfacts(self, mode):
        """A stand-in kwalk-irfacts: records its argv, then prints CANNED
        (or fails, or hangs); returns (env, canned text)."""
        tool = os.path.join(self.dir, "fake-irfacts")
        with open(tool, "w") as f:
            f.write(textwrap.dedent('''\
                #!%s
                import json, os, sys, time
                with open(os.environ["FAKE_IRFACTS_ARGV"], "w") as f:
                    json.dump(sys.argv[1:], f)
                mode = os.environ["FAKE_IRFACTS_MODE"]
                if mode == "fail":
                    sys.stderr.write("kwalk-irfacts: cannot read it\\n")
                    sys.exit(1)
                if mode == "hang":
                    time.sleep(30)
                if mode == "flood":
                    sys.stdout.write("x" * 100000)
                    sys.stdout.flush()
                    time.sleep(30)
                sys.stdout.write(open(os.environ["FAKE_IRFACTS_TEXT"]).read())
            ''' % sys.executable))
        os.chmod(tool, 0o755)
        real = None
        if ARGS.irfacts:  # a real record: the tool's on a corpus .llir, renamed
            llir = sorted(glob.glob(os.path.join(ARGS.source_dir, "tests/corpus/triton/cache/*/_rms_norm_kernel.llir")))[0]
            r = subprocess.run([ARGS.irfacts, "--arch", "gfx942", "--wave", "64", llir],
                               capture_output=True, text=True)
            # an LLVM older than Triton's (19: Triton 3.6's .llir does not
            # parse) gives no record: the hook is then checked with the one below
            if r.returncode == 0:
                real = r.stdout.replace("_rms_norm_kernel", "_scale_kernel")
        self.real_irfacts = real is not None
        if real is not None:
            canned = real
        else:
            canned = "kernels:\n- symbol: &0 _scale_kernel\n  arch: gfx942\n  wave_size: 64\n"
        text = os.path.join(self.dir, "canned.yaml")
        with open(text, "w") as f:
            f.write(canned)
        env = {"KWALK_IRFACTS": tool, "FAKE_IRFACTS_MODE": mode, "FAKE_IRFACTS_TEXT": text,
               "FAKE_IRFACTS_ARGV": os.path.join(self.dir, "argv.json")}
        return env, canned

    def run_with(self, env, text=PROGRAM):
        saved = {k: os.environ.get(k) for k in env}
        os.environ.update(env)
        try:
            return self.run_prog(text)
        finally:
            for k, v in saved.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v

    def test_irfacts_in_the_sidecar(self):
        env, canned = self.fake_irfacts("ok")
        prog, p = self.run_with(env)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertNotIn("kwalk: warning", p.stderr)
        (fname, doc), = self.sidecars()
        k = doc["kernels"][0]
        folder = k["triton"]["cache_dir"]
        with open(env["FAKE_IRFACTS_ARGV"]) as f:
            argv = json.load(f)
        # arch and wave from the target; the names: the runtime arguments
        # (the constexprs BLOCK and RELU are folded away in the .llir)
        self.assertEqual(argv, ["--arch", "gfx942", "--wave", "64", "--names", "x_ptr,y_ptr,n,alpha",
                                os.path.join(folder, "_scale_kernel.llir")])
        want = [x for x in yaml.safe_load(canned)["kernels"] if x["symbol"] == "_scale_kernel"][0]
        self.assertEqual(k["archs"]["gfx942"]["ir"], want)
        self.assertNotIn("ir_note", k["triton"])
        # the page from a real record only (none where the tool cannot read the .llir)
        if not (ARGS.irfacts and ARGS.kwalk and self.real_irfacts):
            return
        db, out = os.path.join(self.dir, "t.yaml"), os.path.join(self.dir, "pages")
        subprocess.run([ARGS.kwalk, "index", self.out, "-o", db], check=True, capture_output=True)
        subprocess.run([ARGS.kwalk, "render", "--all", "--db", db, "-o", out], check=True, capture_output=True)
        (page,) = [os.path.join(out, x) for x in os.listdir(out) if x.startswith("_scale_kernel")]
        with open(page) as f:
            text = f.read()
        self.assertIn("From the IR facts of gfx942 (%d memory accesses" % len(want["accesses"]), text)
        self.assertNotIn("no IR facts for this kernel", text)

    def test_irfacts_notes(self):
        cases = [("fail", {}, "IR facts: kwalk-irfacts: cannot read it"),
                 ("ok", {"KWALK_IRFACTS": "off"}, "IR facts: not derived (KWALK_IRFACTS=off)"),
                 ("ok", {"KWALK_IRFACTS": os.path.join(self.dir, "none")},
                  "IR facts: KWALK_IRFACTS=%s is not an executable file" % os.path.join(self.dir, "none"))]
        for mode, extra, note in cases:
            env, _ = self.fake_irfacts(mode)
            env.update(extra)
            shutil.rmtree(self.out, ignore_errors=True)
            prog, p = self.run_with(env)
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertIn("PROGRAM-DONE", p.stdout)
            self.assertNotIn("kwalk: warning", p.stderr)
            (fname, doc), = self.sidecars()
            k = doc["kernels"][0]
            self.assertEqual(k["triton"]["ir_note"], note)
            self.assertEqual(k["archs"], {"gfx942": {}})

    def test_irfacts_bounded_in_time(self):
        env, _ = self.fake_irfacts("hang")
        text = "import kwalk_triton._irfacts as I\nI.TIMEOUT_S = 1\nimport time\nT0 = time.time()\n" + \
            PROGRAM.replace('print("PROGRAM-DONE")', 'print("PROGRAM-DONE", round(time.time() - T0))')
        prog, p = self.run_with(env, text)
        self.assertEqual(p.returncode, 0, p.stderr)
        took = int(re.search(r"PROGRAM-DONE (\d+)", p.stdout).group(1))
        self.assertLess(took, 15)  # the tool sleeps 30 s
        (fname, doc), = self.sidecars()
        self.assertEqual(doc["kernels"][0]["triton"]["ir_note"], "IR facts: kwalk-irfacts stopped after 1 s")

    def test_irfacts_bounded_in_output(self):
        env, _ = self.fake_irfacts("flood")
        text = "import kwalk_triton._irfacts as I\nI.MAX_OUT = 10000\n" + PROGRAM
        prog, p = self.run_with(env, text)
        self.assertEqual(p.returncode, 0, p.stderr)
        (fname, doc), = self.sidecars()
        self.assertEqual(doc["kernels"][0]["triton"]["ir_note"],
                         "IR facts: kwalk-irfacts wrote more than 10000 bytes")

    def test_irfacts_absent(self):
        # no KWALK_IRFACTS, none beside kwalk (a source tree), none on PATH
        env = {"PATH": self.dir}
        saved = os.environ.pop("KWALK_IRFACTS", None)
        try:
            prog, p = self.run_with(env)
        finally:
            if saved is not None:
                os.environ["KWALK_IRFACTS"] = saved
        self.assertEqual(p.returncode, 0, p.stderr)
        (fname, doc), = self.sidecars()
        self.assertEqual(doc["kernels"][0]["triton"]["ir_note"],
                         "IR facts: kwalk-irfacts not found (beside kwalk, on PATH or in KWALK_IRFACTS)")

    def test_version_matches_cmake(self):
        sys.path.insert(0, ARGS.python_dir)
        try:
            from kwalk_triton._version import VERSION
        finally:
            sys.path.pop(0)
        self.assertEqual(VERSION, ARGS.version)


def main():
    global ARGS
    ap = argparse.ArgumentParser()
    ap.add_argument("--source-dir", required=True)
    ap.add_argument("--python-dir", help="where kwalk_triton is (default SRC/python)")
    ap.add_argument("--version", required=True, help="CMake's PROJECT_VERSION")
    ap.add_argument("--env", default="KWALK_TRITON_DIR")
    ap.add_argument("--irfacts", help="a built kwalk-irfacts: real IR facts records")
    ap.add_argument("--kwalk", help="a built kwalk: index and render the hook's sidecar")
    ARGS, rest = ap.parse_known_args()
    ARGS.python_dir = os.path.abspath(ARGS.python_dir or os.path.join(ARGS.source_dir, "python"))
    ARGS.source_dir = os.path.abspath(ARGS.source_dir)
    unittest.main(argv=[sys.argv[0]] + rest, verbosity=2)


if __name__ == "__main__":
    main()
