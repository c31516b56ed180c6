"""_yaml.py: the hook's hand-written YAML emitter (stdlib only).

Writes the sidecar layout of docs/sidecar-schema.md: block mappings and
sequences (sequences not indented), flow mappings for small records, strings
plain when they are a simple word and double-quoted otherwise, ints plain,
booleans true/false, and the end marker `...`. A None value is left out
(absent means unknown).
"""

import json
import re

_WORD = re.compile(r"[A-Za-z_/][A-Za-z0-9_./+-]*\Z")
_RESERVED = {"true", "false", "null", "yes", "no", "on", "off", "y", "n", "~"}


class Raw:
    """A block mapping already written as YAML lines (from column 0), kept as
    is under its key (kwalk-irfacts' `ir:` record)."""

    def __init__(self, lines):
        self.lines = list(lines)


class Flow:
    """Marks a dict or list to be written in flow style on one line."""

    def __init__(self, value):
        self.value = value


def scalar(v):
    if v is True:
        return "true"
    if v is False:
        return "false"
    if isinstance(v, int):
        return str(v)
    s = str(v)
    if _WORD.match(s) and s.lower() not in _RESERVED:
        return s
    # JSON's string syntax is YAML's double-quoted syntax; keep non-ASCII as is
    return json.dumps(s, ensure_ascii=False)


def _flow(v):
    if isinstance(v, Flow):
        v = v.value
    if isinstance(v, dict):
        items = ["%s: %s" % (k, _flow(x)) for k, x in v.items() if x is not None]
        return "{" + ", ".join(items) + "}"
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_flow(x) for x in v) + "]"
    return scalar(v)


def _block(v, indent, out):
    pad = " " * indent
    if isinstance(v, Flow):
        raise ValueError("a flow value needs a key")
    for k, x in v.items():
        if x is None:
            continue
        if isinstance(x, Raw):
            out.append("%s%s:" % (pad, k))
            out.extend(pad + "  " + line if line else line for line in x.lines)
            continue
        if isinstance(x, Flow) or not isinstance(x, (dict, list, tuple)):
            out.append("%s%s: %s" % (pad, k, _flow(x)))
        elif isinstance(x, dict):
            if not x:
                out.append("%s%s: {}" % (pad, k))
            else:
                out.append("%s%s:" % (pad, k))
                _block(x, indent + 2, out)
        else:
            if not x:
                out.append("%s%s: []" % (pad, k))
                continue
            out.append("%s%s:" % (pad, k))
            for item in x:
                if isinstance(item, dict) and not isinstance(item, Flow):
                    sub = []
                    _block(item, indent + 2, sub)
                    if not sub:
                        out.append("%s- {}" % pad)
                        continue
                    out.append("%s- %s" % (pad, sub[0][indent + 2 :]))
                    out.extend(sub[1:])
                else:
                    out.append("%s- %s" % (pad, _flow(item)))


def dump(doc):
    """The YAML text of DOC (a dict), ending with the end marker."""
    out = []
    _block(doc, 0, out)
    out.append("...")
    return "\n".join(out) + "\n"
