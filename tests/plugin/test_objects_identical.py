#!/usr/bin/env python3
"""test_objects_identical: the plugin only observes. Two corpus TUs are
compiled with the corpus flags and a fixed -cuid, once without and once with
-fplugin, each into its own temporary directory (and with its own TMPDIR, the
place device fragments go when no output directory is given):
  - the two .o files are byte-identical (compared byte for byte);
  - the with-plugin directory holds exactly the object and its sidecar
    `<object>.kwalk.yaml`, the without-plugin one only the object;
  - the sidecar is whole (parses, kwalk_schema 3, names this source and
    object) and lists the code object's kernels for each arch of the build;
  - no fragment or temporary file is left in either TMPDIR;
  - neither compile prints a `kwalk:` line.
"""
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import kwcap  # noqa: E402
from kwcheck import Checker  # noqa: E402

TUS = ("rope_kernels.hip", "sample_kernels.hip")


def main():
    args = kwcap.parse_args()
    ck = Checker("test_objects_identical")
    expected = kwcap.load_expected(args)
    arches = args.arches
    root = kwcap.tmpdir(args, "ident")
    try:
        jobs = []
        for tu in TUS:
            src = os.path.join(args.corpus_src, tu)
            name = tu.split(".")[0]
            for mode in ("plain", "plugin"):
                out = os.path.join(root, mode, name)
                tmp = os.path.join(root, "tmp-" + mode + "-" + name)
                os.makedirs(out)
                os.makedirs(tmp)
                obj = os.path.join(out, name + ".o")
                cmd = kwcap.compile_cmd(args, src, obj, plugin=(mode == "plugin"),
                                        extra=["-cuid=kwcap_" + name])
                jobs.append((tu, mode, out, tmp, obj, cmd))
        # two compiles at a time (the machine has 2 cores)
        results = {}
        for i in range(0, len(jobs), 2):
            procs = []
            for tu, mode, out, tmp, obj, cmd in jobs[i:i + 2]:
                env = kwcap.clean_env(TMPDIR=tmp)
                procs.append(((tu, mode), subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE,
                                                           stderr=subprocess.PIPE, text=True)))
            for key, p in procs:
                so, se = p.communicate()
                results[key] = (p.returncode, so + se)
        for tu, mode, out, tmp, obj, cmd in jobs:
            rc, text = results[(tu, mode)]
            ck.check(rc == 0, "%s (%s): compile failed rc=%d:\n%s\n%s" % (tu, mode, rc, " ".join(cmd), text))
            ck.eq(kwcap.kwalk_lines(text), [], "%s (%s): kwalk: lines on stderr" % (tu, mode))
            ck.eq(kwcap.files_under(tmp), [], "%s (%s): files left in TMPDIR" % (tu, mode))
            name = os.path.basename(obj)
            want = [name] if mode == "plain" else [name, name + ".kwalk.yaml"]
            ck.eq(kwcap.files_under(out), sorted(want), "%s (%s): files in the output dir" % (tu, mode))
        for tu in TUS:
            byname = {mode: obj for t, mode, out, tmp, obj, cmd in jobs if t == tu}
            a, b = byname["plain"], byname["plugin"]
            if not (os.path.isfile(a) and os.path.isfile(b)):
                continue
            with open(a, "rb") as fa, open(b, "rb") as fb:
                da, db = fa.read(), fb.read()
            if not ck.check(da == db, "%s: objects differ with and without the plugin (%d vs %d bytes)"
                            % (tu, len(da), len(db))):
                first = next((i for i in range(min(len(da), len(db))) if da[i] != db[i]), None)
                ck.note("%s: first differing byte at offset %s" % (tu, first))
            sc = b + ".kwalk.yaml"
            if not os.path.isfile(sc):
                continue
            try:
                doc = kwcap.load_yaml_file(sc)
            except Exception as e:  # noqa: BLE001 - any parse failure is the finding
                ck.fail("%s: sidecar does not parse: %s" % (tu, e))
                continue
            ck.eq(doc.get("kwalk_schema"), 3, "%s: kwalk_schema" % tu)
            tu_info = doc.get("translation_unit") or {}
            ck.eq(os.path.realpath(tu_info.get("source") or ""),
                  os.path.realpath(os.path.join(args.corpus_src, tu)), "%s: translation_unit.source" % tu)
            ck.eq(os.path.realpath(tu_info.get("object") or ""), os.path.realpath(b),
                  "%s: translation_unit.object" % tu)
            ck.eq(tu_info.get("cuid"), "kwcap_" + tu.split(".")[0], "%s: translation_unit.cuid" % tu)
            for arch in arches:
                co, err = kwcap.code_object_kernels(args, b, arch, root)
                if ck.check(err is None, "%s/%s: %s" % (tu, arch, err)):
                    side = {k.get("symbol") for k in doc.get("kernels") or []
                            if arch in (k.get("archs") or {})}
                    ck.check(co and side == co, "%s/%s: sidecar kernels %d, code object kernels %d, "
                             "differ in %s" % (tu, arch, len(side), len(co), sorted(side ^ co)))
    finally:
        kwcap.cleanup(args, root)
    ck.finish()


if __name__ == "__main__":
    main()
