#!/usr/bin/env python3
"""test_plugin_failure: the plugin never fails a build. A small generated HIP
TU (the build's arches, fixed -cuid) is compiled without the plugin (reference) and
with it in three failing set-ups:
  out_arg   -fplugin-arg-kwalk-out=DIR where DIR lies under a regular file
            (unwritable even for root);
  out_env   the same DIR through $KWALK_OUT;
  fault     KWALK_FAULT=internal (an injected internal failure).
Each must exit 0, produce the object byte-identical to the reference, print
exactly one stderr line starting `kwalk:`, and leave no sidecar, fragment or
temporary file behind (output dir and TMPDIR)."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import kwcap  # noqa: E402
from kwcheck import Checker  # noqa: E402


def main():
    args = kwcap.parse_args()
    ck = Checker("test_plugin_failure")
    root = kwcap.tmpdir(args, "fail")
    try:
        src = os.path.join(root, "kcap_fail.hip")
        kwcap.write_tiny_tu(src, "fail")
        blocker = os.path.join(root, "regular_file")
        with open(blocker, "w") as f:
            f.write("not a directory\n")
        bad_dir = os.path.join(blocker, "x")
        cases = [
            ("reference", False, [], {}),
            ("out_arg", True, ["-fplugin-arg-kwalk-out=" + bad_dir], {}),
            ("out_env", True, [], {"KWALK_OUT": bad_dir}),
            ("fault", True, [], {"KWALK_FAULT": "internal"}),
        ]
        runs = kwcap.compile_cases(args, root, src, "kcap_fail.o", "kwcap_fail", cases)
        rc, so, se, out, tmp, ref_obj, cmd = runs["reference"]
        if not ck.check(rc == 0 and os.path.isfile(ref_obj),
                        "reference compile (no plugin) failed rc=%d: %s\n%s" % (rc, " ".join(cmd), se)):
            ck.finish()
        with open(ref_obj, "rb") as f:
            ref = f.read()
        ck.eq(kwcap.kwalk_lines(se), [], "reference: kwalk: lines without the plugin")
        for name, _, _, _ in cases[1:]:
            rc, so, se, out, tmp, obj, cmd = runs[name]
            ck.check(rc == 0, "%s: compile exit status %d (must be 0):\n%s\n%s" % (name, rc, " ".join(cmd), se))
            ck.check(os.path.isfile(obj), "%s: no object" % name)
            lines = kwcap.kwalk_lines(se)
            ck.check(len(lines) == 1, "%s: %d stderr lines start with 'kwalk:' (want exactly 1): %r"
                     % (name, len(lines), lines))
            others = [l for l in se.splitlines() if l.strip() and not l.startswith("kwalk:")]
            if others:
                ck.note("%s: other stderr lines: %r" % (name, others[:5]))
            if os.path.isfile(obj):
                with open(obj, "rb") as f:
                    ck.check(f.read() == ref, "%s: object differs from the no-plugin reference" % name)
            ck.eq(kwcap.files_under(out), ["kcap_fail.o"], "%s: files in the output dir" % name)
            ck.eq(kwcap.files_under(tmp), [], "%s: files left in TMPDIR" % name)
        ck.check(os.path.isfile(blocker) and kwcap.files_under(root).count("regular_file") == 1,
                 "the regular file standing in the way was replaced")
    finally:
        kwcap.cleanup(args, root)
    ck.finish()


if __name__ == "__main__":
    main()
