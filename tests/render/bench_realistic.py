#!/usr/bin/env python3
"""bench_realistic.py: `kwalk index` + `kwalk render --all` over a realistic
generated build of N kernel instantiations (realistic_build.py: renamed
copies of real sidecars and of their objects, zstd-compressed, so the index
reads real-sized sidecars and disassembles real code objects), with the
peak memory of each (/usr/bin/time -f %M); then an incremental re-index of
a build of S sidecars after one of them changed.

usage: bench_realistic.py KWALK --src DIR [--kernels N] [--sidecars S]
                          [--repeat R] [--out-dir DIR] [--keep DIR]
                          [--objdump PATH] [--site]

--site: also time `kwalk site` of the build (best of --repeat), into
--out-dir when given: the site's pages from real sidecars and code objects.
--objdump: also time that llvm-objdump disassembling every code object of
the build once (`-d --no-show-raw-insn`, one process, output discarded):
the work LLVM's own tool does for the listings alone, a floor for `kwalk
index` + `render --all`, which disassemble them with the same library.

--src: real sidecars (plain `*.kwalk.yaml`) with their objects, e.g. the
corpus sidecars of a build dir (`BUILD/corpus`, compiled with
compress=none). Not a test: it only fails when a command fails or the page
count is wrong. Prints wall and CPU (user + system) seconds, peak resident
memory and the load average; on a loaded machine CPU time is the figure to
compare. Measure with a Release or RelWithDebInfo build, never a sanitized
one.
"""
import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import realistic_build  # noqa: E402
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
from kwrun import timed  # noqa: E402


def measured(cmd, cwd):
    """(process, wall s, CPU s, peak RSS MB) of cmd run under /usr/bin/time;
    a failure ends the benchmark."""
    rss_file = os.path.join(cwd, "time.out")
    p, wall, user, system = timed(["/usr/bin/time", "-f", "%M", "-o", rss_file, *cmd], cwd)
    if p.returncode != 0:
        sys.exit(f"FAIL: {' '.join(cmd)}: exit {p.returncode}: {p.stderr[-2000:]}")
    with open(rss_file) as f:
        rss = int(f.read().split()[-1]) / 1024
    return p, wall, user + system, rss


def change_one(side):
    """Changes one sidecar's content (the producer's version), as a rebuild
    of its TU would."""
    plain = side[:-4] if side.endswith(".zst") else side
    if side.endswith(".zst"):
        subprocess.run(["zstd", "-q", "-d", "-f", side, "-o", plain], check=True)
    with open(plain, encoding="utf-8") as f:
        text = f.read()
    with open(plain, "w", encoding="utf-8") as f:
        f.write(text.replace('version: "0.1.0"', 'version: "0.1.1"', 1))
    if side.endswith(".zst"):
        subprocess.run(["zstd", "-q", "--rm", "-f", plain, "-o", side], check=True)


def objdump_floor(objdump, sources, sides, work):
    """(wall s, CPU s, instruction lines, code objects) of objdump
    disassembling each code object of the build once into /dev/null: each
    source's code objects (cut from its object, Source.cos) named once per
    copy of it in the build (a copy's code differs only in its kernels'
    names, which keep their length). The lines are counted on one run of
    each source's code objects, times its copies."""
    copies = {}
    for side in sides:  # .../<stem>_<copy>.o.kwalk.yaml[.zst]
        stem = os.path.basename(side).split(".o.kwalk.yaml")[0][:-3]
        copies[stem] = copies.get(stem, 0) + 1
    args, insns = [], 0
    for i, src in enumerate(sources):
        stem = os.path.basename(src.object)[:-2]
        for j, (at, size, _) in enumerate(src.cos):
            path = os.path.join(work, f"co{i}_{j}.o")
            with open(path, "wb") as f:
                f.write(src.obj[at:at + size])
            n = copies.get(stem, 0)
            if n:
                one = subprocess.run([objdump, "-d", "--no-show-raw-insn", path],
                                     capture_output=True, check=True).stdout
                insns += n * sum(1 for line in one.split(b"\n") if line.startswith(b"\t"))
            args += [path] * n
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    p = subprocess.run([objdump, "-d", "--no-show-raw-insn", *args], stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE)
    wall = time.perf_counter() - t
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode != 0:
        sys.exit(f"FAIL: {objdump}: exit {p.returncode}: {p.stderr[-2000:]}")
    cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    return wall, cpu, insns, len(args)


def best_run(cmd, out, repeat, cwd):
    """(wall s, CPU s, peak MB) of the fastest of `repeat` runs of cmd, which
    writes into out (emptied before each run)."""
    best = None
    for _ in range(max(1, repeat)):
        shutil.rmtree(out, ignore_errors=True)
        _, w, c, r = measured(cmd, cwd)
        if best is None or w < best[0]:
            best = (w, c, r)
    return best


def dir_mb(d):
    return sum(os.path.getsize(os.path.join(d, f)) for f in os.listdir(d)) / 1e6


def fmt(label, wall, cpu, rss):
    return f"{label}: {wall:.2f} s wall, {cpu:.2f} s CPU, {rss:.0f} MB peak"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("kwalk")
    ap.add_argument("--src", required=True)
    ap.add_argument("--kernels", type=int, default=10000)
    ap.add_argument("--sidecars", type=int, default=200)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--out-dir", help="write the pages there (e.g. on /dev/shm) instead of the temp dir")
    ap.add_argument("--keep")
    ap.add_argument("--objdump", help="llvm-objdump to time over the build's code objects")
    ap.add_argument("--site", action="store_true", help="also time kwalk site of the build")
    a = ap.parse_args()
    kwalk = os.path.abspath(a.kwalk)
    tmp = a.keep or tempfile.mkdtemp(prefix="kwalk-realistic-bench-")
    os.makedirs(tmp, exist_ok=True)
    try:
        build = os.path.join(tmp, "build")
        shutil.rmtree(build, ignore_errors=True)
        t = time.perf_counter()
        n, sides, sources, distinct = realistic_build.write_build(a.src, build, a.kernels)
        ysize = sum(os.path.getsize(s) for s in sides)
        print(f"generated {n} kernels ({distinct} distinct symbols) in {len(sides)} sidecars ({ysize / 1e6:.1f} MB compressed) "
              f"in {time.perf_counter() - t:.1f} s")
        db = os.path.join(tmp, "big.db")
        if os.path.exists(db):
            os.unlink(db)
        _, wi, ci, ri = measured([kwalk, "index", build, "-o", db], tmp)
        print(fmt("kwalk index", wi, ci, ri), f"(database {os.path.getsize(db) / 1e6:.0f} MB)")
        out = a.out_dir or os.path.join(tmp, "pages")
        best = best_run([kwalk, "render", "--all", "--db", db, "-o", out], out, a.repeat, tmp)
        pages = [f for f in os.listdir(out) if f.endswith(".md") and f != "index.md"]
        if len(pages) != distinct or not os.path.exists(os.path.join(out, "index.md")):
            sys.exit(f"FAIL: {len(pages)} pages for {distinct} kernels")
        print(fmt(f"kwalk render --all (best of {a.repeat})", *best), f"({len(pages) + 1} pages, {dir_mb(out):.0f} MB)")
        print(f"index + render --all: {wi + best[0]:.2f} s wall, {ci + best[1]:.2f} s CPU; "
              f"peak {max(ri, best[2]):.0f} MB")
        if a.out_dir:
            shutil.rmtree(out, ignore_errors=True)
        if a.site:
            best = best_run([kwalk, "site", "--db", db, "-o", out], out, a.repeat, tmp)
            pages = [f for f in os.listdir(out) if f.endswith(".html")
                     and f not in ("index.html", "map.html", "instantiations.html")
                     and not f.endswith((".kernel.html", ".ir.html"))]
            if len(pages) != distinct:
                sys.exit(f"FAIL: {len(pages)} site pages for {distinct} kernels")
            print(fmt(f"kwalk site (best of {a.repeat})", *best), f"({len(pages)} pages, {dir_mb(out):.0f} MB)")
            shutil.rmtree(out, ignore_errors=True)
        if a.objdump:
            work = os.path.join(tmp, "objdump")
            os.makedirs(work, exist_ok=True)
            w, c, insns, cos = objdump_floor(a.objdump, sources, sides, work)
            print(f"{a.objdump} -d of the build's {cos} code objects ({insns} instruction lines): "
                  f"{w:.2f} s wall, {c:.2f} s CPU")
            shutil.rmtree(work, ignore_errors=True)

        # incremental: a build of S sidecars, indexed, then one changed
        small = os.path.join(tmp, "small")
        shutil.rmtree(small, ignore_errors=True)
        per = n / len(sides)
        m, ssides, _, _ = realistic_build.write_build(a.src, small, int(a.sidecars * per * 1.2))
        ssides = ssides[:a.sidecars]
        for extra in sorted(set(_walk(small)) - set(ssides)):
            os.unlink(extra)
        sdb = os.path.join(tmp, "small.db")
        if os.path.exists(sdb):
            os.unlink(sdb)
        _, w0, c0, r0 = measured([kwalk, "index", small, "-o", sdb], tmp)
        _, w1, c1, r1 = measured([kwalk, "index", small, "-o", sdb], tmp)
        change_one(ssides[len(ssides) // 2])
        p, w2, c2, r2 = measured([kwalk, "index", small, "-o", sdb], tmp)
        print(f"{len(ssides)} sidecars: " + fmt("first index", w0, c0, r0) + "; " + fmt("nothing changed", w1, c1, r1)
              + "; " + fmt("one changed", w2, c2, r2) + f" [{p.stderr.strip() or p.stdout.strip()}]")
        load = os.getloadavg()
        print(f"{os.cpu_count()} CPUs, load average {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}")
    finally:
        if not a.keep:
            shutil.rmtree(tmp, ignore_errors=True)


def _walk(root):
    for d, _, files in os.walk(root):
        for f in files:
            if f.endswith(".kwalk.yaml.zst") or f.endswith(".kwalk.yaml"):
                yield os.path.join(d, f)


if __name__ == "__main__":
    main()
