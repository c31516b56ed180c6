"""kwalk_triton: kwalk's capture hook for Triton kernels (stdlib only).

Registers triton.knobs.compilation.listener (Triton >= 3.4) and writes one
kwalk sidecar per compiled or cache-hit specialization: the @triton.jit
definition, signature, constexpr values, options, cache files, and the
Python frame that launched kernel[grid](...) with the call chain above it.

Enable it with KWALK_TRITON_DIR=DIR (the directory the sidecars go to) and
this package's parent directory on PYTHONPATH (its sitecustomize.py then
calls enable() at start-up), or from code:

    import kwalk_triton
    kwalk_triton.enable("DIR")

The hook never changes what Triton does and never raises into the program:
its own failures become one `kwalk: warning:` line on stderr. See
docs/triton.md ("Capture with the hook").
"""

from ._hook import ENV_OUT, disable, enable, enable_from_env

__all__ = ["ENV_OUT", "enable", "disable", "enable_from_env"]
