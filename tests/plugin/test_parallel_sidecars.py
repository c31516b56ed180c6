#!/usr/bin/env python3
"""test_parallel_sidecars: eight TUs built at once (a generated Makefile run
with make -j8, as a build system would) into one shared $KWALK_OUT directory.

The TUs are generated: each has its own kernel template kcap_tN with several
instantiations. Four objects have distinct names; four are all called
`kernels.o` (in different directories), the case where only the TU's cuid
keeps sidecars apart. No -cuid is given: clang's default cuid is used, as in
aiter's JIT builds. Afterwards:
  - every compile exits 0 and prints no `kwalk:` line;
  - KWALK_OUT holds exactly eight sidecars, and each object has exactly one
    whose translation_unit.object is that object;
  - each parses as YAML (a whole document), has kwalk_schema 3, names its own
    source, and lists exactly its code object's kernels for each arch (read
    from the object with llvm-objcopy + clang-offload-bundler + llvm-readelf),
    all of them instances of its own template;
  - no `*.tmp.*` file, no fragment and no directory (the fragment directory
    `.kwalk-fragments`) is left anywhere in KWALK_OUT, and no sidecar was
    written next to the objects.
"""
import fnmatch
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import kwcap  # noqa: E402
from kwcheck import Checker  # noqa: E402

N = 8


def mk_quote(s):
    return s.replace("$", "$$").replace(" ", "\\ ")


def main():
    args = kwcap.parse_args()
    ck = Checker("test_parallel_sidecars")
    expected = kwcap.load_expected(args)
    arches = args.arches
    make = shutil.which("make") or shutil.which("gmake")
    root = kwcap.tmpdir(args, "par")
    try:
        outdir = os.path.join(root, "sidecars")
        os.makedirs(outdir)
        tus = []
        for i in range(N):
            tag = "t%d" % i
            d = os.path.join(root, "tu%d" % i)
            os.makedirs(d)
            src = os.path.join(d, "kcap_%s.hip" % tag)
            # different sizes per TU: eight different instantiation sets
            kwcap.write_tiny_tu(src, tag, sizes=(64, 128, 256, 320 + 64 * i))
            objname = ("kcap_%s.o" % tag) if i < N // 2 else "kernels.o"
            tus.append((tag, src, os.path.join(d, objname)))
        env = kwcap.clean_env(KWALK_OUT=outdir, TMPDIR=os.path.join(root, "tmp"))
        os.makedirs(env["TMPDIR"])
        results = {}
        if make:
            rules = ["all: %s" % " ".join(mk_quote(o) for _, _, o in tus), ""]
            for tag, src, obj in tus:
                cmd = kwcap.compile_cmd(args, src, obj)
                log = obj + ".log"
                rules.append("%s: %s" % (mk_quote(obj), mk_quote(src)))
                rules.append("\t%s > %s 2>&1; echo $$? > %s.rc" % (
                    " ".join("'%s'" % c.replace("$", "$$") for c in cmd), log, obj))
                rules.append("")
            mf = os.path.join(root, "Makefile")
            with open(mf, "w") as f:
                f.write("\n".join(rules))
            r = kwcap.run([make, "-f", mf, "-j%d" % N], env=env, cwd=root)
            ck.check(r.returncode == 0, "make -j%d failed: %s" % (N, r.stderr))
            for tag, src, obj in tus:
                try:
                    with open(obj + ".rc") as f:
                        rc = int(f.read().strip())
                    with open(obj + ".log") as f:
                        text = f.read()
                except (OSError, ValueError) as e:
                    rc, text = -1, str(e)
                results[tag] = (rc, text)
                os.unlink(obj + ".rc")
                os.unlink(obj + ".log")
        else:  # no make: eight processes at once
            procs = [(tag, subprocess.Popen(kwcap.compile_cmd(args, src, obj), env=env,
                                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                            text=True)) for tag, src, obj in tus]
            for tag, p in procs:
                results[tag] = (p.wait(), p.stdout.read())
        for tag, src, obj in tus:
            rc, text = results[tag]
            ck.check(rc == 0, "%s: compile failed rc=%d:\n%s" % (tag, rc, text[-2000:]))
            ck.eq(kwcap.kwalk_lines(text), [], "%s: kwalk: lines" % tag)
            d = os.path.dirname(obj)
            ck.eq(sorted(os.listdir(d)), sorted([os.path.basename(src), os.path.basename(obj)]),
                  "%s: files beside the object (KWALK_OUT is set: no sidecar here)" % tag)

        all_files = kwcap.files_under(outdir)
        tmps = [f for f in all_files if fnmatch.fnmatch(os.path.basename(f), "*.tmp.*")]
        ck.eq(tmps, [], "temporary files left in KWALK_OUT")
        sidecars = [f for f in all_files if f.endswith(".kwalk.yaml") and os.sep not in f]
        leftovers = sorted(set(all_files) - set(sidecars) - set(tmps))
        ck.eq(leftovers, [], "other files (fragments?) left in KWALK_OUT")
        dirs = sorted(e for e in os.listdir(outdir) if os.path.isdir(os.path.join(outdir, e)))
        ck.eq(dirs, [], "directories left in KWALK_OUT")
        ck.eq(len(sidecars), N, "number of sidecars in KWALK_OUT (%r)" % sidecars)
        by_object = {}
        for s in sidecars:
            path = os.path.join(outdir, s)
            try:
                doc = kwcap.load_yaml_file(path)
            except Exception as e:  # noqa: BLE001 - a truncated/mixed file is the finding
                ck.fail("%s does not parse: %s" % (s, str(e)[:300]))
                continue
            if not ck.check(isinstance(doc, dict), "%s is not a mapping" % s):
                continue
            with open(path, encoding="utf-8") as f:
                ck.check(f.read().rstrip().endswith("..."),
                         "%s does not end with the YAML document end marker '...'" % s)
            obj = os.path.realpath(((doc.get("translation_unit") or {}).get("object")) or "")
            by_object.setdefault(obj, []).append((s, doc))
        for tag, src, obj in tus:
            docs = by_object.get(os.path.realpath(obj), [])
            if not ck.check(len(docs) == 1, "%s: %d sidecars name object %s (want 1): %r"
                            % (tag, len(docs), obj, [s for s, _ in docs])):
                continue
            s, doc = docs[0]
            ck.eq(doc.get("kwalk_schema"), 3, "%s: kwalk_schema" % s)
            tu = doc.get("translation_unit") or {}
            ck.eq(os.path.realpath(tu.get("source") or ""), os.path.realpath(src),
                  "%s: translation_unit.source" % s)
            ck.eq(sorted(tu.get("offload_archs") or []), sorted(arches), "%s: offload_archs" % s)
            kernels = doc.get("kernels") or []
            ck.check(kernels and all(k.get("template") == "kcap_" + tag for k in kernels),
                     "%s: kernels not all of template kcap_%s: %r" % (s, tag,
                                                                    [k.get("name") for k in kernels]))
            for arch in arches:
                co, err = kwcap.code_object_kernels(args, obj, arch, root)
                if ck.check(err is None, "%s/%s: %s" % (tag, arch, err)):
                    side = {k.get("symbol") for k in kernels if arch in (k.get("archs") or {})}
                    ck.check(co and side == co, "%s/%s: sidecar %s vs code object %s"
                             % (tag, arch, sorted(side), sorted(co)))
            ck.eq(len(doc.get("launches") or []), 4, "%s: launches" % s)
    finally:
        kwcap.cleanup(args, root)
    ck.finish()


if __name__ == "__main__":
    main()
