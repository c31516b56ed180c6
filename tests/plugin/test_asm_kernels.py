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
    kernel symbol, text) as llvm-objdump (addresses and encodings stripped);
  - a launch whose loader is built from a config table's rows (expected.json
    `choices`) has one candidate per row of the table, read here from the
    header's row-macro lines: the same (kernel, code object) pairs, each
    selected by `LOOKUP == "<arch>_<kernel>"`, its arch the row's, its
    location the row's line, its file the code object on disk; rows = the
    number of rows.
"""
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import kwcap  # noqa: E402
import kwllvm  # noqa: E402
from kwcheck import Checker  # noqa: E402

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


ROW_CALL = re.compile(r"^\s*(\w+)\((.*)\),?\s*(?://.*)?$")
C_STRING = re.compile(r'"((?:[^"\\]|\\.)*)"')


def header_rows(path, macro):
    """[(line, [arguments as written])] of the lines of a generated table
    header that call MACRO(...) (its #define excluded)."""
    out = []
    with open(path, encoding="utf-8") as f:
        for no, line in enumerate(f, 1):
            m = ROW_CALL.match(line)
            if m and m.group(1) == macro:
                out.append((no, [a.strip() for a in kwcap.split_top(m.group(2))]))
    return out


def literal(arg):
    """The text of a C string argument: its literal pieces joined (a macro
    named before them, KW_ASM_DIR, kept as ${NAME} like expected.json)."""
    pieces = C_STRING.findall(arg)
    head = arg.split('"')[0].strip()
    return ("${%s}" % head if head else "") + "".join(pieces)


def check_table_choices(args, ck, exp, markers, docs):
    """Launches through a loader built from a config table: the candidates
    against the rows of the table header, read here."""
    by_marker = {}
    for tu, doc in docs.items():
        for ln in doc["launches"]:
            f, l = kwcap.loc_line(ln)
            by_marker.setdefault((kwcap.rel_file(args, f), l), []).append(ln)
    n = 0
    for lid, e in (exp.get("asm_launches") or {}).items():
        want = e.get("choices")
        if not want:
            continue
        n += 1
        mk = markers[lid]
        what = "asm launch %s (%s:%d)" % (lid, mk["file"], mk["line"])
        got = by_marker.get((mk["file"], mk["line"]), [])
        if not ck.eq(len(got), 1, what + ": launches on the marker line"):
            continue
        header = os.path.join(args.corpus_src, want["header"])
        rows = header_rows(header, want["row_macro"])
        ck.check(len(rows) >= 2, "%s: fewer than two %s rows (test bug)" % (header, want["row_macro"]))
        # KW_ASM_ROW(dtype, relu, arch, kernel, code_object)
        expect = {}
        for line, a in rows:
            kernel, arch = literal(a[3]), literal(a[2])
            co = kwcap.asm_path(args, "${KW_ASM_DIR}" + literal(a[4]))
            expect[(kernel, co)] = (line, arch, '%s == "%s_%s"' % (want["lookup"], arch, kernel))
        choices = got[0].get("asm_choices") or []
        if not ck.eq(len(choices), 1, what + ": table choices (one construction)"):
            continue
        ch = choices[0]
        ck.eq(ch.get("table"), want["table"], what + ": table")
        ck.eq(ch.get("lookup"), want["lookup"], what + ": lookup")
        ck.eq(ch.get("rows"), len(rows), what + ": rows of the table")
        tf, tl = kwcap.loc_line(ch, "table_location")
        ck.eq(os.path.realpath(tf or ""), os.path.realpath(header), what + ": table_location file")
        cands = ch.get("candidates") or []
        pairs = {(c.get("asm_kernel"), c.get("code_object")): c for c in cands}
        ck.eq(len(pairs), len(cands), what + ": candidates repeat a (kernel, code object)")
        ck.eq(sorted(pairs), sorted(expect), what + ": (kernel, code object) of the candidates vs "
              "the %s lines of %s" % (want["row_macro"], want["header"]))
        for key, c in sorted(pairs.items()):
            if key not in expect:
                continue
            line, arch, cond = expect[key]
            w = "%s: candidate %s" % (what, key[0])
            ck.eq(kwcap.norm(c.get("condition")), kwcap.norm(cond), w + ": condition")
            ck.eq(c.get("arch"), arch, w + ": arch")
            cf, cl = kwcap.loc_line(c)
            ck.eq((os.path.realpath(cf or ""), cl), (os.path.realpath(header), line),
                  w + ": location (the row's line)")
            ck.eq(os.path.realpath(c.get("file") or ""), os.path.realpath(key[1]),
                  w + ": file (the code object on disk)")
        # every row differs: no single kernel for the launch
        ck.check(got[0].get("asm_kernel") is None and got[0].get("code_object") is None,
                 what + ": a single asm_kernel / code_object %r / %r for rows that differ"
                 % (got[0].get("asm_kernel"), got[0].get("code_object")))
    ck.check(n, "expected.json has no asm launch with `choices` (ground truth bug)")


def main():
    args = kwcap.parse_args()
    ck = Checker("test_asm_kernels")
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
            cands = [c for ch in ln.get("asm_choices") or [] for c in ch.get("candidates") or []]
            if not ln.get("asm_kernel") and not ln.get("code_object") and not cands:
                continue
            n_asm += 1
            where = "%s: ASM launch at %s:%s" % (tu, *kwcap.loc_line(ln))
            pairs = [(c.get("asm_kernel"), c.get("file") or c.get("code_object") or "",
                      " (table row at %s:%s)" % kwcap.loc_line(c)) for c in cands]
            if not cands:
                pairs = [(ln.get("asm_kernel"), ln.get("code_object") or "", "")]
            for kernel, co, row in pairs:
                if not ck.check(os.path.isfile(co), where + row + ": code object %r does not exist"
                                % co):
                    continue
                funcs, kds, _ = readelf_syms(args, co)
                ck.check(kernel in kds & set(funcs),
                         where + row + ": asm_kernel %r is not a kernel of %s (kernels: %s)"
                         % (kernel, co, sorted(kds & set(funcs))))
                launched.setdefault(os.path.realpath(co), set()).add(kernel)
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
        md = kwllvm.readelf_metadata(args.llvm_bin, co) or {}
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

    check_table_choices(args, ck, exp, markers, docs)

    # ---- the expected ASM launches name these code objects
    for lid, e in (exp.get("asm_launches") or {}).items():
        if e.get("choices"):
            continue  # a table's rows: check_table_choices
        ck.check(e["code_object"] in objects, "asm launch %s: code object %s is not one the corpus "
                 "builds (ground truth bug)" % (lid, e["code_object"]))
        ck.check(e["asm_kernel"] in (objects.get(e["code_object"]) or {}).get("kernels", []),
                 "asm launch %s: kernel %s not in its code object's expected kernels (ground truth bug)"
                 % (lid, e["asm_kernel"]))
    ck.finish()


if __name__ == "__main__":
    main()
