#!/usr/bin/env python3
"""test_page_perf_corpus.py: model.page_perf_corpus, section 4's page model
(model/kw_page_perf.h) of every kernel instantiation of the corpus, as
page_perf_probe prints it, against ground truth kwalk does not produce:

  ScaleKernel  the ck_tile-style kernel of tests/corpus/tile_kernels.hip
               (found by its KW:FUNCTOR marker): each thread reads and writes
               kVector elements (x[idx], y[idx]) and multiplies each once by
               a.scale, so per thread: bytes read = sizeof(XDataType) x V,
               written = sizeof(YDataType) x V, FLOP = V, with X, Y and V
               read from the instantiation's name (ScaleProblem<X, Y, C>,
               ScalePolicy<B, V>); its intensity FLOP / bytes;
  bound        every classified launch's verdict recomputed here: the ridge
               is fp32_vector_tflops / hbm_tbs of the arch's default product
               in annotations/hw/amdgpu-peaks.txt (parsed here), memory-bound
               below it, compute-bound at or above it; the intensity is the
               per-thread FLOP over the per-thread bytes the page shows;
  occupancy    every arch's VGPR bound at every VGPR count 0..vgprs_per_lane,
               from annotations/hw/amdgpu-occupancy.txt (parsed here) and
               LLVM's rule (VGPRs rounded up to the granule, the lane's VGPRs
               over that, at least 1, at most max_waves_per_simd).

usage: test_page_perf_corpus.py --kwalk KWALK --probe PROBE --corpus-out DIR --src ROOT
Exit 0 when all checks hold, 1 otherwise, 77 when the corpus is not built.
"""
import argparse
import glob
import json
import math
import os
import re
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from kwcheck import Checker  # noqa: E402
import kwrender  # noqa: E402
from kwrun import run  # noqa: E402

SIZEOF = {"float": 4, "double": 8, "__half": 2, "_Float16": 2, "__bf16": 2, "int": 4,
          "signed char": 1, "kw::fp8_e4m3": 1}


def blocks(path):
    """[(head key, head value, {key: value})] of an annotation file's blocks."""
    out, cur = [], None
    with open(path) as f:
        for line in f:
            line = line.split("#", 1)[0].rstrip()
            if not line.strip():
                continue
            key, _, val = line.strip().partition(" ")
            if not line[0].isspace():
                cur = {}
                out.append((key, val.strip(), cur))
            elif cur is not None:
                cur[key] = val.strip()
    return out


def ridges(src):
    """{arch: FP32 ridge of its default product} from amdgpu-peaks.txt."""
    out = {}
    for head, name, kv in blocks(os.path.join(src, "annotations", "hw", "amdgpu-peaks.txt")):
        if head == "product" and "default" in kv:
            out[kv["arch"]] = float(kv["fp32_vector_tflops"]) / float(kv["hbm_tbs"])
    return out


def occupancy(src):
    """{arch: (max waves, VGPRs per lane, granule)} from amdgpu-occupancy.txt."""
    out = {}
    for head, name, kv in blocks(os.path.join(src, "annotations", "hw", "amdgpu-occupancy.txt")):
        if head == "arch" and {"max_waves_per_simd", "vgprs_per_lane", "vgpr_granule"} <= set(kv):
            out[name] = tuple(int(kv[k]) for k in ("max_waves_per_simd", "vgprs_per_lane",
                                                   "vgpr_granule"))
    return out


def waves(occ, v):
    maxw, lane, gran = occ
    if v < gran:
        return maxw
    w = lane // (-(-v // gran) * gran)
    return min(max(w, 1), maxw)


def curve_at(steps, x):
    w = steps[0][1]
    for at, to in steps[1:]:
        if x >= at:
            w = to
    return w


def near(a, b):
    return a is not None and b is not None and math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-12)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kwalk", required=True)
    ap.add_argument("--probe", required=True)
    ap.add_argument("--corpus-out", required=True)
    ap.add_argument("--src", required=True)
    args = ap.parse_args()
    c = Checker("test_page_perf_corpus")
    if not glob.glob(os.path.join(args.corpus_out, "*.kwalk.yaml")):
        c.skip("no corpus sidecars in %s (build target kw_corpus)" % args.corpus_out)
    tile = open(os.path.join(args.src, "tests", "corpus", "tile_kernels.hip")).read()
    body = tile[tile.index("KW:FUNCTOR tile.scale_kernel"):]
    body = body[:body.index("\n  }\n")]
    # the body the expectations below follow: one load, one multiply, one store per element
    c.check(body.count("x[idx]") == 1 and body.count("y[idx] =") == 1
            and body.count("* a.scale") == 1 and "i < Policy::kVector" in body,
            "tile_kernels.hip: ScaleKernel's body is one load, multiply and store per element")
    rid, occ = ridges(args.src), occupancy(args.src)
    with tempfile.TemporaryDirectory() as tmp:
        db = kwrender.corpus_db(args.kwalk, args.corpus_out, tmp)
        out = run([args.probe, db, "10"], must=True).stdout
    rows = [json.loads(line) for line in out.splitlines()]
    launches = [r for r in rows if "launch" in r]
    archs = [r for r in rows if "occ" in r]
    c.check(len(launches) > 0 and len(archs) > 0, "the probe printed pages")
    scale = 0
    for r in launches:
        what = "%s on %s, launch %d" % (r["page"], r["arch"], r["launch"])
        thread = r["work"][:3]
        m = re.search(r"ScaleProblem<([^,<>]+), ([^,<>]+), [^<>]+>, kw::ScalePolicy<(\d+), (\d+)>",
                      r["page"])
        if m and m.group(1) in SIZEOF and m.group(2) in SIZEOF:
            v = int(m.group(4))
            want = [SIZEOF[m.group(1)] * v, SIZEOF[m.group(2)] * v, v]
            c.eq(thread, want, what + ": bytes read, written and FLOP per thread")
            c.check(r["classified"] and near(r["intensity"], v / (want[0] + want[1])),
                    what + ": intensity", "%s" % r["intensity"])
            scale += 1
        if not r["classified"]:
            continue
        ridge = rid.get(r["arch"])
        c.check(ridge is not None and near(r["ridge"], ridge), what + ": ridge",
                "%s, peaks file %s" % (r["ridge"], ridge))
        if None in thread or ridge is None:
            continue
        ai = thread[2] / (thread[0] + thread[1])
        c.check(near(r["intensity"], ai), what + ": intensity",
                "%s, want %s" % (r["intensity"], ai))
        c.eq(r["bound"], "memory-bound" if ai < ridge else "compute-bound", what + ": bound")
    c.check(scale >= 2, "both ScaleKernel instantiations were checked", "%d" % scale)
    checked = 0
    for r in archs:
        o = occ.get(r["arch"])
        if not o or not r["occ_known"]:
            continue
        bad = [x for x in range(o[1] + 1) if curve_at(r["occ"], x) != waves(o, x)]
        c.check(not bad, "%s on %s: the VGPR bound at every VGPR count" % (r["page"], r["arch"]),
                "first wrong at %s" % bad[:3])
        checked += 1
    c.check(checked >= len(archs) // 2, "occupancy curves checked",
            "%d of %d" % (checked, len(archs)))
    return c.finish()


if __name__ == "__main__":
    sys.exit(main())
