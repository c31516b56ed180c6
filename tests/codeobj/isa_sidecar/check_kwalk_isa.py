#!/usr/bin/env python3
"""`kwalk isa` against llvm-readelf and llvm-objdump:
  - a code object assembled here from the hand-written gfx942 .s
    (tests/codeobj/src/asm_kernel.s, the way ASM kernels are built) and a
    corpus .o (a host object with .hip_fatbin): the kernel table lists every
    kernel (amdhsa.kernels and .kd symbols) with readelf's resources;
  - --kernel NAME: the listing equals llvm-objdump -d --mcpu=<arch>
    instruction for instruction, for each code object holding the kernel;
  - --format yaml: PyYAML reads it (one document per FILE), it is a sidecar
    (kwalk_schema, kernels[].archs.<arch>), resources equal readelf, and with
    --kernel the ISA facts equal the plugin's sidecar for the same object;
  - --json (docs/json.md): Python's json reads it, its resources equal
    readelf, and each file's kernels equal the YAML document's, value for
    value;
  - bad inputs: exit 1 and exactly one stderr line starting "kwalk:", nothing
    on stdout; usage errors: exit 2, one "kwalk:" line."""
import json
import os
import re

import sys
import yaml

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
import kwis_common  # noqa: E402
from kwcheck import Checker  # noqa: E402
from kwis_common import (CORPUS, DIR, ISA_HEADER, LINES_TU, RESOURCE_KEYS, SRC,
                         kernel_insns, kwalk_isa, read_back,
                         objdump, parse_isa, readelf_kernels, run, scratch, sidecar_archs,
                         symbols, tool, unbundle)

# libyaml's loader when PyYAML has it (the same documents, many times faster)
YAML_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

LISTING = re.compile(r"^  ([0-9a-f]{4,}): (.*?)(    ; -> .*)?$")
TABLE = re.compile(r"^ +(-|\d+) +(-|\d+) +(-|\d+) +(-|\d+) +(-|\d+) +(-|\d+) +(-|\d+) +(\?|\d+)"
                   r"  (\S+) +(\S+)")


def listings(text):
    """{(kernel, target_id): [(offset, text)]} of `kwalk isa --kernel` output."""
    out, cur = {}, None
    for line in text.splitlines():
        m = ISA_HEADER.match(line)
        if m:
            cur = out.setdefault((m.group(1), m.group(2)), [])
            continue
        m = LISTING.match(line)
        if m and cur is not None:
            cur.append((int(m.group(1), 16), m.group(2)))
    return out


def table(text):
    """{kernel: [vgpr, agpr, sgpr, lds, scratch, kernarg, wg]} per target line."""
    out, tid = {}, None
    for line in text.splitlines():
        m = re.match(r"^  target (\S+) ", line)
        if m:
            tid = m.group(1)
            continue
        m = TABLE.match(line)
        if m:
            out[(m.group(10), tid)] = [None if v == "-" else int(v) for v in m.groups()[:7]]
    return out


TABLE_KEYS = (".vgpr_count", ".agpr_count", ".sgpr_count", ".group_segment_fixed_size",
              ".private_segment_fixed_size", ".kernarg_segment_size", ".max_flat_workgroup_size")


def truth(co):
    md = readelf_kernels(co)
    kd = {s[:-3] for s in run([tool("llvm-nm"), co], must=True).stdout.split() if s.endswith(".kd")}
    return md, set(md) | kd


def notes_only(stderr):
    """stderr with the notes (entries skipped on purpose) taken out."""
    return "".join(l for l in stderr.splitlines(True) if not l.startswith("kwalk: note: "))


def check_file(c, path, cos, plugin_sidecar=None, kernel_pick=None):
    """path: what kwalk reads; cos: {target_id: code object} from LLVM's tools."""
    p = kwalk_isa(path)
    c.eq((p.returncode, notes_only(p.stderr)), (0, ""), path + ": exit")
    tab = table(p.stdout)
    want_rows = {}
    for tid, co in cos.items():
        md, names = truth(co)
        for n in names:
            want_rows[(n, tid)] = [md[n].get(k) if n in md else None for k in TABLE_KEYS]
    c.eq(tab, want_rows, path + ": kernel table")

    y = kwalk_isa(path, "--format", "yaml")
    c.eq((y.returncode, y.stderr), (0, ""), path + ": yaml exit")
    doc = yaml.load(y.stdout, Loader=YAML_LOADER)
    c.check(doc.get("kwalk_schema") in (1, 2, 3), path + ": yaml is a sidecar")
    archs = sidecar_archs(doc)
    want = {}
    for tid, co in cos.items():
        md, names = truth(co)
        for n in names:
            want[(n, tid.split(":")[0])] = (tid, {k: md.get(n, {}).get(mk)
                                                 for k, mk in RESOURCE_KEYS.items()})
    got = {key: (a.get("target_id"), {k: (a.get("resources") or {}).get(k)
                                      for k in RESOURCE_KEYS}) for key, a in archs.items()}
    c.eq(got, want, path + ": yaml kernels, target ids and resources")

    j = kwalk_isa(path, "--json")
    c.eq((j.returncode, j.stderr), (0, ""), path + ": json exit")
    try:
        jdoc = json.loads(j.stdout) if j.returncode == 0 else {}
    except ValueError as e:
        c.check(False, path + ": --json is JSON: %s" % e)
        jdoc = {}
    files = jdoc.get("files") or [{}]
    c.eq((jdoc.get("kwalk_isa"),
                                                     [f.get("file") for f in files]), (1, [path]), path + ": json: kwalk_isa and the files")
    jarchs = sidecar_archs({"kernels": files[0].get("kernels")})
    jgot = {key: (a.get("target_id"), {k: (a.get("resources") or {}).get(k)
                                       for k in RESOURCE_KEYS}) for key, a in jarchs.items()}
    c.eq(jgot, want, path + ": json kernels, target ids and resources")
    c.eq(files[0].get("kernels"), doc.get("kernels"), path + ": json kernels = the yaml document's")

    names = sorted({n for n, _ in want})
    pick = kernel_pick or names
    for name in pick:
        k = kwalk_isa(path, "--kernel", name)
        c.eq((k.returncode, notes_only(k.stderr)), (0, ""), "%s --kernel %s: exit" % (path, name))
        ls = listings(k.stdout)
        exp = {}
        for tid, co in cos.items():
            arch = tid.split(":")[0]
            insns, _ = objdump(co, arch)
            syms = symbols(co)
            for s in syms:  # a full symbol picks that kernel only
                if s == name and (s, tid) in want_rows:
                    exp[(s, tid)] = [(o, t) for o, t, _ in
                                     kernel_insns(insns, syms[s][0], syms[s][1])]
        c.eq(sorted(ls), sorted(exp), "%s --kernel %s: listings" % (path, name))
        for key in set(ls) & set(exp):
            bad = [(g, w) for g, w in zip(ls[key], exp[key]) if g != w]
            c.eq((len(ls[key]), bad[:2]), (len(exp[key]), []),
                 "%s --kernel %s %s: instructions (count, first differences)" % (path, name, key[1]))
        ky = kwalk_isa(path, "--kernel", name, "--format", "yaml")
        c.eq((ky.returncode, ky.stderr), (0, ""),
             "%s --kernel %s --format yaml: exit" % (path, name))
        kdoc = sidecar_archs(yaml.safe_load(ky.stdout))
        c.eq(sorted(kdoc), sorted((s, t.split(":")[0]) for s, t in exp),
             "%s --kernel %s --format yaml: kernels" % (path, name))
        for (s, arch), a in kdoc.items():
            tid = a.get("target_id")
            lst, _ = parse_isa(a.get("isa") or "")
            c.eq([(o, t) for o, t, _ in lst], exp.get((s, tid)),
                 "%s --kernel %s --format yaml %s: isa = objdump" % (path, s, arch))
            if plugin_sidecar is not None:
                pa = plugin_sidecar.get((s, arch)) or {}
                for key in ("target_id", "resources", "classes", "dpp_patterns", "memory", "isa"):
                    c.eq(a.get(key), pa.get(key),
                         "%s %s %s: %s = the plugin's sidecar" % (path, s, arch, key))


def check_errors(c, work, co):
    def one_line(what, args, rc):
        p = kwalk_isa(*args)
        lines = p.stderr.splitlines()
        c.eq(p.returncode, rc, what + ": exit")
        c.check(len(lines) == 1 and lines[0].startswith("kwalk:"),
                "%s: stderr %r is not one line starting 'kwalk:'" % (what, p.stderr))
        c.eq(p.stdout, "", what + ": stdout")

    data = open(co, "rb").read()
    files = {
        "missing file": os.path.join(work, "no-such-file.co"),
        "empty file": os.path.join(work, "empty.co"),
        "truncated code object": os.path.join(work, "truncated.co"),
        "text file": os.path.join(SRC, "CMakeLists.txt"),
        "directory": work,
        "bad bundle offsets": os.path.join(work, "bad_offsets.hipfb"),
        "host object without .hip_fatbin": os.path.join(work, "plain.o"),
    }
    open(files["empty file"], "wb").close()
    open(files["truncated code object"], "wb").write(data[:len(data) // 3])
    # a bundle with one entry whose offset points past the end of the file
    magic = b"__CLANG_OFFLOAD_BUNDLE__"
    tid = b"hipv4-amdgcn-amd-amdhsa--gfx942"
    hdr = magic + (1).to_bytes(8, "little") + (1 << 20).to_bytes(8, "little") + \
        (4096).to_bytes(8, "little") + len(tid).to_bytes(8, "little") + tid
    open(files["bad bundle offsets"], "wb").write(hdr + b"\0" * 64)
    src = os.path.join(work, "plain.c")
    open(src, "w").write("int kwis_plain(void) { return 1; }\n")
    run([tool("clang"), "-c", src, "-o", files["host object without .hip_fatbin"]], must=True)
    for what, path in files.items():
        one_line(what, [path], 1)
        one_line(what + " (yaml)", [path, "--format", "yaml"], 1)
    one_line("--kernel matching nothing", [co, "--kernel", "no_such_kernel"], 1)
    one_line("--kernel matching nothing (yaml)", [co, "--kernel", "no_such_kernel", "--format",
                                                 "yaml"], 1)
    for what, args in (("no file", []), ("unknown option", [co, "--bogus"]),
                       ("bad --format", [co, "--format", "xml"]),
                       ("--format without value", [co, "--format"]),
                       ("--kernel without value", [co, "--kernel"])):
        one_line(what, args, 2)
    h = kwalk_isa("--help")
    c.eq((h.returncode, h.stderr, h.stdout.startswith("usage: kwalk isa")), (0, "", True), "--help")


def main():
    c = Checker("isa_sidecar.kwalk_isa", who=kwis_common.WHO)
    work = scratch("kwalk_isa")
    asm = os.path.join(work, "asm_kernel.co")
    run([tool("clang"), "-x", "assembler", "-target", "amdgcn-amd-amdhsa", "-mcpu=gfx942",
         os.path.join(SRC, "..", "src", "asm_kernel.s"), "-o", asm], must=True)
    md, names = truth(asm)
    c.check("asm_bare" in names - set(md) and "asm_reduce" in md,
            "the .s has a kernel outside the metadata (asm_bare) and one in it")
    tid = re.search(r"amdhsa\.target:\s+'?amdgcn-amd-amdhsa--([^'\s]+)",
                    run([tool("llvm-readelf"), "--notes", asm], must=True).stdout).group(1)
    check_file(c, asm, {tid: asm})

    tu = "rope_kernels"
    obj = os.path.join(CORPUS, tu + ".o")
    cos = unbundle(obj, work, tu)
    sc = sidecar_archs(read_back(obj + ".kwalk.yaml", work))
    kernels = sorted({s for s, _ in sc})
    check_file(c, obj, cos, plugin_sidecar=sc, kernel_pick=kernels[:2])

    # --lines: the plugin's lines for the -gline-tables-only build; without it, a note
    gobj = os.path.join(DIR, "objs", LINES_TU + "_g.o")
    gsc = sidecar_archs(read_back(os.path.join(DIR, "objs", LINES_TU + "_g.kwalk.yaml"), work))
    name = sorted({s for s, _ in gsc})[0]
    for flags in ([], ["--lines"]):
        y = kwalk_isa(gobj, "--kernel", name, "--format", "yaml", *flags)
        got = sidecar_archs(yaml.load(y.stdout, Loader=YAML_LOADER)) if y.returncode == 0 else {}
        for key, a in sorted(gsc.items()):
            if key[0] != name:
                continue
            g = got.get(key) or {}
            what = "%s --kernel %s --format yaml %s: %s" % (gobj, name, " ".join(flags), key[1])
            if flags:
                c.eq(g.get("lines"), a.get("lines"), what + ": lines = the plugin's")
                c.check(g.get("lines"), what + ": has lines")
            else:
                c.eq(g.get("lines"), None, what + ": lines")
                c.check("not requested" in (g.get("lines_note") or ""), what + ": lines_note says they were not requested: %r" %
                       g.get("lines_note"))
            c.eq(g.get("isa"), a.get("isa"), what + ": isa = the plugin's")

    # several files: one YAML document each
    y = kwalk_isa(asm, obj, "--format", "yaml")
    docs = list(yaml.safe_load_all(y.stdout)) if y.returncode == 0 else []
    c.eq([d.get("translation_unit", {}).get("object") for d in docs], [asm, obj],
         "two files, yaml: documents")
    check_errors(c, work, asm)
    c.finish()


if __name__ == "__main__":
    main()
