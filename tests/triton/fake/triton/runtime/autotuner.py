"""autotuner.py (fake triton): Config and autotune; the Autotuner runs its
first config through JITFunction.run, as Triton's does with one config."""


class Config:
    def __init__(self, kwargs, num_warps=4, num_stages=2):
        self.kwargs, self.num_warps, self.num_stages = kwargs, num_warps, num_stages

    def all_kwargs(self):
        return dict(self.kwargs, num_warps=self.num_warps, num_stages=self.num_stages)


class Autotuner:
    def __init__(self, fn, configs):
        self.fn, self.configs = fn, configs

    def __getitem__(self, grid):
        return lambda *args, **kwargs: self.run(grid=grid, warmup=False, *args, **kwargs)

    def run(self, *args, **kwargs):
        return self.fn.run(*args, **kwargs, **self.configs[0].all_kwargs())


def autotune(configs, key):
    return lambda fn: Autotuner(fn, configs)
