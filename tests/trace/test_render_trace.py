"""test_render_trace.py: `kwalk render --trace FILE` (section 4's "Measured"
subsection) and the bytes / bandwidth / bound figures of `kwalk trace`, on
rocprofv3 kernel traces written here in the documented column layout
(test_trace.COLUMNS) and in the JSON form.

Ground truth is computed here, never taken from kwalk:
  - dispatch count, total / median / min / max durations per instantiation
    and per launch configuration, from the durations drawn here;
  - bytes per dispatch: the sidecar's IR facts (kernels[].archs.<arch>.ir.
    work_per_thread.bytes_read + bytes_written, read with PyYAML) summed over
    the dispatch's threads: an integer times the threads, an expression
    evaluated here in Python for every threadIdx / blockIdx it names;
  - achieved bandwidth = bytes / median duration, the fraction of the arch's
    default product's hbm_tbs, the FP32 ridge point fp32_vector_tflops /
    hbm_tbs and the memory/compute classification, launch-bound when there
    are fewer workgroups than compute_units: all from
    annotations/hw/amdgpu-peaks.txt parsed here.
Also: a kernel with no dispatch in the trace says so; the candidates of an
ambiguous trace name say so; `render --all --trace` puts the same numbers in
the pages; a broken or missing trace file is one `kwalk: ...` line and exit 1.

Exit 0 when all checks hold, 1 otherwise, 77 when it cannot run.
"""
import glob
import math
import os
import random
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_trace as tt  # noqa: E402  (set-up, index, the CSV/JSON writers, demanglers)
from test_trace import Loader, yaml  # noqa: E402
HERE = os.path.dirname(os.path.abspath(__file__))
PEAKS = os.path.join(HERE, "..", "..", "annotations", "hw", "amdgpu-peaks.txt")


def read_peaks(path):
    """{product: {key: value}} of amdgpu-peaks.txt ("product NAME" blocks)."""
    out, cur = {}, None
    with open(path) as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            key, _, val = line.partition(" ")
            val = val.strip()
            if key == "product":
                cur = out.setdefault(val, {"default": False})
                continue
            if cur is None:
                continue
            if key == "default":
                cur["default"] = True
                continue
            try:
                cur[key] = float(val)
            except ValueError:
                cur[key] = val
    return out


def default_gpu(peaks, arch):
    cands = [(n, p) for n, p in peaks.items() if p.get("arch") == arch]
    for n, p in cands:
        if p["default"]:
            return n, p
    return cands[0] if cands else (None, None)


def ir_of(kernel, arch):
    a = (kernel.get("archs") or {}).get(arch) or {}
    ir = a.get("ir")
    if isinstance(ir, str):
        ir = yaml.load(ir, Loader=Loader)
    return ir or {}


def py_expr(text):
    """An IR expression (docs/ir-facts.md) as Python: names stay, ceil/floor/min/max."""
    return re.sub(r"\b(threadIdx|blockIdx|blockDim|gridDim)\.([xyz])\b", r"\1_\2", text)


def per_dispatch(value, block, grid, shape):
    """The total of a per-thread IR quantity over one dispatch (computed here)."""
    threads = block[0] * block[1] * block[2]
    blocks = grid[0] * grid[1] * grid[2]
    if isinstance(value, int):
        return value * threads * blocks
    code = compile(py_expr(str(value)), "<ir>", "eval")
    env = {"ceil": math.ceil, "floor": math.floor, "min": min, "max": max}
    env.update(shape)
    for d, n in zip("xyz", block):
        env["blockDim_" + d] = n
    for d, n in zip("xyz", grid):
        env["gridDim_" + d] = n
    by_t = "threadIdx" in value
    by_b = "blockIdx" in value
    total = 0.0
    for bz in range(grid[2] if by_b else 1):
        for by in range(grid[1] if by_b else 1):
            for bx in range(grid[0] if by_b else 1):
                env.update(blockIdx_x=bx, blockIdx_y=by, blockIdx_z=bz)
                for tz in range(block[2] if by_t else 1):
                    for ty in range(block[1] if by_t else 1):
                        for tx in range(block[0] if by_t else 1):
                            env.update(threadIdx_x=tx, threadIdx_y=ty, threadIdx_z=tz)
                            total += eval(code, env)
    return total * (1 if by_t else threads) * (1 if by_b else blocks)


def med(v):
    s = sorted(v)
    n = len(s)
    return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2


def us(ns):
    return "%.3f us" % (ns / 1000.0)


def section4(page):
    a = page.find("## 4. Memory Access Analysis")
    b = page.find("## 5. ", a)
    return page[a:b] if a >= 0 else ""


def measured(page):
    s4 = section4(page)
    a = s4.find("### Measured: rocprofv3 kernel trace")
    if a < 0:
        return ""
    b = s4.find("\n### ", a + 1)
    hw = s4.find("Hardware peaks", a)
    ends = [x for x in (b, hw) if x > 0]
    return s4[a:min(ends)] if ends else s4[a:]


def main():
    args, c, sidecars = tt.setup("test_render_trace")
    kernels = {}
    for s in sidecars:
        with open(s) as f:
            doc = yaml.load(f, Loader=Loader)
        for k in doc.get("kernels") or []:
            kernels.setdefault(k["symbol"], k)
    peaks = read_peaks(PEAKS)
    arch = "gfx942"
    gpu_name, gpu = default_gpu(peaks, arch)
    if not gpu:
        print("test_render_trace: no %s product in %s" % (arch, PEAKS))
        sys.exit(77)

    def by_sym(*parts):
        return next((s for s in sorted(kernels) if all(x in s for x in parts)), None)

    # An instantiation whose IR bytes per thread are integers, and one whose
    # bytes read are an expression of threadIdx.x and a kernel parameter.
    k_int = next((s for s in sorted(kernels) if "add_rmsnorm_quant_kernel" in s
                  and isinstance(ir_of(kernels[s], arch).get("work_per_thread", {})
                                 .get("bytes_read"), int)), None)
    k_expr = by_sym("20greedy_sample_kernelIfLi")
    k_none = by_sym("reshape_and_cache_kernelIf")
    k_amb = by_sym("17mix_sample_kernelIf")
    if not (k_int and k_expr and k_none and k_amb):
        print("test_render_trace: the corpus lacks the kernels this test names")
        sys.exit(77)
    w_expr = ir_of(kernels[k_expr], arch).get("work_per_thread", {})
    if not isinstance(w_expr.get("bytes_read"), str) or "vocab" not in w_expr["bytes_read"]:
        print("test_render_trace: %s's IR bytes are not an expression of vocab (%r)"
              % (k_expr, w_expr))
        sys.exit(77)
    dem = tt.demangle([k_expr])
    if not dem:
        print("test_render_trace: c++filt is missing")
        sys.exit(77)
    vocab = 5000
    shape = {"vocab": vocab}

    with tt.indexed(args, c, "kwalk-render-trace-") as (tmp, db):

        rng = random.Random(4321)
        t = 1700000000000000000
        plan = [  # (symbol, trace name, [(block, grid in work items)], count)
            (k_int, k_int, [((256, 1, 1), (256 * 4096, 1, 1)), ((256, 1, 1), (256 * 100, 1, 1))], 9),
            (k_expr, dem[k_expr], [((1024, 1, 1), (1024 * 8, 1, 1))], 4),
            (None, "mix_sample_kernel", [((1024, 1, 1), (1024 * 2, 1, 1))], 2),
            ("asm", "kw_asm_scale", [((256, 1, 1), (256 * 40, 1, 1))], 3),
        ]
        dispatches = []
        for kid, (sym, name, cfgs, count) in enumerate(plan):
            for i in range(count):
                block, grid = cfgs[i % len(cfgs)]
                t += rng.randrange(1000, 5000)
                dur = rng.randrange(2000, 400000)
                dispatches.append({"sym": sym, "trace_name": name, "kid": 10 + kid,
                                   "start": t, "end": t + dur, "block": block, "grid": grid})
                t += dur
        rng.shuffle(dispatches)
        csv = os.path.join(tmp, "run_kernel_trace.csv")
        tt.write_csv(csv, dispatches)
        js = os.path.join(tmp, "run_results.json")
        tt.write_json(js, [d for d in dispatches if d["sym"] and d["sym"] != "asm"],
                      {d["trace_name"]: d["sym"] for d in dispatches if d["sym"]})

        def expect(sym):
            """Per instantiation: stats and per configuration the numbers kwalk must print."""
            ds = [d for d in dispatches if d["sym"] == sym]
            durs = [d["end"] - d["start"] for d in ds]
            cfgs = {}
            for d in ds:
                wg = tuple(-(-g // b) for g, b in zip(d["grid"], d["block"]))
                cfgs.setdefault((wg, tuple(d["block"])), []).append(d["end"] - d["start"])
            w = ir_of(kernels[sym], arch).get("work_per_thread", {})
            out = {}
            for (wg, block), cd in cfgs.items():
                nbytes = (per_dispatch(w["bytes_read"], block, wg, shape)
                          + per_dispatch(w["bytes_written"], block, wg, shape))
                flops = per_dispatch(w["flops"], block, wg, shape)
                m = med(cd)
                tbs = nbytes / m / 1000.0
                ridge = gpu["fp32_vector_tflops"] / gpu["hbm_tbs"]
                out[(wg, block)] = {
                    "durs": cd, "bytes": nbytes, "tbs": tbs, "pct": 100 * tbs / gpu["hbm_tbs"],
                    "ai": flops / nbytes, "ridge": ridge,
                    "bound": "memory" if flops / nbytes < ridge else "compute",
                    "launch": wg[0] * wg[1] * wg[2] < gpu["compute_units"]}
            return durs, out

        def render(sym, extra):
            p = tt.run([args.kwalk, "render", sym, "--db", db] + extra)
            c.check(p.returncode == 0 and p.stderr == "",
                    "render %s %r: rc %d %r" % (sym, extra, p.returncode, p.stderr[:500]))
            return p.stdout

        def check_measured(page, sym, what, arch_known=True):
            m = measured(page)
            if not c.check(m, "%s: no Measured subsection in section 4" % what):
                return
            durs, cfgs = expect(sym)
            c.check("**%d dispatch%s** of this instantiation" % (len(durs), "" if len(durs) == 1
                                                                  else "es") in m,
                    "%s: dispatch count %d:\n%s" % (what, len(durs), m[:1500]))
            want = "total %s, median %s, min %s, max %s" % (us(sum(durs)), us(med(durs)),
                                                            us(min(durs)), us(max(durs)))
            c.check(want in m, "%s: %r not in\n%s" % (what, want, m[:1500]))
            for (wg, block), e in cfgs.items():
                dims = lambda v: "[%d, %d, %d]" % tuple(v)  # noqa: E731
                row = re.search(r"^\| %s \| %s \| ([^|]+) \| (\d+) \| ([^|]+) \| ([^|]+) \| ([^|]+)"
                                r" \| ([^|]+) \|$" % (re.escape(dims(wg)), re.escape(dims(block))),
                                m, re.M)
                if not c.check(row, "%s: no table row for %r in\n%s" % (what, (wg, block), m)):
                    continue
                cd = e["durs"]
                c.eq(int(row.group(2)), len(cd), "%s %r: dispatches" % (what, wg))
                c.eq([x.strip() for x in row.group(3, 4, 5, 6)],
                     [us(sum(cd)), us(med(cd)), us(min(cd)), us(max(cd))],
                     "%s %r: total/median/min/max" % (what, wg))
                line = re.search(r"^- Grid %s x workgroup %s: (.*)$" % (re.escape(dims(wg)),
                                                                        re.escape(dims(block))),
                                 m, re.M)
                if not c.check(line, "%s: no bytes line for %r" % (what, wg)):
                    continue
                text = line.group(1)
                if not arch_known:
                    c.check("give --gpu" in text and "bytes per dispatch not known" in text,
                            "%s %r: several archs, no arch in the trace: %r" % (what, wg, text))
                    continue
                c.check(text.startswith("%.0f bytes per dispatch" % e["bytes"]),
                        "%s %r: bytes %.0f: %r" % (what, wg, e["bytes"], text))
                c.check("%.3f TB/s achieved = %.1f%% of %s's %.2f TB/s peak"
                        % (e["tbs"], e["pct"], gpu_name, gpu["hbm_tbs"]) in text,
                        "%s %r: bandwidth %.3f TB/s %.1f%%: %r" % (what, wg, e["tbs"], e["pct"],
                                                                   text))
                c.check("%.3g FLOP per byte against %s's FP32 ridge point %.1f: **%s-bound**"
                        % (e["ai"], gpu_name, e["ridge"], e["bound"]) in text,
                        "%s %r: bound %s (%.3g vs %.1f): %r" % (what, wg, e["bound"], e["ai"],
                                                               e["ridge"], text))
                c.eq("**launch-bound**" in text, e["launch"], "%s %r: launch-bound" % (what, wg))

        # CSV: no arch in the trace; --arch picks gfx942's IR facts and peaks.
        for sym in (k_int, k_expr):
            page = render(sym, ["--trace", csv, "--arch", arch, "--shape", "vocab=%d" % vocab])
            check_measured(page, sym, "csv --arch %s" % sym)
            page = render(sym, ["--trace", csv, "--gpu", gpu_name, "--shape",
                                "vocab=%d" % vocab])
            check_measured(page, sym, "csv --gpu %s" % sym)
        # Several archs shown and the trace does not say which ran: counts, no
        # bytes; with the one arch of the build (clang 19: gfx942), that arch's.
        page = render(k_int, ["--trace", csv])
        n_archs = len(kernels[k_int].get("archs") or {})
        check_measured(page, k_int, "csv, %d archs" % n_archs, arch_known=n_archs == 1)
        # JSON: the arch comes from the agent.
        page = render(k_int, ["--trace", js])
        check_measured(page, k_int, "json")
        # An expression needing a name the trace cannot give: not known, with the reason.
        m = measured(render(k_expr, ["--trace", csv, "--arch", arch]))
        c.check("bytes per dispatch not known at this launch" in m and "--shape" in m,
                "expression without --shape: %r" % m[:1500])

        # No dispatch of this kernel.
        m = measured(render(k_none, ["--trace", csv, "--arch", arch]))
        c.check("**The trace has no dispatch of this kernel**" in m and k_none in m,
                "no dispatch: %r" % m[:800])
        c.check("dispatches** of this" not in m and "| Grid" not in m,
                "no dispatch: no figures: %r" % m[:800])
        # An ambiguous name (--truncate-kernels) whose candidates include k_amb.
        m = measured(render(k_amb, ["--trace", csv, "--arch", arch]))
        c.check("**The trace has no dispatch of this kernel**" in m
                and "2 dispatches named `mix_sample_kernel` may be this kernel's" in m,
                "ambiguous: %r" % m[:1200])
        # A precompiled ASM kernel (launched from asm_kernels.hip): joined by its
        # name in the code object; no IR facts, so no bytes.
        asm_launched = any(ln.get("asm_kernel") == "kw_asm_scale"
                           for s in sidecars for ln in (yaml.load(open(s), Loader=Loader)
                                                        .get("launches") or []))
        if asm_launched:
            m = measured(render("kw_asm_scale", ["--trace", csv]))
            durs = [d["end"] - d["start"] for d in dispatches if d["sym"] == "asm"]
            c.check("**%d dispatches** of this instantiation" % len(durs) in m
                    and "total %s, median %s" % (us(sum(durs)), us(med(durs))) in m
                    and "bytes per dispatch not known (no IR facts)" in m,
                    "ASM kernel kw_asm_scale: %r" % m[:1500])
        else:
            c.notes.append("the corpus has no ASM launch of kw_asm_scale: not checked")
        # Without --trace, no subsection.
        c.check(not measured(render(k_int, [])), "no --trace: no Measured subsection")

        # render --all --trace: the pages carry the same numbers.
        out = os.path.join(tmp, "pages")
        p = tt.run([args.kwalk, "render", "--all", "-o", out, "--db", db, "--trace", csv,
                    "--gpu", gpu_name, "--shape", "vocab=%d" % vocab])
        c.check(p.returncode == 0, "render --all --trace: rc %d %r" % (p.returncode, p.stderr))
        pages = {}
        for path in glob.glob(os.path.join(out, "*.md")):
            with open(path, encoding="utf-8") as f:
                text = f.read()
            sym = re.search(r"^\| Device symbol \| `([^`]+)` \|", text, re.M)
            if sym:
                pages[sym.group(1)] = text
        for sym in (k_int, k_expr):
            if c.check(sym in pages, "render --all: no page for %s" % sym):
                check_measured(pages[sym], sym, "all %s" % sym)
        if c.check(k_none in pages, "render --all: no page for %s" % k_none):
            c.check("**The trace has no dispatch of this kernel**" in measured(pages[k_none]),
                    "render --all: no dispatch of %s" % k_none)

        # kwalk trace --format yaml: the same arithmetic (kw_perf.c) on the JSON form.
        p = tt.run([args.kwalk, "trace", js, "--db", db, "--format", "yaml", "--shape",
                    "vocab=%d" % vocab])
        rep = yaml.load(p.stdout, Loader=Loader) if p.returncode == 0 else {}
        got = {k["symbol"]: k for k in rep.get("kernels") or []}
        for sym in (k_int, k_expr):
            durs, cfgs = expect(sym)
            k = got.get(sym)
            if not c.check(k, "kwalk trace: %s not joined" % sym):
                continue
            for x in k.get("launch_configs") or []:
                e = cfgs.get((tuple(x["grid_workgroups"]), tuple(x["workgroup_size"])))
                if not c.check(e, "kwalk trace: unexpected config %r" % x):
                    continue
                c.eq(x.get("bytes_moved"), round(e["bytes"]), "kwalk trace %s bytes" % sym)
                c.check(abs(x.get("achieved_tbs", -1) - e["tbs"]) <= 1e-5 * e["tbs"],
                        "kwalk trace %s tbs %r vs %r" % (sym, x.get("achieved_tbs"), e["tbs"]))
                c.check(abs(x.get("percent_of_peak", -1) - e["pct"]) <= 1e-3 * e["pct"],
                        "kwalk trace %s percent %r vs %r" % (sym, x.get("percent_of_peak"),
                                                            e["pct"]))
                c.eq(x.get("bound"), e["bound"], "kwalk trace %s bound" % sym)
                c.eq(x.get("launch_bound"), e["launch"], "kwalk trace %s launch_bound" % sym)

        # Broken and missing trace files: one line, exit 1, nothing on stdout.
        bad = os.path.join(tmp, "broken.csv")
        with open(bad, "w") as f:
            f.write(",".join('"%s"' % x for x in tt.COLUMNS) + "\n" + '"KERNEL_DISPATCH",1,2\n')
        trunc = os.path.join(tmp, "trunc.json")
        with open(trunc, "w") as f:
            f.write('{"rocprofiler-sdk-tool": [{"buffer_records": {"kernel_dispatch": [')
        for path in (bad, trunc, os.path.join(tmp, "missing.csv")):
            for extra in ([k_int], ["--all", "-o", os.path.join(tmp, "bad-pages")]):
                p = tt.run([args.kwalk, "render"] + extra + ["--db", db, "--trace", path])
                err = p.stderr.splitlines()
                c.check(p.returncode == 1 and p.stdout == "" and len(err) == 1
                        and err[0].startswith("kwalk: %s: " % path),
                        "bad trace %s %r: rc %d, stdout %r, stderr %r"
                        % (os.path.basename(path), extra[:1], p.returncode, p.stdout[:200],
                           p.stderr))
        p = tt.run([args.kwalk, "render", k_int, "--db", db, "--trace"])
        c.check(p.returncode == 2 and p.stderr.startswith("kwalk: render: "),
                "--trace without a file: rc %d %r" % (p.returncode, p.stderr))
    c.finish()


if __name__ == "__main__":
    main()
