#!/usr/bin/env python3
"""Triton pages' tl.dot, MFMA and shared layouts and hardware peaks (ctest
triton.dot), checked against ground truth this test computes itself:

  test_triton_dot.py --kwalk K --corpus tests/corpus/triton --llvm-bin DIR
                     --peaks annotations/hw/amdgpu-peaks.txt

The committed corpus cache is indexed (cache only) and rendered. Per page:
the `tt.dot` ops of its NAME.ttgir, read here with regular expressions (M x N
from the result type, K from the first operand's, the result's #mma layout's
instrShape and warpsPerCTA), give section 2's tl.dot table (2MNK FLOP, the
MFMA instructions one execution needs per program and per wave) and section
4's FLOP and operand bytes; `llvm-objdump -d` of the .hsaco gives the v_mfma
instructions: their count is the page's, a whole multiple of one
execution's per-wave count, and their mnemonic's shape and type are the
layout's instrShape and the operands' element type. The MFMA and shared
layouts' lines vs their TTGIR parameters; the hardware peaks table and the
matrix ridge vs amdgpu-peaks.txt read here."""
import argparse
import glob
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_triton_cache import run  # noqa: E402
from test_triton_render import section, subsection, table, ttgir_facts  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import kwcheck  # noqa: E402
from kwttir import c_eval, dot_positions, int_args, ir_eval, ttir_dot_trips  # noqa: E402

CK = kwcheck.Checker("triton.dot")
eq = CK.eq
CHECKED = [0, 0, 0]  # tl.dot executions, MFMA FLOP per thread compared with the TTIR's loops,
#                      tl.dot executions under --shape
SHAPED = {}  # page name -> the page rendered with --shape (main)
IR_PAGES = [0]  # pages of a tl.dot whose section 4 has the .llir's IR facts


def peaks(path):
    """{product: {key: value}} of amdgpu-peaks.txt, read here."""
    out, cur = {}, None
    for line in open(path):
        line = line.split("#", 1)[0].rstrip()
        if not line.strip():
            continue
        m = re.match(r"^product (\S+)$", line)
        if m:
            cur = out.setdefault(m.group(1), {})
            continue
        kv = line.split()
        if cur is not None:
            cur[kv[0]] = kv[1] if len(kv) > 1 else True
    return out


def default_gpu(pk, arch):
    for name, p in pk.items():
        if p.get("arch") == arch and p.get("default"):
            return name, p
    return None, None


def dots(ttgir):
    """[(M, N, K, a element, result element, layout)] of the tt.dot ops."""
    out = []
    for m in re.finditer(r"= tt\.dot [^:]*: tensor<(\d+)x(\d+)x(\w+), .*?> \* tensor<.*?> -> "
                         r"tensor<(\d+)x(\d+)x(\w+), (#\w+)>", ttgir):
        out.append((int(m.group(4)), int(m.group(5)), int(m.group(2)), m.group(3),
                    m.group(6), m.group(7)))
    return out


def layout_params(ttgir, name):
    m = re.search(r"^%s = #ttg\.\w+<\{(.*)\}>$" % re.escape(name), ttgir, re.M)
    return m.group(1) if m else ""


def ints(params, key):
    m = re.search(r"(?:^|, )%s = \[([\d, ]+)\]" % key, params)
    return [int(x) for x in m.group(1).split(", ")] if m else None


def one_int(params, key):
    m = re.search(r"(?:^|, )%s = (\d+)" % key, params)
    return int(m.group(1)) if m else None


def check_layouts(w, dev, ttgir):
    for m in re.finditer(r"^(#\w+) = #ttg\.(amd_mfma|swizzled_shared)<\{(.*)\}>$", ttgir, re.M):
        name, kind, params = m.groups()
        line = re.search(r"^- `%s`: (.*)$" % re.escape(name), dev, re.M)
        eq(bool(line), True, w + ": a line for " + name)
        if not line:
            continue
        if kind == "amd_mfma":
            s, wp = ints(params, "instrShape"), ints(params, "warpsPerCTA")
            eq("M × N × K = %d × %d × %d" % tuple(s) in
                  line.group(1), True, w + ": " + name + " instrShape")
            eq("arranged %d × %d" % tuple(wp) in
                  line.group(1), True, w + ": " + name + " warpsPerCTA")
        else:
            vec, per, mx = (one_int(params, k) for k in ("vec", "perPhase", "maxPhase"))
            want = ("groups of %d elements" % vec in line.group(1) and
                    "(r / %d) mod %d" % (per, mx) in line.group(1)) if mx > 1 else \
                "not swizzled" in line.group(1)
            eq(want, True, w + ": " + name + " swizzle")


def check_execs(w, mem, line, M, N, K, at, ttir):
    """Section 4's executions of the tl.dot at `at` (line, column) and its
    FLOP over them, the page's expressions evaluated for two sets of the
    kernel's integer arguments, against the trip count of the NAME.ttir
    loops around the tt.dot there (the loop as written, before pipelining)."""
    if not line:
        return
    nxt = re.match(r"^- .*\n(?:  - .*\n)*?  - Executions per program: `([^`]+)` \(.*?\), so "
                   r"(?:`([^`]+)`|(\d+)) FLOP per program over the loop\.$",
                   mem[line.start():], re.M)
    eq(bool(nxt), True, w + ": executions per program and FLOP over the loop")
    if not nxt or not ttir:
        return
    args = int_args(ttir)
    for k, env in enumerate([{a: 4096 + 13 * i for i, a in enumerate(args)},
                             {a: 100 + i for i, a in enumerate(args)}]):
        trips = ttir_dot_trips(ttir, {"%" + a: v for a, v in env.items()}).get(at)
        what = "%s: arguments set %d" % (w, k + 1)
        eq(trips is not None, True, what + ": the TTIR loop's bounds evaluate")
        if trips is None:
            continue
        eq(c_eval(nxt.group(1), env), trips, what + ": executions = the TTIR loop's trip count")
        total = c_eval(nxt.group(2), env) if nxt.group(2) else int(nxt.group(3))
        eq(total, 2 * M * N * K * trips, what + ": FLOP over the loop = 2MNK x trips")
        CHECKED[0] += 1


def shape_value(name):
    """The value --shape binds name to (the same for every page: by name)."""
    return 1000 + 37 * (sum(map(ord, name)) % 97)


def check_execs_shape(w, mem, M, N, K, at, ttir):
    """With --shape binding every integer argument (shape_value), section 4's
    executions of the tl.dot at `at` are a number: the trip count of the
    NAME.ttir loops around the tt.dot there, those values put in; its FLOP
    over the loop 2MNK times that."""
    line = re.search(r"^- `tl\.dot` at .*: 2 × %d × %d × %d = " % (M, N, K), mem, re.M)
    if not line or not ttir:
        return
    nxt = re.match(r"^- .*\n(?:  - .*\n)*?  - Executions per program: `([^`]+)` \(.*?\), "
                   r"(\d+) with `--shape`, so (\d+) FLOP per program over the loop \(`([^`]+)`\)\.$",
                   mem[line.start():], re.M)
    eq(bool(nxt), True, w + ": with --shape, executions and FLOP over the loop as numbers")
    if not nxt:
        return
    env = {a: shape_value(a) for a in int_args(ttir)}
    trips = ttir_dot_trips(ttir, {"%" + a: v for a, v in env.items()}).get(at)
    eq(trips is not None, True, w + ": --shape: the TTIR loop's bounds evaluate")
    if trips is None:
        return
    eq(int(nxt.group(2)), trips, w + ": --shape: executions = the TTIR loop's trip count")
    eq(int(nxt.group(3)), 2 * M * N * K * trips, w + ": --shape: FLOP over the loop = 2MNK x trips")
    CHECKED[2] += 1


def check_mfma_flop(w, mem, M, N, K, at, ttir):
    """Section 4's FLOP per thread from the IR facts (an upper bound over the
    paths) times the program's threads holds the MFMA work of the tl.dot at
    `at` over its loop (2MNK x the NAME.ttir loop's trip count, for two sets
    of the kernel's integer arguments), and no sentence says the MFMA FLOP
    are left out."""
    if "From the IR facts of" not in mem or not ttir:
        return
    IR_PAGES[0] += 1
    eq("their FLOP are not in" in mem or "MFMA instructions' are not in it" in mem, False,
       w + ": no sentence saying the MFMA FLOP are left out of the FLOP per thread")
    fl = re.search(r"^- FLOP per thread: `([^`]+)`", mem, re.M)
    thr = re.search(r"^- Threads per program: .* = (\d+)\.$", mem, re.M)
    eq(bool(fl and thr), True, w + ": FLOP per thread and threads shown")
    if not (fl and thr):
        return
    args = int_args(ttir)
    for k, env in enumerate([{a: 4096 + 13 * i for i, a in enumerate(args)},
                             {a: 100 + i for i, a in enumerate(args)}]):
        trips = ttir_dot_trips(ttir, {"%" + a: v for a, v in env.items()}).get(at)
        if trips is None:
            continue
        got = ir_eval(fl.group(1), env) * int(thr.group(1))
        eq(got >= 2 * M * N * K * trips, True,
           "%s: arguments set %d: FLOP per thread x threads (%s) >= the tl.dot's FLOP over the "
           "loop (%d): the MFMA work counted" % (w, k + 1, got, 2 * M * N * K * trips))
        CHECKED[1] += 1


def check_page(w, page, folder, meta, pk, llvm, unmap):
    name, arch = meta["name"], meta["target"]["arch"]
    ttgir = open(os.path.join(folder, name + ".ttgir")).read()
    dev = section(page, "2. Device Kernel")
    mem = section(page, "4. Memory Access Analysis")
    product, gpu = default_gpu(pk, arch)
    # hardware peaks: every Triton page, as a HIP page shows them
    eq("Hardware peaks (vendor data" in mem, True, w + ": peaks table")
    if gpu:
        row = re.search(r"^\| %s \(default\) \| %s \| (\d+) \| [\d.]+ \| ([\d.]+) \|" %
                        (re.escape(product), arch), mem, re.M)
        eq(row and (row.group(1), float(row.group(2))), (gpu["compute_units"], float(gpu["hbm_tbs"])),
              w + ": peaks row CUs, HBM")
    check_layouts(w, dev, ttgir)
    want = dots(ttgir)
    memops = [r for r in ttgir_facts(os.path.join(folder, name + ".ttgir"), unmap)[1]
              if r[0] == "`tt.dot`"]
    eq(len(want), len(memops), w + ": tt.dot ops read")
    # one tl.dot per Python position: pipelining's copies are not rows of their own
    pos = dot_positions(ttgir)
    eq(len(pos), len(want), w + ": tt.dot positions read")
    first = [i for i in range(len(pos)) if pos[i] not in pos[:i]]
    want, memops = [want[i] for i in first], [memops[i] for i in first]
    ttir_path = os.path.join(folder, name + ".ttir")
    ttir = open(ttir_path).read() if os.path.isfile(ttir_path) else ""
    sub = subsection(dev, "`tl.dot` (TTGIR `tt.dot`)")
    if not want:
        eq(sub, "", w + ": no tl.dot table")
        return 0
    # LLVM 19's llvm-objdump aborts on some of Triton 3.6's code objects (the
    # gfx950 ones): the ISA checks of such a page are left out, and said so
    hsaco = os.path.join(folder, name + ".hsaco")
    r = subprocess.run([os.path.join(llvm, "llvm-objdump"), "-d", hsaco], capture_output=True,
                       text=True)
    mfma = re.findall(r"^\s+(v_mfma_\w+)", r.stdout, re.M) if r.returncode == 0 else None
    if mfma is None:
        print("%s: llvm-objdump (%s) cannot disassemble %s (exit %d): its ISA checks are left out"
              % (w, llvm, hsaco, r.returncode))
    rows, per_wave = [], []
    for (M, N, K, ae, re_, lay), op in zip(want, memops):
        p = layout_params(ttgir, lay)
        s, wp = ints(p, "instrShape"), ints(p, "warpsPerCTA")
        prog = (M // s[0]) * (N // s[1]) * (K // s[2])
        wave = prog // (wp[0] * wp[1])
        per_wave.append(wave)
        rows.append([op[2], "%d × %d × %d" % (M, N, K), "`%s` → `%s`" % (ae, re_),
                     "MFMA %d × %d × %d (`%s`)" % (s[0], s[1], s[2], lay),
                     "%d per program, %d per wave" % (prog, wave), str(2 * M * N * K)])
        for mn in sorted(set(mfma or [])):
            g = re.match(r"v_mfma_\w+?_(\d+)x(\d+)x(\d+)_?(\w*)$", mn)
            eq(g and [int(x) for x in g.groups()[:3]], s, w + ": %s shape = instrShape" % mn)
            eq(g and g.group(4).startswith(ae), True, w + ": %s type = operands'" % mn)
        bytes_ = 2 * (M * K + K * N) if ae in ("f16", "bf16") else None
        line = re.search(r"^- `tl\.dot` at %s: 2 × %d × %d × %d = %d FLOP per execution per "
                         r"program; its operands are %d × %d \+ %d × %d elements of 2 bytes = "
                         % (re.escape(op[2]), M, N, K, 2 * M * N * K, M, K, K, N),
                         mem, re.M)
        eq(bool(line) and bytes_ is not None, True, w + ": section 4 tl.dot line")
        check_execs(w, mem, line, M, N, K, pos[first[len(rows) - 1]], ttir)
        check_mfma_flop(w, mem, M, N, K, pos[first[len(rows) - 1]], ttir)
        check_execs_shape(w, section(SHAPED.get(w, ""), "4. Memory Access Analysis"), M, N, K,
                          pos[first[len(rows) - 1]], ttir)
        if gpu and bytes_:
            peak = float(gpu["fp16_tflops" if ae == "f16" else "bf16_tflops"])
            ridge = peak / float(gpu["hbm_tbs"])
            ai = 2 * M * N * K / bytes_
            cmp = "below" if ai < ridge else "at or above"
            eq("a ridge of %.1f FLOP/byte; %.3g FLOP per operand "
                  "byte is %s it" % (ridge, ai, cmp) in mem, True, w + ": matrix ridge line")
    eq(table(sub), rows, w + ": tl.dot table")
    # section 4's MFMA figure: the calls of matrix intrinsics in the .llir
    llir = open(os.path.join(folder, name + ".llir")).read()
    calls = len(re.findall(r"call [^@\n]*@llvm\.amdgcn\.(?:mfma|smfmac|wmma)\.", llir))
    fig = re.search(r"^- Matrix \(MFMA\) intrinsic calls in the IR: (\d+) ", mem, re.M)
    # (no IR facts where kwalk-irfacts cannot read the .llir: LLVM 19)
    if fig or (calls and "From the IR facts of" in mem):
        eq(fig and int(fig.group(1)), calls, w + ": MFMA intrinsic calls = the .llir's")
    if mfma is None:
        return len(want)
    got = re.search(r"listing \(section 5\) holds (\d+) MFMA instruction", sub)
    eq(got and int(got.group(1)), len(mfma), w + ": MFMA count = llvm-objdump's")
    for wv in per_wave:
        eq(wv > 0 and len(mfma) % wv == 0, True,
              w + ": ISA MFMA count a multiple of one execution's per wave (%d)" % wv)
    return len(want)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kwalk", required=True)
    ap.add_argument("--corpus", required=True)
    ap.add_argument("--llvm-bin", required=True)
    ap.add_argument("--peaks", required=True)
    a = ap.parse_args()
    root = os.path.abspath(os.path.join(a.corpus, "..", "..", ".."))
    pk = peaks(a.peaks)
    folders = {}
    for d in sorted(glob.glob(os.path.join(a.corpus, "cache", "*"))):
        grp = glob.glob(os.path.join(d, "__grp__*.json"))
        if grp:
            name = os.path.basename(grp[0])[len("__grp__"):-len(".json")]
            meta = json.load(open(os.path.join(d, name + ".json")))
            folders[meta["hash"]] = (d, meta)

    def unmap(p):
        return root + "/" + p[len("/opt/kwalk/"):] if p.startswith("/opt/kwalk/") else p
    with tempfile.TemporaryDirectory() as tmp:
        db, out = os.path.join(tmp, "t.yaml"), os.path.join(tmp, "pages")
        run([a.kwalk, "index", "--triton-cache", os.path.join(a.corpus, "cache"),
             "--map-prefix", "/opt/kwalk=" + root, "-o", db])
        run([a.kwalk, "render", "--all", "--db", db, "-o", out])
        pages = {p: open(os.path.join(out, p)).read()
                 for p in os.listdir(out) if p.endswith(".md") and p != "index.md"}
        # --shape binding every integer argument of every kernel, by name
        names = sorted({n for d, _ in folders.values()
                        for t in glob.glob(os.path.join(d, "*.ttir")) for n in int_args(open(t).read())})
        run([a.kwalk, "render", "--all", "--db", db, "-o", out + "-shape", "--shape",
             ",".join("%s=%d" % (n, shape_value(n)) for n in names)])
        SHAPED.update({p: open(os.path.join(out + "-shape", p)).read() for p in pages
                       if os.path.exists(os.path.join(out + "-shape", p))})
    ndots = 0
    for p, page in sorted(pages.items()):
        sym = re.search(r"^\| Symbol \| `(.*?)@([0-9a-f]{64})` \|$", page, re.M)
        if not sym or sym.group(2) not in folders:
            eq(False, True, p + ": a cache folder's page")
            continue
        folder, meta = folders[sym.group(2)]
        ndots += check_page(p, page, folder, meta, pk, a.llvm_bin, unmap)
    eq(ndots >= 2, True, "tl.dot ops seen in the corpus (the GEMM tile, two archs)")
    eq(CHECKED[0] >= 4, True, "tl.dot executions compared (two archs, two argument sets)")
    eq(CHECKED[2] >= 2, True, "tl.dot executions under --shape compared (two archs)")
    # the .llir's IR facts need a kwalk-irfacts whose LLVM reads Triton's
    # LLVM IR (clang 19's does not: its pages say so); where any page has
    # them, each was compared for two argument sets
    if IR_PAGES[0]:
        eq(CHECKED[1] >= 2 * IR_PAGES[0], True,
           "FLOP per thread compared with the tl.dot's (%d pages with IR facts, two sets)"
           % IR_PAGES[0])
    else:
        print("note: no tl.dot page has the .llir's IR facts on this LLVM: the FLOP per thread "
              "check compared nothing")
    CK.finish()


if __name__ == "__main__":
    main()
