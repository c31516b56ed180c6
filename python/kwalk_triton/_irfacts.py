"""_irfacts.py: the IR facts of a specialization's NAME.llir (docs/ir-facts.md),
from kwalk-irfacts, for the hook's sidecar (docs/triton.md).

derive(files, name, arch, wave, names) -> (lines, note): `lines` the kernel's
`ir:` mapping as kwalk-irfacts wrote it (YAML lines, indented from column 0)
or None, `note` one line saying why not (`IR facts: ...`) or None. The tool is
KWALK_IRFACTS when set (`off`: none), else the kwalk-irfacts installed beside
kwalk (<prefix>/bin, this package being <prefix>/share/kwalk/python/...), else
the one on PATH. It is stopped after TIMEOUT_S seconds or MAX_OUT bytes of
output; nothing here raises.
"""

import os
import re
import shutil
import subprocess
import tempfile
import time

TIMEOUT_S = 60
MAX_OUT = 64 << 20


def _beside_kwalk():
    here = os.path.dirname(os.path.abspath(__file__))  # <prefix>/share/kwalk/python/kwalk_triton
    prefix = os.path.normpath(os.path.join(here, "..", "..", "..", ".."))
    tool = os.path.join(prefix, "bin", "kwalk-irfacts")
    return tool if os.path.isfile(tool) and os.access(tool, os.X_OK) else None


def find_tool():
    """(path, None) or (None, why)."""
    env = os.environ.get("KWALK_IRFACTS")
    if env == "off":
        return None, "not derived (KWALK_IRFACTS=off)"
    if env:
        if os.path.isfile(env) and os.access(env, os.X_OK):
            return env, None
        return None, "KWALK_IRFACTS=%s is not an executable file" % env
    tool = _beside_kwalk() or shutil.which("kwalk-irfacts")
    if tool:
        return tool, None
    return None, "kwalk-irfacts not found (beside kwalk, on PATH or in KWALK_IRFACTS)"


def _record(text, name):
    """The lines of the `kernels:` item whose symbol is name, dedented."""
    lines = text.splitlines()
    if not lines or lines[0].rstrip() != "kernels:":
        return None
    items, cur = [], None
    for line in lines[1:]:
        if line.startswith("- "):
            cur = ["  " + line[2:]]
            items.append(cur)
        elif line.startswith("  ") and cur is not None:
            cur.append(line)
        elif line.strip() in ("", "..."):
            continue
        else:
            return None
    # `symbol: NAME`, with an anchor (`&0 NAME`) or quoted; the record's
    # anchors are its own: kwalk-irfacts writes one kernel per .llir here
    sym = re.compile(r'symbol: (?:&\w+ )?"?%s"?$' % re.escape(name))
    for item in items:
        body = [x[2:] for x in item]
        if any(sym.match(x) for x in body):
            return body
    return None


def _too_much():
    size = "%d MiB" % (MAX_OUT >> 20) if MAX_OUT % (1 << 20) == 0 else "%d bytes" % MAX_OUT
    return "kwalk-irfacts wrote more than " + size


def _stop(p):
    try:
        p.kill()
        p.wait(timeout=5)
    except (OSError, subprocess.TimeoutExpired):
        pass


def _run(tool, argv):
    """(stdout text, None) or (None, why). Output goes to a temporary file,
    watched while the tool runs: stopped past TIMEOUT_S or MAX_OUT bytes."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        try:
            p = subprocess.Popen([tool] + argv, stdin=subprocess.DEVNULL, stdout=out, stderr=err)
        except OSError as e:
            return None, "cannot run %s (%s)" % (tool, e.strerror or e)
        deadline = time.monotonic() + TIMEOUT_S
        while True:
            try:
                rc = p.wait(timeout=0.05)
                break
            except subprocess.TimeoutExpired:
                pass
            if os.fstat(out.fileno()).st_size > MAX_OUT:
                _stop(p)
                return None, _too_much()
            if time.monotonic() > deadline:
                _stop(p)
                return None, "kwalk-irfacts stopped after %d s" % TIMEOUT_S
        if os.fstat(out.fileno()).st_size > MAX_OUT:
            return None, _too_much()
        out.seek(0)
        err.seek(0)
        if rc != 0:
            lines = err.read(4096).decode("utf-8", "replace").strip().splitlines()
            return None, lines[0] if lines else "kwalk-irfacts exited with %d" % rc
        return out.read().decode("utf-8", "replace"), None


def _derive(files, name, arch, wave, names):
    llir = [p for p in files if os.path.basename(p) == name + ".llir"]
    if not llir:
        return None, "no NAME.llir in the cache folder"
    tool, why = find_tool()
    if not tool:
        return None, why
    argv = []
    if arch:
        argv += ["--arch", arch]
    if wave in (32, 64):
        argv += ["--wave", str(wave)]
    argv += ["--names", ",".join(names), llir[0]]
    text, why = _run(tool, argv)
    if text is None:
        return None, why
    body = _record(text, name)
    if body is None:
        return None, "kwalk-irfacts' output has no kernel %s" % name
    return body, None


def derive(files, name, arch, wave, names):
    try:
        lines, why = _derive(files, name, arch, wave, names)
    except Exception as e:  # never into the user's program
        lines, why = None, "%s: %s" % (type(e).__name__, e)
    return lines, None if lines is not None else "IR facts: " + why
