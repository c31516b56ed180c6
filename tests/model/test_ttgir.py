#!/usr/bin/env python3
"""model.ttgir: a Triton page's TTGIR reading (model/kw_ttgir.h) against the
NAME.ttgir text of the committed corpus cache, read here with regular
expressions:

  test_ttgir.py --probe P --kwalk K --triton-cache DIR

The cache is indexed (`kwalk index --triton-cache`) and page_isa_probe prints
each specialization's reading. Per specialization, from its NAME.ttgir:
  - each `#name = #ttg.blocked<{...}>` layout's tile per dimension
    (sizePerThread x threadsPerWarp x warpsPerCTA) and each
    `#ttg.amd_mfma<{...}>` layout's instrShape and warpsPerCTA;
  - each `tt.dot` op, in order: M x N from the result tensor's type, K from
    the first operand's last dimension, FLOP = 2 x M x N x K, the result's
    MFMA layout's instrShape, and the MFMA instructions one execution needs
    per program ((M/m)(N/n)(K/k)) and per wave (over warpsPerCTA's waves);
    the operands' element bytes from the element type's width.
  - the tl.dot ops as the source has them: the tt.dot ops of one Python
    position (file:line:col through the #loc table) are one tl.dot, its
    copies (Triton's pipelining writes the loop's last iteration after the
    loop); one tl.dot per position, in the order of first appearance;
  - each tl.dot's executions per program: the model's expression, evaluated
    here with the kernel's integer arguments bound to two sets of values,
    equals the trip count of the scf.for loops around the tt.dot in the
    NAME.ttir (the IR before pipelining: the Python loop as written), whose
    bounds this test evaluates through the TTIR's own arith ops.
Fails when the cache holds no tt.dot (nothing compared)."""
import argparse
import glob
import os
import re
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import kwcheck  # noqa: E402
from kwpageprobe import probe_pages  # noqa: E402
from kwttir import c_eval, dot_positions, int_args, ttir_dot_trips  # noqa: E402
from kwrun import run  # noqa: E402

CK = kwcheck.Checker("model.ttgir")

LAYOUT = re.compile(r"^(#\w+) = #ttg\.(\w+)<\{(.*)\}>\s*$", re.M)
DOT = re.compile(r"= tt\.dot [^:]*: tensor<([0-9x]+)x(\w+), [^*]*\* tensor<[^>]*>+ -> "
                 r"tensor<([0-9x]+)x(\w+), (#\w+)>")


def ints(params, key):
    m = re.search(r"(?:^|, )" + key + r" = \[([0-9, ]+)\]", params)
    return [int(x) for x in m.group(1).split(", ")] if m else None


def elem_bytes(e):
    m = re.match(r"^[a-z]+(\d+)", e)
    return int(m.group(1)) // 8 if m else 0


def ttgir(path):
    """({name: (kind, params)}, [dot facts]) of one NAME.ttgir."""
    text = open(path, encoding="utf-8").read()
    layouts = {m.group(1): (m.group(2), m.group(3)) for m in LAYOUT.finditer(text)}
    dots = []
    for m in DOT.finditer(text):
        a = [int(x) for x in m.group(1).split("x")]
        r = [int(x) for x in m.group(3).split("x")]
        M, N, K = r[0], r[1], a[-1]
        d = {"m": M, "n": N, "k": K, "flop": 2 * M * N * K, "eb": elem_bytes(m.group(2))}
        kind, params = layouts.get(m.group(5), (None, ""))
        shape = ints(params, "instrShape") if kind == "amd_mfma" else None
        warps = ints(params, "warpsPerCTA") if kind == "amd_mfma" else None
        d["mfma"] = shape or [0, 0, 0]
        d["pp"] = d["pw"] = 0
        if shape and M % shape[0] == 0 and N % shape[1] == 0 and K % shape[2] == 0:
            d["pp"] = (M // shape[0]) * (N // shape[1]) * (K // shape[2])
            w = warps[0] * warps[1]
            d["pw"] = d["pp"] // w if d["pp"] % w == 0 else 0
        dots.append(d)
    return layouts, dots


def check_execs(where, facts, ttgir_text, ttir_text):
    """The tl.dot rows (X) against the TTGIR's tt.dot positions and the
    TTIR's loops; the count compared."""
    got = [(int(x[0]), int(x[1]), int(x[2]), int(x[3]), x[4]) for x in facts["X"]]
    pos = dot_positions(ttgir_text)
    want = []
    for p in pos:
        if p not in [w[0] for w in want]:
            want.append((p, pos.count(p)))
    CK.eq([((g[0], g[1]), g[2]) for g in got], want,
          f"{where}: one tl.dot per Python position, with its tt.dot copies")
    ints_ = int_args(ttir_text)
    n = 0
    for k, env in enumerate([{a: 4096 + 13 * i for i, a in enumerate(ints_)},
                             {a: 100 + i for i, a in enumerate(ints_)}]):
        trips = ttir_dot_trips(ttir_text, {"%" + a: v for a, v in env.items()})
        for line, col, _, in_loop, expr in got:
            want_t = trips.get((line, col), "no tt.dot at that position in the TTIR")
            at = f"{where}: tl.dot at {line}:{col}, arguments set {k + 1}"
            CK.check(want_t is not None, f"{at}: the TTIR's loop bounds evaluate")
            if want_t is None:
                continue
            CK.eq(expr != "-" and c_eval(expr, env), want_t,
                  f"{at}: executions per program = the TTIR loop's trip count ({expr})")
            n += 1
    return n


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--probe", required=True)
    p.add_argument("--kwalk", required=True)
    p.add_argument("--triton-cache", required=True)
    args = p.parse_args()
    with tempfile.TemporaryDirectory(prefix="kw-ttgir-") as tmp:
        db = os.path.join(tmp, "t.db")
        run([args.kwalk, "index", "--triton-cache", args.triton_cache, "-o", db], must=True)
        pages = probe_pages(args.probe, db)
    ndots = nexecs = 0
    for sym, cache, facts in pages:
        files = glob.glob(os.path.join(cache, "*.ttgir")) if cache else []
        if len(files) != 1:
            continue
        where = f"{sym} ({os.path.basename(cache)})"
        layouts, dots = ttgir(files[0])
        for name, kind, rank, *rest in facts["L"]:
            want_kind, params = layouts.get(name, (None, ""))
            if kind == "blocked":
                spt, tpw, wpc = (ints(params, k) for k in ("sizePerThread", "threadsPerWarp",
                                                          "warpsPerCTA"))
                CK.eq(want_kind, "blocked", f"{where}: {name}'s kind")
                CK.eq([int(x) for x in rest], [a * b * c for a, b, c in zip(spt, tpw, wpc)],
                      f"{where}: {name}'s tile")
            elif kind == "mfma":
                CK.eq(want_kind, "amd_mfma", f"{where}: {name}'s kind")
                CK.eq([int(x) for x in rest],
                      ints(params, "instrShape") + ints(params, "warpsPerCTA"),
                      f"{where}: {name}'s instrShape and warpsPerCTA")
        for name, (kind, _) in layouts.items():
            if kind in ("blocked", "amd_mfma"):
                got = [x[1] for x in facts["L"] if x[0] == name]
                CK.eq(got, ["blocked" if kind == "blocked" else "mfma"], f"{where}: {name} read")
        got = [dict(zip(("m", "n", "k", "flop", "M", "N", "K", "pp", "pw", "eb"),
                        (int(x) for x in d))) for d in facts["D"]]
        # one row per tl.dot: the first tt.dot op of each Python position
        pos = dot_positions(open(files[0]).read())
        dots = [d for i, d in enumerate(dots) if pos[i] not in pos[:i]]
        CK.eq(len(got), len(dots), f"{where}: tl.dot rows (tt.dot ops of distinct positions)")
        for i, (g, w) in enumerate(zip(got, dots)):
            at = f"{where}: tt.dot {i + 1}"
            CK.eq((g["m"], g["n"], g["k"]), (w["m"], w["n"], w["k"]), f"{at}: M, N, K")
            CK.eq(g["flop"], 2 * w["m"] * w["n"] * w["k"], f"{at}: FLOP = 2MNK")
            CK.eq([g["M"], g["N"], g["K"]], w["mfma"], f"{at}: MFMA instrShape")
            CK.eq((g["pp"], g["pw"]), (w["pp"], w["pw"]), f"{at}: MFMA per program, per wave")
            CK.eq(g["eb"], w["eb"], f"{at}: operand element bytes")
            ndots += 1
        ttirs = glob.glob(os.path.join(cache, "*.ttir"))
        if dots and len(ttirs) == 1:
            nexecs += check_execs(where, facts, open(files[0]).read(), open(ttirs[0]).read())
    CK.check(ndots > 0, "the corpus cache has tt.dot ops compared")
    CK.check(nexecs > 0, "tl.dot executions compared with the TTIR's loops")
    CK.finish()


if __name__ == "__main__":
    main()
