#!/usr/bin/env python3
"""test_corpus.py: the committed Triton corpus sidecars (tests/corpus/triton/
sidecars*, made by scripts/triton-corpus.sh with the hook on a Triton 3.6
machine) checked against ground truth the hook did not produce:

- constexprs and options vs what the generator passed (manifest.jsonl, its
  own record) and vs the def's tl.constexpr parameters in the source;
- options, hash, arch and shared bytes vs Triton's own NAME.json in cache/;
- the cache files named vs the committed cache; the .hsaco's target vs
  `llvm-readelf --notes` (with --llvm-bin);
- definition, launch and call-chain lines vs the marker comments
  `# KWT:<KIND> <id>` in the corpus sources, found here; the grid and the
  arguments vs the launch's source text.

  test_corpus.py --source-dir SRC [--llvm-bin DIR]

Paths in the artifacts start with /opt/kwalk (the generator's copy of the
repository); they are mapped to SRC.
"""
import argparse
import ast
import json
import os
import re
import subprocess
import sys

import yaml

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from kwcheck import Checker  # noqa: E402

PREFIX = "/opt/kwalk"
META = {"hash", "name", "arch", "target", "backend_name", "triton_version", "warp_size", "shared",
        "profile_scratch_size", "profile_scratch_align"}
C = Checker("triton.corpus")
check = C.check


def load_sidecars(d):
    out = []
    for f in sorted(os.listdir(d)):
        if not f.endswith(".kwalk.yaml"):
            continue
        with open(os.path.join(d, f)) as fh:
            text = fh.read()
        check(text.endswith("\n...\n"), "%s: end marker" % f)
        out.append((f, yaml.safe_load(text.replace("\n...\n", "\n"))))
    return out


def markers(corpus):
    out = {}
    for f in sorted(os.listdir(corpus)):
        if f.endswith(".py"):
            with open(os.path.join(corpus, f)) as fh:
                for n, line in enumerate(fh, 1):
                    for kind, ident in re.findall(r"#\s*KWT:([A-Z]+)\s+([\w.-]+)", line):
                        check((kind, ident) not in out, "marker %s %s twice" % (kind, ident))
                        out[(kind, ident)] = (os.path.join(corpus, f), n)
    return out


def declared_constexprs(path, name):
    tree = ast.parse(open(path).read())
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name == name:
            return [a.arg for a in node.args.args if a.annotation is not None and "constexpr" in ast.unparse(a.annotation)]
    return None


def enclosing_function(path, line):
    tree = ast.parse(open(path).read())
    best = None
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.lineno <= line <= node.end_lineno:
            if best is None or node.lineno > best.lineno:
                best = node
    return best.name if best else "<module>"


def call_at(path, line):
    """the Call whose func is NAME[...] starting on LINE, from the source."""
    text = open(path).read()
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Subscript) and node.lineno == line:
            return node, text
    return None, text


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--source-dir", required=True)
    ap.add_argument("--llvm-bin")
    args = ap.parse_args()
    src = os.path.abspath(args.source_dir)
    corpus = os.path.join(src, "tests/corpus/triton")

    def local(p):
        check(p.startswith(PREFIX + "/"), "path under %s: %s" % (PREFIX, p))
        return src + p[len(PREFIX):]

    m = markers(corpus)
    manifest = [json.loads(ln) for ln in open(os.path.join(corpus, "manifest.jsonl")) if ln.strip()]
    hit_manifest = [json.loads(ln) for ln in open(os.path.join(corpus, "manifest-hit.jsonl")) if ln.strip()]
    side = load_sidecars(os.path.join(corpus, "sidecars"))
    hits = load_sidecars(os.path.join(corpus, "sidecars-hit"))
    check(len(manifest) == 10 and len(side) == len(manifest),
          "one sidecar per compile: %d sidecars, %d manifest rows" % (len(side), len(manifest)))
    check({r["arch"] for r in manifest} == {"gfx942", "gfx950"}, "both archs")
    check(len(hits) == len(hit_manifest) == 5, "cache-hit run: %d sidecars" % len(hits))
    by_hash = {}
    for group, expect_hit, rows in ((side, False, manifest), (hits, True, hit_manifest)):
        used = set()
        for fname, doc in group:
            k = doc["kernels"][0]
            t = k["triton"]
            name = k["name"]
            check(doc["kwalk_schema"] == 1 and k["language"] == "triton", "%s: schema/language" % fname)
            check(t["cache_hit"] is expect_hit, "%s: cache_hit %r" % (fname, t["cache_hit"]))
            arch = list(k["archs"])[0]
            cx = {c["name"]: c for c in t["constexprs"]}
            opts = {o["name"]: o["value"] for o in t["options"]}
            # the generator's manifest row this compile was given
            match = [i for i, r in enumerate(rows) if r["kernel"] == name and r["arch"] == arch
                     and all(cx.get(n, {}).get("value") == repr(v) for n, v in r["constexprs"].items())]
            if not check(len(match) == 1, "%s: one manifest row matches, got %d" % (fname, len(match))):
                continue
            row = rows[match[0]]
            used.add(match[0])
            for n, v in row["options"].items():
                check(opts.get(n) == v, "%s: option %s = %r, passed %r" % (fname, n, opts.get(n), v))
            # Triton's own record of the compile
            jpath = [f for f in t["files"] if f.endswith("/%s.json" % name)]
            if not check(len(jpath) == 1, "%s: NAME.json listed" % fname):
                continue
            with open(local(jpath[0])) as fh:
                tj = json.load(fh)
            check(tj["hash"] == t["hash"] and k["symbol"] == "%s@%s" % (name, tj["hash"]), "%s: hash" % fname)
            check(fname == "%s-%s.kwalk.yaml" % (name, tj["hash"][:16]), "%s: file name" % fname)
            check(tj["target"]["arch"] == arch and doc["translation_unit"]["offload_archs"] == [arch], "%s: arch" % fname)
            check(t["shared_bytes"] == tj["shared"], "%s: shared_bytes" % fname)
            want = []
            for key, v in tj.items():
                if key in META or not isinstance(v, (bool, int, float, str)):
                    continue
                want.append((key, ("true" if v else "false") if isinstance(v, bool) else v))
            check([(o["name"], o["value"]) for o in t["options"]] == want, "%s: options vs NAME.json" % fname)
            # the cache files exist in the committed cache
            for f in t["files"]:
                check(os.path.isfile(local(f)), "%s: cache file %s" % (fname, f))
            check(os.path.dirname(local(t["files"][0])) == local(t["cache_dir"])
                  and os.path.basename(t["cache_dir"]) == t["cache_key"], "%s: cache_dir/key" % fname)
            hsaco = local(doc["translation_unit"]["object"])
            check(os.path.isfile(hsaco), "%s: the .hsaco" % fname)
            if args.llvm_bin:
                p = subprocess.run([os.path.join(args.llvm_bin, "llvm-readelf"), "--notes", hsaco],
                                   capture_output=True, text=True)
                check(p.returncode == 0 and re.search(r"amdhsa\.target:\s+amdgcn-amd-amdhsa--%s\b" % arch, p.stdout),
                      "%s: llvm-readelf --notes target is %s" % (fname, arch))
            by_hash.setdefault(t["hash"], fname)
            # the source: definition, constexpr names, launch, chain
            cid = row["id"]
            def_file, def_line = m[("JIT", cid)]
            check(k["location"] == {"file": PREFIX + def_file[len(src):], "line": def_line, "column": 1},
                  "%s: definition %r vs marker line %d" % (fname, k["location"], def_line))
            check(doc["translation_unit"]["source"] == PREFIX + def_file[len(src):], "%s: tu source" % fname)
            check(list(cx) == declared_constexprs(def_file, name), "%s: constexpr names vs the def" % fname)
            check(all(c.get("from") in ("hook", "default") for c in t["constexprs"]), "%s: from" % fname)
            (ln,) = doc["launches"]
            lf, ll = m[("LAUNCH", cid)]
            line_text = open(lf).read().splitlines()[ll - 1]
            check(ln["location"] == {"file": PREFIX + lf[len(src):], "line": ll, "column": line_text.index(name + "[") + 1},
                  "%s: launch %r vs marker line %d" % (fname, ln["location"], ll))
            check(ln["kernel"] == k["symbol"] and ln["kind"] == "triton", "%s: launch kernel" % fname)
            check(ln["function"] == enclosing_function(lf, ll), "%s: launch function %s" % (fname, ln["function"]))
            grid = re.search(re.escape(name) + r"\[(.*)\]\(", line_text).group(1)
            check(ln["config"]["grid"]["expr"] == grid, "%s: grid %r vs %r" % (fname, ln["config"]["grid"], grid))
            call, text = call_at(lf, ll)
            exprs = [" ".join(ast.get_source_segment(text, a).split()) for a in call.args]
            exprs += [("**" if kw.arg is None else "") + " ".join(ast.get_source_segment(text, kw.value).split())
                      for kw in call.keywords]
            check([a["expr"] for a in ln["args"]] == exprs, "%s: args %r vs %r" % (fname, ln["args"], exprs))
            chain = ln["call_chain"]
            cf, cl = m[("CALL", cid)]
            of, ol = m[("OP", cid)]
            check(len(chain) >= 3 and (chain[0]["location"]["file"], chain[0]["location"]["line"]) == (PREFIX + cf[len(src):], cl)
                  and chain[0]["function"] == enclosing_function(cf, cl),
                  "%s: caller of the wrapper vs CALL marker %s:%d: %r" % (fname, cf, cl, chain[:1]))
            check(any((c["location"]["file"], c["location"]["line"]) == (PREFIX + of[len(src):], ol) for c in chain),
                  "%s: the chain passes the OP marker line %d" % (fname, ol))
            check(chain[-1]["function"] == "<module>", "%s: the chain ends at the program's module" % fname)
        check(len(used) == len(rows), "every manifest row has its sidecar (%d of %d)" % (len(used), len(rows)))
    check(len({d["kernels"][0]["triton"]["hash"] for _, d in side}) == 10, "10 distinct specializations")
    cache = os.path.join(corpus, "cache")
    check(len(os.listdir(cache)) == 10, "10 cache folders, one per specialization")
    C.note("%d sidecars, %d cache-hit sidecars" % (len(side), len(hits)))
    C.finish()


if __name__ == "__main__":
    sys.exit(main())
