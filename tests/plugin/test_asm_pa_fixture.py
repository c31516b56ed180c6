#!/usr/bin/env python3
"""test_asm_pa_fixture: aiter's ASM paged-attention launcher (the real code of
../shared/fixtures/aiter-hip, csrc/py_itfs_cu/asm_pa.cu) compiled with the
plugin by the fixture's compile.sh, against ground truth read here:

  - the launch sites: every line of asm_pa.cu calling `launch_kernel(` (the
    source text, comments stripped) has exactly one recorded launch, of kind
    asm_loader, loader AiterAsmKernel, in the function the text encloses;
  - the (kernel, code object) pairs each launch records: its loader is built
    in a get_or_create lambda from the fields of a row of the table the
    fixture generates from hsa/<arch>/pa/pa_asm.csv, so its candidates must be
    exactly the CSV rows (parsed here with the csv module): arch, knl_name and
    `pa/` + co_name, each selected by a condition naming that row's key
    (arch + knl_name); rows = the number of CSV rows;
  - every code object named exists as hsa/<arch>/pa/<co_name> of the fixture
    (the candidate's file) and holds the kernel (llvm-readelf --syms: a FUNC
    symbol and its .kd descriptor);
  - `kwalk map --root aiter --python-root aiter/aiter --format tsv` over the
    sidecar has, for every gfx950 pa_bf16_pertokenFp8_gqa8_* row of the CSV
    (the seed's known-kernel row), a row kernel = knl_name, C++ entry pa_fwd,
    launch site = the launch_kernel line of pa_fwd, device code naming
    hsa/gfx950/pa/<co_name>;
  - `kwalk list`: every CSV kernel's NAME is llvm-cxxfilt's demangling of
    its symbol (`aiter::pa_bf16_pertokenFp8_gqa8_2tg_4w` beside
    `_ZN5aiter31pa_bf16_pertokenFp8_gqa8_2tg_4wE`).

Skipped (77) where ../shared is absent.
"""
import csv
import io
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import kwcap  # noqa: E402
from kwcheck import Checker  # noqa: E402

LAUNCH_CALL = re.compile(r"(?:->|\.)\s*launch_kernel\s*\(")
FUNC_DEF = re.compile(r"^\s*void\s+(\w+)\s*\(")


def csv_rows(fixture):
    """{(arch, knl_name, "pa/" + co_name): row} of hsa/*/pa/pa_asm.csv."""
    out = {}
    hsa = os.path.join(fixture, "aiter", "hsa")
    for arch in sorted(os.listdir(hsa)):
        p = os.path.join(hsa, arch, "pa", "pa_asm.csv")
        if not os.path.isfile(p):
            continue
        with open(p, encoding="utf-8-sig") as f:
            text = "".join(l for l in f if not l.lstrip().startswith(("//", "#", ";")))
        for r in csv.DictReader(io.StringIO(text)):
            out[(arch, r["knl_name"].strip(), "pa/" + r["co_name"].strip())] = r
    return out


def source_launches(path):
    """[(line, enclosing function)] of the launch_kernel calls of the source."""
    out, func = [], None
    with open(path, encoding="utf-8") as f:
        for no, line in enumerate(f, 1):
            code = kwcap.strip_comment(line)
            m = FUNC_DEF.match(code)
            if m:
                func = m.group(1)
            if LAUNCH_CALL.search(code):
                out.append((no, func))
    return out


def kernel_symbols(args, co, cache):
    if co not in cache:
        funcs, kds, _ = kwcap.elf_kernel_symbols(args, co)
        cache[co] = (funcs or set()) & (kds or set())
    return cache[co]


def main():
    args = kwcap.parse_args()
    ck = Checker("test_asm_pa_fixture")
    fixture = os.path.join(args.source_dir, "..", "shared", "fixtures", "aiter-hip")
    if not os.path.isfile(os.path.join(fixture, "compile.sh")):
        print("SKIP: the aiter fixture (../shared/fixtures/aiter-hip) is absent")
        sys.exit(kwcap.SKIP)
    fixture = os.path.realpath(fixture)
    src = os.path.join(fixture, "aiter", "csrc", "py_itfs_cu", "asm_pa.cu")
    work = kwcap.tmpdir(args, "asm-pa")
    env = kwcap.clean_env(CXX=args.clangxx, ARCHS=" ".join(args.arches))
    r = kwcap.run(["bash", os.path.join(fixture, "compile.sh"), work, args.rsp, args.plugin,
                   "asm_pa"], env=env)
    log = os.path.join(work, "obj", "asm_pa.log")
    if not ck.eq(r.returncode, 0, "compile.sh asm_pa with the plugin: exit (%s)"
                 % (open(log).read()[-2000:] if os.path.isfile(log) else r.stderr[-2000:])):
        ck.finish()
    side = [os.path.join(work, "side", f) for f in os.listdir(os.path.join(work, "side"))
            if f.endswith(".kwalk.yaml")]
    if not ck.eq(len(side), 1, "sidecars of asm_pa"):
        ck.finish()
    doc = kwcap.load_yaml_file(side[0])

    # ---- launch sites
    want_sites = source_launches(src)
    ck.check(len(want_sites) >= 2, "asm_pa.cu: fewer than two launch_kernel calls (test bug)")
    got = {}
    for ln in doc["launches"]:
        f, l = kwcap.loc_line(ln)
        if os.path.realpath(f or "") == os.path.realpath(src):
            got.setdefault(l, []).append(ln)
    ck.eq(sorted(got), sorted(l for l, _ in want_sites), "asm_pa.cu: lines with a recorded launch "
          "vs the launch_kernel calls of the source")
    rows = csv_rows(fixture)
    ck.check(len(rows) >= 50, "pa_asm.csv: %d rows (test bug)" % len(rows))
    lines = open(src, encoding="utf-8").read().split("\n")
    syms = {}
    for line, func in want_sites:
        what = "asm_pa.cu:%d (%s)" % (line, func)
        lns = got.get(line, [])
        if not ck.eq(len(lns), 1, what + ": launches recorded on the line"):
            continue
        ln = lns[0]
        ck.check("launch_kernel" in lines[line - 1], what + ": the line does not hold launch_kernel")
        ck.eq(ln.get("kind"), "asm_loader", what + ": kind")
        ck.eq(ln.get("loader"), "AiterAsmKernel", what + ": loader")
        ck.eq((ln.get("function") or "").split("(")[0], func, what + ": function")
        choices = ln.get("asm_choices") or []
        if not ck.eq(len(choices), 1, what + ": table choices"):
            continue
        ch = choices[0]
        ck.eq(ch.get("rows"), len(rows), what + ": rows of the table vs the CSV rows")
        cands = ch.get("candidates") or []
        pairs = {}
        for c in cands:
            pairs[(c.get("arch"), c.get("asm_kernel"), c.get("code_object"))] = c
        extra = sorted(set(pairs) - set(rows))
        missing = sorted(set(rows) - set(pairs))
        ck.eq((extra[:3], len(extra)), ([], 0), what + ": candidates that are no CSV row")
        ck.eq((missing[:3], len(missing)), ([], 0), what + ": CSV rows that are no candidate")
        for key, c in sorted(pairs.items()):
            if key not in rows:
                continue
            arch, kernel, co = key
            w = "%s: %s %s" % (what, arch, kernel)
            cond = c.get("condition") or ""
            ck.check(arch + kernel in cond and ch.get("lookup", "") in cond,
                     w + ": condition %r does not select the row's key %s%s by %r"
                     % (cond, arch, kernel, ch.get("lookup")))
            on_disk = os.path.join(fixture, "aiter", "hsa", arch, co)
            if not ck.check(os.path.isfile(on_disk), w + ": %s does not exist" % on_disk):
                continue
            ck.eq(os.path.realpath(c.get("file") or ""), os.path.realpath(on_disk), w + ": file")
            ck.check(kernel in kernel_symbols(args, on_disk, syms),
                     w + ": not a kernel of %s" % on_disk)

    # ---- kwalk map: the seed's pa row
    if not args.kwalk or not os.path.isfile(args.kwalk):
        ck.note("kwalk command not built: kwalk map not checked")
        ck.finish()
    db = os.path.join(work, "index.db")
    r = kwcap.run([args.kwalk, "index", os.path.join(work, "side"), "-o", db])
    ck.eq((r.returncode, r.stderr), (0, ""), "kwalk index: exit, stderr")
    r = kwcap.run([args.kwalk, "map", "--db", db, "--root", os.path.join(fixture, "aiter"),
                   "--python-root", os.path.join(fixture, "aiter", "aiter"), "--format", "tsv"])
    ck.eq((r.returncode, r.stderr), (0, ""), "kwalk map: exit, stderr")
    pa_fwd_line = [l for l, f in want_sites if f == "pa_fwd"]
    ck.eq(len(pa_fwd_line), 1, "launch_kernel lines of pa_fwd (test bug)")
    site = "csrc/py_itfs_cu/asm_pa.cu:%d" % (pa_fwd_line[0] if pa_fwd_line else 0)
    # the first nine TSV fields (docs/render.md; later fields are appended)
    map_rows = [l.split("\t") for l in r.stdout.splitlines() if l.count("\t") >= 8]
    seed = {k: v for k, v in rows.items()
            if k[0] == "gfx950" and re.match(r"pa/pa_bf16_pertokenFp8_gqa8_", k[2])}
    ck.check(seed, "pa_asm.csv: no gfx950 pa_bf16_pertokenFp8_gqa8_* row (test bug)")
    for (arch, kernel, co) in sorted(seed):
        hits = [m for m in map_rows
                if m[0] == kernel and m[5] == "pa_fwd" and m[7] == site and
                "hsa/%s/%s" % (arch, co) in m[8].split(", ")]
        ck.check(hits, "kwalk map: no row %s -> pa_fwd -> %s -> hsa/%s/%s (rows of %s: %r)"
                 % (kernel, site, arch, co, kernel, [m for m in map_rows if m[0] == kernel][:2]))
    # ---- kwalk list: each CSV kernel's NAME is llvm-cxxfilt's demangling of it
    r = kwcap.run([args.kwalk, "list", "--db", db])
    ck.eq((r.returncode, r.stderr), (0, ""), "kwalk list: exit, stderr")
    names = {f[1]: f[0] for f in (l.split("\t") for l in r.stdout.splitlines()) if len(f) >= 8}
    kernels = sorted({k for (_a, k, _c) in rows})
    filt = kwcap.run([kwcap.tool(args, "llvm-cxxfilt")] + kernels)
    demangled = dict(zip(kernels, filt.stdout.split("\n")))
    ck.check(any(demangled.get(k, k) != k for k in kernels),
             "llvm-cxxfilt demangles none of the CSV kernels (test bug)")
    for k in kernels:
        ck.eq(names.get(k), demangled.get(k), "kwalk list: NAME of %s vs llvm-cxxfilt" % k)
    kwcap.cleanup(args, work)
    ck.finish()


if __name__ == "__main__":
    main()
