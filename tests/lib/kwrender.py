"""kwrender.py: shared helpers of the renderer's corpus tests (tests/render/).

Ground truth never comes from kwalk's own output: markers are resolved by
scripts/kw-markers.py, Python ops by grepping tests/corpus/ops/*.py here,
expectations come from tests/corpus/expected.json, and source lines are read
from the files. kwalk is only run to produce what is being checked.
"""
import argparse
import json
import os
import re
import sys
import tempfile

try:
    import yaml
except ImportError:  # pragma: no cover - CMake picks a python3 that has it
    sys.stderr.write("kwrender: PyYAML is missing (Debian: python3-yaml)\n")
    sys.exit(77)

import kwcap  # noqa: E402
from kwllvm import YAML_LOADER as YamlLoader  # noqa: E402
from kwrun import run  # noqa: E402,F401  (the render tests import run from here)


def parse_args():
    p = argparse.ArgumentParser()
    p.add_argument("--kwalk", required=True)
    p.add_argument("--corpus-out", required=True, help="the kw_corpus output (NAME.o.kwalk.yaml)")
    p.add_argument("--corpus-src", required=True, help="tests/corpus")
    p.add_argument("--scripts", required=True, help="scripts/ (kw-markers.py)")
    p.add_argument("--keep", action="store_true")
    return p.parse_args()


def markers(args):
    """{id: (kind, absolute file, line)} from scripts/kw-markers.py."""
    rc, out, err = run([sys.executable, os.path.join(args.scripts, "kw-markers.py"), args.corpus_src])
    if rc != 0:
        sys.exit(f"kw-markers.py failed: {err}")
    m = json.loads(out)
    return {k: (v["kind"], os.path.join(os.path.abspath(args.corpus_src), v["file"]), v["line"])
            for k, v in m.items()}


expected = kwcap.load_expected


_lines_cache = {}


def file_lines(path):
    if path not in _lines_cache:
        try:
            with open(path, encoding="utf-8") as f:
                _lines_cache[path] = f.read().split("\n")
        except OSError:
            _lines_cache[path] = None
    return _lines_cache[path]


def python_ops(args):
    """Every def decorated with @compile_ops(...) in ops/*.py, found by Python's
    own parser (kwpycallers.py): {def name: (absolute file, def line)}; the def
    line is the `def` keyword's line, not the decorator's."""
    import kwpycallers
    pkg = kwpycallers.scan(os.path.join(os.path.abspath(args.corpus_src), "ops"))
    return {name: (path, line) for (path, name), line in pkg.ops.items()}


def corpus_db(kwalk, corpus_out, tmp, name="kwalk.db"):
    """`kwalk index` of the corpus sidecars under corpus_out into the SQLite
    index tmp/name, its path; the test ends there when the index fails."""
    db = os.path.join(tmp, name)
    run([kwalk, "index", corpus_out, "-o", db], must=True)
    return db


def build_index(args, tmp):
    """`kwalk index` of the corpus sidecars, in YAML (so the test can read it)."""
    db = os.path.join(tmp, "corpus-index.yaml")
    rc, out, err = run([args.kwalk, "index", args.corpus_out, "-o", db])
    if rc != 0:
        sys.exit(f"kwalk index failed: {err}")
    with open(db, encoding="utf-8") as f:
        return db, yaml.load(f, Loader=YamlLoader)


def split_args(printed):
    """'ns::k<float, a<b, c>, 3>' -> ('ns::k', ['float', 'a<b, c>', '3'])."""
    lt = printed.find("<")
    if lt < 0:
        return printed, []
    name, inner = printed[:lt], printed[lt + 1:printed.rfind(">")]
    out, depth, cur = [], 0, ""
    for ch in inner:
        if ch in "<([":
            depth += 1
        elif ch in ">)]":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur.strip())
    return name, out


def base_name(printed):
    """Unqualified name without template arguments; None for operators/lambdas."""
    if "(lambda" in printed or "operator" in printed:
        return None
    s, depth = "", 0
    for ch in printed:
        if ch == "<":
            depth += 1
        elif ch == ">" and depth:
            depth -= 1
        elif not depth:
            s += ch
    return s.split("::")[-1] or None


def has_word(text, word):
    return re.search(r"(?<![A-Za-z0-9_])" + re.escape(word) + r"(?![A-Za-z0-9_])", text) is not None


def mkdtemp(args, prefix):
    return tempfile.mkdtemp(prefix=prefix)
