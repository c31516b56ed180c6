"""sitecustomize.py: start kwalk's Triton hook when KWALK_TRITON_DIR is set.

Python imports the first `sitecustomize` on sys.path at start-up; this one is
found when kwalk's python directory is on PYTHONPATH. It enables
kwalk_triton (which waits for `import triton`, importing nothing itself) and
then runs the sitecustomize it shadows, if any, so a distribution's own
start-up code still runs. It never raises.
"""


def _kwalk_start():
    import os
    import sys

    here = os.path.dirname(os.path.abspath(__file__))
    try:
        import kwalk_triton

        kwalk_triton.enable_from_env()
    except Exception as e:  # never break the interpreter's start-up
        sys.stderr.write("kwalk: warning: triton hook not started (%s: %s)\n" % (type(e).__name__, e))
    # Chain to the next sitecustomize on the path (the one this file shadows).
    try:
        import importlib.machinery
        import importlib.util

        rest = [p for p in sys.path if os.path.abspath(p or os.curdir) != here]
        spec = importlib.machinery.PathFinder.find_spec("sitecustomize", rest)
        if spec is not None and spec.loader is not None:
            mod = importlib.util.module_from_spec(spec)
            sys.modules["sitecustomize"] = mod
            spec.loader.exec_module(mod)
    except Exception as e:
        sys.stderr.write("kwalk: warning: the shadowed sitecustomize failed (%s: %s)\n" % (type(e).__name__, e))


_kwalk_start()
del _kwalk_start
