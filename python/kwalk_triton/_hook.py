"""_hook.py: register kwalk's listener with Triton, now or when it is imported.

enable(out) sets triton.knobs.compilation.listener to a listener that first
records the specialization (never raising) and then calls the listener that
was there before, unchanged. If triton is not imported yet, a meta-path
finder waits for `import triton` and registers right after it.
"""

import os
import sys

ENV_OUT = "KWALK_TRITON_DIR"

_state = {"out": None, "finder": None, "listener": None}


def _warn(msg):
    try:
        sys.stderr.write("kwalk: warning: %s\n" % msg)
        sys.stderr.flush()
    except Exception:
        pass


_ARG_NAMES = ("src", "metadata", "metadata_group", "times", "cache_hit")


def _make_listener(prev):
    def kwalk_listener(*args, **kwargs):
        got = {}
        try:
            got = dict(zip(_ARG_NAMES, args))
            got.update(kwargs)
            from ._capture import record

            record(_state["out"], got)
        except Exception as e:
            name = "?"
            try:
                src = got.get("src")
                name = getattr(getattr(src, "fn", None), "__name__", None) or getattr(src, "name", "?")
            except Exception:
                pass
            _warn("triton hook: no sidecar for %s (%s: %s)" % (name, type(e).__name__, e))
        if prev is not None:
            return prev(*args, **kwargs)
        return None

    kwalk_listener._kwalk_prev = prev
    return kwalk_listener


def _register(triton):
    """Chain our listener into triton.knobs.compilation.listener."""
    try:
        comp = triton.knobs.compilation
    except Exception:
        import importlib

        comp = importlib.import_module("triton.knobs").compilation
    prev = getattr(comp, "listener", None)
    if prev is not None and getattr(prev, "_kwalk_prev", 0) != 0:
        return  # already ours
    lis = _make_listener(prev)
    comp.listener = lis
    _state["listener"] = lis


class _TritonFinder:
    """Meta-path finder: lets `import triton` run, then registers."""

    def find_spec(self, name, path=None, target=None):
        if name != "triton":
            return None
        import importlib.abc
        import importlib.machinery  # noqa: F401

        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(name, path, target)
            if spec is not None:
                break
        else:
            return None
        loader = spec.loader
        if loader is None or not hasattr(loader, "exec_module"):
            return spec
        outer = self

        class _Loader(importlib.abc.Loader):
            def create_module(self, spec):
                return loader.create_module(spec)

            def exec_module(self, module):
                loader.exec_module(module)
                outer._after(module)

        spec.loader = _Loader()
        return spec

    def _after(self, module):
        try:
            _register(module)
        except Exception as e:
            _warn("triton hook: cannot register the compile listener (%s: %s)" % (type(e).__name__, e))
        try:
            sys.meta_path.remove(self)
        except ValueError:
            pass
        _state["finder"] = None


def enable(out):
    """Write sidecars to directory OUT for every Triton specialization."""
    if not out:
        raise ValueError("kwalk_triton.enable needs an output directory")
    _state["out"] = os.path.abspath(out)
    if "triton" in sys.modules and hasattr(sys.modules["triton"], "knobs"):
        _register(sys.modules["triton"])
    elif _state["finder"] is None:
        _state["finder"] = _TritonFinder()
        sys.meta_path.insert(0, _state["finder"])


def enable_from_env():
    """enable($KWALK_TRITON_DIR) when the variable is set and not empty."""
    out = os.environ.get(ENV_OUT, "")
    if out:
        enable(out)
    return bool(out)


def disable():
    """Put back the listener that was there before enable()."""
    if _state["finder"] is not None:
        try:
            sys.meta_path.remove(_state["finder"])
        except ValueError:
            pass
        _state["finder"] = None
    lis = _state["listener"]
    triton = sys.modules.get("triton")
    if lis is not None and triton is not None:
        comp = triton.knobs.compilation
        if comp.listener is lis:
            comp.listener = lis._kwalk_prev
    _state["listener"] = None
