#!/usr/bin/env python3
"""test_index_big.py: a generated build of N kernel instantiations (realistic
records: template arguments, parameters, a device call tree with locations,
one launch per kernel with its configuration, arguments, guards and
instantiation chain), spread over sidecars of 50 kernels each. Runs
`kwalk index` and `kwalk list` on it, checks that list prints one line per
kernel with the right reachability, and reports the times.

usage: test_index_big.py KWALK [--kernels N] [--calls C] [--max-list-seconds S] [--keep DIR]

--calls is the number of device call edges per kernel (8 by default; the
kernels of tests/corpus have about 50 each).
"""
import argparse
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from kwrun import timed  # noqa: E402

PER_TU = 50


def q(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def kernel_yaml(i, tu, calls):
    sym = f"_ZN5aiter6kernelIfLi{i}ELi256ELi4ELb1ENS_4ModeE0EEvPT_PKS2_S5_ii"
    name = f"aiter::kernel<float, {i}, 256, 4, true, aiter::Mode::Plain>"
    src = f"/src/aiter/csrc/kernels/generated/kernel_family_{tu}.cu"
    out = [
        f"- symbol: {sym}",
        f"  name: {q(name)}",
        "  template: aiter::kernel",
        f"  location: {{file: {src}, line: {100 + i % 400}, column: 17}}",
        f"  doc: {q('Generated kernel number ' + str(i) + ': one row per block.')}",
        "  template_args:",
        "  - {name: T, kind: type, value: float, defaulted: false}",
        f"  - {{name: Id, kind: value, value: \"{i}\", defaulted: false}}",
        "  - {name: BlockSize, kind: value, value: \"256\", defaulted: false}",
        "  - {name: Vec, kind: value, value: \"4\", defaulted: true}",
        "  - {name: Mode, kind: value, value: 'aiter::Mode::Plain', defaulted: false}",
        "  params:",
        "  - {name: out, type: float *}",
        "  - {name: in, type: const float *__restrict}",
        "  - {name: weight, type: const float *__restrict}",
        "  - {name: bias, type: const float *__restrict}",
        "  - {name: rows, type: int}",
        "  - {name: cols, type: int}",
        "  attrs:",
        "  - {name: launch_bounds, value: \"256\"}",
        "  - {name: amdgpu_flat_work_group_size, value: \"1,256\"}",
        "  shared:",
        "  - name: smem",
        "    type: float[256]",
        "    bytes: 1024",
        f"    function: {q(name)}",
        f"    location: {{file: {src}, line: {110 + i % 400}, column: 5}}",
        "  calls:",
    ]
    for d in range(calls):
        out += [
            f"  - caller: {sym}",
            f"    name: aiter::detail::helper{d}<256>",
            f"    symbol: _ZN5aiter6detail7helper{d}ILi256EEEvPfi",
            f"    depth: {1 + d % 3}",
            f"    system: {'true' if d % 8 == 7 else 'false'}",
            f"    location: {{file: {src}, line: {120 + d}, column: 9}}",
            f"    callee_location: {{file: /src/aiter/csrc/include/helpers.h, line: {10 * d + 1}, column: 1}}",
        ]
    out += ["  archs:", "    gfx942: {}", "    gfx950: {}"]
    return out, sym, name


def launch_yaml(i, tu, sym, name):
    src = f"/src/aiter/csrc/py_itfs/family_{tu}.cu"
    fn = f"_ZN5aiter6launchILi{i}EEEvRN2at6TensorE"
    return [
        f"- kernel: {sym}",
        f"  kernel_name: {q(name)}",
        "  kind: triple_chevron",
        f"  location: {{file: {src}, line: {200 + i % PER_TU}, column: 5}}",
        f"  function: {q(f'aiter::launch<{i}>(at::Tensor &)')}",
        f"  function_symbol: {fn}",
        "  instantiation_chain:",
        f"  - {{function: {q('dispatch_' + str(tu) + '(at::Tensor &)')}, symbol: _Z10dispatch_{tu}v, "
        f"location: {{file: {src}, line: 300, column: 3}}}}",
        "  config:",
        "    grid: {expr: dim3(rows), value: [4096, 1, 1]}",
        "    block: {expr: \"256\", value: [256, 1, 1]}",
        "    shared_mem: {expr: \"0\", value: 0}",
        "    stream: {expr: stream}",
        "  args:",
        "  - {param: out, expr: out.data_ptr<float>()}",
        "  - {param: in, expr: in.data_ptr<float>()}",
        "  - {param: rows, expr: rows}",
        "  guards:",
        f"  - {{kind: if, condition: id == {i}, holds: true, location: {{file: {src}, line: {199 + i % PER_TU}, column: 3}}}}",
    ], fn


def write_build(root, n, calls):
    ntu = (n + PER_TU - 1) // PER_TU
    for tu in range(ntu):
        lines = [
            "kwalk_schema: 1",
            'producer: {name: kwalk, version: "0.1.0", clang_version: "22.1.8"}',
            f"translation_unit: {{source: /src/aiter/csrc/py_itfs/family_{tu}.cu, object: family_{tu}.o, "
            f"cuid: c{tu:06x}, offload_archs: [gfx942, gfx950]}}",
            "kernels:",
        ]
        launches, host_calls = [], []
        for i in range(tu * PER_TU, min(n, (tu + 1) * PER_TU)):
            k, sym, name = kernel_yaml(i, tu, calls)
            lines += k
            l, fn = launch_yaml(i, tu, sym, name)
            launches += l
            host_calls.append(f"- {{caller: _Z10dispatch_{tu}v, callee: {fn}, "
                              f"location: {{file: /src/x.cu, line: {i}, column: 1}}}}")
        lines.append("launches:")
        lines += launches
        lines.append("entries:")
        lines.append(f"- {{name: op_{tu}, kind: pybind, module: aiter, function: op_{tu}, "
                     f"function_symbol: _Z5op_{tu}v}}")
        lines.append("host_calls:")
        lines.append(f"- {{caller: _Z5op_{tu}v, callee: _Z10dispatch_{tu}v}}")
        lines += host_calls
        lines.append("...")
        d = os.path.join(root, f"dir{tu % 10}")
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, f"family_{tu}.kwalk.yaml"), "w") as f:
            f.write("\n".join(lines) + "\n")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("kwalk")
    ap.add_argument("--kernels", type=int, default=10000)
    ap.add_argument("--calls", type=int, default=8)
    ap.add_argument("--max-list-seconds", type=float, default=0)
    ap.add_argument("--keep")
    a = ap.parse_args()
    tmp = a.keep or tempfile.mkdtemp(prefix="kwalk-big-")
    os.makedirs(tmp, exist_ok=True)
    try:
        build = os.path.join(tmp, "build")
        shutil.rmtree(build, ignore_errors=True)
        write_build(build, a.kernels, a.calls)
        p, t_index, _, _ = timed([a.kwalk, "index", build], tmp)
        if p.returncode != 0:
            sys.exit(f"FAIL: kwalk index: exit {p.returncode}: {p.stderr}")
        size = os.path.getsize(os.path.join(tmp, "kwalk.db"))
        best = None
        for _ in range(3):
            p, t_list, _, _ = timed([a.kwalk, "list"], tmp)
            if p.returncode != 0:
                sys.exit(f"FAIL: kwalk list: exit {p.returncode}: {p.stderr}")
            best = t_list if best is None else min(best, t_list)
        lines = p.stdout.splitlines()
        if len(lines) != a.kernels:
            sys.exit(f"FAIL: {len(lines)} lines for {a.kernels} kernels")
        for line in lines:
            f = line.split("\t")
            if len(f) != 8 or f[2] != "gfx942,gfx950" or f[5:] != ["-", "hip", "-"]:
                sys.exit(f"FAIL: bad line {line!r}")
            i = int(f[1].split("Li")[1].split("E")[0])
            tu = i // PER_TU
            want = f"/src/aiter/csrc/py_itfs/family_{tu}.cu:{200 + i % PER_TU}"
            if f[3] != want or f[4] != f"pybind:aiter.op_{tu}":
                sys.exit(f"FAIL: kernel {i}: {f[3]!r} {f[4]!r}")
        print(f"{a.kernels} kernels ({a.calls} calls each), {(a.kernels + PER_TU - 1) // PER_TU} sidecars, "
              f"index {size / 1e6:.1f} MB: kwalk index {t_index:.2f} s, kwalk list {best:.3f} s")
        if a.max_list_seconds and best > a.max_list_seconds:
            sys.exit(f"FAIL: kwalk list took {best:.3f} s > {a.max_list_seconds} s")
    finally:
        if not a.keep:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
