# real_triton_check.py: the launch shapes of triton.launch_shapes, run inside
# real Triton (3.6) with kwalk's hook installed as docs/triton.md says
# (KWALK_TRITON_DIR and python/ on PYTHONPATH: sitecustomize.py enables it).
# Run by scripts/triton-real.sh on a machine with Triton, PyTorch and a GPU.
#
#   python real_triton_check.py --target hip|cuda --frames FILE
#
# --target hip points Triton's active driver at GPUTarget("hip", "gfx942",
# 64): each kernel[grid](...) compiles for gfx942 through the ordinary launch
# path (the compile listener fires), then the launch fails on a non-AMD GPU,
# which is expected and caught. --target cuda compiles for the GPU at hand
# and launches for real: the two-config autotune benchmarks both configs
# there, as it does on an AMD GPU. Both end with a direct triton.compile(...)
# for gfx942. The package under real/ is laid out as aiter's
# (_triton_kernels/ the @triton.jit kernels, ops/ the wrappers); markers
# `# KWT:KIND id` tie each fact to its line. --frames FILE gets the source of
# the Triton functions between the launch and the listener, as installed.
import argparse
import inspect
import os
import sys
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "real"))

import torch  # noqa: E402
import triton  # noqa: E402
from triton.backends.compiler import GPUTarget  # noqa: E402
from triton.compiler import ASTSource  # noqa: E402

from pkg._triton_kernels.gemm import _probe_kernel  # noqa: E402
from pkg.ops.gemm import gemm_a8w8, pa_decode, silu_and_mul, table_op  # noqa: E402
from pkg.ops.quant import act_quant  # noqa: E402
from pkg.ops.rope import rope_fwd  # noqa: E402


def frames_source(path):
    """The installed Triton's code on the way from kernel[grid](...) to the
    listener, for the record."""
    from triton.runtime import autotuner, jit

    parts = [("KernelInterface.__getitem__", jit.KernelInterface.__getitem__),
             ("JITFunction.run", jit.JITFunction.run),
             ("Autotuner.run", autotuner.Autotuner.run),
             ("Autotuner._bench", autotuner.Autotuner._bench),
             ("Heuristics.run", autotuner.Heuristics.run)]
    with open(path, "w") as f:
        f.write("triton %s (%s), torch %s, python %s\n" % (triton.__version__, triton.__file__,
                                                         torch.__version__, sys.version.split()[0]))
        f.write("listener: %r\n" % (triton.knobs.compilation.listener,))
        for name, fn in parts:
            try:
                src = inspect.getsource(fn)
            except (OSError, TypeError) as e:
                src = "(no source: %s)\n" % e
            f.write("==== %s (%s)\n%s\n" % (name, inspect.getsourcefile(fn), src))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--target", choices=("hip", "cuda"), required=True)
    ap.add_argument("--frames")
    args = ap.parse_args()
    if args.frames:
        frames_source(args.frames)
    if args.target == "hip":
        target = GPUTarget("hip", "gfx942", 64)
        triton.runtime.driver.active.get_current_target = lambda: target
    dev = "cuda"
    t = lambda *shape: torch.randn(*shape, device=dev)  # noqa: E731
    ops = [("rope", lambda: rope_fwd(t(8, 4, 64), t(8, 4, 64))),
           ("quant", lambda: act_quant(t(32, 2, 128), t(32, 2, 128))),
           ("gemm", lambda: gemm_a8w8(t(256), t(256), t(256), 256, 256, 512)),
           ("pa", lambda: pa_decode(t(64), t(64), t(64), 7)),
           ("silu", lambda: silu_and_mul(t(4096), t(4096), 4096)),
           ("table", lambda: table_op(t(32), "bf16"))]
    for name, op in ops:
        try:
            op()
            torch.cuda.synchronize()
            print(name, args.target, "launched")
        except Exception as e:
            last = traceback.extract_tb(e.__traceback__)[-1]
            print(name, args.target, "launch failed:", type(e).__name__,
                  (str(e).splitlines() or [""])[0][:200], "at %s:%d" % (last.filename, last.lineno))
    triton.compile(ASTSource(_probe_kernel, {"x_ptr": "*fp32", "B": "constexpr"}, {(1,): 64}),  # KWT:COMPILE probe
                   target=GPUTarget("hip", "gfx942", 64))
    print("PROGRAM-DONE")


if __name__ == "__main__":
    main()
