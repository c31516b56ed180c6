#!/usr/bin/env python3
"""check_launches.py (ctest ck.launches): every ck_tile kernel of the
ck-tile fixture linked to the launch its caller wrote, grouped and named by
the kernel struct it runs (issue 36 items 1-4), and a launch whose kernel
name and `<<<` sit on different lines quoted whole (issue 35 item 5).

Reads what ck.build_plugin built (WORK/plugin/obj, WORK/plugin/side),
indexes it and renders pages with --kwalk. Ground truth, none of it from
kwalk:
  - the kernels: each object's code-object kernel symbols (llvm-objcopy,
    clang-offload-bundler, llvm-readelf); the ck_tile::kentry ones, and the
    kernel struct each runs, from llvm-cxxfilt's demangling of the symbol
    (kentry's third template argument);
  - each example program's entry: the `int main(` line of its .cpp files;
  - the launches: a scan of the examples' source text for
    `launch_kernel(` statements that hold a `make_kernel` (the line of
    `launch_kernel(`), and, above each, the `using Kernel = ck_tile::X<`
    it launches, which must name the struct the symbol names;
  - the <<<>>> inside the library: the line of `<<<` in
    include/ck_tile/host/kernel_launch.hpp;
  - the block: the code object's .max_flat_workgroup_size (llvm-readelf
    --notes), which make_kernel<blocks.x, ...> sets through kentry's
    __launch_bounds__ to the block the caller launches;
  - the grid of the GEMM for a --shape: ceil(M / M_Tile), ceil(N / N_Tile),
    kbatch, the tile sizes read from gemm_basic.cpp's source;
  - the kernel struct's template parameter names, from the `template <...>`
    before `struct NAME` in CK's include tree;
  - the fields of a kernel-argument struct passed by value (the symbol's
    `...::GemmCommonKargs`, `::Kargs`): `struct NAME { TYPE field; ... };`
    in CK's include tree (each a row of the page's argument table);
  - the reduce example's data types as its source names them: the
    `run<ck_tile::X>` calls of reduce.cpp, each alias followed through the
    `using X = Y;` lines of CK's numeric headers to the type llvm-cxxfilt
    prints (the titles and index.md rows must name the alias);
  - the layernorm dispatch's conditions: lines of layernorm2d_fwd_api.cpp
    holding an `if (` condition;
  - reference_gemm.hpp's naive_gemm_kernel launch, whose kernel name is a
    line above its `<<<`: the two lines found by scanning the header.

Each page of a kentry kernel must: be titled by the kernel struct it runs
(`ck_tile::GemmKernel<...>`, the symbol in its overview), list each distinct
route to a launch once (launch_kernel's timer branches, the lines of its body
calling `callables(s)`, cited as where the paths part), cite the caller's launch_kernel line
(not kernel_launch.hpp) and quote it, name the library's <<<>>>, show the
block the code object allows and a grid evaluated from --shape, list the
kernel struct's parameters by name, and sit in index.md's and `kwalk map`'s
group of its struct. Exit 77 (skip) without the fixture."""
import json
import math
import os
import re
import shutil
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
sys.path.insert(0, HERE)
from ck_build import TUS, ckargs  # noqa: E402
from kwcheck import Checker  # noqa: E402
from kwrun import run  # noqa: E402
import kwcap  # noqa: E402

KENTRY = "_ZN7ck_tile6kentry"


def read_lines(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.read().split("\n")


def name_tree(s):
    """A printed name split at its top level: (head, [argument trees]) or (s, None)."""
    s = s.strip()
    lt = s.find("<")
    if lt < 0 or not s.endswith(">"):
        return (s, None)
    args, depth, cur = [], 0, ""
    for ch in s[lt + 1:-1]:
        if ch in "<([":
            depth += 1
        elif ch in ">)]":
            depth -= 1
        if ch == "," and depth == 0:
            args.append(name_tree(cur))
            cur = ""
        else:
            cur += ch
    args.append(name_tree(cur))
    return (s[:lt].strip(), args)


def matches_elided(shown, full, aliases=None):
    """Is shown the printed name full with runs of whole template arguments
    written as "..." (each run at least one argument), and any argument
    written as an alias of aliases ({alias: canonical}) where full has its
    canonical type?"""
    aliases = aliases or {}

    def same(t, f):
        if t == ("...", None):
            return False
        if t[1] is None and f[1] is None and aliases.get(t[0]) == f[0]:
            return True
        if t[1] is None or f[1] is None:
            return t[1] is None and f[1] is None and t[0] == f[0]
        return t[0] == f[0] and seq(t[1], 0, f[1], 0)

    def seq(ts, i, fs, j):
        if i == len(ts):
            return j == len(fs)
        if ts[i] == ("...", None):
            return any(seq(ts, i + 1, fs, k) for k in range(j + 1, len(fs) + 1))
        return j < len(fs) and same(ts[i], fs[j]) and seq(ts, i + 1, fs, j + 1)
    return bool(full) and same(name_tree(shown), name_tree(full))


def split_targs(s):
    """The top-level template arguments of the first <...> in s."""
    lt = s.find("<")
    if lt < 0:
        return []
    out, depth, cur = [], 0, ""
    for ch in s[lt + 1:]:
        if ch in "<(":
            depth += 1
        elif ch in ">)":
            if depth == 0:
                out.append(cur.strip())
                return out
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    return out


def scan_launches(ck):
    """[(path, line, struct)]: each `launch_kernel(` statement of the examples
    that holds a make_kernel, and the `using Kernel = X<` above it."""
    found = []
    root = os.path.join(ck, "example", "ck_tile")
    for d, _, files in os.walk(root):
        for f in files:
            if not f.endswith((".cpp", ".hpp")):
                continue
            path = os.path.join(d, f)
            lines = read_lines(path)
            for i, l in enumerate(lines):
                if not re.search(r"\blaunch_kernel\s*\(", l) or l.lstrip().startswith(("//", "*")):
                    continue
                stmt = " ".join(lines[i:i + 12]).split(";")[0]
                if "make_kernel" not in stmt:
                    continue
                struct = None
                for j in range(i, max(-1, i - 80), -1):
                    m = re.search(r"using\s+Kernel\s*=\s*([\w:]+)\s*<", lines[j])
                    if m:
                        struct = m.group(1)
                        break
                found.append((os.path.realpath(path), i + 1, struct))
    return found


def struct_params(ck, qualified):
    """The template parameter names of `struct NAME` in CK's include tree or
    the examples (05_reduce defines its Reduce kernel itself)."""
    name = qualified.split("::")[-1]
    walk = [w for top in ("include", "example") for w in os.walk(os.path.join(ck, top, "ck_tile"))]
    for d, _, files in walk:
        for f in files:
            if not f.endswith(".hpp"):
                continue
            text = open(os.path.join(d, f), encoding="utf-8", errors="replace").read()
            text = re.sub(r"/\*.*?\*/|//[^\n]*", "", text, flags=re.S)  # `// seq<M, N>`
            m = re.search(r">\s*struct\s+" + re.escape(name) + r"\s*(?:\{|:|\n)", text)
            if not m:
                continue
            # the template parameter list that ends there: back to its balanced '<'
            depth, i = 0, m.start()
            while i >= 0:
                depth += {">": 1, "<": -1}.get(text[i], 0)
                if depth == 0:
                    break
                i -= 1
            if i < 0 or not re.search(r"template\s*$", text[:i]):
                continue
            params = []
            for p in split_targs(text[i:m.start() + 1]):
                p = p.split("=")[0].strip()
                w = re.findall(r"[A-Za-z_]\w*", p)
                if w:
                    params.append(w[-1])
            return params
    return None


def example_mains(ck):
    """{example directory: (path, line)}: the `int main(` line of each example
    (example/ck_tile/NN_name/...), the one entry each example program has."""
    out = {}
    root = os.path.join(ck, "example", "ck_tile")
    for d, _, files in os.walk(root):
        for f in files:
            if not f.endswith(".cpp"):
                continue
            path = os.path.realpath(os.path.join(d, f))
            for i, l in enumerate(read_lines(path)):
                if re.match(r"\s*int\s+main\s*\(", l):
                    top = os.path.relpath(path, os.path.realpath(root)).split(os.sep)[0]
                    out.setdefault(top, []).append((path, i + 1))
    return out


def example_of(ck, path):
    """The example directory (NN_name) a file of example/ck_tile lies in, or None."""
    rel = os.path.relpath(os.path.realpath(path),
                          os.path.realpath(os.path.join(ck, "example", "ck_tile")))
    return None if rel.startswith("..") else rel.split(os.sep)[0]


def routes(page):
    """Each launch site's routes as the page lists them: {site: [(from, steps)]},
    `from` the "From ..." line without its "path/route N of M" part, steps the
    functions of its numbered lines (two routes through the same functions
    are the same route, whatever calls inside them part the paths)."""
    out = {}
    for m in re.finditer(r"^### Launch site \d+ of \d+: ([^\n]*)\n(.*?)(?=^\*\*Grid and block)",
                         page, re.S | re.M):
        blocks = re.split(r"^(?=From )", m.group(2), flags=re.M)[1:]
        lst = out.setdefault(m.group(1), [])
        for b in blocks:
            head = re.sub(r", (path|route) .*$", "", b.split("\n", 1)[0])
            # a step's functions: its first two code spans (caller, callee)
            steps = tuple(tuple(re.findall(r"`([^`]*)`", l)[:2]) for l in b.split("\n")
                          if re.match(r"\d+\. ", l))
            lst.append((head, steps))
    return out


def callable_lines(lines):
    """The lines of ck_tile::launch_kernel's body that call the callables
    (`callables(s)`), one per timer branch."""
    start = next((i for i, l in enumerate(lines) if re.search(r"\blaunch_kernel\s*\(", l)
                  and not l.lstrip().startswith(("*", "//"))), None)
    if start is None:
        return []
    return [i + 1 for i in range(start, len(lines)) if "callables(s)" in lines[i]
            and not lines[i].lstrip().startswith(("*", "//"))]


def gemm_aliases(ck):
    """{ADataType: ck_tile::half_t, ...}: the example's `using Types =
    GemmBasicTypeConfig<X>` and, in `struct GemmBasicTypeConfig<X>`, each
    `using NAME = ck_tile::ALIAS;` (read from the source, not from kwalk)."""
    text = "\n".join(read_lines(os.path.join(ck, "example", "ck_tile", "03_gemm",
                                             "gemm_basic.hpp")))
    m = re.search(r"using\s+Types\s*=\s*GemmBasicTypeConfig<\s*([\w:]+)\s*>", text)
    if not m:
        return {}
    body = re.search(r"struct\s+GemmBasicTypeConfig<\s*%s\s*>\s*\{(.*?)\};" % re.escape(m.group(1)),
                     text, re.S)
    return dict(re.findall(r"using\s+(\w+)\s*=\s*(ck_tile::\w+)\s*;", body.group(1))) if body else {}


def reduce_aliases(ck):
    """{ck_tile::half_t: _Float16, ...}: the types 05_reduce's main runs the
    kernel with (`run<ck_tile::X>`), each with the type its alias names in
    CK's numeric headers (`using X = Y;`, followed through aliases; `ushort`
    is HIP's `unsigned short`)."""
    src = "\n".join(read_lines(os.path.join(ck, "example", "ck_tile", "05_reduce", "reduce.cpp")))
    num = os.path.join(ck, "include", "ck_tile", "core", "numeric")
    defs = {}
    for f in sorted(os.listdir(num)):
        for a, b in re.findall(r"^\s*using\s+(\w+)\s*=\s*(\w+)\s*;", "\n".join(
                read_lines(os.path.join(num, f))), re.M):
            defs.setdefault(a, b)  # the first definition (#if branches hold a second)
    out = {}
    for alias in re.findall(r"\brun<\s*ck_tile::(\w+)\s*>", src):
        t, seen = alias, set()
        while t in defs and t not in seen:
            seen.add(t)
            t = defs[t]
        out["ck_tile::" + alias] = {"ushort": "unsigned short"}.get(t, t)
    return out


def numeric_canonical(ck, name):
    """The type a `ck_tile::X` alias names in CK's numeric headers (`using X =
    Y;`, followed through aliases, the first definition where #if branches
    hold two; `ushort` is HIP's `unsigned short`); a name that is no such
    alias (float) as it is."""
    num = os.path.join(ck, "include", "ck_tile", "core", "numeric")
    defs = {}
    for f in sorted(os.listdir(num)):
        for a, b in re.findall(r"^\s*using\s+(\w+)\s*=\s*(\w+)\s*;", "\n".join(
                read_lines(os.path.join(num, f))), re.M):
            defs.setdefault(a, b)
    if not name.startswith("ck_tile::"):
        return name
    t, seen = name[len("ck_tile::"):], set()
    while t in defs and t not in seen:
        seen.add(t)
        t = defs[t]
    return {"ushort": "unsigned short"}.get(t, t)


def layernorm_problem_aliases(ck, problem_args):
    """[(index, member, written)]: the layernorm instance's
    `Layernorm2dFwdPipelineProblem<typename LayerNormTypeConfig<DataType>::M,
    ...>` arguments, each member M with what `using M = ...;` names in the
    `struct LayerNormTypeConfig<X>` specialisation whose members all name the
    canonical types problem_args (the Problem's arguments, as llvm-cxxfilt
    prints them) holds: the specialisation the instantiation used. Read from
    the source, not from kwalk; None when not exactly one specialisation fits."""
    d = os.path.join(ck, "example", "ck_tile", "02_layernorm2d")
    common = "\n".join(read_lines(os.path.join(d, "instances",
                                               "layernorm2d_fwd_instance_common.hpp")))
    m = re.search(r"Layernorm2dFwdPipelineProblem<(.*?);", common, re.S)
    if not m:
        return None
    members = [(i, re.search(r"LayerNormTypeConfig<\s*\w+\s*>::(\w+)", a))
               for i, a in enumerate(split_targs("<" + m.group(1)))]
    members = [(i, x.group(1)) for i, x in members if x]
    hpp = "\n".join(read_lines(os.path.join(d, "layernorm2d_fwd.hpp")))
    fits = []
    for body in re.findall(r"struct\s+LayerNormTypeConfig<\s*[\w:]+\s*>\s*\{(.*?)\};", hpp,
                           re.S):
        using = dict(re.findall(r"using\s+(\w+)\s*=\s*([\w:]+)\s*;", body))
        if members and all(n in using and i < len(problem_args) and
                           numeric_canonical(ck, using[n]) == problem_args[i]
                           for i, n in members):
            fits.append([(i, n, using[n]) for i, n in members])
    return fits[0] if len(fits) == 1 else None


def kargs_fields(ck, struct, qualified_kargs):
    """[(type, name)]: the fields of the kernel-argument struct a kentry symbol
    passes by value (`...::GemmCommonKargs`), as CK's source declares them:
    `struct NAME { TYPE field; ... };` in the header that defines the kernel
    struct (`struct GemmKernel`)."""
    name = qualified_kargs.split("::")[-1]
    for d, _, files in os.walk(os.path.join(ck, "include", "ck_tile")):
        for f in sorted(files):
            if not f.endswith(".hpp"):
                continue
            text = "\n".join(read_lines(os.path.join(d, f)))
            text = re.sub(r"/\*.*?\*/|//[^\n]*", "", text, flags=re.S)
            if not re.search(r"\bstruct\s+%s\s*(\{|:|\n)" % re.escape(struct.split("::")[-1]), text):
                continue
            for m in re.finditer(r"\bstruct\s+%s\s*\{([^{}]*)\};" % re.escape(name), text):
                return re.findall(r"([\w:][\w:\s*&]*?[\w*&])\s+(\w+)\s*;", m.group(1))
    return []


def table_value(page, operand, shape=False):
    """The Value cell (shape: the "With --shape" cell) of a row of a page's
    Grid and block table."""
    m = re.search(r"^\| %s \|.*\|$" % re.escape(operand), page, re.M)
    cells = [x.strip() for x in m.group(0).strip("|").split("|")] if m else []
    want = 4 if shape else 2
    return cells[want] if len(cells) > want else None


def main():
    args = ckargs()
    c = Checker("ck.launches")
    ck = os.path.join(args.fixture, "ck")
    objdir = os.path.join(args.work, "plugin", "obj")
    side = os.path.join(args.work, "plugin", "side")
    tmp = tempfile.mkdtemp(prefix="ck-launches-")
    try:
        db = os.path.join(tmp, "kwalk.db")
        r = run([args.kwalk, "index", side, "-o", db])
        if not c.check(r.returncode == 0, "kwalk index: exit %d: %s" % (r.returncode, r.stderr)):
            c.finish()

        # ground truth: kentry kernels per object, the struct each runs, its block
        kernels = {}  # symbol -> (struct template, max_flat_workgroup_size)
        full_struct = {}  # symbol -> the struct it runs, as llvm-cxxfilt prints it
        cxxfilt = kwcap.tool(args, "llvm-cxxfilt")
        for t in TUS:
            o = os.path.join(objdir, t + ".o")
            if not c.check(os.path.isfile(o), "%s: no object" % t) or \
                    not kwcap.has_section(args, o, ".hip_fatbin"):
                continue  # a host-only TU (the layernorm API and main)
            md, err = kwcap.code_object_metadata(args, o, "gfx942", tmp)
            if not c.check(md is not None, "%s: code object: %s" % (t, err)):
                continue
            for k in md.get("amdhsa.kernels") or []:
                sym = k.get(".name")
                if not sym or not sym.startswith(KENTRY):
                    continue
                dem = run([cxxfilt, sym]).stdout.strip()
                targs = split_targs(dem)
                struct = targs[2].split("<")[0] if len(targs) > 2 else None
                kernels[sym] = (struct, k.get(".max_flat_workgroup_size"))
                full_struct[sym] = targs[2] if len(targs) > 2 else None
        c.check(len(kernels) >= 3, "the fixture's code objects hold %d ck_tile::kentry kernels, "
                                   "expected at least 3" % len(kernels))
        launches = scan_launches(ck)
        mains = example_mains(ck)
        c.check(len(mains) >= 3, "the scan found `int main(` in %d examples" % len(mains))
        c.check(len(launches) >= 3, "the scan found %d launch_kernel(make_kernel) statements"
                % len(launches))
        for path, line, struct in launches:
            c.check(struct is not None, "%s:%d: no `using Kernel = ...` above the launch"
                    % (path, line))
        klaunch = os.path.realpath(os.path.join(ck, "include", "ck_tile", "host",
                                                "kernel_launch.hpp"))
        kl_lines = read_lines(klaunch)
        call_lines = callable_lines(kl_lines)
        c.check(len(call_lines) >= 2, "%s: launch_kernel calls its callables on %d lines"
                % (klaunch, len(call_lines)))
        timer_conds = [m.group(1) for l in kl_lines
                       for m in [re.search(r"\bif\s*\(\s*(!?\s*s\.\w+)\s*\)", l)] if m]
        timer_names = sorted({t.lstrip("! ") for t in timer_conds})
        c.check("s.time_kernel_" in timer_names, "%s: no `if(!s.time_kernel_)` (scan: %s)"
                % (klaunch, timer_conds))
        site_line = next((i + 1 for i, l in enumerate(kl_lines)
                          if "<<<" in l and not l.lstrip().startswith(("//", "*"))), None)

        gemm_src = os.path.join(ck, "example", "ck_tile", "03_gemm", "gemm_basic.cpp")
        gtext = "\n".join(read_lines(gemm_src))
        tiles = {k: int(v) for k, v in
                 re.findall(r"constexpr\s+ck_tile::index_t\s+(M_Tile|N_Tile)\s*=\s*(\d+)", gtext)}
        shape = {"M": 1000, "N": 3000, "kbatch": 2, "m": 1000}  # GEMM; reduce, layernorm
        api = os.path.realpath(os.path.join(ck, "example", "ck_tile", "02_layernorm2d", "instances",
                                            "layernorm2d_fwd_api.cpp"))
        api_if = {i + 1 for i, l in enumerate(read_lines(api)) if re.search(r"\bif\s*\(", l)}

        structs_seen = set()
        titles = {}
        ral = reduce_aliases(ck)
        c.check(len(ral) >= 2 and all(ral.values()),
                "reduce.cpp: the scan found the aliases %s run<> is called with" % ral)
        index_names = {}  # symbol -> the alias its index.md row must show
        ln_index = {}  # layernorm symbol -> its Problem's arguments as index.md must show them
        for sym, (struct, maxwg) in sorted(kernels.items()):
            what = "kentry running %s (%s...)" % (struct, sym[:60])
            mine = [x for x in launches if x[2] == struct]
            if not c.check(mine, "%s: no launch_kernel statement of %s in the examples"
                           % (what, struct)):
                continue
            shp = ",".join("%s=%d" % kv for kv in shape.items())
            r = run([args.kwalk, "render", "--db", db, sym, "--shape", shp])
            if not c.check(r.returncode == 0, "%s: kwalk render: exit %d: %s"
                           % (what, r.returncode, r.stderr.strip()[:300])):
                continue
            page = r.stdout
            # the title: the kernel struct the symbol runs, short; the symbol in the body.
            # Where instantiations of one struct would share that title, each one's is
            # the struct's name (llvm-cxxfilt's) with whole arguments elided as "...",
            # and no two the same.
            title = page.split("\n", 1)[0]
            siblings = [s for s, (st, _) in kernels.items() if st == struct]
            if len(siblings) == 1:
                c.eq(title, "# Kernel Walkthrough: `%s<...>`" % struct, "%s: the page's title" % what)
            else:
                m = re.fullmatch(r"# Kernel Walkthrough: `(.*)`", title)
                shown = m.group(1) if m else ""
                c.check(matches_elided(shown, full_struct[sym], ral),
                        "%s: the title %r is not llvm-cxxfilt's %r with arguments elided"
                        % (what, shown, full_struct[sym]))
                # type aliases kept in the title: the reduce example's data type
                # as its main names it (run<ck_tile::bf16_t>), not unsigned short
                if struct.endswith("::Reduce"):
                    want = [a for a, t in ral.items() if t == split_targs(full_struct[sym])[0]]
                    c.check(len(want) == 1 and shown.startswith("%s<%s," % (struct, want[0])),
                            "%s: the title %r does not name the data type as the source does "
                            "(%s)" % (what, shown, want))
                    index_names[sym] = want[0] if len(want) == 1 else None
                c.check(shown != struct + "<...>", "%s: the title does not tell it from its %d "
                        "siblings" % (what, len(siblings) - 1))
                titles.setdefault(shown, []).append(sym)
            c.check("| Device symbol | `%s` |" % sym in page,
                    "%s: the page's overview does not give the symbol" % what)
            c.check("No launch of this kernel was recorded" not in page,
                    "%s: the page says no launch was recorded" % what)
            # 1: the caller's launch_kernel line, cited and quoted
            cited = [(p, l) for p, l, _ in mine if "`%s:%d`" % (p, l) in page]
            if c.check(cited, "%s: the page cites none of the launch_kernel lines %s"
                       % (what, ["%s:%d" % (p, l) for p, l, _ in mine])):
                p, l = cited[0]
                text = read_lines(p)[l - 1].strip()
                c.check(re.search(r"^%d \| .*%s" % (l, re.escape(text)), page, re.M),
                        "%s: the launch line %s:%d is not quoted" % (what, p, l))
            # its entry: its example's main, no other example's
            for ex, at in sorted(mains.items()):
                ours = ex in {example_of(ck, p) for p, _, _ in mine}
                for p, l in at:
                    c.check(("`%s:%d`" % (p, l) in page) == ours,
                            "%s: the page %s %s's main (%s:%d)"
                            % (what, "does not cite" if ours else "cites", ex, p, l))
            c.check("launches the kernel at `%s:" % klaunch not in page,
                    "%s: the launch is still attributed to kernel_launch.hpp" % what)
            # each distinct route once (launch_kernel calls the launcher once per
            # timer branch: one route, its count, and the lines that part them)
            rts = routes(page)
            c.check(rts, "%s: no route listed" % what)
            for site, lst in rts.items():
                dup = len(lst) - len(set(lst))
                c.check(not dup, "%s: launch site %s lists the same route %d more time(s)"
                        % (what, site, dup))
            if struct.endswith("GemmKernel"):
                for n in call_lines:
                    c.check("`%s:%d`" % (klaunch, n) in page,
                            "%s: launch_kernel's call of the kernel at line %d (a timer "
                            "branch) is not cited" % (what, n))
            # 3: the <<<>>> named as the library's
            c.check(site_line and "kernel library `ck_tile`, at `%s:%d`" % (klaunch, site_line)
                    in page, "%s: the library's <<<>>> (%s:%s) is not named"
                    % (what, klaunch, site_line))
            # 2: block = what the code object allows; grid evaluated from --shape
            blk = table_value(page, "block")
            c.check(blk == "(%s, 1, 1)" % maxwg,
                    "%s: block %r, the code object's max_flat_workgroup_size is %s"
                    % (what, blk, maxwg))
            grid = table_value(page, "grid", shape=True)
            c.check(grid and re.match(r"\(\d+, \d+, \d+\)", grid),
                    "%s: grid %r not evaluated for --shape %s" % (what, grid, shp))
            if struct.endswith("GemmKernel") and len(tiles) == 2:
                want = "(%d, %d, %d)" % (math.ceil(shape["M"] / tiles["M_Tile"]),
                                         math.ceil(shape["N"] / tiles["N_Tile"]), shape["kbatch"])
                c.check(grid == want, "%s: grid %r for --shape %s, the tiles give %s"
                        % (what, grid, shp, want))
            # 5: the fields of a by-value kargs struct, each a row of the argument
            # table with its declared type (scalars as well as pointers)
            kt = split_targs(run([cxxfilt, sym]).stdout.strip())
            if len(kt) == 4 and kt[3].endswith("Kargs"):
                fields = kargs_fields(ck, struct, kt[3])
                c.check(len(fields) >= 4, "%s: no `struct %s { ... };` fields in CK's source"
                        % (what, kt[3].split("::")[-1]))
                for ty, fname in fields:
                    m = re.search(r"^\| `kargs\.%s` \| `([^`]*)` \|" % re.escape(fname), page, re.M)
                    got = m.group(1).replace(" ", "") if m else None
                    c.check(got and got.endswith(ty.replace(" ", "")),
                            "%s: the argument table has no row `kargs.%s` of type %s (got %r)"
                            % (what, fname, ty, got))
            # 4: the kernel struct's parameters, each by its own name
            params = struct_params(ck, struct)
            if c.check(params, "%s: no `template <...> struct` for %s in CK's source"
                       % (what, struct)):
                for n in params:
                    c.check(re.search(r"^- `%s` = `" % re.escape(n), page, re.M),
                            "%s: the struct's parameter %s is not listed" % (what, n))
            # type aliases kept: the GEMM problem's A/B data types as the example
            # names them (ck_tile::half_t), the canonical type beside
            if struct.endswith("GemmKernel"):
                al = gemm_aliases(ck)
                c.check(al.get("ADataType"), "gemm_basic.hpp: no `using ADataType = ck_tile::...`")
                for n in ("ADataType", "BDataType"):
                    if n in al:
                        c.check(re.search(r"^ *- `%s_` = `%s \(\w+\)`" % (n, re.escape(al[n])),
                                          page, re.M),
                                "%s: %s_ is not shown as %s (its alias in gemm_basic.hpp)"
                                % (what, n, al[n]))
            # type aliases kept: the layernorm Problem's data types as the
            # LayerNormTypeConfig<X> specialisation the instance used names
            # them (`using XDataType = ck_tile::half_t;`), the canonical beside
            if struct.endswith("Layernorm2dFwd"):
                fs = full_struct[sym] or ""
                at = fs.find("Layernorm2dFwdPipelineProblem<")
                pargs = split_targs(fs[at:]) if at >= 0 else []
                pparams = struct_params(ck, "ck_tile::Layernorm2dFwdPipelineProblem") or []
                al = layernorm_problem_aliases(ck, pargs)
                if c.check(bool(al) and len(al) >= 7 and len(pparams) >= len(pargs),
                           "%s: no LayerNormTypeConfig<X> specialisation names the Problem's "
                           "types %s (or no Problem parameters %s)" % (what, pargs, pparams)):
                    for i, member, alias in al:
                        canon = pargs[i]
                        want = "%s (%s)" % (alias, canon) if alias != canon else alias
                        c.check(re.search(r"^ *- `%s` = `%s`$" % (re.escape(pparams[i]),
                                                                 re.escape(want)), page, re.M),
                                "%s: %s (LayerNormTypeConfig's %s) is not shown as %s" % (
                                    what, pparams[i], member, want))
                    ln_shown = list(pargs)
                    for i, _, alias in al:
                        ln_shown[i] = alias
                    if len(pargs) > 8:  # the data types and the shape: one row each
                        ln_index[sym] = "ck_tile::Layernorm2dFwdPipelineProblem<%s, " % \
                            ", ".join(ln_shown[:8])
            # the caller's dispatch conditions (the layernorm API's)
            if struct.endswith("Layernorm2dFwd"):
                cited_if = [l for l in api_if if "`%s:%d`" % (api, l) in page]
                c.check(cited_if, "%s: no condition of %s's dispatch is cited" % (what, api))
            # 3c: launch_kernel's timer branches (`if(!s.time_kernel_)`, found in
            # kernel_launch.hpp by a scan) cannot be evaluated by --shape: the page
            # says why once, the member's name as code without escapes, and "as
            # above" on every later line that repeats the condition
            for n in timer_names:
                why = "[shape: not evaluated, unknown name `%s`]" % n
                c.eq(page.count(why), 1, "%s: %r on the page" % (what, why))
            c.check("\\_" not in "".join(re.findall(r"\[shape: not evaluated, [^\]]*\]", page)),
                    "%s: a [shape: not evaluated, ...] note holds an escaped '_'" % what)
            cond_lines = sum(page.count("`%s`" % t) for t in timer_conds)
            notes = len(re.findall(r"`(?:%s)` \(?[^`\n]*?`%s:\d+` \[shape: not evaluated"
                                   % ("|".join(re.escape(t) for t in timer_conds),
                                      re.escape(klaunch)), page))
            c.check(timer_conds and notes >= 2, "%s: %d of the %d timer-branch conditions "
                    "carry a --shape note" % (what, notes, cond_lines))
            structs_seen.add(struct)

        # 4: one group per struct, in index.md and in the map
        out = os.path.join(tmp, "pages")
        r = run([args.kwalk, "render", "--db", db, "--all", "-o", out])
        c.check(r.returncode == 0, "kwalk render --all: exit %d: %s" % (r.returncode, r.stderr))
        idx = "\n".join(read_lines(os.path.join(out, "index.md"))) \
            if os.path.isfile(os.path.join(out, "index.md")) else ""
        for t, syms in sorted(titles.items()):
            c.check(len(syms) == 1, "%d pages share the title %r" % (len(syms), t))
        for sym, alias in sorted(index_names.items()):
            rows = [l for l in idx.split("\n") if l.startswith("| [`ck_tile::kentry<")
                    and "%s<%s, " % (kernels[sym][0], alias) in l]
            c.check(len(rows) == 1, "index.md: %d rows name %s's data type as %s"
                    % (len(rows), sym[:60], alias))
        for sym, want in sorted(ln_index.items()):
            rows = [l for l in idx.split("\n") if l.startswith("| [`ck_tile::kentry<")
                    and want in l]
            c.check(len(rows) == 1, "index.md: %d rows name %s's Problem as %s..."
                    % (len(rows), sym[:60], want))
        for s in sorted(structs_seen):
            c.check("## `ck_tile::kentry` running `%s`" % s in idx,
                    "index.md: no group of ck_tile::kentry running %s" % s)
        r = run([args.kwalk, "map", "--db", db, "--json"])
        rows = json.loads(r.stdout).get("rows", []) if r.returncode == 0 else []
        for s in sorted(structs_seen):
            mine = [x for x in rows if x.get("functors") == s]
            c.check(mine, "kwalk map: no row for ck_tile::kentry running %s alone" % s)
            lines = {(p, l) for p, l, st in launches if st == s}
            for x in mine:
                at = x.get("launch") or {}
                c.check((os.path.realpath(at.get("file") or ""), at.get("line")) in lines,
                        "kwalk map: %s's row launches at %s, not at its launch_kernel line"
                        % (s, at))
                # its entry: the `int main(` of the example program that launches it
                # (each example has its own main; three mains are three entries)
                ex = example_of(ck, at.get("file") or "")
                want = mains.get(ex) or []
                if c.check(len(want) == 1, "the scan found %d `int main(` in example %s"
                           % (len(want), ex)):
                    e = x.get("entry") or {}
                    c.eq((e.get("name"), os.path.realpath(e.get("file") or ""), e.get("line")),
                         ("main",) + want[0], "kwalk map: %s's entry" % s)
                # its device code: the struct's operator() (issue 42), the line read here
                # as `operator()(` whose nearest `struct NAME` above (at the namespace's
                # column 0: nested structs are indented) is the struct's
                dev = x.get("device") or {}
                dl = read_lines(dev["file"]) if os.path.isfile(dev.get("file") or "") else []
                ln = dev.get("line") or 0
                above = [m.group(1) for m in (re.match(r"struct\s+(\w+)\s*$", l)
                                              for l in dl[:ln]) if m]
                c.check(0 < ln <= len(dl) and re.search(r"\boperator\(\)\s*\(", dl[ln - 1])
                        and above and above[-1] == s.split("::")[-1],
                        "kwalk map: %s's device code %s:%s is not its operator()"
                        % (s, dev.get("file"), ln))

        # 1 (issue 36, the remainder): `kwalk list` names each kernel as index.md
        # does, the data types as the source wrote them (reduce.cpp's run<X>,
        # gemm_basic.hpp's `using ADataType = ck_tile::...`), not the canonical
        # type; `render NAME` takes that name and llvm-cxxfilt's alike
        r = run([args.kwalk, "list", "--db", db])
        c.check(r.returncode == 0, "kwalk list: exit %d: %s" % (r.returncode, r.stderr))
        listed = {}  # symbol -> the name its list row prints
        for l in r.stdout.split("\n"):
            f = l.split("\t")
            if len(f) > 1:
                listed[f[1]] = f[0]
        gal = gemm_aliases(ck)
        for sym, (struct, _) in sorted(kernels.items()):
            name = listed.get(sym)
            if not c.check(name, "kwalk list: no row of %s" % sym[:60]):
                continue
            want = []
            if sym in index_names and index_names[sym]:
                want = ["%s<%s, " % (struct, index_names[sym])]
            elif struct.endswith("GemmKernel") and gal.get("ADataType") and gal.get("BDataType"):
                want = ["<%s, %s, " % (gal["ADataType"], gal["BDataType"])]
            if not want:
                continue
            canon = run([cxxfilt, sym]).stdout.strip()
            c.check(want[0] in name and name != canon,
                    "kwalk list: %s's row names it %r, not with the source's %r"
                    % (struct, name[:200], want[0]))
            for q in (name, canon):
                r = run([args.kwalk, "render", "--db", db, q])
                c.check(r.returncode == 0 and ("`%s`" % sym) in r.stdout,
                        "kwalk render %r: exit %d, %s: %s" % (q[:80], r.returncode,
                        "the page of %s" % sym[:40] if r.returncode == 0 else "no page",
                        r.stderr.strip()[:200]))

        # issue 35 item 5: a launch whose kernel name is a line above its <<<
        ref = os.path.realpath(os.path.join(ck, "include", "ck_tile", "host", "reference",
                                            "reference_gemm.hpp"))
        rl = read_lines(ref)
        name_line = next((i + 1 for i, l in enumerate(rl[:-1])
                          if re.search(r"\bnaive_gemm_kernel\s*<", l) and "<<<" not in l
                          and "<<<" in rl[i + 1]), None)
        if c.check(name_line, "%s: no naive_gemm_kernel<...> line above a <<< line" % ref):
            r = run([args.kwalk, "render", "--db", db, "naive_gemm_kernel"])
            page = r.stdout
            c.check(r.returncode == 0, "naive_gemm_kernel: kwalk render: exit %d: %s"
                    % (r.returncode, r.stderr.strip()[:300]))
            c.check("source changed since the build" not in page,
                    "naive_gemm_kernel: the page says the source changed since the build")
            for n in (name_line, name_line + 1):
                c.check(re.search(r"^%d \| .*%s" % (n, re.escape(rl[n - 1].strip())), page, re.M),
                        "naive_gemm_kernel: %s:%d is not quoted" % (ref, n))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    c.finish()


if __name__ == "__main__":
    main()
