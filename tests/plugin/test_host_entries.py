#!/usr/bin/env python3
"""test_host_entries: host entry points that are neither extern "C" nor pybind11.

Compiles tests/plugin/src/kw_host_entries.hip with the plugin and
-fplugin-arg-kwalk-entrypoints=src/kw_host_entries.entrypoints and checks,
against the source text and its KW: markers (never against kwalk's output):

- the sidecar's entries are exactly the KW:ENTRY lines of the file: the plain
  C++ function no other function of the TU calls (kind cxx), the TORCH_LIBRARY
  m.def and TORCH_LIBRARY_IMPL m.impl bindings (kind torch: the op name as the
  schema string on the marked line spells it, the library namespace as the
  macro's first argument), and the static function the annotation file names
  (kind annotated); each entry's line is its marker's, and that line of the
  source holds the function's name followed by '(' (a definition) or the op's
  string literal (a binding); the functions reached only through another
  function of the TU (scale_twice, launch_scale<N>) are not entries;
- `kwalk map --format tsv` has a row per entry with its kind, name, file:line
  and the launch's file:line (the KW:LAUNCH marker);
- an entry-points file with a malformed line costs one `kwalk: warning:` line
  naming it, and the compile still succeeds.
"""
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import kwcap  # noqa: E402
from kwcheck import Checker  # noqa: E402

SRC = "kw_host_entries.hip"
ANNOT = "kw_host_entries.entrypoints"

# marker -> (kind, name, module, bound function): written from the source.
WANT = {
    "he.plain": ("cxx", "kwhe::run_plain", None, "kwhe::run_plain"),
    "he.torch_def": ("torch", "scale4", "kwhe_ops", "kwhe::torch_scale"),
    "he.torch_impl": ("torch", "scale8", "kwhe_ops", "kwhe::torch_scale_impl"),
    "he.annotated": ("annotated", "kwhe::run_static", None, "kwhe::run_static"),
}


def source_says(line, kind, name, fn):
    """The marked line defines fn, or binds it under the op name."""
    if kind == "torch":
        m = re.search(r'm\.(def|impl)\("([A-Za-z0-9_]+)[("]', line)
        return bool(m) and m.group(2) == name and ("&" + fn) in line
    return re.search(r"\b%s\s*\(" % re.escape(fn.split("::")[-1]), line) is not None


def main():
    args = kwcap.parse_args()
    ck = Checker("test_host_entries")
    src_dir = os.path.join(args.source_dir, "tests", "plugin", "src")
    src = os.path.join(src_dir, SRC)
    markers, errors = kwcap.scan_markers(args, src_dir)
    for e in errors:
        ck.fail("markers: %s" % e)
    lines = open(src, encoding="utf-8").read().split("\n")
    root = kwcap.tmpdir(args, "host-entries")
    try:
        obj = os.path.join(root, "kw_host_entries.o")
        r, why = kwcap.compile_plugin(args, src, obj, extra=[
            "-cuid=kw_host_entries",
            "-fplugin-arg-kwalk-entrypoints=" + os.path.join(src_dir, ANNOT)])
        if not ck.check(r.returncode == 0, why):
            ck.finish()
        ck.eq(kwcap.kwalk_lines(r.stderr), [], "kwalk: lines on stderr")
        doc = kwcap.load_yaml_file(obj + ".kwalk.yaml")
        entries = doc.get("entries") or []

        # ---- the sidecar's entries against the markers and the source text
        at = {}
        for en in entries:
            f, l = kwcap.loc_line(en)
            ck.eq(os.path.realpath(f or ""), os.path.realpath(src), "entry %r: file" % en.get("name"))
            at.setdefault(l, []).append(en)
        want_lines = {markers[mid]["line"]: mid for mid in WANT}
        ck.eq(sorted(at), sorted(want_lines), "entry lines vs KW:ENTRY lines %s" % sorted(WANT))
        for mid, (kind, name, module, fn) in WANT.items():
            line = markers[mid]["line"]
            text = lines[line - 1]
            ck.check(source_says(text, kind, name, fn),
                     "%s: line %d does not hold %s (%s): %r" % (mid, line, fn, name, text))
            got = at.get(line, [])
            if not ck.check(len(got) == 1, "%s: %d entries at line %d: %r" % (mid, len(got), line, got)):
                continue
            en = got[0]
            ck.eq(en.get("kind"), kind, "%s: kind" % mid)
            ck.eq(en.get("name"), name, "%s: name" % mid)
            ck.eq(en.get("module"), module, "%s: module" % mid)
            ck.eq(en.get("function"), fn, "%s: function" % mid)
        inner = {"kwhe::scale_twice"} | {"kwhe::launch_scale<%d>" % n for n in (2, 4, 8, 16)}
        ck.check(not inner & {en.get("function") for en in entries},
                 "functions called inside the TU listed as entries: %s"
                 % sorted(inner & {en.get("function") for en in entries}))

        # ---- kwalk map names them
        db = os.path.join(root, "he.db")
        r = kwcap.run([args.kwalk, "index", root, "-o", db])
        ck.check(r.returncode == 0, "kwalk index: rc=%d %s" % (r.returncode, r.stderr))
        r = kwcap.run([args.kwalk, "map", "--db", db, "--format", "tsv"])
        ck.check(r.returncode == 0, "kwalk map: rc=%d %s" % (r.returncode, r.stderr))
        rows = [ln.split("\t") for ln in r.stdout.splitlines() if ln.strip()]
        launch = "%s:%d" % (os.path.realpath(src), markers["he.scale"]["line"])
        got = set()
        for f in rows:
            if len(f) < 8:
                continue
            ef, _, el = f[6].rpartition(":")
            lf, _, ll = f[7].rpartition(":")
            got.add((f[4], f[5], "%s:%s" % (os.path.realpath(ef), el),
                     "%s:%s" % (os.path.realpath(lf), ll)))
        for mid, (kind, name, module, fn) in WANT.items():
            label = "%s::%s" % (module, name) if kind == "torch" else name
            row = (kind, label, "%s:%d" % (os.path.realpath(src), markers[mid]["line"]), launch)
            ck.check(row in got, "kwalk map: no row %r; rows %r" % (row, sorted(got)))

        # ---- a malformed entry-points file: one warning, the compile goes on
        bad = os.path.join(root, "bad.entrypoints")
        with open(bad, "w", encoding="utf-8") as f:
            f.write("function kwhe::run_plain\nentry kwhe::oops extra\n")
        cmd = kwcap.compile_cmd(args, src, os.path.join(root, "bad.o"), extra=[
            "-fsyntax-only", "-fplugin-arg-kwalk-entrypoints=" + bad])
        cmd.remove("-c")
        r = kwcap.run(cmd, env=kwcap.clean_env())
        ck.eq(r.returncode, 0, "compile with a malformed entry-points file: rc")
        warns = [ln for ln in kwcap.kwalk_lines(r.stderr) if "entry points" in ln]
        ck.check(len(warns) == 1 and "%s:2:" % bad in warns[0],
                 "malformed entry-points file: want one warning naming %s:2, got %r" % (bad, warns))
    finally:
        kwcap.cleanup(args, root)
    ck.finish()


if __name__ == "__main__":
    main()
