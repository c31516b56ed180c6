#!/usr/bin/env python3
"""test_object_kernels: a sidecar lists as held by the object only the kernels
the object's code objects hold. Compiles src/kw_unembedded.hip (one arch),
whose device job compiles a kernel that no host code of the TU launches or
registers, so clang leaves the code object out of the host object (as in
aiter's pybind TUs, which all compile ck_tile::flush_cache). Checked against
llvm-readelf / clang-offload-bundler of the object itself:

  - the object has no .hip_fatbin section (the premise), and then every kernel
    of the sidecar carries `not_in_object` and no per-arch facts at all
    (resources, isa, IR facts) for any arch;
  - the kernels the sidecar does not mark are exactly the code object's
    kernels (none here);
  - the kernel the source defines is in the sidecar (the device job did
    compile it: it is marked, not lost).

With the aiter fixture (../shared/fixtures/aiter-hip) the same is checked on
its rmsnorm_quant_pybind TU when that TU compiles with the plugin.
"""
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import kwcap  # noqa: E402
from kwcheck import Checker  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(HERE, "src", "kw_unembedded.hip")


def check_object(args, ck, tag, obj, arches, work):
    sc = obj + ".kwalk.yaml"
    if not ck.check(os.path.isfile(sc), "%s: no sidecar %s" % (tag, sc)):
        return None
    doc = kwcap.load_yaml_file(sc)
    kernels = doc.get("kernels") or []
    embeds = kwcap.has_section(args, obj, ".hip_fatbin")
    marked = [k for k in kernels if k.get("not_in_object")]
    if embeds:
        ck.eq([k["symbol"] for k in marked], [],
              "%s: the object embeds device code, yet kernels are marked not_in_object" % tag)
    else:
        ck.eq(sorted(k["symbol"] for k in kernels if not k.get("not_in_object")), [],
              "%s: the object has no .hip_fatbin; kernels not marked not_in_object" % tag)
    for k in marked:
        # schema 2: the arch list stays, without any per-arch facts (another
        # TU's object holds the kernel, and its sidecar has them)
        for arch, facts in (k.get("archs") or {}).items():
            ck.eq(sorted(facts or {}), [],
                  "%s: %s/%s is not in the object but has per-arch facts" % (tag, k["symbol"], arch))
    for arch in arches:
        co, err = kwcap.code_object_kernels(args, obj, arch, work)
        if not ck.check(err is None, "%s/%s: reading the code object: %s" % (tag, arch, err)):
            continue
        held = {k["symbol"] for k in kernels
                if arch in (k.get("archs") or {}) and not k.get("not_in_object")}
        ck.eq(sorted(held), sorted(co), "%s/%s: kernels held by the object (sidecar vs code object)"
              % (tag, arch))
    return doc


def main():
    args = kwcap.parse_args()
    ck = Checker("test_object_kernels")
    arch = args.arches[0]
    cflags = [f for f in args.cflag if not f.startswith("--offload-arch=")]
    root = kwcap.tmpdir(args, "objk")
    try:
        obj = os.path.join(root, "kw_unembedded.o")
        r = kwcap.run([args.clangxx] + cflags + ["--offload-arch=" + arch,
                                                 "-fplugin=" + args.plugin, "-c", SRC, "-o", obj],
                      env=kwcap.clean_env())
        if ck.check(r.returncode == 0 and "kwalk:" not in r.stderr,
                    "compile: rc=%d %s" % (r.returncode, r.stderr[-2000:])):
            ck.check(not kwcap.has_section(args, obj, ".hip_fatbin"),
                     "premise: clang left the code object out of kw_unembedded.o")
            doc = check_object(args, ck, "kw_unembedded", obj, [arch], root)
            # the kernel the source defines was compiled by the device job
            with open(SRC, encoding="utf-8") as f:
                names = re.findall(r"__global__\s+void\s+(\w+)\s*\(", f.read())
            got = [k for k in (doc or {}).get("kernels") or []
                   if re.search(r"\b%s\b" % re.escape(names[0]), k.get("name") or "")]
            ck.check(len(got) == 1 and arch in (got[0].get("archs") or {}),
                     "kernel %s recorded once, for %s: %s" % (names[0], arch, got))
        check_fixture(args, ck, root)
    finally:
        kwcap.cleanup(args, root)
    ck.finish()


def check_fixture(args, ck, root):
    fx = os.path.join(args.source_dir, "..", "shared", "fixtures", "aiter-hip")
    if not os.path.isfile(os.path.join(fx, "compile.sh")):
        ck.note("aiter fixture absent (%s): its pybind TU is not checked" % fx)
        return
    out = os.path.join(root, "aiter")
    arch = args.arches[0]
    env = kwcap.clean_env(ARCHS=arch, CXX=args.clangxx)
    r = kwcap.run(["bash", os.path.join(fx, "compile.sh"), out, args.rsp, args.plugin,
                   "rmsnorm_quant_pybind"], env=env)
    if not ck.check(r.returncode == 0, "fixture compile rmsnorm_quant_pybind: %s %s"
                    % (r.stdout[-500:], r.stderr[-500:])):
        return
    obj = os.path.join(out, "obj", "rmsnorm_quant_pybind.o")
    side = [f for f in os.listdir(os.path.join(out, "side"))
            if f.startswith("rmsnorm_quant_pybind.o.") and f.endswith(".kwalk.yaml")]
    if not ck.check(len(side) == 1, "fixture: one sidecar for rmsnorm_quant_pybind: %s" % side):
        return
    os.replace(os.path.join(out, "side", side[0]), obj + ".kwalk.yaml")
    check_object(args, ck, "aiter rmsnorm_quant_pybind", obj, [arch], root)


if __name__ == "__main__":
    main()
