#!/usr/bin/env python3
"""test_kernel_symbols: for every corpus TU and each arch, the kernel symbols in
the sidecar (kernels whose `archs` map has that arch) are exactly the kernels
of that arch's code object, read from the host object's .hip_fatbin with
llvm-objcopy + clang-offload-bundler + llvm-readelf (a kernel = a FUNC symbol
with a matching `.kd` kernel descriptor), leaving out the kernels marked
`not_in_object` (only when the object embeds no device code). Also: one sidecar entry per symbol,
offload_archs lists the arches, and each code object has as many kernels as
expected.json describes for that file (so the ground truth is complete)."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import kwcap  # noqa: E402
from kwcheck import Checker  # noqa: E402


def main():
    args = kwcap.parse_args()
    ck = Checker("test_kernel_symbols")
    expected = kwcap.load_expected(args)
    arches = args.arches
    docs = kwcap.load_corpus_sidecars(args, expected, ck)
    work = kwcap.tmpdir(args, "syms")
    try:
        for tu in kwcap.corpus_tus(expected):
            doc = docs.get(tu)
            if doc is None:
                continue
            obj = kwcap.object_of(args, tu)
            tu_info = doc.get("translation_unit") or {}
            ck.eq(sorted(tu_info.get("offload_archs") or []), sorted(arches),
                  "%s: translation_unit.offload_archs" % tu)
            symbols = [k.get("symbol") for k in doc["kernels"]]
            dups = sorted({s for s in symbols if symbols.count(s) > 1})
            ck.check(not dups, "%s: kernels listed more than once: %s" % (tu, dups))
            want_count = expected["compile"]["tus"][tu].get("kernels")
            if want_count is None:
                # every kernel instantiation of this file that expected.json describes
                want_count = sum(len(k["instantiations"]) for k in expected["kernels"].values()
                                 if k["file"] == tu)
            for arch in arches:
                co, err = kwcap.code_object_kernels(args, obj, arch, work)
                if not ck.check(err is None, "%s/%s: reading the code object: %s" % (tu, arch, err)):
                    continue
                # kernels the sidecar says the object holds (not_in_object: compiled
                # by the device job, left out of the object; test_object_kernels)
                side = {k.get("symbol") for k in doc["kernels"]
                        if arch in (k.get("archs") or {}) and not k.get("not_in_object")}
                only_side = sorted(side - co)
                only_co = sorted(co - side)
                ck.check(not only_side, "%s/%s: in the sidecar but not in the code object: %s"
                         % (tu, arch, only_side))
                ck.check(not only_co, "%s/%s: in the code object but not in the sidecar: %s"
                         % (tu, arch, only_co))
                ck.check(len(co) > 0 or want_count == 0,
                         "%s/%s: the code object has no kernels at all" % (tu, arch))
                if want_count is not None:
                    ck.eq(len(co), want_count, "%s/%s: kernels in the code object (expected.json)"
                          % (tu, arch))
            embeds = kwcap.has_section(args, obj, ".hip_fatbin")
            marked = sorted(k.get("symbol") for k in doc["kernels"] if k.get("not_in_object"))
            ck.check(not (embeds and marked), "%s: the object embeds device code, yet %s are "
                     "marked not_in_object" % (tu, marked))
            # a kernel whose archs map names an arch the TU was not built for
            for k in doc["kernels"]:
                extra = sorted(set(k.get("archs") or {}) - set(arches))
                ck.check(not extra, "%s: kernel %s has unknown archs %s" % (tu, k.get("symbol"), extra))
    finally:
        kwcap.cleanup(args, work)
    ck.finish()


if __name__ == "__main__":
    main()
