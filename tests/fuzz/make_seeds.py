#!/usr/bin/env python3
"""make_seeds.py: the seed corpora of the fuzz.* tests, from inputs the suite
already has, into OUT/<target>/ (emptied first): sidecars (tests/sidecar
fixtures, the corpus sidecars up to 64 KiB), indexes (`kwalk index` of those
sidecars, the database when within the size limit, and the YAML export),
traces (small rocprofv3 CSV and JSON traces written by tests/trace's own
writers), model-entry tables (python/kwalk_pyscan.py chains --format tsv
over a two-package tree written here, over ../shared's atom-py and aiter
when present, and over aiter's package folder and tests/corpus/ops alone
(`--package-root`), whole rows up to 16 KiB a seed). tests/fuzz/regress/<target>/*
(inputs that once crashed a reader) are added to each.

  make_seeds.py --out DIR --kwalk KWALK --src PROJECT_SOURCE_DIR --corpus-out DIR
"""
import argparse
import glob
import os
import shutil
import subprocess
import sys
import tempfile

MAX_SEED = 64 * 1024
MAX_PY_SEED = 16 * 1024  # a table seed: whole rows up to this much text together


def put(out, target, name, data):
    d = os.path.join(out, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def read(path):
    with open(path, "rb") as f:
        return f.read()


def sidecars(args):
    found = sorted(glob.glob(os.path.join(args.src, "tests/sidecar/fixtures/**/*.yaml"),
                             recursive=True))
    found += sorted(glob.glob(os.path.join(args.corpus_out, "*.kwalk.yaml")))
    return [p for p in found if os.path.getsize(p) <= MAX_SEED]


# a model package calling a library's op through a wrapper, under ifs
PYCHAINS_TREE = {
    "lib/lib/__init__.py": "from .ops import *\n",
    "lib/lib/ops.py": "from .core import compile_ops\n\n\n"
                      "@compile_ops(\"module_ops\", fc_name=\"op_fwd\")\ndef op(x): ...\n",
    "lib/lib/core.py": "def compile_ops(*a, **k):\n    return lambda f: f\n",
    "model/model/__init__.py": "",
    "model/model/layer.py": "import lib\n\n\ndef _run(x, fast):\n    if fast:\n"
                            "        return lib.op(x)\n    else:\n        return lib.op(x + 1)\n"
                            "\n\nclass Layer:\n    def forward(self, x):\n"
                            "        if x is not None and x > 0:\n"
                            "            return _run(x, True)\n        return _run(x, False)\n"
                            "\n    def dyn(self, x, name):\n"
                            "        self.op(x)\n        getattr(lib, name)(x)\n"
                            "        return lib.tk.wrap(x)\n",
    # a Triton wrapper (@launch rows) and calls not resolved (@unresolved)
    "lib/lib/tk.py": "import triton\n\n\n@triton.jit\ndef kern(x):\n    pass\n\n\n"
                     "def wrap(x):\n    if x:\n        kern[(1,)](x)\n",
    # a dispatch table (@unresolved naming its entry, @unreached)
    "model/model/disp.py": "import lib\n\nOPS = {\"a\": lib.op, \"b\": print}\n\n\n"
                           "def run(k, x):\n    fn = OPS.get(k)\n    OPS[k](x)\n"
                           "    return fn(x)\n",
}


def pychains_seeds(args, out):
    """The helper's model-entry table over PYCHAINS_TREE and over ../shared's
    atom-py and aiter."""
    helper = os.path.join(args.src, "python", "kwalk_pyscan.py")
    shared = os.path.join(args.src, "..", "shared", "fixtures")
    with tempfile.TemporaryDirectory() as tmp:
        for rel, text in PYCHAINS_TREE.items():
            os.makedirs(os.path.dirname(os.path.join(tmp, rel)), exist_ok=True)
            with open(os.path.join(tmp, rel), "w") as f:
                f.write(text)
        trees = [("tree", [os.path.join(tmp, "model"), os.path.join(tmp, "lib")]),
                 # lib/lib is the package itself, which model imports: @too-deep
                 ("deep", [os.path.join(tmp, "model"), os.path.join(tmp, "lib", "lib")]),
                 ("fixtures", [os.path.join(shared, "atom-py"),
                               os.path.join(shared, "aiter-hip", "aiter")]),
                 # one package folder, as kwalk passes a single --python-root
                 ("package", [os.path.join(shared, "aiter-hip", "aiter", "aiter")]),
                 ("corpus-ops", [os.path.join(args.src, "tests", "corpus", "ops")])]
        for name, roots in trees:
            if all(os.path.isdir(r) for r in roots):
                cmd = [sys.executable, helper, "chains", "--format", "tsv"]
                for r in roots:
                    cmd += ["--package-root" if len(roots) == 1 else "--root", r]
                r = subprocess.run(cmd, capture_output=True, timeout=300)
                if r.returncode == 0:
                    table_seeds(out, name, r.stdout)


def table_seeds(out, name, table):
    part, k = b"", 0
    for row in table.split(b"\n"):
        if part and len(part) + len(row) > MAX_PY_SEED:
            put(out, "pychains", "%s-%03d" % (name, k), part)
            part, k = b"", k + 1
        if row:
            part += row + b"\n"
    if part:
        put(out, "pychains", "%s-%03d" % (name, k), part)


def traces(args, out):
    sys.path.insert(0, os.path.join(args.src, "tests", "trace"))
    import test_trace as tt  # its CSV and JSON writers (rocprofv3's layouts)
    names = ["_Z8scale_kIfLi256EEvPT_i", "void scale_k<float, 256>(float*, int)",
             "scale_k", "rk<0>(int) [clone .kd]"]
    ds = []
    for i, n in enumerate(names):
        ds.append({"kid": i + 1, "trace_name": n, "start": 1000 * i, "end": 1000 * i + 500 + i,
                   "block": [256, 1, 1], "grid": [256 * (i + 1), 2, 1]})
    ds.append(dict(ds[0], kind="MEMORY_COPY"))
    with tempfile.TemporaryDirectory() as tmp:
        p = os.path.join(tmp, "t")
        tt.write_csv(p, ds)
        put(out, "trace", "lf.csv", read(p))
        tt.write_csv(p, ds[:2], eol="\r\n")
        put(out, "trace", "crlf.csv", read(p))
        tt.write_csv(p, ds[:3], columns=list(reversed(tt.COLUMNS)))
        put(out, "trace", "reordered.csv", read(p))
        tt.write_json(p, ds, {names[1]: names[0]})
        put(out, "trace", "trace.json", read(p))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--kwalk", required=True)
    ap.add_argument("--src", required=True)
    ap.add_argument("--corpus-out", required=True)
    args = ap.parse_args()
    shutil.rmtree(args.out, ignore_errors=True)
    os.makedirs(args.out)

    side = sidecars(args)
    for p in side:
        put(args.out, "sidecar", os.path.basename(os.path.dirname(p)) + "-" +
            os.path.basename(p), read(p))
    good = [p for p in side if "/fixtures/bad/" not in p]
    with tempfile.TemporaryDirectory() as tmp:
        for fmt in ("db", "yaml"):
            for i, p in enumerate(good):
                db = os.path.join(tmp, "%d.%s" % (i, fmt))
                r = subprocess.run([args.kwalk, "index", p, "-o", db, "--format", fmt],
                                   capture_output=True, text=True)
                if r.returncode == 0 and os.path.getsize(db) <= MAX_SEED:
                    put(args.out, "index", "%s-%s" % (os.path.basename(p), fmt), read(db))
    traces(args, args.out)
    pychains_seeds(args, args.out)

    regress = os.path.join(args.src, "tests", "fuzz", "regress")
    for p in sorted(glob.glob(os.path.join(regress, "*", "*"))):
        put(args.out, os.path.basename(os.path.dirname(p)), "regress-" + os.path.basename(p),
            read(p))
    for t in ("sidecar", "index", "trace", "pychains"):
        n = len(os.listdir(os.path.join(args.out, t)))
        if n == 0:
            print("make_seeds: no seed for %s" % t, file=sys.stderr)
            return 1
        print("make_seeds: %s: %d seeds" % (t, n))
    return 0


if __name__ == "__main__":
    sys.exit(main())
