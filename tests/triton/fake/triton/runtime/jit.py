"""jit.py (fake triton): JITFunction, calling the
compile path the way Triton 3.6's JIT does."""

import inspect

from .. import compiler

OPTION_NAMES = ("num_warps", "num_stages", "waves_per_eu", "matrix_instr_nonkdim")


class KernelParam:
    def __init__(self, p):
        self.name = p.name
        self.is_constexpr = "constexpr" in str(p.annotation)


class JITFunction:
    def __init__(self, fn):
        self.fn = fn
        self.__name__ = fn.__name__
        sig = inspect.signature(fn)
        self.params = [KernelParam(p) for p in sig.parameters.values()]
        self.arg_names = [p.name for p in self.params]
        self.target = compiler.GPUTarget("hip", "gfx942", 64)
        self.launch_error = RuntimeError("cannot launch a hip kernel on this device")

    def __getitem__(self, grid):
        return lambda *args, **kwargs: self.run(grid=grid, warmup=False, *args, **kwargs)

    def run(self, *args, grid, warmup, **kwargs):
        options = {k: kwargs.pop(k) for k in list(kwargs) if k in OPTION_NAMES}
        bound = inspect.signature(self.fn).bind(*args, **kwargs)
        bound.apply_defaults()
        signature, constants = {}, {}
        for i, p in enumerate(self.params):
            v = bound.arguments[p.name]
            if p.is_constexpr:
                signature[p.name] = "constexpr"
                constants[(i,)] = v
            elif type(v) is int and v == 1:  # Triton 3.6 specializes an int equal to 1
                signature[p.name] = "constexpr"
                constants[(i,)] = v
            elif isinstance(v, float):
                signature[p.name] = "fp32"
            elif isinstance(v, int):
                signature[p.name] = "i32"
            else:
                signature[p.name] = "*fp16"
        src = compiler.ASTSource(self, signature, constants, {(0,): [["tt.divisibility", 16]]})
        compiler.compile(src, self.target, options)
        if self.launch_error is not None:
            raise self.launch_error


def jit(fn):
    return JITFunction(fn)
