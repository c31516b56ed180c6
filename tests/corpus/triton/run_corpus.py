# run_corpus.py: the "user program" of kwalk's Triton corpus, run by
# scripts/triton-corpus.sh on a machine with Triton (3.6) and PyTorch.
#
#   python run_corpus.py --arch gfx942 --manifest FILE [--chain-debug DIR]
#
# Points Triton's active driver at GPUTarget("hip", ARCH, 64), then calls each
# op of model.py: Triton compiles each specialization for ARCH through the
# ordinary kernel[grid](...) path (the compile listener fires), and the launch
# then fails on a non-AMD GPU; that failure is expected and caught. The
# autotuned kernel is run once per config (its config list cut to that one
# config), since a two-config autotune would benchmark, and so launch, the
# first config before compiling the second. Appends to MANIFEST (JSON lines)
# what was passed: kernel, arch, tl.constexpr values and options per compile.
# With --chain-debug DIR it sets its own listener first and enables the hook
# by `kwalk_triton.enable(DIR)` (which must chain to it) instead of relying on
# KWALK_TRITON_DIR, and logs what Triton passes to listeners.
import argparse
import json
import os
import sys
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import torch  # noqa: E402
import triton  # noqa: E402
from triton.backends.compiler import GPUTarget  # noqa: E402

import autotuned  # noqa: E402
import model  # noqa: E402

GEMM_CONFIG = {
    "BLOCK_SIZE_M": 64,
    "BLOCK_SIZE_N": 64,
    "BLOCK_SIZE_K": 32,
    "GROUP_SIZE_M": 4,
    "num_warps": 4,
    "num_stages": 2,
    "waves_per_eu": 2,
    "matrix_instr_nonkdim": 16,
}


def cases(inp):
    """(id, kernel, constexprs, options, call) per compile, as passed."""
    yield ("norm", "_rms_norm_kernel", {"BLOCK_SIZE": 1024, "NUM_PRGMS": 32, "USE_WEIGHT": True},
           {"num_warps": 4}, lambda: model.input_norm(inp["x"], inp["w"]))  # KWT:OP norm
    yield ("quant", "_dynamic_per_token_quant_kernel", {"NUM_COL_POW2": 4096, "DTYPE_MAX": 127.0},
           {"num_warps": 8}, lambda: model.quantize_activations(inp["q"]))  # KWT:OP quant
    cx = {k: v for k, v in GEMM_CONFIG.items() if k.isupper()}
    opts = {k: v for k, v in GEMM_CONFIG.items() if not k.isupper()}
    yield ("gemm", "_gemm_a16w16_kernel", cx, opts,
           lambda: model.projection(inp["a"], inp["b"], GEMM_CONFIG))  # KWT:OP gemm
    for cfg in list(autotuned.CONFIGS):
        kw = dict(cfg.kwargs)
        opts = {"num_warps": cfg.num_warps, "num_stages": cfg.num_stages}
        if "waves_per_eu" in kw:
            opts["waves_per_eu"] = kw.pop("waves_per_eu")

        def call(cfg=cfg):
            autotuned._silu_and_mul_kernel.configs = [cfg]
            return model.mlp_gate(inp["s"], inp["s"])  # KWT:OP silu

        yield ("silu", "_silu_and_mul_kernel", kw, opts, call)


def debug_listener(**kw):
    src, md = kw.get("src"), kw.get("metadata")
    print("listener kwargs:", sorted(kw), "src:", type(src).__name__,
          "signature:", getattr(src, "signature", None), "constants:", getattr(src, "constants", None),
          "metadata:", type(md).__name__, "target:", repr(md.get("target") if isinstance(md, dict) else None),
          "cache_hit:", kw.get("cache_hit"))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--arch", required=True)
    ap.add_argument("--manifest", required=True)
    ap.add_argument("--chain-debug")
    args = ap.parse_args()
    print("triton", triton.__version__, "torch", torch.__version__, "python", sys.version.split()[0])
    if args.chain_debug:
        import kwalk_triton

        triton.knobs.compilation.listener = debug_listener
        kwalk_triton.enable(args.chain_debug)
    print("listener:", triton.knobs.compilation.listener)
    target = GPUTarget("hip", args.arch, 64)
    triton.runtime.driver.active.get_current_target = lambda: target
    inp = model.make_inputs("cuda")
    with open(args.manifest, "a") as mf:
        for cid, kernel, cx, opts, call in cases(inp):
            mf.write(json.dumps({"id": cid, "kernel": kernel, "arch": args.arch,
                                 "constexprs": cx, "options": opts}) + "\n")
            mf.flush()
            try:
                call()
                print(cid, args.arch, "launched (unexpected on a non-AMD GPU)")
            except Exception as e:
                last = traceback.extract_tb(e.__traceback__)[-1]
                print(cid, args.arch, "launch failed as expected:", type(e).__name__,
                      str(e).splitlines()[0][:200] if str(e) else "", "at %s:%d" % (last.filename, last.lineno))


if __name__ == "__main__":
    main()
