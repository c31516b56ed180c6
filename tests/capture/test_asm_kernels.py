#!/usr/bin/env python3
"""test_asm_kernels: the corpus's precompiled ASM kernel and the launches of it.

The code objects of expected.json `compile.asm_objects` (tests/corpus/asm/*.s,
assembled and linked by the corpus build into KW_ASM_DIR, `--asm-dir`) are
checked with LLVM's tools, and joined to the sidecars' ASM launches:
  - the file exists and is an AMDGPU ELF; its kernels (FUNC symbol + `.kd`
    descriptor, llvm-readelf --syms) are exactly the expected ones; the
    NT_AMDGPU_METADATA note (llvm-readelf --notes) lists each kernel with
    `.symbol` NAME.kd and an argument layout equal to the host struct the
    launches pass (ScaleAsmArgs, read from asm_kernels.hip: field names,
    offsets and sizes of a packed struct, kernarg size = sizeof);
  - the instructions llvm-objdump -d --mcpu=gfx942 lists for the kernel are,
    mnemonic by mnemonic, those written in the .s source;
  - every sidecar launch of an ASM kernel names a code object that exists and
    an `asm_kernel` that is a kernel symbol of it, and each expected code
    object's kernel is launched by some sidecar launch;
  - `kwalk isa CO --kernel NAME` lists the same instructions (offset from the
    kernel symbol, text) as llvm-objdump (addresses and encodings stripped).
"""
import os
import re

import kwcap

OBJ_SYM = re.compile(r"^([0-9a-f]+) <(.+)>:$")
OBJ_INSN = re.compile(r"^\t(.*?)\s*// ([0-9A-F]+):[0-9A-F ]+?(?: <[^>]*>)?$")
KW_INSN = re.compile(r"^  ([0-9a-f]{4,}): (.*?)(?:    ; -> .*)?$")
KW_HEADER = re.compile(r"^kernel (\S+)  \(([^,]+), (.*)\)$")
C_SIZES = {"float": 4, "int": 4, "unsigned": 4, "double": 8, "long": 8}


def readelf_syms(args, co):
    """({FUNC name: (value, size)}, {names with a .kd OBJECT}) of the defined symbols."""
    r = kwcap.run([kwcap.tool(args, "llvm-readelf"), "--syms", "--wide", co])
    funcs, kds = {}, set()
    for l in r.stdout.splitlines():
        f = l.split()
        if len(f) >= 8 and f[0].endswith(":") and f[0][:-1].isdigit() and f[6] != "UND":
            if f[3] == "FUNC":
                funcs[f[7]] = (int(f[1], 16), int(f[2], 0))
            elif f[3] == "OBJECT" and f[7].endswith(".kd"):
                kds.add(f[7][:-3])
    return funcs, kds, r


def readelf_metadata(args, co):
    """The NT_AMDGPU_METADATA document (llvm-readelf --notes), or None."""
    r = kwcap.run([kwcap.tool(args, "llvm-readelf"), "--notes", co])
    text = r.stdout
    i = text.find("AMDGPU Metadata:")
    if i < 0:
        return None
    body = []
    for line in text[i:].splitlines()[1:]:
        if line.strip() == "---" and not body:
            continue
        if line.strip() == "...":
            break
        body.append(line)
    return kwcap.yaml.safe_load("\n".join(body))


def objdump(args, co, arch):
    """{symbol: [(offset, text)]} from llvm-objdump -d, encodings stripped."""
    r = kwcap.run([kwcap.tool(args, "llvm-objdump"), "-d", "--mcpu=" + arch, co])
    out, cur, base = {}, None, 0
    for line in r.stdout.splitlines():
        m = OBJ_SYM.match(line)
        if m:
            base = int(m.group(1), 16)
            cur = out.setdefault(m.group(2), [])
            continue
        m = OBJ_INSN.match(line)
        if m and cur is not None:
            cur.append((int(m.group(2), 16) - base, m.group(1)))
    return out


def kwalk_isa(args, co, kernel):
    """{(kernel, target): [(offset, text)]} of `kwalk isa CO --kernel NAME`."""
    r = kwcap.run([args.kwalk, "isa", co, "--kernel", kernel])
    out, cur = {}, None
    for line in r.stdout.splitlines():
        m = KW_HEADER.match(line)
        if m:
            cur = out.setdefault((m.group(1), m.group(2)), [])
            continue
        m = KW_INSN.match(line)
        if m and cur is not None:
            cur.append((int(m.group(1), 16), m.group(2)))
    return out, r


def source_mnemonics(path, kernel):
    """Mnemonics written in the .s between `kernel:` and its .size directive."""
    out, inside = [], False
    with open(path, encoding="utf-8") as f:
        for line in f:
            code = line.split("//")[0].split(";")[0].strip()
            if code == kernel + ":":
                inside = True
                continue
            if not inside or not code:
                continue
            if code.startswith(".size"):
                break
            if code.endswith(":") or code.startswith("."):
                continue  # a label or a directive
            out.append(code.split()[0])
    return out


def packed_struct(lines, name):
    """[(field, offset, size)] of `struct __attribute__((packed)) NAME {...}`
    in the source: pointers 8 bytes, the scalar types of C_SIZES."""
    text = "\n".join(kwcap.strip_comment(l) for l in lines)
    m = re.search(r"struct\s+__attribute__\(\(packed\)\)\s+%s\s*\{(.*?)\};" % re.escape(name), text, re.S)
    if not m:
        return None
    fields, off = [], 0
    for decl in m.group(1).split(";"):
        decl = decl.strip()
        if not decl:
            continue
        fm = re.match(r"(.*?)([A-Za-z_]\w*)$", decl)
        typ, field = fm.group(1).strip(), fm.group(2)
        if typ.endswith("*"):
            size = 8
        else:
            size = C_SIZES.get(typ.replace("const", "").strip())
        if size is None:
            return None
        fields.append((field, off, size))
        off += size
    return fields


def main():
    args = kwcap.parse_args()
    ck = kwcap.Checker("test_asm_kernels")
    exp = kwcap.load_expected(args)
    markers = kwcap.load_markers(args, ck)
    docs = kwcap.load_corpus_sidecars(args, exp, ck)
    objects = exp["compile"].get("asm_objects") or {}
    ck.check(objects, "expected.json has no compile.asm_objects (ground truth bug)")

    # ---- the sidecars' ASM launches -> (code object, kernel)
    launched = {}  # realpath of the code object -> {kernel names}
    n_asm = 0
    for tu, doc in docs.items():
        for ln in doc["launches"]:
            if not ln.get("asm_kernel") and not ln.get("code_object"):
                continue
            n_asm += 1
            where = "%s: ASM launch at %s:%s" % (tu, *kwcap.loc_line(ln))
            co = ln.get("code_object") or ""
            if not ck.check(os.path.isfile(co), where + ": code object %r does not exist" % co):
                continue
            funcs, kds, _ = readelf_syms(args, co)
            ck.check(ln.get("asm_kernel") in kds & set(funcs),
                     where + ": asm_kernel %r is not a kernel of %s (kernels: %s)"
                     % (ln.get("asm_kernel"), co, sorted(kds & set(funcs))))
            launched.setdefault(os.path.realpath(co), set()).add(ln.get("asm_kernel"))
    ck.eq(n_asm, len(exp.get("asm_launches") or {}), "ASM launches in the corpus sidecars")

    # ---- the assembled code objects
    asm_lines = kwcap.read_lines(args, "asm_kernels.hip")
    host_args = packed_struct(asm_lines, "ScaleAsmArgs")
    ck.check(host_args, "could not read struct ScaleAsmArgs from asm_kernels.hip (test bug)")
    for rel, o in sorted(objects.items()):
        co = kwcap.asm_path(args, rel)
        what = os.path.basename(co)
        if not ck.check(os.path.isfile(co), "%s: not built (kw_corpus assembles %s)" % (co, o["source"])):
            continue
        with open(co, "rb") as f:
            head = f.read(20)
        ck.check(head[:4] == b"\x7fELF" and int.from_bytes(head[18:20], "little") == 224,
                 what + ": not an AMDGPU ELF (e_machine 224)")
        funcs, kds, r = readelf_syms(args, co)
        ck.check(r.returncode == 0, what + ": llvm-readelf --syms: " + r.stderr.strip())
        ck.eq(sorted(kds), sorted(o["kernels"]), what + ": kernel descriptors (.kd symbols)")
        ck.eq(sorted(set(funcs) & kds), sorted(o["kernels"]), what + ": kernels with a FUNC symbol")
        ck.eq(sorted(launched.get(os.path.realpath(co), ())), sorted(o["kernels"]),
              what + ": the kernels the sidecars' ASM launches name in this code object")
        md = readelf_metadata(args, co) or {}
        mk = {k.get(".name"): k for k in md.get("amdhsa.kernels") or []}
        ck.eq(sorted(mk), sorted(o["kernels"]), what + ": kernels of the metadata note")
        ck.eq(md.get("amdhsa.target"), "amdgcn-amd-amdhsa--gfx942", what + ": metadata target")
        dis = objdump(args, co, "gfx942")
        for name in o["kernels"]:
            k = mk.get(name) or {}
            ck.eq(k.get(".symbol"), name + ".kd", what + ": %s .symbol" % name)
            if host_args:
                ck.eq([(a.get(".name"), a.get(".offset"), a.get(".size")) for a in k.get(".args") or []],
                      host_args, what + ": %s kernel arguments vs struct ScaleAsmArgs" % name)
                ck.eq(k.get(".kernarg_segment_size"), sum(s for _, _, s in host_args),
                      what + ": %s kernarg size vs sizeof(ScaleAsmArgs)" % name)
            insns = dis.get(name) or []
            ck.check(insns, what + ": llvm-objdump lists no instructions for %s" % name)
            if name in funcs:
                ck.eq(len(insns) and insns[-1][1], "s_endpgm", what + ": %s ends in s_endpgm" % name)
            src = os.path.join(args.corpus_src, o["source"])
            ck.eq([t.split()[0] for _, t in insns], source_mnemonics(src, name),
                  what + ": %s mnemonics, llvm-objdump vs the .s source" % name)
            # ---- kwalk isa
            if not args.kwalk or not os.path.isfile(args.kwalk):
                ck.note("kwalk command not built: `kwalk isa` not checked")
                continue
            lst, kr = kwalk_isa(args, co, name)
            ck.eq((kr.returncode, kr.stderr), (0, ""), "kwalk isa %s --kernel %s: exit, stderr" % (what, name))
            ck.eq(sorted(lst), [(name, "gfx942")], "kwalk isa %s --kernel %s: listings" % (what, name))
            got = lst.get((name, "gfx942"), [])
            bad = [(g, w) for g, w in zip(got, insns) if g != w]
            ck.eq((len(got), bad[:3]), (len(insns), []),
                  "kwalk isa %s --kernel %s vs llvm-objdump: (instructions, first differences)"
                  % (what, name))

    # ---- the expected ASM launches name these code objects
    for lid, e in (exp.get("asm_launches") or {}).items():
        ck.check(e["code_object"] in objects, "asm launch %s: code object %s is not one the corpus "
                 "builds (ground truth bug)" % (lid, e["code_object"]))
        ck.check(e["asm_kernel"] in (objects.get(e["code_object"]) or {}).get("kernels", []),
                 "asm launch %s: kernel %s not in its code object's expected kernels (ground truth bug)"
                 % (lid, e["asm_kernel"]))
    ck.finish()


if __name__ == "__main__":
    main()
