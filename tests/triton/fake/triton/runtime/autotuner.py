"""autotuner.py (fake triton): Config, autotune and heuristics, shaped as
Triton 3.6's: Autotuner.run benchmarks each config through _bench (a
kernel_call closure calling JITFunction.run with the config's kwargs; a
failed launch raises through, as in 3.6), keeps the best as best_config
and runs it; Heuristics.run sets each value's keyword from its function of
the arguments, then calls the function it wraps."""


class Config:
    def __init__(self, kwargs, num_warps=4, num_stages=2):
        self.kwargs, self.num_warps, self.num_stages = kwargs, num_warps, num_stages

    def all_kwargs(self):
        return dict(self.kwargs, num_warps=self.num_warps, num_stages=self.num_stages)


class KernelInterface:
    def __getitem__(self, grid):
        return lambda *args, **kwargs: self.run(grid=grid, warmup=False, *args, **kwargs)


class Autotuner(KernelInterface):
    def __init__(self, fn, arg_names, configs, key):
        self.fn, self.arg_names, self.configs, self.keys = fn, arg_names, configs, key
        self.best_config = None

    def _bench(self, *args, config, **meta):
        current = dict(meta, **config.all_kwargs())

        def kernel_call():
            self.fn.run(*args, **current)

        # Triton 3.6 times only what launched: a failed launch (a HIP kernel
        # on a non-AMD GPU) leaves the benchmark, and so the autotuner, before
        # the next config compiles (tests/triton/real/sidecars-hip)
        kernel_call()
        return float(self.configs.index(config))

    def run(self, *args, **kwargs):
        if len(self.configs) > 1:
            timings = {i: self._bench(*args, config=c, **kwargs) for i, c in enumerate(self.configs)}
            config = self.configs[min(timings, key=timings.get)]
        else:
            config = self.configs[0]
        self.best_config = config
        return self.fn.run(*args, **kwargs, **config.all_kwargs())


def autotune(configs, key):
    return lambda fn: Autotuner(fn, fn.arg_names, configs, key)


class Heuristics(KernelInterface):
    def __init__(self, fn, arg_names, values):
        self.fn, self.arg_names, self.values = fn, arg_names, values

    def run(self, *args, **kwargs):
        for v, heur in self.values.items():
            kwargs[v] = heur({**dict(zip(self.arg_names, args)), **kwargs})
        return self.fn.run(*args, **kwargs)


def heuristics(values):
    return lambda fn: Heuristics(fn, fn.arg_names, values)
