#!/usr/bin/env python3
"""check_sidecar.py: the IR facts the plugin stores in the corpus sidecars
(kernels[].archs.gfx942.ir, from its OptimizerLast pass inside the real
compile) equal what kwir-dump finds, outside the compiler, in the optimized
device bitcode of the same TU (gen_ir.sh: --cuda-device-only -emit-llvm with
the corpus flags). The check_*.py tests tie kwir-dump's facts to the source;
this ties the sidecar to them: same kernels, and per kernel the same accesses,
cross-lane operations, idioms, barriers and loops. Parameter names differ by
design (the plugin names them from the source), so positions are compared.

usage: check_sidecar.py CORPUS_OUT_DIR    (env: KWIR_WORK)"""
import os
import sys

import yaml

# libyaml's loader when PyYAML has it (the same documents, many times faster)
YAML_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

TUS = ["rmsnorm_quant_kernels", "rope_kernels", "cache_kernels", "sample_kernels"]
ACCESS_KEYS = ["op", "space", "what", "type", "bytes_per_lane", "align", "param_index",
               "lane_stride_bytes", "wave_bytes", "segments_per_wave",
               "segments_per_wave_128", "coalesced", "active_lanes", "loop", "conditional"]
XLANE_KEYS = ["op", "intrinsic", "control", "row_mask", "bank_mask", "bound_ctrl", "loop"]
IDIOM_KEYS = ["kind", "op", "type", "via"]


def pick(items, keys):
    return [tuple(repr(x.get(k)) for k in keys) for x in (items or [])]


def main():
    corpus = sys.argv[1]
    work = os.environ["KWIR_WORK"]
    failures = checked = 0
    for tu in TUS:
        with open(os.path.join(work, tu + ".gfx942.yaml")) as f:
            dump = {k["symbol"]: k for k in yaml.load(f, Loader=YAML_LOADER)["kernels"]}
        with open(os.path.join(corpus, tu + ".o.kwalk.yaml")) as f:
            side = yaml.load(f, Loader=YAML_LOADER)
        ours = {k["symbol"]: k["archs"]["gfx942"].get("ir") for k in side["kernels"]
                if "gfx942" in k.get("archs", {})}
        if set(ours) != set(dump):
            print(f"FAIL: {tu}: kernels with IR facts differ: sidecar-only "
                  f"{sorted(set(ours) - set(dump))}, kwir-dump-only {sorted(set(dump) - set(ours))}")
            failures += 1
        for sym in sorted(set(ours) & set(dump)):
            a, b = ours[sym], dump[sym]
            if a is None:
                print(f"FAIL: {tu}: {sym}: no IR facts in the sidecar")
                failures += 1
                continue
            for what, keys in [("accesses", ACCESS_KEYS), ("cross_lane", XLANE_KEYS),
                               ("idioms", IDIOM_KEYS)]:
                checked += 1
                if pick(a.get(what), keys) != pick(b.get(what), keys):
                    print(f"FAIL: {tu}: {sym}: {what} differ:\n  sidecar  {pick(a.get(what), keys)}"
                          f"\n  kwir-dump {pick(b.get(what), keys)}")
                    failures += 1
            for key in ["barriers", "wave_size"]:
                checked += 1
                if a.get(key) != b.get(key):
                    print(f"FAIL: {tu}: {sym}: {key}: sidecar {a.get(key)} vs kwir-dump {b.get(key)}")
                    failures += 1
            checked += 1
            if len(a.get("loops") or []) != len(b.get("loops") or []):
                print(f"FAIL: {tu}: {sym}: loops: {len(a.get('loops') or [])} vs "
                      f"{len(b.get('loops') or [])}")
                failures += 1
            # the source's parameter names replaced the IR's positions
            names = [p.get("name") for p in a.get("params") or []]
            checked += 1
            if any(n is None or n.startswith("$") for n in names):
                print(f"FAIL: {tu}: {sym}: parameters not named from the source: {names}")
                failures += 1
    print(f"ir.sidecar: {checked} comparisons, {failures} failed")
    return 1 if failures or not checked else 0


if __name__ == "__main__":
    sys.exit(main())
