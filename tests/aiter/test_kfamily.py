#!/usr/bin/env python3
"""test_kfamily: kernels asked for by name on real aiter code (issue 42), on
the aiter fixture's plugin build, against ground truth kwalk does not produce:

  index     (aiter.index, a fixture setup) `kwalk index` of the plugin
            build's sidecars into --db, which the others read instead of
            each indexing them again (without --db each indexes them
            itself, as when run by hand).
  page      `kwalk render 'pa_bf16_pertokenFp8_gqa8_*'` (the seed's own
            spelling) gives one kernel page naming every ASM kernel whose
            code object (hsa/<arch>/pa/*.co, its symbol read with llvm-nm)
            matches the glob, each under a group whose dispatch conditions
            include every field of its row in the fixture's dispatch table
            (hsa/<arch>/pa/pa_asm.csv, read here with the csv module); an
            ASM kernel's short name (its code object's) renders the
            walkthrough of the row's symbol; and
            `kwalk render add_rmsnorm_quant_kernel` one page naming every
            instantiation of that template in the code objects of
            rmsnorm_quant_kernels.o (llvm-nm of the bundled code objects),
            launched at exactly the .cu's `*_DISPATCH(opus::T, ...)`
            invocation lines (a scan of the source; those under
            `#if defined(__Float4_e2m1fn_x2)`, which the host compile
            does not define, left out), each listed once in the page's
            "What the instantiations share" section, whose calls are
            named on their call and definition lines of the source and
            whose alike resources and instruction classes hold for every
            instantiation (llvm-readelf --notes, llvm-objdump -d), and whose
            folded decision tree has no line alone under a line without a
            group (chains written as one line), every group once, every
            condition's names in the fixture's csrc; its "The kernel's
            source" section (and act_and_mul_bias_kernel's) quotes the
            .cu's lines from the template header over `__global__ void
            NAME(` verbatim (read here), and its parameter table gives the
            declaration's parameters (scanned here) in order, one type
            where no template parameter appears in the written type; every
            template of the code objects (llvm-cxxfilt of their symbols)
            of more than 16 instantiations whose render is a kernel page
            stays within 80 KB of Markdown
            and names every one of its instantiations' symbols (those of
            more than 64 instantiations folded); on act_and_mul_bias_kernel's
            and act_and_mul_kernel's pages, each entry point's groups hold
            only instantiations of the activation function (ACT_FN, read
            from llvm-cxxfilt's demangling of their symbols) that entry's
            body in the .cu names (`silu_and_mul_bias`: `aiter::silu_kernel`).
  shape     `--shape` with the table's fields, numbers and words
            (`qType=bf16`): the instantiations selected or left as
            candidates are exactly the rows that agree with the shape, every
            other one ruled out, and `kwalk map --shape` keeps exactly the
            rows of those kernels among the table's, each marked; and element types (`dtype=bf16`) on
            add_rmsnorm_quant_kernel: the .cu's `if(out.dtype() ==
            AITER_DTYPE_X)` branches, read here with a regular expression,
            and the FUSE_QUANT argument each passes give the instantiations
            a dtype keeps (FUSE_QUANT read from the mangled symbol at the
            position of the template's own parameter list); with `_st` (the
            dispatch macro's input type) bound too, DTYPE_I's mangled code as
            well; every spelling of the type decides the same, an unknown
            spelling decides nothing. The .cu's power-of-two guard (the
            AITER_CHECK with a single `&`, its two names, read here) with
            both names bound is decided as C decides it (Python's ints on
            the source text), values beyond 2^31 among them: where it fails
            every row is ruled out (every launch follows it in its macro),
            where it holds it is not listed as not evaluated and the rows
            kept are the same for every such value; the site's box is given
            the same shapes. What a --shape page lists as not
            evaluated on the glob's rows is exactly what can still decide
            them: each row is reached from asm_pa.cu's two entry points
            (each function that reads cfg_pa_asm and launches, with its
            AITER_CHECK conditions, read here), so where a shape makes one
            entry's checks hold, the other entry's checks decide nothing
            and are not listed; the expected list is worked out here from
            those checks and the csv's fields. And the site: in headless Chromium,
            the shape box of the kernel pages of the glob's table and of
            add_rmsnorm_quant_kernel, given each numeric shape and a few
            more, marks every instantiation as `kwalk render NAME --shape`
            does (selected / candidate / ruled out), says what it could not
            evaluate as render does, and gives a malformed shape --shape's
            error (skipped, with a note, where chromium cannot start). The
            reasons for what is left open name the names as code spans with
            no Markdown escape (`_st`), and binding the names so copied
            leaves none of them unknown.
  seed      `kwalk map --kernels` regenerates the seed's rows the fixture
            builds: every Host Entry cited is a `def NAME(` line decorated
            by @compile_ops in the Python source, or the def of a function
            whose body calls one of those ops (a private op's public caller), every Device Code line
            holds the kernel's name after `__global__` (a scan of the .cu),
            the ASM row's code-object globs each match files on disk;
            and the fixture's real moe_sorting_opus.h, its one kernel
            template opus_moe_sorting_entry<Kernel, Kargs> instantiated for
            two functors (src/kw_moe_opus_entry.hip, compiled here with the
            plugin for one arch): `map --kernels MoeSortingKernel,...` has a
            row per functor (the code object's kernels by llvm-nm and
            llvm-cxxfilt), its device code the functor's `operator()(Kargs`
            line (a scan of the header), its host entry the TU's function.
Exit 77 (ctest SKIP) when the fixture or the plugin build is absent."""
import argparse
import csv
import fnmatch
import glob
import html
import json
import os
import urllib.parse
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
import kwbrowser  # noqa: E402
import kwcap  # noqa: E402
from kwcheck import Checker  # noqa: E402
import kwkshared  # noqa: E402
import kwllvm  # noqa: E402
import kwrun  # noqa: E402

GLOB = "pa_bf16_pertokenFp8_gqa8_*"
NOT_CONDITIONS = ("knl_name", "co_name")


def parse_args():
    p = argparse.ArgumentParser()
    p.add_argument("what", choices=("index", "page", "shape", "seed"))
    p.add_argument("--fixture", required=True)
    p.add_argument("--work", required=True, help="the aiter tests' WORK (WORK/plugin/side)")
    p.add_argument("--kwalk", required=True)
    p.add_argument("--llvm-bin", required=True)
    p.add_argument("--archs", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--chromium")
    p.add_argument("--db", help="the index aiter.index wrote of WORK/plugin/side (ctest's "
                   "fixture aiter_index); without it each check indexes the sidecars itself")
    # seed: the real opus MoE sorting header compiled with the plugin (src/kw_moe_opus_entry.hip)
    p.add_argument("--clangxx")
    p.add_argument("--rsp")
    p.add_argument("--plugin")
    a = p.parse_args()
    a.archs = [x for x in a.archs.split(",") if x]
    return a


def index(a, write=False):
    """The index of the plugin build's sidecars: the one aiter.index wrote (--db), or,
    without --db (or for aiter.index itself), a new one."""
    side = os.path.join(a.work, "plugin", "side")
    if not os.path.isdir(side):
        print("SKIP: no plugin build of the aiter fixture in %s" % side)
        sys.exit(77)
    if a.db and not write:
        if not os.path.isfile(a.db):
            print("FAIL: no index %s (aiter.index writes it)" % a.db)
            sys.exit(1)
        return a.db
    os.makedirs(a.out, exist_ok=True)
    db = a.db or os.path.join(a.out, "kwalk.db")
    kwrun.run([a.kwalk, "index", side, "-o", db], must=True)
    return db


def do_index(a, ck):
    """aiter.index (a fixture setup): the one index the kernel_* tests and
    aiter.site_tables read."""
    db = index(a, write=True)
    ck.check(os.path.getsize(db) > 0, "kwalk index wrote %s" % db)


def co_symbols(a, path):
    """The kernel symbols of a code object (llvm-nm: its global functions)."""
    out = kwrun.run([os.path.join(a.llvm_bin, "llvm-nm"), "--defined-only", "-g", path],
                    must=True).stdout
    return {l.split()[-1] for l in out.splitlines() if len(l.split()) == 3 and
            l.split()[1] in ("T", "t") and not l.split()[-1].endswith(".kd")}


def pa_rows(a):
    """knl_name -> the row's fields, over the archs' pa_asm.csv tables, for
    the code objects the glob matches (their symbol checked with llvm-nm);
    pa_rows.cos: knl_name -> its code object's name without .co."""
    rows = {}
    pa_rows.cos = {}
    for arch in a.archs:
        d = os.path.join(a.fixture, "aiter", "hsa", arch, "pa")
        with open(os.path.join(d, "pa_asm.csv"), newline="") as f:
            for r in csv.DictReader(f):
                if not fnmatch.fnmatch(r["co_name"][:-3], GLOB):
                    continue
                co = os.path.join(d, r["co_name"])
                if os.path.exists(co) and r["knl_name"] not in co_symbols(a, co):
                    sys.exit("FAILED: %s does not define %s" % (co, r["knl_name"]))
                rows[r["knl_name"]] = {k: v for k, v in r.items() if k not in NOT_CONDITIONS}
                pa_rows.cos[r["knl_name"]] = r["co_name"][:-3]
    return rows


def render(a, db, name, *more):
    r = kwrun.run([a.kwalk, "render", "--db", db, name] + list(more))
    return r.returncode, r.stdout, r.stderr


def page_groups(md):
    """The page's groups: (their conditions text, [instantiation symbols]);
    a folded page (more than 64 instantiations): its symbols by group number,
    the conditions left empty."""
    if "### Instantiations by group" in md:
        folded = {}
        for m in re.finditer(r"^\| (\d+) \| `([^`]*)` \|", md.split("### Instantiations by group", 1)[1],
                             re.M):
            folded.setdefault(int(m.group(1)), []).append(m.group(2))
        return [("", v) for _, v in sorted(folded.items())]
    groups, cur = [], None
    for line in md.splitlines():
        if line.startswith("### Group "):
            cur = ["", []]
            groups.append(cur)
        elif cur is not None and line.startswith("- ") and not cur[1]:
            cur[0] += line + "\n"
        elif cur is not None and line.startswith("| `"):
            m = re.match(r"\| `([^`]*)`[^|]* \| `([^`]*)` \|", line)
            cur[1].append(m.group(2) if m else "?" + line)
    return groups


def field_cond(k, v):
    return "`%s == %s`" % (k, v if re.fullmatch(r"-?\d+", v) else '"%s"' % v)


def do_page(a, ck):
    db = index(a)
    rows = pa_rows(a)
    cos = pa_rows.cos
    ck.check(len(rows) >= 2, "the fixture's tables have %d rows matching %s" % (len(rows), GLOB))
    rc, md, err = render(a, db, GLOB)
    ck.eq(rc, 0, "render %s: exit status (stderr: %s)" % (GLOB, err.strip()[:300]))
    ck.check(md.startswith("# Kernel "), "render %s: not a kernel page" % GLOB)
    groups = page_groups(md)
    shown = {n: conds for conds, ns in groups for n in ns}
    ck.eq(sorted(shown), sorted(rows), "%s: the page's instantiations against the code objects "
          "the tables name" % GLOB)
    for sym, fields in rows.items():
        conds = shown.get(sym, "")
        for k, v in fields.items():
            ck.check(field_cond(k, v) in conds, "%s: its group's conditions lack %s (has: %s)"
                     % (sym, field_cond(k, v), conds.strip()[:300]))
    # an ASM kernel's short name (its code object's name): that one kernel's walkthrough
    for sym, co in sorted(cos.items())[:2]:
        rc, md, err = render(a, db, co)
        ck.check(rc == 0 and "(`%s`)" % sym in md.split("\n")[0],
                 "render %s: not the walkthrough of %s: %r" % (co, sym, md.split("\n")[0][:200]))
    # a template: every instantiation in rmsnorm_quant_kernels.o's code objects
    obj = os.path.join(a.work, "plugin", "obj", "rmsnorm_quant_kernels.o")
    want = set()
    work = os.path.join(a.out, "co")
    os.makedirs(work, exist_ok=True)
    for arch in a.archs:
        syms, e = kwcap.code_object_kernels(argparse.Namespace(llvm_bin=a.llvm_bin), obj, arch, work)
        ck.check(syms is not None, "%s %s: %s" % (obj, arch, e))
        want |= {s for s in syms or () if "add_rmsnorm_quant_kernel" in s}
    rc, md, err = render(a, db, "add_rmsnorm_quant_kernel")
    ck.eq(rc, 0, "render add_rmsnorm_quant_kernel: exit status (%s)" % err.strip()[:300])
    got = [n for _, ns in page_groups(md) for n in ns]
    ck.eq(sorted(got), sorted(want),
          "add_rmsnorm_quant_kernel: the page's instantiations against the code objects")
    ck.check(len(got) > 1, "add_rmsnorm_quant_kernel: %d instantiations" % len(got))
    cu = os.path.join(a.fixture, "aiter", "csrc", "kernels", "rmsnorm_quant_kernels.cu")
    want_sites, skip = [], False
    for i, l in enumerate(open(cu, encoding="utf-8").read().split("\n"), 1):
        if l.startswith("#if defined(__Float4_e2m1fn_x2)"):
            skip = True
        elif l.startswith("#endif"):
            skip = False
        elif not skip and re.match(r"\s+\w+_DISPATCH\(opus::\w+,", l):
            want_sites.append(i)
    shared = md.split("## What the instantiations share", 1)[-1].split("## Dispatch table")[0]
    shared = shared.split("### 2. Device kernel")[0]  # the host side's launch sites
    sites = [(int(m.group(1)), int(m.group(2))) for m in re.finditer(
        r"^- `[^`]*rmsnorm_quant_kernels\.cu:(\d+)`: (\d+) of %d$" % len(got), shared, re.M)]
    ck.eq(sorted(x for x, _ in sites), sorted(want_sites),
          "add_rmsnorm_quant_kernel: the launch sites shared, against the .cu's dispatch lines")
    ck.check(all(0 < n <= len(got) for _, n in sites), "the sites' counts: %r" % sites)
    check_source(a, ck, md, "add_rmsnorm_quant_kernel", cu)
    check_shared(a, ck, md, "add_rmsnorm_quant_kernel", obj, sorted(want), work)
    check_tree(a, ck, md, "add_rmsnorm_quant_kernel", cu)
    check_ways(a, ck, md, "add_rmsnorm_quant_kernel", cu)
    act = os.path.join(a.fixture, "aiter", "csrc", "kernels", "activation_kernels.cu")
    rc, md, err = render(a, db, "act_and_mul_bias_kernel")
    check_source(a, ck, md, "act_and_mul_bias_kernel", act)
    check_act_entries(a, ck, md, act, "act_and_mul_bias_kernel")
    rc, md, err = render(a, db, "act_and_mul_kernel")
    ck.eq(rc, 0, "render act_and_mul_kernel: exit status (%s)" % err.strip()[:300])
    check_act_entries(a, ck, md, act, "act_and_mul_kernel")
    run = check_siblings(ck, md, "act_and_mul_kernel")
    ck.check(len(run) >= 4, "act_and_mul_kernel: sibling lines comparing one name with "
             "integers: %r" % run)
    check_sizes(a, ck, db)
    ck.note("%d ASM rows, %d template instantiations" % (len(rows), len(got)))


def check_shared(a, ck, md, name, obj, syms, work):
    """The page's "What the instantiations share" (issue 42, item 1): every
    call it cites named on its call and definition lines of the source, and
    the resources and instruction classes said to be alike against
    llvm-readelf --notes and llvm-objdump -d of every instantiation."""
    sec = kwkshared.section(md)
    every, some = kwkshared.calls(sec)
    ck.check(every, "%s: no call every instantiation makes" % name)
    kwkshared.check_names(ck, name, every, some)
    per_arch = {}
    for arch in a.archs:
        co, err = kwcap.unbundle_code_object(argparse.Namespace(llvm_bin=a.llvm_bin), obj, arch,
                                             work)
        if not ck.check(co, "%s %s: %s" % (obj, arch, err)):
            continue
        meta = kwllvm.readelf_metadata(a.llvm_bin, co) or {}
        per_arch[arch] = (kwkshared.objdump(a.llvm_bin, co),
                          {k.get(".symbol", "")[:-3]: k for k in meta.get("amdhsa.kernels", [])})
    n = kwkshared.check_isa(ck, name, sec, syms, per_arch)
    ck.check(n >= len(syms), "%s: ISA facts compared: %d" % (name, n))


def tree_items(md):
    """The folded page's decision tree: [(depth, text, group or None)]."""
    part = md.split("### Groups by the conditions that select them", 1)
    out = []
    for l in (part[1].split("\n### ", 1)[0] if len(part) > 1 else "").split("\n"):
        m = re.match(r"^( *)- (.*)$", l)
        if m:
            g = re.search(r" → group (\d+): \d+", m.group(2))
            out.append((len(m.group(1)) // 2, m.group(2), int(g.group(1)) if g else None))
    return out


def check_tree(a, ck, md, name, cu):
    """The folded page's decision tree (issue 42, item 2): no line without a
    group has one line under it (a chain of single children is one line),
    every group once, and every name of every condition on a line is one
    the fixture's csrc writes (its dispatch macros expand into the
    conditions, so the names are compared, not the texts)."""
    items = tree_items(md)
    if not ck.check(items, "%s: no decision tree on the folded page" % name):
        return
    for i, (d, text, g) in enumerate(items):
        kids = 0
        for d2, _, _ in items[i + 1:]:
            if d2 <= d:
                break
            kids += d2 == d + 1
        ck.check(g is not None or kids != 1, "%s: the tree's line %r has one line under it"
                 % (name, text[:120]))
    groups = [g for _, _, g in items if g is not None]
    ck.eq(groups, list(range(1, len(groups) + 1)),
          "%s: the tree's groups, each once, numbered in the tree's order" % name)
    src = ""
    for d, _, files in os.walk(os.path.join(a.fixture, "aiter", "csrc")):
        src += "".join(open(os.path.join(d, f), encoding="utf-8", errors="replace").read()
                       for f in files if f.endswith((".cu", ".h", ".hpp")))
    words = set(re.findall(r"[A-Za-z_]\w*", src))
    seen = 0
    for _, text, _ in items:
        if text.startswith(("`(no ", "`(never ")) or "; " in text:
            continue  # no way, or a group's several ways in one line
        body = re.sub(r"^from `[^`]*`: ", "", text.split(" → group ")[0])
        if body.startswith("from `"):
            continue
        for c in re.findall(r"`([^`]*)`", body):
            names = re.findall(r"[A-Za-z_]\w*", c)
            ck.check(names and set(names) <= words, "%s: the tree's condition %r: names not in "
                     "the source: %r" % (name, c, sorted(set(names) - words)))
            seen += 1
    ck.check(seen >= 10, "%s: conditions of the tree compared with the source: %d" % (name, seen))


def check_siblings(ck, md, name):
    """The folded page's decision tree: sibling lines that compare one name
    with one operator against integer literals (`vec_size == 1`, `2`, ...),
    read from the page, in ascending order of the literals' values (not as
    text: 1, 16, 2); and its groups numbered in the tree's order. Returns
    the longest such run of siblings."""
    items = tree_items(md)
    groups = [g for _, _, g in items if g is not None]
    ck.eq(groups, list(range(1, len(groups) + 1)),
          "%s: the tree's groups numbered in the tree's order" % name)
    kids, up = {}, []
    for i, (d, text, _) in enumerate(items):
        del up[d:]
        m = re.match(r"`(\w+) (==|!=|<=|>=|<|>) (-?\d+)`", text)
        if m:
            kids.setdefault((up[-1] if up else None, m.group(1), m.group(2)), []).append(
                int(m.group(3)))
        up.append(i)
    longest = []
    for (parent, n, op), vals in sorted(kids.items(), key=lambda kv: str(kv[0])):
        ck.eq(vals, sorted(vals), "%s: sibling lines `%s %s N` under line %s: the values in "
              "order" % (name, n, op, parent))
        longest = max(longest, vals, key=len)
    return longest


def tree_ways(items):
    """Each tree line's conditions on its way: those of the lines above it
    (by depth) and its own, in order; an entry point's name is none."""
    out, stack = [], []
    for d, text, _ in items:
        del stack[d:]
        body = text.split(" → group ")[0].split(" (unreachable")[0]
        body = re.sub(r"^from `[^`]*`:? ?", "", body)
        stack.append(re.findall(r"`([^`]*)`", body))
        out.append([c for line in stack for c in line])
    return out


def rms_unassigned(src, name):
    """Whether add_rmsnorm_quant's body and the file's macros leave name
    unchanged (no assignment, increment or address taken)."""
    body = src.split("void add_rmsnorm_quant(", 1)[-1].split("void rmsnorm_quant(", 1)[0]
    body = body[body.find("{"):]  # not the parameters' defaults
    macros = "".join(re.findall(r"#define[^\n]*(?:\\\n[^\n]*)*", src))
    bad = r"\b%s\s*(?:[-+*/%%&|^]?=(?!=)|\+\+|--)|(?:\+\+|--|&)\s*%s\b" % (name, name)
    return not re.search(bad, body + macros)


def check_ways(a, ck, md, name, cu):
    """The tree's unreachable ways (issue 42 follow-up): the line where a
    way first has C and !(C) says so and no other line does; the source's dispatch
    tests `group_size == 0` in ADD_RMSNORM_QUANT_KERNEL_DISPATCH and again
    in ADD_RMSNORM_QUANT_KERNEL_IMPL with nothing between changing
    group_size, so such ways are real and unreachable; the group the page
    says never runs holds exactly the instantiations with interleave false
    that the source launches only under a constant-false `if constexpr`
    (interleave is false only under thread_data_size > 8 and FUSE_QUANT)."""
    src = open(cu, encoding="utf-8").read()
    items = tree_items(md)
    contra, ways, up = 0, tree_ways(items), []
    for (d, text, g), way in zip(items, ways):
        del up[d:]
        pair = [c for c in way if "!(%s)" % c in way]
        first = bool(pair) and not (up and any("!(%s)" % c in up[-1] for c in up[-1]))
        up.append(way)
        contra += first
        ck.eq("(unreachable" in text, first, "%s: the tree's line %r: unreachable said, against "
              "the first line whose way has C and !(C): %r" % (name, text[:160], way))
        for c in pair:
            for n in set(re.findall(r"[A-Za-z_]\w*", c)):
                ck.check(rms_unassigned(src, n), "%s: %s is changed in the source: %r is no "
                         "contradiction" % (name, n, c))
    disp = re.search(r"#define ADD_RMSNORM_QUANT_KERNEL_DISPATCH\(.*?\n\n", src, re.S)
    impl = re.search(r"#define ADD_RMSNORM_QUANT_KERNEL_IMPL\(.*?\n\n", src, re.S)
    twice = bool(disp and impl and "if (group_size == 0)" in disp.group(0)
                 and "if (group_size == 0)" in impl.group(0))
    ck.check(twice, "the source's dispatch tests group_size == 0 in both macros")
    ck.check(not twice or contra >= 2, "%s: unreachable ways on the page: %d" % (name, contra))
    # interleave false: the IMPL macro's only `, false);` call is under both if constexpr
    body = impl.group(0) if impl else ""
    f = body.find(", false);")
    gate = [body.find("if constexpr((thread_data_size > 8))"), body.find("if constexpr(FUSE_QUANT)")]
    ck.check(0 <= gate[0] < gate[1] < f and body.count(", false);") == 1,
             "the source's IMPL macro: interleave false only under both if constexpr")
    params, _ = rms_source(a)
    if not all(p in params for p in ("thread_data_size", "FUSE_QUANT", "interleave")):
        ck.check(False, "the template's parameters from the source: %r" % params)
        return
    never = [g for _, text, g in items if text.startswith("`(never runs")]
    groups = page_groups(md)
    dead = set()
    for _, syms in groups:
        for s in syms:
            v = mangled_args(s)
            if len(v) != len(params):
                continue
            val = dict(zip(params, v))
            tds = int(re.sub(r"\D", "", val["thread_data_size"]))
            if val["interleave"] == "Lb0E" and not (tds > 8 and val["FUSE_QUANT"] == "Lb1E"):
                dead.add(s)
    got = {s for g in never for s in groups[g - 1][1]}
    ck.check(dead, "%s: instantiations launched only under constant-false if constexpr" % name)
    ck.eq(sorted(got), sorted(dead), "%s: the group that never runs, against the symbols' "
          "interleave, thread_data_size and FUSE_QUANT and the source's if constexpr" % name)


def act_launchers(path, kernel):
    """From the .cu read here: {host function: the activation functions it
    names (`aiter::NAME` of a `__device__ __forceinline__ float NAME(`
    definition)} for every top-level `void NAME(` whose body launches
    kernel, itself or through a macro whose #define names it (or names
    such a macro)."""
    text = open(path, encoding="utf-8").read()
    acts = set(re.findall(r"^__device__\s+__forceinline__\s+float\s+(\w+)\s*\(", text, re.M))
    macros = {m.group(1): m.group(2) for m in re.finditer(
        r"^#define\s+(\w+)((?:.*\\\n)*.*)$", text, re.M)}
    names, grew = {kernel}, True
    while grew:
        more = {n for n, body in macros.items()
                if any(re.search(r"\b%s\b" % re.escape(x), body) for x in names)}
        grew = not more <= names
        names |= more
    out = {}
    for m in re.finditer(r"^void\s+(\w+)\s*\((.*?)^\}", text, re.M | re.S):
        body = m.group(2)
        if any(re.search(r"\b%s\b" % re.escape(x), body) for x in names):
            out[m.group(1)] = {x for x in acts if re.search(r"\baiter::%s\b" % x, body)}
    return out, acts


def page_group_entries(md):
    """A folded kernel page's groups: {group number: the entry points of its
    ways}, from the tree of "Groups by the conditions that select them" (a
    group of one way under its `from ENTRY` line, a group of several ways
    one line `ENTRY: conditions; ENTRY: ...`)."""
    tree = md.split("### Groups by the conditions that select them", 1)[-1]
    tree = tree.split("### Instantiations by group", 1)[0]
    out, entry = {}, None
    for line in tree.splitlines():
        m = re.match(r"^- from `([^`]*)`", line)
        if m:
            entry = m.group(1)
        elif line.startswith("- "):
            entry = None
        g = re.search(r" → group (\d+): \d+", line)
        if not g:
            continue
        if entry:
            out[int(g.group(1))] = {entry}
        else:
            way = re.match(r"^\s*- `([^`]*)`", line)
            ways = way.group(1).split("; ") if way else []
            out[int(g.group(1))] = {w.split(": ", 1)[0] for w in ways if ": " in w}
    return out


def check_act_entries(a, ck, md, path, kernel):
    """Each entry point's groups on kernel's (folded) page launch only the
    activation function (the ACT_FN template argument, read from each
    symbol's demangling by llvm-cxxfilt) that entry's body names in the .cu
    (act_launchers): gelu_and_mul_bias launches gelu_kernel instantiations
    only, silu_and_mul_bias silu_kernel ones (act_and_mul_kernel: gelu_and_mul,
    gelu_tanh_and_mul and silu_and_mul each its own)."""
    want, acts = act_launchers(path, kernel)
    ck.check(len(want) >= 2 and all(len(v) == 1 for v in want.values()),
             "%s: the .cu's launchers and their activations: %r" % (kernel, want))
    entries = page_group_entries(md)
    rows = {}
    for m in re.finditer(r"^\| (\d+) \| `([^`]*)` \|",
                         md.split("### Instantiations by group", 1)[-1], re.M):
        rows.setdefault(int(m.group(1)), []).append(m.group(2))
    ck.check(rows and set(rows) == set(entries),
             "%s: the groups of the tree %d, of the table %d" % (kernel, len(entries), len(rows)))
    syms = sorted({s for v in rows.values() for s in v})
    dem = kwrun.run([os.path.join(a.llvm_bin, "llvm-cxxfilt")], input="\n".join(syms) + "\n",
                    must=True).stdout.split("\n")
    act_of = {s: {x for x in acts if re.search(r"\b%s\b" % x, d)} for s, d in zip(syms, dem)}
    got = {}
    for g, es in entries.items():
        for e in es:
            for s in rows.get(g, ()):
                got.setdefault(e, set()).update(act_of[s])
    ck.eq({e: sorted(v) for e, v in got.items()}, {e: sorted(v) for e, v in want.items()},
          "%s: the activation functions (ACT_FN) of each entry point's groups, against the "
          "ACT_FN each entry's launches name in the .cu" % kernel)


def src_decl(path, name):
    """From the source read here: the line of `__global__ void NAME(`, the
    line of the `template` header above it (or that line), and the
    parameter list's declarations (comments dropped, whitespace folded, a
    default dropped) with their names."""
    text = open(path, encoding="utf-8").read()
    lines = text.split("\n")
    m = re.search(r"__global__\s+void\s+%s\s*\(" % re.escape(name), text)
    if not m:
        return None
    line = text.count("\n", 0, m.start()) + 1
    first = line
    while first > 1 and not lines[first - 1].lstrip().startswith("template") and \
            line - first < 12 and lines[first - 2].strip() and \
            not lines[first - 2].rstrip().endswith((";", "}")):
        first -= 1
    body = re.sub(r"//[^\n]*|/\*.*?\*/", " ", text[m.end():], flags=re.S)
    depth, cur, params = 0, "", []
    for c in body:
        if c in "(<[{":
            depth += 1
        elif c in ")>]}":
            if depth == 0 and c == ")":
                params.append(cur)
                break
            depth -= 1
        if c == "," and depth == 0:
            params.append(cur)
            cur = ""
            continue
        cur += c
    decls = []
    for p in params:
        p = " ".join(p.split("=")[0].split()) if "=" in p else " ".join(p.split())
        if p:
            decls.append((re.findall(r"\w+", p)[-1], p))
    tparams = set()
    hdr = re.search(r"template\s*<(.*)>\s*$", " ".join(lines[first - 1:line - 1]), re.S)
    if hdr:
        tparams = set(re.findall(r"(?:typename|class|int|bool|int32_t|float)\s*(?:\(\s*\*\s*)?(\w+)",
                                 hdr.group(1)))
    return line, first, decls, tparams


def check_source(a, ck, md, name, path):
    """The kernel page's quoted definition against the source's lines and
    its parameter table against the declaration scanned here."""
    got = src_decl(path, name)
    ck.check(got, "%s: no `__global__ void %s(` in %s" % (name, name, path))
    if not got:
        return
    line, first, decls, tparams = got
    part = md.split("## The kernel's source", 1)
    ck.check(len(part) == 2, "%s: the page has no source section" % name)
    if len(part) < 2:
        return
    sec = part[1].split("\n## ", 1)[0]
    m = re.search(r"^// (\S+):(\d+)-(\d+)$", sec, re.M)
    ck.check(m, "%s: the quote's `// file:first-last` line" % name)
    if not m:
        return
    ck.eq(os.path.realpath(m.group(1)), os.path.realpath(path), "%s: the quoted file" % name)
    qf, ql = int(m.group(2)), int(m.group(3))
    ck.eq(qf, first, "%s: the quote starts at the template header" % name)
    ck.check(qf <= line <= ql, "%s: the quote %d-%d holds the kernel's line %d" % (name, qf, ql, line))
    src = open(path, encoding="utf-8").read().split("\n")
    quoted = re.findall(r"^ *(\d+) \| (.*)$", sec.split("```")[1], re.M)
    ck.eq([int(n) for n, _ in quoted], list(range(qf, ql + 1)), "%s: the quoted line numbers" % name)
    for n, t in quoted:
        ck.eq(t, src[int(n) - 1], "%s: quoted line %s against the source" % (name, n))
    rows = re.findall(r"^\| (\d+) \| `([^`]*)` \| `([^`]*)` \| (.*) \|$", sec, re.M)
    ck.eq([(r[1], r[2]) for r in rows], decls, "%s: the parameters against the declaration" % name)
    for _, pname, written, inst in rows:
        generic = set(re.findall(r"\w+", written)) & tparams
        if not generic:
            ck.check(inst.endswith("in every one"),
                     "%s: %s (no template parameter in `%s`) has one type: %s"
                     % (name, pname, written, inst))
    ck.check(any(not r[3].endswith("in every one") for r in rows),
             "%s: some parameter's types differ between instantiations" % name)


def family_symbols(a, work):
    """base name (llvm-cxxfilt's demangling up to its template arguments) ->
    the kernel symbols of every code object of the plugin build's objects."""
    syms = set()
    objdir = os.path.join(a.work, "plugin", "obj")
    for obj in sorted(glob.glob(os.path.join(objdir, "*.o"))):
        for arch in a.archs:
            got, e = kwcap.code_object_kernels(argparse.Namespace(llvm_bin=a.llvm_bin), obj, arch,
                                               work)
            syms |= set(got or ())
    syms = sorted(syms)
    out = kwrun.run([os.path.join(a.llvm_bin, "llvm-cxxfilt")], input="\n".join(syms) + "\n",
                    must=True).stdout.split("\n")
    fams = {}
    for sym, dem in zip(syms, out):
        base = re.match(r"(?:void )?([\w:]+)", dem)
        if base and "<" in dem:
            fams.setdefault(base.group(1), set()).add(sym)
    return fams


def check_sizes(a, ck, db):
    """The kernel page of every template of the fixture with more than 16
    instantiations (a smaller one's rows cannot fill the bound; not rendered,
    to keep the test cheap): at most 80 KB of Markdown, naming every
    instantiation of the code objects. The bound was 64 KB while
    act_and_mul_bias_kernel's groups merged the gelu and silu entry points'
    rows (135 groups, 56 KB); one group per way, 270 groups, it is 68,032 B,
    and add_rmsnorm_quant_kernel's, its add_rmsnorm rows no longer in the
    rmsnorm entry's groups (65 -> 109 groups), 67,117 B; with the facts
    every instantiation shares (issue 42, item 1) 72,603 and 71,853 B on
    clang 22's two arches. 80 KB leaves room for another major's longer
    manglings; making the folded tree state a branch's common template
    arguments once is what would bring them back under 64 KB."""
    fams = {b: s for b, s in family_symbols(a, os.path.join(a.out, "co")).items() if len(s) > 16}
    big = 0
    for base, syms in sorted(fams.items()):
        rc, md, err = render(a, db, base)
        if rc != 0 or not md.startswith("# Kernel "):
            continue
        big += len(syms) > 64
        ck.check(len(md.encode()) <= 80 * 1024, "render %s: %d bytes (over 80 KB)" % (base, len(md.encode())))
        shown = {n for _, ns in page_groups(md) for n in ns}
        ck.eq(sorted(syms - shown), [], "render %s: instantiations of the code objects not on the page"
              % base)
    ck.check(big >= 2, "%d templates of more than 64 instantiations" % big)
    ck.note("%d kernel pages within 80 KB, %d folded" % (len(fams), big))


def verdicts(md):
    """instantiation symbol -> its --shape column."""
    res = {}
    for line in md.splitlines():
        m = re.match(r"\| (?:`[^`]*`[^|]*|\d+) \| `([^`]*)` \|(?:.*\|)? (selected|candidate|ruled out) \|$",
                     line)
        if m:
            res[m.group(1)] = m.group(2)
    return res


def do_shape(a, ck):
    db = index(a)
    rows = pa_rows(a)
    numeric = sorted({k for f in rows.values() for k, v in f.items() if re.fullmatch(r"\d+", v)})
    words = sorted({k for f in rows.values() for k, v in f.items()
                    if re.fullmatch(r"[A-Za-z_]\w*", v)})
    ck.check(words, "the pa tables have word fields (qType)")
    tried, seen = 0, {}
    for k in numeric + words:
        for val in sorted({f[k] for f in rows.values()}):
            shape = "%s=%s" % (k, val)
            rc, md, err = render(a, db, GLOB, "--shape", shape)
            seen[(GLOB, shape)] = (rc, md, err)
            ck.eq(rc, 0, "--shape %s: exit status (%s)" % (shape, err.strip()[:200]))
            got = verdicts(md)
            ck.eq(sorted(got), sorted(rows), "--shape %s: the rows" % shape)
            agree = {s for s, f in rows.items() if f[k] == val}
            kept = {n for n, v in got.items() if v in ("selected", "candidate")}
            ck.eq(sorted(kept), sorted(agree), "--shape %s: the instantiations kept" % shape)
            # map --shape: the table rows' kernels among its rows, each marked
            r = kwrun.run([a.kwalk, "map", "--db", db, "--shape", shape])
            ck.eq(r.returncode, 0, "map --shape %s: exit status (%s)" % (shape, r.stderr[:200]))
            lines = [l for l in r.stdout.splitlines() if l.startswith("| `")]
            onmap = {k for k in rows for l in lines if l.startswith("| `%s`" % k)}
            ck.eq(sorted(onmap), sorted(agree), "map --shape %s: the table's kernels kept" % shape)
            ck.check(all(re.match(r"\| `[^|]*\| \d+, (selected|candidate) \|", l) for l in lines),
                     "map --shape %s: a row not marked" % shape)
            tried += 1
    ck.check(tried >= 2, "only %d shapes tried" % tried)
    ck.note("%d shapes over the fields %s" % (tried, ", ".join(numeric + words)))
    shape_dtype(a, ck, db)
    pow2 = check_pow2(a, ck, db)
    check_reasons(a, ck, db)
    check_unreach(a, ck, db)
    check_settled(a, ck, db)
    shapes = ["%s=%s" % (k, v) for k in numeric for v in sorted({f[k] for f in rows.values()})]
    shapes += [",".join(shapes[:3]), "head_size=128,qTile=0,Gqa=8,Mtp=1,Msk=0,Hp=0",
               "head_size=128"]  # pa_ps_fwd's way settled (check_settled)
    # words: the pa tables' string fields (qType=bf16), element types by
    # model/kw_dtype.c's spellings, an unknown spelling (not evaluated)
    shapes += ["%s=%s" % (k, v) for k in words for v in sorted({f[k] for f in rows.values()})]
    rms = ["n=4096,group_size=0,emit_e8m0_scale=0", "n=300", "n=8192,group_size=32",
           "n=6000,group_size=24,reduce_thread_size=4,m=1", "dtype=bf16", "dtype=fp16",
           "dtype=bfloat16", "dtype=bf16,_st=bf16", "n=4096,dtype=Half", "dtype=bf17", "n=8192"]
    rms += pow2  # the power-of-two guard bound, values beyond 2^31 among them (check_pow2)
    # the whole table (its page's list of what is not evaluated compared too):
    # each entry point's check settling the other's way (check_settled)
    table = ["qTile=16", "head_size=128", "Gqa=8"]
    site_shapes(a, ck, db, [(GLOB, shapes), ("add_rmsnorm_quant_kernel", rms), ("pa_*", table)],
                seen)


def aiter_checks(body):
    """Each AITER_CHECK(COND, ...) in body: (where its arguments start,
    COND with its white space runs as one space), read up to the first
    comma outside parentheses."""
    for c in re.finditer(r"\bAITER_CHECK\s*\(", body):
        depth, arg = 0, ""
        for ch in body[c.end():]:
            if ch == "," and not depth:
                break
            depth += {"(": 1, ")": -1}.get(ch, 0)
            arg += ch
        yield c.end(), " ".join(arg.split())


def rms_bitwise_guard(a):
    """From rmsnorm_quant_kernels.cu: the AITER_CHECK condition with a
    single `&` (the power-of-two test), its names, and whether every launch
    of add_rmsnorm_quant_kernel in the file follows it in the one macro
    that holds it (so every instantiation's way needs it)."""
    src = open(os.path.join(a.fixture, "aiter", "csrc", "kernels", "rmsnorm_quant_kernels.cu"),
               encoding="utf-8").read()
    guard, launches, guarded = None, 0, 0
    for m in re.finditer(r"#define\s+\w+\(.*?(?<!\\)\n", src, re.S):
        body = m.group(0)
        for end, arg in aiter_checks(body):
            if re.search(r"[^&]&[^&]", arg):
                guard = arg
                guarded += len(re.findall(r"add_rmsnorm_quant_kernel<[^;]*?>\s*<<<",
                                          body[end:]))
    launches = len(re.findall(r"add_rmsnorm_quant_kernel<[^;]*?>\s*<<<", src))
    names = sorted(set(re.findall(r"[A-Za-z_]\w*", guard or "")))
    return guard, names, launches > 0 and guarded == launches


def c_truth(cond, binds):
    """cond (C: names, ==, ||, &&, &, -, parentheses, each & parenthesized
    with its == outside, as the source writes it) for the ints binds, as C
    decides it: Python's operators on unbounded ints, || and && spelled out."""
    py = cond.replace("||", " or ").replace("&&", " and ")
    return bool(eval(py, {"__builtins__": {}}, dict(binds)))


def check_pow2(a, ck, db):
    """add_rmsnorm_quant's power-of-two guard (a single `&`, read from the
    .cu with its names) decided as C decides it: with its names bound, a
    shape where it fails rules every row out (every launch of the kernel is
    in the macro after the check, read from the source), one where it holds
    leaves it unlisted among what is not evaluated and keeps the rows the
    rest of the shape keeps. Values beyond 2^31 included (a 32-bit `&`
    would differ). The shapes, for the site's box (site_shapes)."""
    guard, names, all_guarded = rms_bitwise_guard(a)
    if not ck.check(guard and len(names) == 2, "rmsnorm_quant_kernels.cu: the guard with a "
                    "single & and its two names: %r %r" % (guard, names)):
        return []
    ck.check(all_guarded, "rmsnorm_quant_kernels.cu: every add_rmsnorm_quant_kernel launch "
             "after the guard %r" % guard)
    # the name tested against 0 alone and the one tested for a power of two
    zero = [n for n in names if re.search(r"\b%s == 0 \|\|" % n, guard)]
    if not ck.check(len(zero) == 1, "the guard's `NAME == 0 ||`: %r" % guard):
        return []
    gs, rts = zero[0], [n for n in names if n != zero[0]][0]
    base = "n=6000,m=1,dtype=bf16,_st=bf16,WARP_SIZE=64,emit_e8m0_scale=0,cu_num=100"
    vals = [(24, 4), (24, 6), (24, 2**32 + 2**31), (24, 2**33), (24, 2**31), (24, 2**31 + 1),
            (24, 0), (0, 6)]
    name, shapes, kept_if_holds, held = "add_rmsnorm_quant_kernel", [], None, 0
    for g, r in vals:
        truth = c_truth(guard, {gs: g, rts: r})
        for pre in ("", base + ","):
            shape = "%s%s=%d,%s=%d" % (pre, gs, g, rts, r)
            shapes.append(shape)
            rc, md, err = render(a, db, name, "--shape", shape)
            ck.eq(rc, 0, "%s --shape %s: exit status (%s)" % (name, shape, err.strip()[:200]))
            got = verdicts(md)
            ck.check(got, "%s --shape %s: no rows" % (name, shape))
            ck.check(guard not in open_conds(md), "%s --shape %s: the guard %r listed as not "
                     "evaluated" % (name, shape, guard))
            kept = sorted(s for s, v in got.items() if v != "ruled out")
            if not truth:
                ck.eq(kept, [], "%s --shape %s: rows kept where the guard fails in C"
                      % (name, shape))
            elif pre and g:  # the same rows for every value that holds
                ck.check(any(v == "selected" for v in got.values()),
                         "%s --shape %s: no row selected" % (name, shape))
                if kept_if_holds is None:
                    kept_if_holds = kept
                ck.eq(kept, kept_if_holds, "%s --shape %s: the rows kept where the guard holds"
                      % (name, shape))
                held += 1
    ck.check(held >= 2, "shapes where the guard holds: %d" % held)
    ck.note("%s: %d shapes binding %s and %s" % (name, len(shapes), gs, rts))
    return shapes


def check_reasons(a, ck, db):
    """The reasons a --shape page gives for what it could not evaluate
    (issue 42, item 3): each name as a code span, with no Markdown escape
    in it (`_st`, not '\\_st'), so that the name copied from the page binds
    it: --shape with every such name bound leaves none of them unknown."""
    name, shape = "add_rmsnorm_quant_kernel", "n=4096"
    rc, md, err = render(a, db, name, "--shape", shape)
    why = [w for w in open_reasons(md) if w]
    ck.check(why, "%s --shape %s: no reason given: %r" % (name, shape, err[:200]))
    ck.eq([w for w in why if "\\" in w], [], "%s --shape %s: reasons with an escape" % (name, shape))
    names = sorted({m.group(1) for w in why for m in re.finditer(r"unknown name `([^`]+)`", w)})
    ck.check(any(n.startswith("_") or n.endswith("_") for n in names),
             "%s --shape %s: a name an escape would have changed among %r" % (name, shape, names))
    more = shape + "," + ",".join("%s=0" % n for n in names)
    rc, md, err = render(a, db, name, "--shape", more)
    ck.eq(rc, 0, "%s --shape %s: exit status (%s)" % (name, more, err.strip()[:200]))
    left = sorted({m.group(1) for w in open_reasons(md) if w
                   for m in re.finditer(r"unknown name `([^`]+)`", w)} & set(names))
    ck.eq(left, [], "%s --shape %s: names the page gave, still unknown" % (name, more))


def unreach_list(md):
    """The contradictions a --shape page says ruled ways out: ["T / C"], T
    the way's later condition, C the earlier one it contradicts."""
    part = md.split("Ruled out where open, as unreachable (", 1)
    if len(part) < 2:
        return []
    return ["%s / %s" % m.groups() for m in re.finditer(
        r"^- `([^`]*)` at `[^`]*`: contradicts `([^`]*)` at `[^`]*`$",
        part[1].split("\n\n", 1)[1].split("\n\n")[0], re.M)]


def check_unreach(a, ck, db):
    """--shape leaving `group_size` unbound (n=8192, cu_num=100: shapes that
    leave such ways open otherwise; issue 42 follow-up): a way that
    needs C and !(C), whose names add_rmsnorm_quant and the file's macros
    never assign (rms_unassigned: read from the source here), is taken by
    no shape. So each group of the folded page whose one way (its tree
    line's and the lines' above it) is such a way is ruled out, every row
    of it; and the page says why: each contradiction it lists is a C and
    !(C) of such a way."""
    name = "add_rmsnorm_quant_kernel"
    src = open(os.path.join(a.fixture, "aiter", "csrc", "kernels", "rmsnorm_quant_kernels.cu"),
               encoding="utf-8").read()
    for shape in ("n=8192", "cu_num=100"):
        rc, md, err = render(a, db, name, "--shape", shape)
        ck.eq(rc, 0, "%s --shape %s: exit status (%s)" % (name, shape, err.strip()[:200]))
        items = tree_items(md)
        groups, got = page_groups(md), verdicts(md)
        ruled, pairs = 0, set()
        for (d, text, g), way in zip(items, tree_ways(items)):
            pair = [c for c in way if "!(%s)" % c in way]
            names = {n for c in pair for n in re.findall(r"[A-Za-z_]\w*", c)}
            if (g is None or "; " in text or not pair or len(groups) < g
                    or any("%s=" % n in shape for n in names)
                    or not all(rms_unassigned(src, n) for n in names)):
                continue
            pairs |= set(pair)
            for sym in groups[g - 1][1]:
                ck.eq(got.get(sym), "ruled out", "%s --shape %s: %s of group %d, whose one way "
                      "needs %s and its negation" % (name, shape, sym, g, pair[0]))
                ruled += 1
        ck.check(ruled >= 2, "%s --shape %s: rows only on contradicting ways: %d"
                 % (name, shape, ruled))
        said = unreach_list(md)
        ck.check(said, "%s --shape %s: no contradiction said" % (name, shape))
        for t in said:
            x, c = t.split(" / ")
            ck.check({x, c} in ({"!(%s)" % p, p} for p in pairs), "%s --shape %s: the "
                     "contradiction %r is no C and !(C) of a way the source never changes"
                     % (name, shape, t))


def open_conds(md):
    """The texts of the conditions a --shape page says it could not evaluate."""
    part = md.split("Not evaluated (bind their names with --shape to decide):\n\n", 1)
    return re.findall(r"^- `([^`]*)` at ", part[1].split("\n\n")[0], re.M) if len(part) > 1 else []


def open_reasons(md):
    """The evaluator's reason for each condition open_conds lists (None: none given)."""
    part = md.split("Not evaluated (bind their names with --shape to decide):\n\n", 1)
    if len(part) < 2:
        return []
    return [m.group(1)  # names as code spans: no Markdown escape to undo
            for m in re.finditer(r"^- `[^`]*` at `[^`]*`(?:: (.*))?$",
                                 part[1].split("\n\n")[0], re.M)]


def pa_entries(a):
    """asm_pa.cu's entry points that launch a row of the pa table: each
    function `void NAME(` whose body reads cfg_pa_asm and calls
    launch_kernel, with the conditions of its AITER_CHECKs (the first
    argument; `false`, an error branch's, left out), in source order."""
    src = open(os.path.join(a.fixture, "aiter", "csrc", "py_itfs_cu", "asm_pa.cu"),
               encoding="utf-8").read()
    src = re.sub(r"//[^\n]*|/\*.*?\*/", " ", src, flags=re.S)
    out = {}
    for m in re.finditer(r"^void\s+(\w+)\s*\(", src, re.M):
        at = src.index("{", src.index(")", m.end()))
        depth, end = 0, at
        for end in range(at, len(src)):
            depth += {"{": 1, "}": -1}.get(src[end], 0)
            if not depth:
                break
        body = src[at:end]
        if "cfg_pa_asm" not in body or "launch_kernel" not in body:
            continue
        out[m.group(1)] = [arg for _, arg in aiter_checks(body) if arg != "false"]
    return out


CMP = {"==": lambda x, y: x == y, "!=": lambda x, y: x != y, "<": lambda x, y: x < y,
       "<=": lambda x, y: x <= y, ">": lambda x, y: x > y, ">=": lambda x, y: x >= y}


def open_expected(rows, entries, shape):
    """The conditions a --shape page must list as not evaluated, worked out
    from the table's rows and the entry points' checks (pa_entries): per
    row agreeing with the shape, its fields the shape leaves unbound and,
    of each entry whose checks do not fail, the checks left unbound; but
    not those of an entry settled by another: one whose unbound checks are
    some of its own (every field is on both ways, so wherever this entry's
    way holds that one's does, and its extra checks decide nothing); of
    two with the same, the first decides. Also the checks so dropped."""
    want, dropped = set(), set()
    for fields in rows.values():
        if any(k in shape and shape[k] != v for k, v in fields.items()):
            continue
        unbound = {("%s == %s" if re.fullmatch(r"-?\d+", v) else '%s == "%s"') % (k, v)
                   for k, v in fields.items() if k not in shape}
        ways = []
        for checks in entries.values():
            left, fails = [], False
            for c in checks:
                n, op, lit = re.fullmatch(r"(\w+) (==|!=|<=|>=|<|>) (-?\d+)", c).groups()
                if n in shape:
                    fails = fails or not CMP[op](int(shape[n]), int(lit))
                else:
                    left.append(c)
            if not fails:
                ways.append(set(left))
        if not ways or (not unbound and any(not w for w in ways)):
            continue  # ruled out, or selected: nothing to list
        want |= unbound
        for i, w in enumerate(ways):
            settled = any(o < w or (o == w and j < i) for j, o in enumerate(ways) if j != i)
            (dropped if settled else want).update(w)
    return want, dropped - want


def check_settled(a, ck, db):
    """What a --shape page lists as not evaluated, on the glob's table rows:
    each row is reached from both entry points of asm_pa.cu (pa_fwd and
    pa_ps_fwd, read from the source with their AITER_CHECK conditions),
    each way needing its entry's checks and every field of the row
    (pa_asm.csv). Where a shape makes one entry's checks hold, that way
    needs only the fields, so the other entry's checks decide nothing and
    are not listed as "bind their names to decide"; where neither is
    settled (a field bound, a check failing), each check that can still
    decide stays. The expected list is worked out here (open_expected)."""
    rows, entries = pa_rows(a), pa_entries(a)
    if not ck.check(len(entries) >= 2 and all(entries.values()),
                    "asm_pa.cu: two entry points with checks that launch a pa row: %r" % entries):
        return
    shapes = [{"kwalk_unused_name": "1"}]
    field = sorted(k for f in rows.values() for k in f)[0]
    shapes.append({field: sorted({f[field] for f in rows.values()})[0]})
    for checks in entries.values():
        for c in checks:
            n, op, lit = re.fullmatch(r"(\w+) (==|!=|<=|>=|<|>) (-?\d+)", c).groups()
            tried = sorted({f[n] for f in rows.values() if n in f}) or [
                str(int(lit) + d) for d in (-1, 0, 1)]
            shapes += [{n: v} for v in tried]
    dropped = 0
    for shape in shapes:
        text = ",".join("%s=%s" % kv for kv in shape.items())
        rc, md, err = render(a, db, GLOB, "--shape", text)
        ck.eq(rc, 0, "--shape %s: exit status (%s)" % (text, err.strip()[:200]))
        want, gone = open_expected(rows, entries, shape)
        got = open_conds(md)
        ck.eq(len(got), len(set(got)), "--shape %s: a condition listed twice" % text)
        ck.eq(sorted(set(got)), sorted(want), "--shape %s: the conditions listed as not "
              "evaluated (deciding nothing: %s)" % (text, ", ".join(sorted(gone)) or "none"))
        dropped += len(gone)
    ck.check(dropped >= 2, "no shape settled an entry's checks (%d shapes)" % len(shapes))
    ck.note("%d shapes, %d checks not listed as they decide nothing" % (len(shapes), dropped))


def site_shapes(a, ck, db, names, seen):
    """The site's kernel page of each name: its shape box against `render
    NAME --shape` for each shape (seen: those rendered already), row by row
    (the render's rows: a glob's are some of the page's), and the
    conditions left open."""
    chrome = None
    try:
        chrome = kwbrowser.chromium(a.chromium, "kwkfam-chromium-")
    except SystemExit:
        ck.note("chromium cannot start: the site's shape box not checked")
        return
    site = os.path.join(a.out, "site")
    kwrun.run([a.kwalk, "site", "--db", db, "-o", site], must=True)
    idx = open(os.path.join(site, "index.html"), encoding="utf-8").read()
    kpages = {html.unescape(n): h for n, h in
              re.findall(r'data-sym="([^"]+)"><td><a href="([^"]+\.kernel\.html)"', idx)}
    srcs, want = [], []
    for name, shapes in names:
        renders = [seen.get((name, s)) or render(a, db, name, "--shape", s) for s in shapes]
        fam = re.match(r"# Kernel `([^`]*)`", renders[0][1])
        if not ck.check(fam and fam.group(1) in kpages, "%s: no kernel page in index.html for %r"
                        % (name, fam.group(1) if fam else renders[0][1][:80])):
            continue
        src = kpages[fam.group(1)] + "?kwtest=shape&" + "&".join(
            "s=" + urllib.parse.quote(s) for s in shapes + ["Gqa=8,"])
        srcs.append(src)
        want.append((name, shapes, renders, src))
    got, err = kwbrowser.framed(chrome, site, srcs)
    shutil.rmtree(kwbrowser.profile(chrome), ignore_errors=True)
    if not ck.check(got is not None, "the harness wrote no result (chromium: %s)" % err[-300:]):
        return
    marked = 0
    for name, shapes, renders, src in want:
        r = got.get(src) or {}
        ck.check(r.get("loaded") and r.get("errors") == [], "%s: loaded %r, errors %r"
                 % (src, r.get("loaded"), r.get("errors")))
        res = r.get("result") or []
        if not ck.eq(len(res), len(shapes) + 1, "%s: the shapes the hook typed" % src):
            continue
        for s, (rc, md, e), x in zip(shapes, renders, res):
            rv = verdicts(md)
            ck.check(rc == 0 and rv, "render %s --shape %s: %s" % (name, s, e.strip()[:200]))
            ck.eq({k: x["rows"].get(k) for k in rv}, rv,
                  "%s --shape %s: the site's marks against render's" % (name, s))
            if not re.search(r"\d+ of them match", md):  # the whole kernel: the same page
                ck.eq(sorted(x["rows"]), sorted(rv), "%s: the site page's rows" % name)
                ck.eq(x["open"], open_conds(md), "%s --shape %s: what could not be evaluated"
                      % (name, s))
                ck.eq(x.get("why"), open_reasons(md), "%s --shape %s: why, each"
                      % (name, s))
                ck.eq(x.get("unreach"), unreach_list(md), "%s --shape %s: the ways ruled "
                      "out as unreachable" % (name, s))
            marked += len(rv)
        bad = res[-1]
        ck.check(bad["error"] == "--shape: expected NAME=NUMBER after the last ','",
                 "%s: a malformed shape gives --shape's error, got %r" % (src, bad["error"]))
    ck.note("site: %d rows marked as render marks them, over %d kernel pages" % (marked, len(want)))


# the mangled codes of the element types the rmsnorm kernels are instantiated with
MANGLED = {"bf16": "DF16b", "fp16": "Dh"}
SPELLINGS = {"bf16": ["bf16", "bfloat16", "__hip_bfloat16", "torch.bfloat16"],
             "fp16": ["fp16", "Half"]}


def rms_source(a):
    """From rmsnorm_quant_kernels.cu: the template's parameter names, and
    per AITER_DTYPE_X an `out.dtype()` branch tests, the FUSE_QUANT values
    (the third argument of the *_DISPATCH macro in the branch)."""
    src = open(os.path.join(a.fixture, "aiter", "csrc", "kernels", "rmsnorm_quant_kernels.cu"),
               encoding="utf-8").read()
    m = re.search(r"template\s*<([^>]*)>\s*__global__\s+void\s+add_rmsnorm_quant_kernel\s*\(", src)
    params = [re.split(r"[\s=]+", p.strip())[1] for p in m.group(1).split(",")] if m else []
    fuse = {}
    for b in re.finditer(r"if\s*\(\s*out\.dtype\(\)\s*==\s*AITER_DTYPE_(\w+)\s*\)\s*\{", src):
        body = src[b.end():src.find("}", b.end())]
        d = re.search(r"\w+_DISPATCH\(\s*opus::\w+\s*,\s*(true|false)\s*,\s*(true|false)\s*\)",
                      body)
        if d:
            fuse.setdefault(b.group(1), set()).add(d.group(2) == "true")
    return params, fuse


def mangled_args(sym):
    """The template arguments of an add_rmsnorm_quant_kernel symbol, as
    mangled codes (DF16b, DF16_, Dh, DB8_, a, t, Li128E, Lb1E)."""
    m = re.search(r"add_rmsnorm_quant_kernelI(.*?)EEv", sym)
    return re.findall(r"DF16b|DF16_|Dh|DB\d+_|L[ib]\d+E|[a-z]", m.group(1)) if m else []


def shape_dtype(a, ck, db):
    params, fuse = rms_source(a)
    ck.check("FUSE_QUANT" in params and "DTYPE_I" in params,
             "the template's parameters read from the source: %r" % params)
    ck.check("bf16" in fuse and "fp16" in fuse, "the source's out.dtype() branches: %r" % fuse)
    if "FUSE_QUANT" not in params or "bf16" not in fuse:
        return
    fq, di = params.index("FUSE_QUANT"), params.index("DTYPE_I")

    def kept(shape):
        rc, md, err = render(a, db, "add_rmsnorm_quant_kernel", "--shape", shape)
        ck.eq(rc, 0, "--shape %s: exit status (%s)" % (shape, err.strip()[:200]))
        got = verdicts(md)
        return {s for s, v in got.items() if v != "ruled out"}, md

    # every instantiation a way reaches (a name nothing uses decides nothing)
    base, _ = kept("kwalk_unused_name=1")
    ck.check(len(base) > 4, "%d instantiations reached" % len(base))
    # the expected sets are read through the mangled symbols: FUSE_QUANT's
    # code (Lb1E/Lb0E) on every major; the element types' codes (MANGLED,
    # clang 20 and later, where opus's bf16_t is __bf16) only where the
    # reached instantiations have them (clang 19 instantiates `t` and
    # `DF16_`, which this test cannot tie to a dtype): the _st shapes are
    # then said, not checked
    codes = {mangled_args(s)[di] for s in base if len(mangled_args(s)) > di}
    typed = bool(codes & set(MANGLED.values()))
    if not typed:
        ck.note("dtype=X,_st=X shapes not checked: the instantiations' DTYPE_I codes %s include "
                "none of %s" % (sorted(codes), sorted(MANGLED.values())))
    tried = 0
    for d in ("bf16", "fp16"):
        want = {s for s in base if len(mangled_args(s)) > fq and
                (mangled_args(s)[fq] == "Lb1E") in fuse[d]}
        ck.check(want and want != base, "dtype=%s: a proper subset to expect (%d of %d)" %
                 (d, len(want), len(base)))
        for spell in SPELLINGS[d]:
            got, md = kept("dtype=" + spell)
            ck.eq(sorted(got), sorted(want), "--shape dtype=%s: the instantiations kept" % spell)
            left = md.split("Not evaluated", 1)[-1].split("## Dispatch table", 1)[0]
            ck.check("Not evaluated" in md and not re.search(r"^- `!?\(?out\.dtype\(\) ==", left, re.M),
                     "--shape dtype=%s: an out.dtype() condition left open" % spell)
            tried += 1
        if not typed:
            continue
        want_st = {s for s in want if mangled_args(s)[di] == MANGLED[d]}
        ck.check(want_st and want_st != want, "dtype=%s,_st=%s: a proper subset to expect (%d)" %
                 (d, d, len(want_st)))
        got, _ = kept("dtype=%s,_st=%s" % (d, d))
        ck.eq(sorted(got), sorted(want_st), "--shape dtype=%s,_st=%s: the instantiations kept"
              % (d, d))
        tried += 1
    # a spelling the table lacks decides nothing: the out.dtype() conditions stay open
    got, md = kept("dtype=bf17")
    ck.eq(sorted(got), sorted(base), "--shape dtype=bf17: nothing ruled out")
    ck.check("`bf17` is no element type" in md, "--shape dtype=bf17: the reason")
    ck.note("%d dtype shapes over %d instantiations" % (tried + 1, len(base)))


def def_line(path, line):
    """The name of `def NAME(` at line of path when a @compile_ops decorator
    stands above it, else None."""
    lines = open(path, encoding="utf-8").read().split("\n")
    m = re.match(r"\s*def\s+(\w+)\s*\(", lines[line - 1]) if 0 < line <= len(lines) else None
    if not m:
        return None
    i = line - 2
    while i >= 0 and (lines[i].startswith("@") or lines[i].startswith(" ") or
                      lines[i].startswith(")")):
        if lines[i].startswith("@compile_ops"):
            return m.group(1)
        i -= 1
    return None


def def_body(path, line, name):
    """The text of `def name(` at line of path to the next line indented no
    deeper than it, or None when that line is no such def."""
    lines = open(path, encoding="utf-8").read().split("\n")
    if not 0 < line <= len(lines) or not re.match(r"\s*def\s+%s\s*\(" % name, lines[line - 1]):
        return None
    ind = len(lines[line - 1]) - len(lines[line - 1].lstrip())
    end = line
    while end < len(lines) and (not lines[end].strip() or
                                len(lines[end]) - len(lines[end].lstrip()) > ind or
                                lines[end].lstrip().startswith(")")):
        end += 1
    return "\n".join(lines[line:end])


def kernel_line(path, line, name):
    """Does line of path declare kernel name (its name there, `__global__`
    on it or within the three lines above)?"""
    lines = open(path, encoding="utf-8").read().split("\n")
    if not 0 < line <= len(lines) or not re.search(r"\b%s\b" % name, lines[line - 1]):
        return False
    return any("__global__" in l for l in lines[max(0, line - 4):line])


def do_seed(a, ck):
    db = index(a)
    root = os.path.join(a.fixture, "aiter")
    names = ["add_rmsnorm_quant_kernel", "reshape_and_cache_with_per_token_quant_kernel", GLOB]
    r = kwrun.run([a.kwalk, "map", "--db", db, "--root", root, "--python-root",
                   os.path.join(root, "aiter"), "--kernels", ",".join(names)])
    ck.eq(r.returncode, 0, "map --kernels: exit status (%s)" % r.stderr.strip()[:300])
    table = [l for l in r.stdout.splitlines() if l.startswith("| `")]
    ck.eq(len(table), len(names), "map --kernels: a row per name")
    for name, line in zip(names, table):
        cells = [c.strip() for c in line.strip("|").split(" | ")]
        ck.eq(cells[0], "`%s`" % name, "the row's kernel")
        hosts = re.findall(r"`(\w+)` `([^`:]+):(\d+)`", cells[1])
        ck.check(hosts, "%s: no Python host entry in %r" % (name, cells[1]))
        ops = [fn for fn, path, ln in hosts if def_line(os.path.join(root, path), int(ln)) == fn]
        ck.check(ops, "%s: no @compile_ops def among %r" % (name, hosts))
        for fn, path, ln in hosts:
            if fn in ops:
                continue
            # a private op's public caller: its def, whose body calls an op of the row
            body = def_body(os.path.join(root, path), int(ln), fn)
            ck.check(body is not None and any(re.search(r"\b%s\s*\(" % o, body) for o in ops),
                     "%s: host entry %s %s:%s is neither a @compile_ops def nor a def calling "
                     "one of %s" % (name, fn, path, ln, ops))
        if name == GLOB:
            cos = re.findall(r"`([^`]+\*\.co)`", cells[2])
            # the fixture's precompiled code objects the glob names, whatever
            # archs this build compiled for (clang 19 compiles gfx942 only)
            on_disk = []
            for x in sorted(os.listdir(os.path.join(root, "hsa"))):
                pa = os.path.join(root, "hsa", x, "pa")
                if os.path.isdir(pa) and any(fnmatch.fnmatch(f, GLOB + ".co")
                                             for f in os.listdir(pa)):
                    on_disk.append(x)
            ck.check(on_disk, "%s: the fixture has code objects the glob names" % name)
            ck.eq(sorted(cos), ["hsa/%s/pa/*.co" % x for x in on_disk],
                  "%s: the code-object directories" % name)
            for c in cos:
                hits = [p for p in glob.glob(os.path.join(root, c))
                        if fnmatch.fnmatch(os.path.basename(p)[:-3], GLOB)]
                ck.check(hits, "%s: no code object of the glob under %s" % (name, c))
        else:
            devs = re.findall(r"`([^`:]+):(\d+)`", cells[2])
            ck.eq(len(devs), 1, "%s: one definition in %r" % (name, cells[2]))
            for path, ln in devs:
                ck.check(kernel_line(os.path.join(root, path), int(ln), name),
                         "%s: %s:%s does not declare the kernel" % (name, path, ln))
    opus_functors(a, ck)


OPUS_H = os.path.join("csrc", "include", "moe_sorting_opus.h")
OPUS_FUNCTORS = ("MoeSortingClearWorkspaceKernel", "MoeSortingKernel")


def opus_members(path):
    """{functor struct: line of its `operator()(Kargs` definition} in
    moe_sorting_opus.h, read as text: the first such line after
    `struct NAME` (its Kargs' own accessors take no Kargs)."""
    return kwcap.struct_members(path, r"struct\s+(\w+)\s*$", r"\boperator\(\)\s*\(\s*Kargs\b")


def opus_functors(a, ck):
    """The fixture's real moe_sorting_opus.h, its entry instantiated for two
    functors (src/kw_moe_opus_entry.hip, one arch, the flags of compile.sh
    that matter to it): `kwalk map --kernels MoeSortingKernel,...` has a row
    per functor, named by it, its device code the functor's `operator()(Kargs`
    line (a scan of the header) and its host entry the TU's function; the
    code object's kernels (llvm-nm, llvm-cxxfilt) are one per functor."""
    if not (a.clangxx and a.rsp and a.plugin):
        ck.note("opus functors: no --clangxx/--rsp/--plugin, not compiled")
        return
    root = os.path.join(a.fixture, "aiter")
    header = os.path.join(root, OPUS_H)
    members = opus_members(header)
    ck.check(all(f in members for f in OPUS_FUNCTORS),
             "moe_sorting_opus.h: the scan found %r" % sorted(members))
    src = os.path.join(HERE, "src", "kw_moe_opus_entry.hip")
    out = os.path.join(a.out, "opus")
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    obj = os.path.join(out, "kw_moe_opus_entry.o")
    stubs = os.path.join(a.fixture, "stubs")
    cmd = [a.clangxx, "-x", "hip", "--offload-arch=" + a.archs[0], "-O3", "-std=c++20",
           "@" + a.rsp, "-include", os.path.join(stubs, "aiter_compat.h"), "-I" + stubs,
           "-I" + os.path.join(root, "csrc", "include"), "-DUSE_ROCM=1",
           "-D__HIP_PLATFORM_AMD__=1", "-U__HIP_NO_HALF_CONVERSIONS__",
           "-U__HIP_NO_HALF_OPERATORS__", "-fgpu-flush-denormals-to-zero",
           "-fno-offload-uniform-block", "-mllvm", "-amdgpu-early-inline-all=true",
           "-mllvm", "-amdgpu-function-calls=false", "-w", "-cuid=kw_moe_opus",
           "-fplugin=" + a.plugin, "-c", src, "-o", obj]
    r, wall, user, _ = kwrun.timed(cmd)
    if not ck.check(r.returncode == 0 and "kwalk:" not in r.stderr,
                    "kw_moe_opus_entry.hip: compile (rc %d): %s" % (r.returncode, r.stderr[-1500:])):
        return
    ck.note("kw_moe_opus_entry.hip: compiled in %.1f s (%.1f s CPU)" % (wall, user))
    # ground truth: the code object's kernels, demangled
    kernels, err = kwcap.code_object_kernels(a, obj, a.archs[0], out)
    if not ck.check(not err, "kw_moe_opus_entry.o: its code object: %s" % err):
        return
    syms = sorted(s for s in kernels if "opus_moe_sorting_entry" in s)
    dem = kwrun.run([os.path.join(a.llvm_bin, "llvm-cxxfilt")], input="\n".join(syms) + "\n",
                    must=True).stdout.split("\n")
    # the header's inline dispatch instantiates the entry for every functor it names
    runs = {m.group(1) for m in (re.match(r"void aiter::opus_moe_sorting_entry<aiter::(\w+)<", d)
                                 for d in dem[:len(syms)]) if m}
    ck.check(set(OPUS_FUNCTORS) <= runs,
             "the code object's opus_moe_sorting_entry kernels run %r" % sorted(runs))
    ck.check(runs <= set(members), "functors %r have no operator()(Kargs in the header"
             % sorted(runs - set(members)))
    db = os.path.join(out, "kwalk.db")
    kwrun.run([a.kwalk, "index", out, "-o", db], must=True)
    # every map row of the entry runs one functor and cites its operator()
    r = kwrun.run([a.kwalk, "map", "--db", db, "--json"])
    rows = [x for x in (json.loads(r.stdout)["rows"] if r.returncode == 0 else [])
            if x["kernel"] == "aiter::opus_moe_sorting_entry"]
    ck.eq({(x.get("functors") or "").replace("aiter::", "") for x in rows}, runs,
          "map --json: the functors of opus_moe_sorting_entry's rows")
    for x in rows:
        f = (x.get("functors") or "").replace("aiter::", "")
        dev = x.get("device") or {}
        ck.eq((os.path.realpath(dev.get("file") or "-"), dev.get("line")),
              (os.path.realpath(header), members.get(f)),
              "map --json: device code of the row running %s" % f)
    r = kwrun.run([a.kwalk, "map", "--db", db, "--root", root, "--kernels", ",".join(OPUS_FUNCTORS)])
    ck.eq(r.returncode, 0, "map --kernels %s: exit status (%s)" % (",".join(OPUS_FUNCTORS),
                                                                   r.stderr.strip()[:300]))
    table = [l for l in r.stdout.splitlines() if l.startswith("| `")]
    ck.eq([re.match(r"\| `([^`]+)`", l).group(1) for l in table], list(OPUS_FUNCTORS),
          "map --kernels: a row per functor, named by it")
    host = kwcap.source_lines(src, r'^extern "C" .*\bkw_moe_opus_sort\(')
    for name, line in zip(OPUS_FUNCTORS, table):
        cells = [c.strip() for c in line.strip("|").split(" | ")]
        ck.eq(re.findall(r"`([^`]+):(\d+)`", cells[2]), [(OPUS_H, str(members.get(name)))],
              "map --kernels: %s's device code" % name)
        ck.eq(re.findall(r"`kw_moe_opus_sort` `[^`]*kw_moe_opus_entry\.hip:(\d+)`", cells[1]),
              [str(x) for x in host], "map --kernels: %s's host entry" % name)


def main():
    a = parse_args()
    if not os.path.isdir(os.path.join(a.fixture, "aiter")):
        print("SKIP: the aiter fixture %s is absent" % a.fixture)
        sys.exit(77)
    ck = Checker("aiter.index" if a.what == "index" else "aiter.kernel_" + a.what)
    {"index": do_index, "page": do_page, "shape": do_shape, "seed": do_seed}[a.what](a, ck)
    ck.finish()


if __name__ == "__main__":
    main()
