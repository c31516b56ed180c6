#!/usr/bin/env python3
"""bench_site.py: `kwalk site` over a generated build of N kernel
instantiations whose pages have everything a real page has. The records are
those of the index benchmark's generator (tests/index/test_index_big.py:
template arguments, parameters, a device call tree, one launch each with its
configuration, guard and instantiation chain, 50 kernels per sidecar), and
each kernel gets, per arch (gfx942, gfx950), what the plugin and
`kwalk index` add for a compiled kernel: resources and occupancy,
instruction classes, an ISA listing of --insns instructions with labels and
branches (a mnemonic mix like the corpus's), a line table mapping every few
instructions to the kernel's line or to a line of an inlined helper, and IR
facts (accesses, bytes and FLOP per thread). The source files the records
name are written too, so the source <-> ISA view reads real files.

Not a test: it prints wall and CPU (user + system) times of `kwalk site`
(best of --repeat), the pages' count and size, the machine's CPU count and
load average. On a loaded machine compare the CPU time. --perf FILE also
records the last run with `perf record -g` into FILE.

usage: bench_site.py KWALK [--kernels N] [--insns I] [--repeat R]
                     [--out-dir DIR] [--keep DIR] [--perf FILE] [-- SITE-ARGS...]
"""
import argparse
import os
import random
import re
import shutil
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "index"))
import test_index_big  # noqa: E402  (the generator of the records)
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
from kwrun import timed  # noqa: E402

# (mnemonic, operands, class weight): a mix like the corpus kernels' listings
MIX = [("s_load_dwordx4", "s[4:7], s[0:1], 0x{k:x}", 3),
       ("s_waitcnt", "lgkmcnt(0)", 4),
       ("v_mov_b32_e32", "v{a}, s{b}", 6),
       ("v_add_u32_e32", "v{a}, s{b}, v{c}", 8),
       ("v_lshlrev_b64", "v[{a}:{a1}], 2, v[{c}:{c1}]", 4),
       ("global_load_dwordx4", "v[{a}:{a3}], v[{c}:{c1}], off", 5),
       ("global_store_dword", "v[{c}:{c1}], v{a}, off", 2),
       ("v_fma_f32", "v{a}, v{b}, v{c}, v{a}", 10),
       ("v_mul_f32_e32", "v{a}, v{b}, v{c}", 6),
       ("v_add_f32_dpp", "v{a}, v{b}, v{a} row_shr:1 row_mask:0xf bank_mask:0xf", 2),
       ("v_exp_f32_e32", "v{a}, v{b}", 1),
       ("v_rsq_f32_e32", "v{a}, v{b}", 1),
       ("ds_write_b32", "v{a}, v{b}", 2),
       ("ds_read_b32", "v{a}, v{b}", 2),
       ("s_barrier", "", 1),
       ("v_cmp_gt_i32_e32", "vcc, s{b}, v{a}", 2),
       ("s_and_saveexec_b64", "s[{b}:{b1}], vcc", 1),
       ("v_cvt_f16_f32_e32", "v{a}, v{b}", 2),
       ("s_add_u32", "s{b}, s{b}, 0x{k:x}", 3)]
CLASS = {"s_": "salu", "v_": "valu", "global_": "vmem", "ds_": "lds"}


def isa_listing(rng, n):
    """(listing text, [offset of each instruction], classes, memory counts)."""
    weights = [w for _, _, w in MIX]
    out, offs, classes, mem = [], [], {}, {}
    off, label = 0, 0
    for i in range(n):
        if i and i % 60 == 0:
            out.append("L%d:" % label)
            label += 1
        m, ops, _ = rng.choices(MIX, weights)[0]
        a, b, c = rng.randrange(0, 120, 2), rng.randrange(2, 90, 2), rng.randrange(0, 120, 2)
        text = (m + " " + ops.format(a=a, a1=a + 1, a3=a + 3, b=b, b1=b + 1, c=c, c1=c + 1,
                                     k=rng.randrange(0, 0x80, 4))).rstrip()
        if i % 60 == 59 and i + 1 < n:
            text = "s_cbranch_scc1 %d  ; -> L%d" % (rng.randrange(4, 200), label)
        out.append("%04x: %s" % (off, text))
        offs.append(off)
        k = next((v for p, v in CLASS.items() if text.startswith(p)), "other")
        k = "branch" if text.startswith("s_cbranch") else "mem_scalar" if text.startswith(
            "s_load") else k
        classes[k] = classes.get(k, 0) + 1
        if text.startswith("global_") or text.startswith("ds_"):
            key = text.split()[0]
            mem[key] = mem.get(key, 0) + 1
        off += 8 if text.startswith(("global_", "ds_", "s_load", "v_fma", "v_lshlrev")) else 4
    out.append("%04x: s_endpgm" % off)
    offs.append(off)
    return "\n".join(out), offs, classes, mem


def arch_yaml(rng, arch, src, kline, helpers, n):
    """The YAML lines of one arch of a kernel (indented for `archs:`)."""
    text, offs, classes, mem = isa_listing(rng, n)
    classes["insns"] = len(offs)
    vgpr = rng.choice([24, 32, 48, 64, 96, 128])
    res = ("{vgpr: %d, agpr: 0, sgpr: %d, vgpr_spill: 0, sgpr_spill: 0, lds_bytes: 1024, "
           "scratch_bytes: 0, kernarg_bytes: 40, wavefront_size: 64, max_flat_workgroup_size: "
           "256, occupancy: %d, occupancy_limiter: vgpr}" % (vgpr, rng.choice([16, 32, 48]),
                                                             min(8, 512 // vgpr)))
    out = ["    %s:" % arch, "      target_id: %s" % arch, "      resources: " + res,
           "      classes: {%s}" % ", ".join("%s: %d" % kv for kv in sorted(classes.items())),
           "      memory: [%s]" % ", ".join("{key: %s, bytes: 4, n: %d}" % kv
                                            for kv in sorted(mem.items())),
           "      isa: |"]
    out += ["        " + line for line in text.splitlines()]
    out.append("      lines:")
    for j in range(0, len(offs), 4):
        if j % 12 == 0:
            out.append("      - {offset: %d, location: {file: %s, line: %d, column: 5}}"
                       % (offs[j], src, kline))
        else:
            h = helpers[(j // 4) % len(helpers)]
            out.append("      - {offset: %d, location: {file: %s, line: %d, column: 9}, "
                       "inlined_at: [{at: {file: %s, line: %d, column: 5}}]}"
                       % (offs[j], h[0], h[1] + 1 + (j // 4) % 7, src, kline))
    out += ["      ir:",
            "        work_per_thread: {flops: 96, transcendental: 2, bytes_read: 32, "
            "bytes_written: 16}",
            "        accesses:",
            "        - {id: 0, op: load, space: global, bytes_per_lane: 16, param: in, coalesced: true}",
            "        - {id: 1, op: load, space: global, bytes_per_lane: 16, param: weight, "
            "coalesced: true}",
            "        - {id: 2, op: store, space: global, bytes_per_lane: 16, param: out, "
            "coalesced: true}",
            "        barriers: 1"]
    return out


def write_sources(root, ntu, calls):
    """The files the records name, under root: a kernel definition per line
    100..499 of each kernel_family_TU.cu, and helpers.h (helper D at line
    10 D + 1, ten lines long)."""
    gen = os.path.join(root, "aiter", "csrc", "kernels", "generated")
    os.makedirs(gen, exist_ok=True)
    body = ["// generated for bench_site.py"] * 99
    body += ["template <typename T, int Id, int B, int V, bool R, aiter::Mode M> __global__ void "
             "kernel(T *out, const T *in, const T *w, const T *b, int rows, int cols) "
             "{ out[%d] = in[%d] * w[0]; }" % (n, n) for n in range(100, 500)]
    for tu in range(ntu):
        with open(os.path.join(gen, "kernel_family_%d.cu" % tu), "w") as f:
            f.write("\n".join(body) + "\n")
    inc = os.path.join(root, "aiter", "csrc", "include")
    os.makedirs(inc, exist_ok=True)
    lines = []
    for d in range(max(calls, 1)):
        lines += ["template <int B> __device__ void helper%d(float *p, int n) {" % d]
        lines += ["    p[threadIdx.x + %d] *= 2.0f; // step %d" % (s, s) for s in range(8)]
        lines += ["}"]
    with open(os.path.join(inc, "helpers.h"), "w") as f:
        f.write("\n".join(lines) + "\n")


def generate(build, src_root, n, calls, insns):
    test_index_big.write_build(build, n, calls)
    write_sources(src_root, (n + test_index_big.PER_TU - 1) // test_index_big.PER_TU, calls)
    rng = random.Random(1)
    helpers_h = os.path.join(src_root, "aiter", "csrc", "include", "helpers.h")
    helpers = [(helpers_h, 10 * d + 1) for d in range(max(calls, 1))]
    for dirpath, _, files in os.walk(build):
        for name in files:
            path = os.path.join(dirpath, name)
            text = open(path).read().replace("/src/aiter", os.path.join(src_root, "aiter"))
            out = []
            for line in text.splitlines():
                m = re.match(r"^  location: \{file: (\S+), line: (\d+)", line)
                if m:
                    src, kline = m.group(1), int(m.group(2))
                if line == "    gfx942: {}" or line == "    gfx950: {}":
                    out += arch_yaml(rng, line.split(":")[0].strip(), src, kline, helpers, insns)
                    continue
                out.append(line)
            with open(path, "w") as f:
                f.write("\n".join(out) + "\n")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("kwalk")
    ap.add_argument("--kernels", type=int, default=10000)
    ap.add_argument("--calls", type=int, default=8)
    ap.add_argument("--insns", type=int, default=400, help="instructions per kernel and arch")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--keep", help="generate into DIR and keep it (reused when DIR/big.db exists)")
    ap.add_argument("--out-dir", help="write the site there (e.g. on /dev/shm)")
    ap.add_argument("--perf", help="perf record -g the last run into this file")
    ap.add_argument("site_args", nargs="*", help="more `kwalk site` options (after --)")
    a = ap.parse_args()
    kwalk = os.path.abspath(a.kwalk)
    tmp = a.keep or tempfile.mkdtemp(prefix="kwalk-site-bench-")
    os.makedirs(tmp, exist_ok=True)
    try:
        db = os.path.join(tmp, "big.db")
        if not os.path.exists(db):
            build = os.path.join(tmp, "build")
            shutil.rmtree(build, ignore_errors=True)
            generate(build, os.path.join(tmp, "src"), a.kernels, a.calls, a.insns)
            p, t, u, s = timed([kwalk, "index", build, "-o", db], tmp)
            if p.returncode != 0:
                sys.exit("FAIL: kwalk index: exit %d: %s" % (p.returncode, p.stderr))
            print("kwalk index: %.2f s wall, %.2f s user, %.2f s system" % (t, u, s))
        out = a.out_dir or os.path.join(tmp, "site")
        best = None
        for i in range(max(1, a.repeat)):
            shutil.rmtree(out, ignore_errors=True)
            cmd = [kwalk, "site", "--db", db, "-o", out] + a.site_args
            if a.perf and i == a.repeat - 1:
                cmd = ["perf", "record", "-g", "-o", a.perf, "--"] + cmd
            p, t, u, s = timed(cmd, tmp)
            if p.returncode != 0:
                sys.exit("FAIL: kwalk site: exit %d: %s" % (p.returncode, p.stderr))
            print("  run %d: %.2f s wall, %.2f s user, %.2f s system" % (i + 1, t, u, s))
            if not (a.perf and i == a.repeat - 1) and (best is None or t < best[0]):
                best = (t, u, s)
        pages = [f for f in os.listdir(out) if f.endswith(".html")
                 and f not in ("index.html", "map.html", "instantiations.html")
                 and not f.endswith((".kernel.html", ".ir.html"))]
        size = sum(os.path.getsize(os.path.join(out, f)) for f in os.listdir(out))
        if len(pages) < a.kernels:
            sys.exit("FAIL: %d pages for %d kernels" % (len(pages), a.kernels))
        if best:
            print("%d pages (%d instructions per arch, 2 archs): kwalk site best of %d: %.2f s "
                  "wall, %.2f s user, %.2f s system; %.0f MB; %d CPUs, load average %.1f"
                  % (len(pages), a.insns, a.repeat, best[0], best[1], best[2], size / 1e6,
                     os.cpu_count(), os.getloadavg()[0]))
        if a.out_dir:
            shutil.rmtree(out, ignore_errors=True)
    finally:
        if not a.keep:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
