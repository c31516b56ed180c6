#!/usr/bin/env python3
"""test_ir_fault: a fault inside the IR analysis never fails a build, and
the IR analysis can be turned off. A small TU of its own (kwcap's tiny TU:
a kernel template with LDS, three instantiations; the build's arches, fixed
-cuid) is compiled without the plugin (reference) and
with it:
  plugin     as users run it: the control (its sidecar has IR facts);
  crash      KWALK_FAULT=ir-crash: the analysis stores through a null pointer
             in every device job (a SIGSEGV inside clang's integrated cc1,
             whose driver runs cc1 under a crash recovery context of its own);
  crash_cc1  the same with -fno-integrated-cc1 (cc1 a process of its own, no
             recovery context of clang's around it);
  off_arg    -fplugin-arg-kwalk-ir=off;
  off_env    KWALK_IR=off.
Each must exit 0 with the object byte-identical to the reference and write a
sidecar listing the kernels; crash and crash_cc1 print exactly one stderr
line starting `kwalk:` (it says the IR analysis crashed), the others none;
only the control's sidecar has `ir` facts."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import kwcap  # noqa: E402
from kwcheck import Checker  # noqa: E402


def main():
    args = kwcap.parse_args()
    ck = Checker("test_ir_fault")
    root = kwcap.tmpdir(args, "irfault")
    src = os.path.join(root, "irfault.hip")
    kwcap.write_tiny_tu(src, "irfault")
    try:
        cases = [
            ("reference", False, [], {}),
            ("plugin", True, [], {}),
            ("crash", True, [], {"KWALK_FAULT": "ir-crash"}),
            ("crash_cc1", True, ["-fno-integrated-cc1"], {"KWALK_FAULT": "ir-crash"}),
            ("off_arg", True, ["-fplugin-arg-kwalk-ir=off"], {}),
            ("off_env", True, [], {"KWALK_IR": "off"}),
        ]
        runs = kwcap.compile_cases(args, root, src, "cache_kernels.o", "kwir_fault", cases,
                                   unset=("KWALK_IR",))
        rc, _, se, _, _, ref_obj, cmd = runs["reference"]
        if not ck.check(rc == 0 and os.path.isfile(ref_obj),
                        "reference compile failed rc=%d: %s\n%s" % (rc, " ".join(cmd), se)):
            ck.finish()
        with open(ref_obj, "rb") as f:
            ref = f.read()
        for name, _, _, _ in cases[1:]:
            rc, _, se, _, _, obj, cmd = runs[name]
            ck.check(rc == 0, "%s: exit status %d (must be 0): %s\n%s" % (name, rc, " ".join(cmd), se[-4000:]))
            lines = kwcap.kwalk_lines(se)
            if name.startswith("crash"):
                ck.check(len(lines) == 1 and "IR analysis crashed" in lines[0],
                         "%s: want one kwalk: line saying the IR analysis crashed, got %r" % (name, lines))
            else:
                ck.eq(lines, [], "%s: kwalk: lines" % name)
            if not ck.check(os.path.isfile(obj), "%s: no object" % name):
                continue
            with open(obj, "rb") as f:
                ck.check(f.read() == ref, "%s: object differs from the no-plugin reference" % name)
            side = obj + ".kwalk.yaml"
            if not ck.check(os.path.isfile(side), "%s: no sidecar" % name):
                continue
            doc = kwcap.load_yaml_file(side)
            kernels = doc.get("kernels") or []
            ck.check(len(kernels) > 0, "%s: the sidecar lists no kernel" % name)
            with_ir = sum(1 for k in kernels for a in (k.get("archs") or {}).values() if a and "ir" in a)
            if name == "plugin":
                ck.check(with_ir > 0, "plugin: no kernel has IR facts (the control)")
            else:
                ck.eq(with_ir, 0, "%s: kernels x archs with IR facts" % name)
    finally:
        kwcap.cleanup(args, root)
    ck.finish()


if __name__ == "__main__":
    main()
