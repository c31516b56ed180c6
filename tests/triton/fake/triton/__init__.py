"""A stand-in `triton` package for kwalk's hook tests (stdlib only).

It reproduces what Triton 3.6 does around its compile listener, as recorded
in ../shared/fixtures/triton-aiter-3.6/README.md: `triton.jit` makes a
JITFunction; kernel[grid](...) calls JITFunction.run(*args, grid=grid,
warmup=False, **kwargs) through a lambda; run binds the arguments, builds an
ASTSource (signature {name: type}, an int equal to 1 typed constexpr as
Triton specializes it, constants {(index,): value}, attrs),
"compiles" (writes a cache folder) and calls
triton.knobs.compilation.listener(src=, metadata=, metadata_group=, times=,
cache_hit=) before launching; the launch then fails (as on a non-AMD GPU)
with RuntimeError. `triton.autotune` and `triton.heuristics` wrap a JITFunction as Triton's
Autotuner and Heuristics do (runtime/autotuner.py). FAKE_TRITON_CACHE names
the cache folder.
"""

from . import knobs  # noqa: F401
from .runtime.autotuner import Config, autotune, heuristics  # noqa: F401
from .runtime.jit import JITFunction, jit  # noqa: F401
from .compiler import compile  # noqa: F401

__version__ = "3.6.0"
