#!/usr/bin/env python3
"""bench_render.py: `kwalk index` + `kwalk render --all` over a generated
build of N kernel instantiations (the generator of tests/index/test_index_big.py:
realistic records, 50 kernels per sidecar, one launch each with its
configuration, arguments, guard and instantiation chain, an entry point per
sidecar). Checks that one page per instantiation and the index page were
written, then reports the times.

usage: bench_render.py KWALK [--kernels N] [--calls C] [--repeat R]
                       [--max-seconds S] [--keep DIR] [--out-dir DIR]

Wall and CPU (user + system) times are reported: on a loaded machine the CPU
time is the figure to compare.

--max-seconds fails the run when index + render --all (best of --repeat runs
of render) take longer. Measure with a Release build: a sanitized kwalk is
several times slower.
"""
import argparse
import os
import shutil
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "index"))
import test_index_big  # noqa: E402  (the generator)
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
from kwrun import timed  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("kwalk")
    ap.add_argument("--kernels", type=int, default=10000)
    ap.add_argument("--calls", type=int, default=8)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--max-seconds", type=float, default=0)
    ap.add_argument("--keep")
    ap.add_argument("--out-dir", help="write the pages there (e.g. on /dev/shm) instead of the temp dir")
    a = ap.parse_args()
    kwalk = os.path.abspath(a.kwalk)
    tmp = a.keep or tempfile.mkdtemp(prefix="kwalk-render-bench-")
    os.makedirs(tmp, exist_ok=True)
    try:
        build = os.path.join(tmp, "build")
        shutil.rmtree(build, ignore_errors=True)
        test_index_big.write_build(build, a.kernels, a.calls)
        p, t_index, u, s = timed([kwalk, "index", build, "-o", "big.db"], tmp)
        c_index = u + s
        if p.returncode != 0:
            sys.exit(f"FAIL: kwalk index: exit {p.returncode}: {p.stderr}")
        best = cpu = None
        out = a.out_dir or os.path.join(tmp, "pages")
        for _ in range(max(1, a.repeat)):
            shutil.rmtree(out, ignore_errors=True)
            p, t, u, s = timed([kwalk, "render", "--all", "--db", "big.db", "-o", out], tmp)
            c = u + s
            if p.returncode != 0:
                sys.exit(f"FAIL: kwalk render --all: exit {p.returncode}: {p.stderr}")
            best = t if best is None else min(best, t)
            cpu = c if cpu is None else min(cpu, c)
        pages = [f for f in os.listdir(out) if f.endswith(".md") and f != "index.md"]
        if len(pages) != a.kernels or not os.path.exists(os.path.join(out, "index.md")):
            sys.exit(f"FAIL: {len(pages)} pages for {a.kernels} kernels")
        size = sum(os.path.getsize(os.path.join(out, f)) for f in os.listdir(out))
        total = t_index + best
        load = os.getloadavg()[0]
        print(f"{a.kernels} kernels ({a.calls} calls each): kwalk index {t_index:.3f} s "
              f"(CPU {c_index:.3f} s), kwalk render --all {best:.3f} s (CPU {cpu:.3f} s; best of "
              f"{a.repeat}), total {total:.3f} s; {len(pages) + 1} pages, {size / 1e6:.1f} MB; "
              f"{os.cpu_count()} CPUs, load average {load:.1f}")
        if a.out_dir:
            shutil.rmtree(out, ignore_errors=True)
        if a.max_seconds and total > a.max_seconds:
            sys.exit(f"FAIL: {total:.3f} s > {a.max_seconds} s")
    finally:
        if not a.keep:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
