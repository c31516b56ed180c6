#!/usr/bin/env python3
"""Unwrapping agrees with clang-offload-bundler, and wrapping does not change
any fact:
  - for every bundle, CCOB (v2/v3, zstd/zlib), host object and shared library,
    the entries kwco-dump extracts are byte for byte what
    clang-offload-bundler --unbundle writes, with the same ids as --list
    (a .so's .hip_fatbin holds several bundles; the bundler reads each);
  - the same code compiled plain, --offload-compress (CCOB v2 and v3), as a
    device-only bundle or a zlib CCOB gives the same kernels, metadata,
    occupancy, listing and classes."""
import hashlib
import os
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import kwco_common  # noqa: E402
from kwcheck import Checker  # noqa: E402
from kwco_common import DUMP, dump_yaml, run, tool, work  # noqa: E402

MAGIC = b"__CLANG_OFFLOAD_BUNDLE__"


def pieces(blob):
    """Split a .hip_fatbin into its bundles: each starts with a bundle or CCOB
    magic; a bundle ends where its furthest entry ends, a CCOB v2/v3 after its
    total size. The bundler then reads each piece on its own."""
    out, pos = [], 0
    while True:
        cands = [i for i in (blob.find(MAGIC, pos), blob.find(b"CCOB", pos)) if i >= 0]
        if not cands:
            return out
        start = min(cands)
        if blob.startswith(MAGIC, start):
            n = struct.unpack_from("<Q", blob, start + 24)[0]
            p, end = start + 32, start + 32
            for _ in range(n):
                off, size, idl = struct.unpack_from("<QQQ", blob, p)
                p += 24 + idl
                end = max(end, start + off + size, p)
        else:
            ver = struct.unpack_from("<H", blob, start + 4)[0]
            total = (struct.unpack_from("<I", blob, start + 8)[0] if ver == 2
                     else struct.unpack_from("<Q", blob, start + 8)[0])
            end = start + total
        out.append(blob[start:end])
        pos = end


def bundler_entries(path, tmp):
    """[(id, sha256)] as clang-offload-bundler sees the input."""
    with open(path, "rb") as f:
        head = f.read(4)
    if head == b"\x7fELF":
        fat = os.path.join(tmp, "fatbin")
        run([tool("llvm-objcopy"), "--dump-section=.hip_fatbin=" + fat, path], must=True)
        blob = open(fat, "rb").read()
    else:
        blob = open(path, "rb").read()
    out = []
    for i, piece in enumerate(pieces(blob)):
        pf = os.path.join(tmp, "piece%d" % i)
        open(pf, "wb").write(piece)
        for bid in run([tool("clang-offload-bundler"), "--list", "--type=o",
                        "--input=" + pf], must=True).stdout.split():
            of = os.path.join(tmp, "out")
            cmd = [tool("clang-offload-bundler"), "--unbundle", "--type=o", "--input=" + pf,
                   "--output=" + of]
            # LLVM 19's bundler lists the host entry as host-<triple>-- but
            # finds it only as host-<triple> (22 takes either)
            if run(cmd + ["--targets=" + bid], ok=(0, 1), must=True).returncode:
                run(cmd + ["--targets=" + bid.rstrip("-")], must=True)
            out.append((bid, hashlib.sha256(open(of, "rb").read()).hexdigest()))
    return sorted(out)


def kwco_entries(path, tmp):
    d = os.path.join(tmp, "kw")
    os.makedirs(d)
    out = []
    for line in run([DUMP, "--extract", d, path], must=True).stdout.splitlines():
        bid, _, f = line.split(" ", 2)
        out.append((bid, hashlib.sha256(open(f, "rb").read()).hexdigest()))
    return sorted(out)


def facts(doc):
    """The kernels of a dump without where they came from."""
    out = {}
    for k in doc["kernels"] or []:
        for arch, a in k["archs"].items():
            a = dict(a)
            for key in ("code_object", "code"):
                a.pop(key, None)
            out[(k["symbol"], arch)] = a
    return out


def main():
    c = Checker("bundles", who=kwco_common.WHO)
    inputs = ["kinds.gfx942.dev.o", "kinds.hipfb", "kinds.zlib2.ccob", "kinds.zlib3.ccob",
              "kinds.ccob3.fatbin", "kinds.ccob2.fatbin", "kinds.host.o", "kinds.ccob3.host.o",
              "kinds.ccob2.host.o", "libtwo.so", "libmixed.so"]
    if os.path.exists(work("corpus", "rmsnorm.host.o")):
        inputs += ["corpus/rmsnorm.host.o", "corpus/rmsnorm.ccob.host.o"]
    # no zlib v3 CCOB where LLVM has no v3 (19: gen_inputs.sh)
    inputs = [i for i in inputs if i != "kinds.zlib3.ccob" or os.path.exists(work(i))]
    for name in inputs:
        with tempfile.TemporaryDirectory() as tmp:
            c.eq(kwco_entries(work(name), tmp), bundler_entries(work(name), tmp),
                 name + ": entries")

    # a .so links two TUs: both bundles' kernels are there, for both arches
    two = facts(dump_yaml(work("libtwo.so"), "--no-isa"))
    one = facts(dump_yaml(work("kinds.host.o"), "--no-isa"))
    other = facts(dump_yaml(work("other.host.o"), "--no-isa"))
    c.eq(set(two), set(one) | set(other), "libtwo.so kernels")
    c.eq(set(facts(dump_yaml(work("libmixed.so"), "--no-isa"))), set(two), "libmixed.so kernels")

    # wrapping never changes a fact
    groups = [["kinds.host.o", "kinds.ccob3.host.o", "kinds.ccob2.host.o", "kinds.hipfb",
               "kinds.zlib2.ccob", "kinds.zlib3.ccob", "kinds.ccob3.fatbin"]]
    groups[0] = [i for i in groups[0] if i != "kinds.zlib3.ccob" or os.path.exists(work(i))]
    if os.path.exists(work("corpus", "rmsnorm.host.o")):
        groups.append(["corpus/rmsnorm.host.o", "corpus/rmsnorm.ccob.host.o"])
    for g in groups:
        ref = facts(dump_yaml(work(g[0])))
        c.check(len(ref) > 0, g[0] + ": has kernels")
        for other_name in g[1:]:
            got = facts(dump_yaml(work(other_name)))
            c.eq(sorted(got), sorted(ref), "%s vs %s: kernels" % (other_name, g[0]))
            for key in ref:
                if key in got:
                    c.eq(got[key], ref[key], "%s vs %s: %s/%s" % (other_name, g[0], key[0], key[1]))
    c.finish()


if __name__ == "__main__":
    main()
