#!/usr/bin/env python3
"""test_embed: the plugin's embed mode (docs/plugin.md, "Embed mode"): the
sidecar travels inside the host object, so it survives ccache, which returns
the object and runs no compiler on a hit. Checked with tools kwalk does not
use for it: Debian's ccache, llvm-readelf, llvm-objcopy, GNU ld, ld.lld,
llvm-ar and the zstd command.

  1. A plain compile (no plugin), and a compile with the plugin writing its
     sidecar file, both to OBJ; the sidecar file is set aside.
  2. The same compile through ccache with -fplugin-arg-kwalk-embed, to OBJ:
     no kwalk line, no sidecar file; llvm-readelf shows a .kwalk.sidecar
     section without the A (alloc) flag; its bytes (llvm-objcopy
     --dump-section) are one record, magic + length + a zstd frame, whose
     `zstd -dc` is byte for byte the sidecar file of step 1. With that section
     removed (llvm-objcopy), the object is the plain compile's, both passed
     through llvm-objcopy alike.
  3. OBJ deleted and the same ccache command run again: ccache counts a hit,
     the object is byte-identical to step 2's, and no sidecar file appears.
     `kwalk index` of the object (after the hit) gives the same `kwalk list`
     as the sidecar file of step 1, and its kernels are the code objects'
     (clang-offload-bundler + llvm-readelf).
  4. A second TU with embed; `ld -r` (GNU) and `ld.lld -r` of both, `llvm-ar`
     of both and `ld.lld -shared` of both each give two sidecars to `kwalk
     index` (the union of the two objects' kernels; the listings read from the
     linked file itself, with no warning), and a directory holding them is
     searched.
  5. `kwalk index` of the plain object, and of an object whose record length
     is damaged: one error line each, non-zero exit.
"""
import os
import re
import shutil
import struct
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import kwcap  # noqa: E402
from kwcheck import Checker  # noqa: E402

TU = "rope_kernels.hip"
TU2 = "sample_kernels.hip"
SECTION = ".kwalk.sidecar"
MAGIC = b"KWALKSC1"


def section_flags(args, path):
    """{section name: flags column} of llvm-readelf -S --wide."""
    r = kwcap.run([kwcap.tool(args, "llvm-readelf"), "-S", "--wide", path])
    if r.returncode != 0:
        raise RuntimeError("llvm-readelf -S %s: %s" % (path, r.stderr.strip()))
    out = {}
    for line in r.stdout.splitlines():
        m = re.match(r"\s*\[\s*\d+\]\s+(\S+)\s+(\S+)\s+[0-9a-f]+\s+[0-9a-f]+\s+[0-9a-f]+\s+"
                     r"[0-9a-f]+\s*([A-Za-z]*)\s+\d+\s+\d+\s+\d+\s*$", line)
        if m:
            out[m.group(1)] = m.group(3)
    return out


def records(data):
    """The payloads of an embed section, parsed here from the documented
    layout (docs/sidecar-schema.md): magic, little-endian u64 length, payload;
    zero bytes between records are padding."""
    out, pos = [], 0
    while pos < len(data):
        if data[pos] == 0:
            pos += 1
            continue
        if data[pos:pos + 8] != MAGIC or pos + 16 > len(data):
            raise ValueError("no record at offset %d" % pos)
        (n,) = struct.unpack_from("<Q", data, pos + 8)
        out.append(data[pos + 16:pos + 16 + n])
        pos += 16 + n
    return out


def main():
    args = kwcap.parse_args()
    ck = Checker("test_embed")
    for what, ok in (("the kwalk command", bool(args.kwalk)),
                     ("ccache (Debian: ccache)", shutil.which("ccache")),
                     ("the zstd command (Debian: zstd)", shutil.which("zstd")),
                     ("GNU ld (Debian: binutils)", shutil.which("ld"))):
        if not ok:
            print("test_embed: %s is missing" % what)
            sys.exit(kwcap.SKIP)
    root = kwcap.tmpdir(args, "embed")
    try:
        run_steps(args, ck, root)
    finally:
        kwcap.cleanup(args, root)
    ck.finish()


def run_steps(args, ck, root):
    readelf = kwcap.tool(args, "llvm-readelf")
    objcopy = kwcap.tool(args, "llvm-objcopy")
    src = os.path.join(args.corpus_src, TU)
    out = os.path.join(root, "obj")
    os.makedirs(out)
    obj = os.path.join(out, "rope_kernels.o")
    side = obj + ".kwalk.yaml.zst"
    cache = os.path.join(root, "ccache")
    env = kwcap.clean_env(CCACHE_DIR=cache, CCACHE_NOHASHDIR="1", CCACHE_TEMPDIR=root + "/cctmp")
    env.pop("KWALK_COMPRESS", None)

    def sidecar_files(d):
        return sorted(n for n in os.listdir(d) if ".kwalk.yaml" in n)

    def compile_(what, cmd, e=env):
        r = subprocess.run(cmd, env=e, capture_output=True, text=True)
        ck.check(r.returncode == 0, "%s: compile failed rc=%d: %s"
                 % (what, r.returncode, (r.stdout + r.stderr)[-2000:]))
        ck.eq(kwcap.kwalk_lines(r.stdout + r.stderr), [], "%s: kwalk lines" % what)
        return r.returncode == 0

    flags = ["-cuid=kwcap_embed"]
    # 1. plain, then the plugin's sidecar file
    plain = os.path.join(root, "plain.o")
    if not compile_("plain", kwcap.compile_cmd(args, src, obj, plugin=False, extra=flags)):
        return
    shutil.move(obj, plain)
    if not compile_("file", kwcap.compile_cmd(args, src, obj, extra=flags)):
        return
    ck.check(os.path.isfile(side), "file: no %s" % side)
    file_yaml = subprocess.run(["zstd", "-dcq", side], capture_output=True).stdout
    ck.check(file_yaml.startswith(b"kwalk_schema:"), "file: %s is not a zstd YAML sidecar" % side)
    side_kept = os.path.join(root, "file", "rope_kernels.o.kwalk.yaml.zst")
    os.makedirs(os.path.dirname(side_kept))
    shutil.move(side, side_kept)
    os.remove(obj)

    # 2. through ccache, embedded
    cc_cmd = ["ccache"] + kwcap.compile_cmd(args, src, obj,
                                            extra=flags + ["-fplugin-arg-kwalk-embed"])
    if not compile_("embed", cc_cmd):
        return
    ck.eq(sidecar_files(out), [], "embed: sidecar files next to the object")
    fl = section_flags(args, obj)
    ck.check(SECTION in fl, "embed: no %s section (llvm-readelf -S): %s" % (SECTION, sorted(fl)))
    ck.check("A" not in fl.get(SECTION, "A"),
             "embed: %s has flags %r: want it not allocated" % (SECTION, fl.get(SECTION)))
    ck.check("E" not in fl.get(SECTION, "E"),
             "embed: %s has flags %r: a final link would drop it" % (SECTION, fl.get(SECTION)))
    sec = os.path.join(root, "section.bin")
    r = kwcap.run([objcopy, "--dump-section=%s=%s" % (SECTION, sec), obj, sec + ".o"])
    ck.check(r.returncode == 0, "llvm-objcopy --dump-section: %s" % r.stderr.strip())
    with open(sec, "rb") as f:
        recs = records(f.read())
    ck.eq(len(recs), 1, "embed: records in the section")
    if recs:
        r = subprocess.run(["zstd", "-dcq"], input=recs[0], capture_output=True)
        ck.check(r.returncode == 0, "embed: zstd -dc of the record: %s" % r.stderr)
        ck.check(r.stdout == file_yaml,
                 "embed: the embedded sidecar differs from the sidecar file of the same compile")
    stripped, plain2 = os.path.join(root, "stripped.o"), os.path.join(root, "plain2.o")
    r1 = kwcap.run([objcopy, "--remove-section=" + SECTION, obj, stripped])
    r2 = kwcap.run([objcopy, plain, plain2])
    ck.check(r1.returncode == 0 and r2.returncode == 0, "llvm-objcopy: %s %s"
             % (r1.stderr.strip(), r2.stderr.strip()))
    with open(stripped, "rb") as a, open(plain2, "rb") as b:
        ck.check(a.read() == b.read(), "embed: without %s the object is not the plain one "
                 "(both through llvm-objcopy)" % SECTION)
    with open(obj, "rb") as f:
        first = f.read()

    # 3. a ccache hit
    def hits():
        r = kwcap.run(["ccache", "--print-stats"], env=env)
        st = dict(l.split("\t", 1) for l in r.stdout.splitlines() if "\t" in l)
        return sum(int(st.get(k, "0")) for k in ("direct_cache_hit", "preprocessed_cache_hit"))

    before = hits()
    os.remove(obj)
    if not compile_("ccache hit", cc_cmd):
        return
    ck.eq(hits(), before + 1, "ccache hits after the second compile")
    ck.eq(sidecar_files(out), [], "ccache hit: sidecar files next to the object")
    with open(obj, "rb") as f:
        ck.check(f.read() == first, "ccache hit: the object differs from the first one")
    lists = {}
    for form, path in (("object", obj), ("file", side_kept)):
        db = os.path.join(root, form + ".db")
        r = kwcap.run([args.kwalk, "index", path, "-o", db])
        ck.check(r.returncode == 0 and not r.stderr, "kwalk index %s: %s" % (path, r.stderr))
        r = kwcap.run([args.kwalk, "list", "--db", db])
        lists[form] = r.stdout if r.returncode == 0 else None
    ck.check(lists["object"] and lists["object"] == lists["file"],
             "kwalk list of the embedded sidecar differs from the file's:\n%s\n---\n%s"
             % (lists["object"], lists["file"]))

    def kernels_of_index(db):
        r = kwcap.run([args.kwalk, "list", "--db", db, "--json"])
        if r.returncode != 0:
            return None
        import json
        return {k.get("symbol") for k in json.loads(r.stdout).get("kernels", [])}

    def kernels_of_objects(objs):
        ks = set()
        for o in objs:
            for arch in args.arches:
                s, err = kwcap.code_object_kernels(args, o, arch, root)
                ck.check(err is None, "code objects of %s (%s): %s" % (o, arch, err))
                ks |= s or set()
        return ks

    want1 = kernels_of_objects([obj])
    ck.check(want1, "no kernels in the code objects of %s" % obj)
    ck.eq(kernels_of_index(os.path.join(root, "object.db")), want1,
          "kernels of the embedded sidecar's index")

    # 4. a second object; relocatable links, an archive, a shared library
    obj2 = os.path.join(out, "sample_kernels.o")
    if not compile_("embed 2", kwcap.compile_cmd(args, os.path.join(args.corpus_src, TU2), obj2,
                                                 extra=["-cuid=kwcap_embed2",
                                                        "-fplugin-arg-kwalk-embed"])):
        return
    want = want1 | kernels_of_objects([obj2])
    lld = kwcap.tool(args, "ld.lld")
    links = os.path.join(root, "links")
    os.makedirs(links)
    made = {
        "ld -r": (["ld", "-r", "-o", "{}", obj, obj2], "both-bfd.o"),
        "ld.lld -r": ([lld, "-r", "-o", "{}", obj, obj2], "both-lld.o"),
        "llvm-ar": ([kwcap.tool(args, "llvm-ar"), "rcs", "{}", obj, obj2], "libboth.a"),
        "ld.lld -shared": ([lld, "-shared", "-o", "{}", obj, obj2], "libboth.so"),
    }
    for what, (cmd, name) in made.items():
        path = os.path.join(links, name)
        r = kwcap.run([c.replace("{}", path) for c in cmd])
        ck.check(r.returncode == 0, "%s: %s" % (what, r.stderr.strip()))
        if r.returncode != 0:
            continue
        if not name.endswith(".a"):
            fl = section_flags(args, path)
            ck.check("A" not in fl.get(SECTION, "A"), "%s: %s flags %r" % (what, SECTION,
                                                                          fl.get(SECTION)))
        db = os.path.join(root, name + ".db")
        r = kwcap.run([args.kwalk, "index", path, "-o", db])
        ck.check(r.returncode == 0 and re.search(r": 2 sidecars,", r.stdout) is not None,
                 "%s: kwalk index: want 2 sidecars: %s %s" % (what, r.stdout, r.stderr))
        if not name.endswith(".a"):  # listings from the file itself, each unit's own
            ck.check("ISA not shown" not in r.stderr, "%s: kwalk index: %s" % (what, r.stderr))
        ck.eq(kernels_of_index(db), want, "%s: kernels of the index" % what)
    # a directory: the archive is found among other files
    r = kwcap.run([args.kwalk, "index", links, "-o", os.path.join(root, "dir.db")])
    ck.check(r.returncode == 0 and re.search(r": 8 sidecars,", r.stdout) is not None,
             "kwalk index of the directory: want 8 sidecars (2 per file): %s %s"
             % (r.stdout, r.stderr))

    # 5. errors
    r = kwcap.run([args.kwalk, "index", plain, "-o", os.path.join(root, "bad1.db")])
    err = r.stderr.strip().splitlines()
    ck.check(r.returncode != 0 and len(err) == 1 and "no sidecar embedded" in err[0],
             "kwalk index of a plain object: rc %d, %r" % (r.returncode, r.stderr))
    with open(obj, "rb") as f:
        data = bytearray(f.read())
    at = data.find(MAGIC)
    ck.check(at >= 0, "the record's magic is not in the object")
    if at >= 0:
        struct.pack_into("<Q", data, at + 8, len(data) * 2)
        bad = os.path.join(root, "damaged.o")
        with open(bad, "wb") as f:
            f.write(data)
        r = kwcap.run([args.kwalk, "index", bad, "-o", os.path.join(root, "bad2.db")])
        err = r.stderr.strip().splitlines()
        ck.check(r.returncode != 0 and len(err) == 1 and bad in err[0],
                 "kwalk index of a damaged record: rc %d, %r" % (r.returncode, r.stderr))


if __name__ == "__main__":
    main()
