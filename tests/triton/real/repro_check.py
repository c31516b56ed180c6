#!/usr/bin/env python3
# repro_check.py: runs reproducers written by `kwalk repro` inside real Triton
# and compares the hash each compile gets with the recorded one. Run on a
# machine with Triton (no AMD GPU needed) from a folder holding scripts/
# (one `kwalk repro HASH -o scripts/HASH.py` per specialization of the shared
# fixture, indexed with --map-prefix /opt/aiter=<this folder>/src), src/ (the
# fixture's sources) and manifest.json (the fixture's): the constexprs kwalk
# could not recover are taken from the manifest, the compile's ground truth.
# Writes $OUT/repro-results.json; repro-results.json beside this file is its
# output of 2026-12-05 (Triton 3.6.0, the ten fixture specializations: ten
# times the recorded hash).
import ast, json, os, subprocess, sys
here = os.path.dirname(os.path.abspath(__file__))
man = json.load(open(os.path.join(here, "manifest.json")))["compiled"]
res = []
for f in sorted(os.listdir(os.path.join(here, "scripts"))):
    path = os.path.join(here, "scripts", f)
    text = open(path).read().replace("/work/main/tmp-repro/", here + "/")
    open(path, "w").write(text)
    tree = ast.parse(text)
    g = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name):
            g[node.targets[0].id] = node.value
    kernel = ast.literal_eval(g["KERNEL"])
    arch = ast.literal_eval(g["TARGET"].args[1])
    consts = {ast.literal_eval(k): v for k, v in zip(g["CONSTEXPRS"].keys, g["CONSTEXPRS"].values)}
    known = {k: ast.literal_eval(v) for k, v in consts.items() if not isinstance(v, ast.Name)}
    rows = [m for m in man if m["kernel"] == kernel and m["arch"] == arch and
            all(m["constexprs"].get(k) == v for k, v in known.items())]
    args = []
    if len(rows) == 1:
        args = ["%s=%r" % (k, rows[0]["constexprs"][k]) for k, v in consts.items() if isinstance(v, ast.Name)]
    p = subprocess.run([sys.executable, path] + args, capture_output=True, text=True)
    res.append({"script": f, "kernel": kernel, "arch": arch, "manifest_rows": len(rows), "args": args,
                "rc": p.returncode, "stdout": p.stdout[-500:], "stderr": p.stderr[-1500:]})
    print(f, kernel, arch, p.returncode, p.stdout.strip()[:120], p.stderr.strip()[-200:])
json.dump(res, open(os.path.join(os.environ.get("OUT", "."), "repro-results.json"), "w"), indent=1)
