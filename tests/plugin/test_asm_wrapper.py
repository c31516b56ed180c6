#!/usr/bin/env python3
"""test_asm_wrapper: an ASM loader held by a wrapper class and built from the
wrapper's constructor arguments (aiter's FMoeKernel in asm_fmoe.cu), compiled
here with the plugin (src/kw_asm_wrapper.hip), against ground truth read
here: the source text (its marker comments, the wrapper's constructions with
their literal arguments and the branch each sits in, the config table's
rows, all found by scanning the text), the code objects assembled here
(llvm-readelf) and llvm-cxxfilt.

The TU is copied to WORK/csrc/ and its code objects assembled into
WORK/hsa/<arch>/wrap/ from tests/corpus/asm/*.s, the kernel renamed to the
mangled names the TU writes (aiter's loader looks under hsa/<arch>/).

  - one launch at the wrapper's launch_kernel line (KW:LAUNCH wrap.run),
    kind asm_loader, loader AiterAsmKernel, no single asm_kernel (its
    constructions name two);
  - its asm_choices are exactly the wrapper's constructions: one per static
    object built from literals, one per table a std::make_unique reads its
    arguments from; each names the wrapper (kw_wrap::ScaleKernel) and the loader's
    construction in it (KW:SITE wrap.member);
  - a literal construction: its line, one candidate per arch whose hsa/<arch>/
    holds the code object (the file assembled here), the kernel and code
    object its literals, the condition of the branch it sits in, its other
    argument by the constructor's parameter name (`tile=512`);
  - the table constructions: at each make_unique line, one choice per table
    it can read: tile_configs read directly (KW:CALL wrap.row), and through
    pick_kernel's parameter, whose one caller passes a local set to one of
    two tables (KW:CALL wrap.param: tile_configs and relu_configs); each with
    its table's line, lookup `tile`, its rows' number and one candidate per
    row scanned from the text: kernel, code object, arch, `tile == KEY`, the
    row's line, the file on disk;
  - every candidate's kernel is a kernel of its file (llvm-readelf: FUNC
    symbol and .kd descriptor);
  - with kwalk: `kwalk list` has a row per mangled kernel whose NAME is
    llvm-cxxfilt's demangling of its SYMBOL, of kind asm, with the files as
    code objects; the page title of `kwalk render` names both; the Markdown
    `kwalk map` names the demangled name beside the symbol.
"""
import os
import re
import shutil
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import kwcap  # noqa: E402
from kwcheck import Checker  # noqa: E402

TU = "kw_asm_wrapper.hip"
WRAPPER = "kw_wrap::ScaleKernel"  # namespace kw_wrap { class ScaleKernel ... }
STATIC = re.compile(r'static\s+ScaleKernel\s+\w+\(\s*"([^"]+)",\s*"([^"]+)"\s*(?:,\s*(\w+)\s*)?\);')
ROW = re.compile(r'\{\s*(\d+),\s*\{\s*"(gfx\w+)",\s*"([^"]+)",\s*"([^"]+)",\s*(\d+)\s*\}\s*\}')
IF_OPEN = re.compile(r"^\s*if\s*\((.*)\)\s*\{\s*$")
ELSE_OPEN = re.compile(r"^\s*\}\s*else\s*\{\s*$")
SOURCES = {"scale": "kw_asm_scale", "scale_relu": "kw_asm_scale_relu"}  # wrap/<co> <- corpus .s


def branch_condition(lines, line):
    """The condition of the if/else branch whose block holds line (1-based),
    as the plugin joins it: `c` in the then-block, `!(c)` in the else-block;
    found by walking up the text to the opening of the enclosing block."""
    depth = 0
    for no in range(line - 1, 0, -1):
        code = kwcap.strip_comment(lines[no - 1])
        if ELSE_OPEN.match(code) and depth == 0:
            # the else's if: the `if (...) {` that opens the block before it
            d = 0
            for up in range(no - 1, 0, -1):
                c2 = kwcap.strip_comment(lines[up - 1])
                m = IF_OPEN.match(c2)
                if m and d == 0:
                    return "!(%s)" % m.group(1)
                d += c2.count("}") - c2.count("{")
            return None
        m = IF_OPEN.match(code)
        if m and depth == 0:
            return m.group(1)
        depth += code.count("}") - code.count("{")
        if depth < 0:
            return None
    return None


def table_rows(lines, first):
    """[(line, match)] of the rows of the table whose initializer opens at
    line first, up to its `};`."""
    rows = []
    for no in range(first, len(lines) + 1):
        m = ROW.search(lines[no - 1])
        if m:
            rows.append((no, m))
        if lines[no - 1].strip() == "};":
            break
    return rows


def assemble(args, work, ck):
    """hsa/<arch>/wrap/<co>.co for each arch of the build, the corpus kernels
    renamed to the TU's mangled names; {(arch, "wrap/<co>.co"): path}."""
    clang = os.path.join(args.llvm_bin, "clang")
    lld = os.path.join(args.llvm_bin, "ld.lld")
    if not os.path.isfile(lld):
        lld = shutil.which("ld.lld") or ""
    if not lld:
        print("SKIP: no ld.lld to link the code objects")
        sys.exit(kwcap.SKIP)
    src = open(os.path.join(work, "csrc", TU), encoding="utf-8").read()
    names = {}
    for m in STATIC.finditer(src):
        names[m.group(2)] = m.group(1)
    out = {}
    for co, kernel in sorted(names.items()):
        stem = os.path.splitext(os.path.basename(co))[0]
        corpus = SOURCES[stem]
        text = open(os.path.join(args.corpus_src, "asm", corpus + ".s"), encoding="utf-8").read()
        text = re.sub(r"\b%s\b" % re.escape(corpus), kernel, text)
        for arch in args.arches:
            d = os.path.join(work, "hsa", arch, os.path.dirname(co))
            os.makedirs(d, exist_ok=True)
            s = os.path.join(work, "%s.%s.s" % (stem, arch))
            with open(s, "w", encoding="utf-8") as f:
                f.write(text.replace("gfx942", arch))
            o = s[:-2] + ".o"
            path = os.path.join(work, "hsa", arch, co)
            r = kwcap.run([clang, "-x", "assembler", "-target", "amdgcn-amd-amdhsa",
                           "-mcpu=" + arch, "-c", s, "-o", o])
            if ck.eq(r.returncode, 0, "assembling %s for %s: %s" % (co, arch, r.stderr[-500:])):
                r = kwcap.run([lld, "-shared", o, "-o", path])
                ck.eq(r.returncode, 0, "linking %s for %s: %s" % (co, arch, r.stderr[-500:]))
            out[(arch, co)] = path
    return out


def check_sidecar(args, ck, work, src, lines, markers, cos, doc):
    launches = [l for l in doc.get("launches") or []
                if os.path.realpath(kwcap.loc_line(l)[0] or "") == os.path.realpath(src)]
    run_line = markers["wrap.run"]["line"]
    got = [l for l in launches if kwcap.loc_line(l)[1] == run_line]
    if not ck.eq(len(got), 1, "launches at the wrapper's launch_kernel line (KW:LAUNCH wrap.run)"):
        return
    ln = got[0]
    ck.eq((ln.get("kind"), ln.get("loader")), ("asm_loader", "AiterAsmKernel"), "kind, loader")
    ck.eq((ln.get("asm_kernel"), ln.get("code_object")), (None, None),
          "a single asm_kernel / code_object for constructions naming two")
    choices = ln.get("asm_choices") or []
    by_line = {}
    for ch in choices:
        by_line.setdefault(kwcap.loc_line(ch, "construction")[1], []).append(ch)
    # ---- the constructions, scanned from the text
    statics = {}
    for no, text in enumerate(lines, 1):
        m = STATIC.search(kwcap.strip_comment(text))
        if m:
            statics[no] = m
    row_line = markers["wrap.row"]["line"]
    ck.check(len(statics) == 2 and "make_unique<ScaleKernel>" in lines[row_line - 1],
             "the TU's constructions (test bug): %r" % sorted(statics))
    ck.eq(sorted(by_line), sorted(list(statics) + [row_line, markers["wrap.param"]["line"]]),
          "asm_choices' construction lines vs the wrapper's constructions in the source")
    member = markers["wrap.member"]["line"]
    for ch in choices:
        w = "choice at line %s" % kwcap.loc_line(ch, "construction")[1]
        ck.eq(ch.get("wrapper"), WRAPPER, w + ": wrapper")
        wf, wl = kwcap.loc_line(ch, "wrapper_location")
        ck.eq((os.path.realpath(wf or ""), wl), (os.path.realpath(src), member),
              w + ": wrapper_location (the loader's construction, KW:SITE wrap.member)")
    for no, m in sorted(statics.items()):
        for ch in by_line.get(no, []):
            w = "static construction at line %d" % no
            kernel, co, tile = m.group(1), m.group(2), m.group(3)
            cands = ch.get("candidates") or []
            want = sorted((a, kernel, co, os.path.realpath(cos[(a, co)])) for a in args.arches)
            ck.eq(sorted((c.get("arch"), c.get("asm_kernel"), c.get("code_object"),
                          os.path.realpath(c.get("file") or "")) for c in cands), want,
                  w + ": candidates (arch, kernel, code object, file) vs its literals and the "
                  "code objects under hsa/<arch>/")
            ck.eq(ch.get("rows"), len(want), w + ": rows")
            cond = branch_condition(lines, no)
            ck.check(cond, w + ": no enclosing if/else found (test bug)")
            for c in cands:
                ck.eq(kwcap.norm(c.get("condition")), kwcap.norm(cond), w + ": condition")
                ck.eq(c.get("fields"), "tile=%s" % tile if tile else None, w + ": fields")
                ck.eq(kwcap.loc_line(c)[1], no, w + ": candidate location")
    # ---- the table constructions: tile_configs read directly (wrap.row), and
    # a table passed in as pick_kernel's parameter, one of two (wrap.param)
    param_line = markers["wrap.param"]["line"]
    for line, tables in ((row_line, {"tile_configs": "wrap.table"}),
                         (param_line, {"tile_configs": "wrap.table",
                                       "relu_configs": "wrap.relu_table"})):
        w = "make_unique construction at line %d" % line
        chs = by_line.get(line, [])
        ck.eq(sorted(ch.get("table") or "" for ch in chs), sorted(tables),
              w + ": the tables it reads (one choice each)")
        for ch in chs:
            name = ch.get("table")
            if name not in tables:
                continue
            table_line = markers[tables[name]]["line"]
            rows = table_rows(lines, table_line)
            ck.check(rows, "%s rows (test bug)" % name)
            ck.eq((ch.get("lookup"), ch.get("rows")), ("tile", len(rows)),
                  w + ", " + name + ": lookup, rows")
            ck.eq(kwcap.loc_line(ch, "table_location")[1], table_line, w + ", " + name +
                  ": table_location")
            want = sorted((m.group(2), m.group(3), m.group(4), kwcap.norm("tile == %s" % m.group(1)), no,
                           os.path.realpath(cos.get((m.group(2), m.group(4)), "")))
                          for no, m in rows)
            got = sorted((c.get("arch"), c.get("asm_kernel"), c.get("code_object"),
                          kwcap.norm(c.get("condition")), kwcap.loc_line(c)[1],
                          os.path.realpath(c.get("file") or ""))
                         for c in ch.get("candidates") or [])
            ck.eq(got, want, w + ", " + name + ": candidates (arch, kernel, code object, "
                  "condition, row line, file) vs the rows in the source")
    # ---- every candidate's kernel is in its file
    for ch in choices:
        for c in ch.get("candidates") or []:
            f = c.get("file")
            if not ck.check(f and os.path.isfile(f), "candidate %r: no file" % (c,)):
                continue
            funcs, kds, err = kwcap.elf_kernel_symbols(args, f)
            ck.check(not err and c.get("asm_kernel") in (funcs or set()) & (kds or set()),
                     "%s is not a kernel of %s (%s)" % (c.get("asm_kernel"), f, err or sorted(kds)))


def check_kwalk(args, ck, work, side, cos):
    db = os.path.join(work, "kwalk.db")
    r = kwcap.run([args.kwalk, "index", side, "-o", db])
    if not ck.eq((r.returncode, r.stderr), (0, ""), "kwalk index: exit, stderr"):
        return
    r = kwcap.run([args.kwalk, "list", "--db", db])
    ck.eq(r.returncode, 0, "kwalk list: exit (%s)" % r.stderr)
    rows = {f[1]: f for f in (l.split("\t") for l in r.stdout.splitlines()) if len(f) >= 8}
    src = open(os.path.join(work, "csrc", TU), encoding="utf-8").read()
    kernels = sorted({m.group(1) for m in STATIC.finditer(src)})
    cxxfilt = kwcap.run([kwcap.tool(args, "llvm-cxxfilt")] + kernels)
    demangled = dict(zip(kernels, cxxfilt.stdout.split("\n")))
    for k in kernels:
        d = demangled.get(k)
        ck.check(d and d != k, "llvm-cxxfilt leaves %s as it is (test bug)" % k)
        row = rows.get(k)
        if not ck.check(row, "kwalk list: no row of symbol %s" % k):
            continue
        ck.eq((row[0], row[6]), (d, "asm"), "kwalk list %s: NAME (llvm-cxxfilt's), KIND" % k)
        files = sorted(os.path.realpath(p) for (a, co), p in cos.items()
                       if re.search(r'"%s",\s*"%s"' % (re.escape(k), re.escape(co)), src))
        ck.eq(sorted(os.path.realpath(x) for x in row[7].split(",")), files,
              "kwalk list %s: code objects" % k)
        p = kwcap.run([args.kwalk, "render", "--db", db, d])
        title = (p.stdout.splitlines() or [""])[0]
        ck.eq((p.returncode, title), (0, "# Kernel Walkthrough: `%s` (`%s`)" % (d, k)),
              "kwalk render '%s': exit, title" % d)
    m = kwcap.run([args.kwalk, "map", "--db", db])
    ck.eq(m.returncode, 0, "kwalk map: exit (%s)" % m.stderr)
    for k in kernels:
        ck.check("`%s` (`%s`)" % (k, demangled.get(k)) in m.stdout,
                 "kwalk map: no cell `%s` (`%s`)" % (k, demangled.get(k)))


def main():
    args = kwcap.parse_args()
    ck = Checker("test_asm_wrapper")
    work = kwcap.tmpdir(args, "asm-wrapper")
    os.makedirs(os.path.join(work, "csrc"))
    src = os.path.join(work, "csrc", TU)
    shutil.copy(os.path.join(args.source_dir, "tests", "plugin", "src", TU), src)
    lines = open(src, encoding="utf-8").read().split("\n")
    markers, errors = kwcap.scan_markers(args, os.path.join(work, "csrc"))
    ck.eq(errors, [], "marker scan of %s" % TU)
    cos = assemble(args, work, ck)
    side = os.path.join(work, "side")
    os.makedirs(side)
    obj = os.path.join(side, "kw_asm_wrapper.o")
    r = kwcap.run(kwcap.compile_cmd(args, src, obj, extra=["-cuid=kwwrap"]), env=kwcap.clean_env())
    if not ck.eq((r.returncode, kwcap.kwalk_lines(r.stderr)), (0, []),
                 "compile with the plugin: exit, kwalk lines (%s)" % r.stderr[-2000:]):
        ck.finish()
    doc = kwcap.load_yaml_file(obj + ".kwalk.yaml")
    check_sidecar(args, ck, work, src, lines, markers, cos, doc)
    if args.kwalk and os.path.isfile(args.kwalk):
        check_kwalk(args, ck, work, side, cos)
    else:
        ck.note("kwalk command not built: list/render/map not checked")
    kwcap.cleanup(args, work)
    ck.finish()


if __name__ == "__main__":
    main()
