#!/usr/bin/env python3
"""kw-markers.py: resolve the test corpus's marker comments to file:line.

Usage:
  kw-markers.py CORPUS_DIR                 print {id: {kind, file, line}} as JSON
  kw-markers.py CORPUS_DIR --check FILE    also check FILE (expected.json): every
                                           id it names exists with the right kind,
                                           every marker is named; exit 1 otherwise

Markers are comments `// KW:<KIND> <id>` (C/C++/HIP) or `# KW:<KIND> <id>`
(Python), at the end of a line; one line may hold several `KW:<KIND> <id>`
items. KIND is one of KERNEL LAUNCH GUARD ENTRY CALL ASM PYOP SITE FUNCTOR.
Ids are unique across the corpus. Tests resolve ids with this script instead
of hard-coding line numbers.

What each kind must be described by in the expected file:
  KERNEL kernels.<id>          LAUNCH launches.<id> or asm_launches.<id>
  GUARD guards.<id>            ENTRY entries.<id>      CALL calls.<id>
  ASM asm.<id>                 PYOP python_ops.<id>
  SITE     a launch's "site" (the real <<<>>> inside a kernel library)
  FUNCTOR  an instantiation's "functor": {"at": <id>} (operator() of the
           user-level kernel type a trampoline kernel runs)
  DECL     the declaration of a variable a launch operand names (used by
           tests/render/src, not by the corpus's expected file)
"""
import json
import os
import re
import sys

KINDS = ("KERNEL", "LAUNCH", "GUARD", "ENTRY", "CALL", "ASM", "PYOP", "SITE", "FUNCTOR", "DECL")
MARK = re.compile(r"KW:(%s)\s+([A-Za-z0-9_.\-]+)" % "|".join(KINDS))
COMMENT = re.compile(r"(//|#)\s*KW:")
EXTS = (".hip", ".cu", ".cpp", ".cc", ".h", ".hpp", ".py")


def scan(root):
    found, errors = {}, []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        for name in sorted(filenames):
            if not name.endswith(EXTS):
                continue
            path = os.path.join(dirpath, name)
            rel = os.path.relpath(path, root)
            with open(path, encoding="utf-8") as f:
                for lineno, text in enumerate(f, 1):
                    m = COMMENT.search(text)
                    if not m:
                        continue
                    for kind, ident in MARK.findall(text[m.start():]):
                        if ident in found:
                            errors.append("duplicate id %s at %s:%d (first at %s:%d)" % (
                                ident, rel, lineno, found[ident]["file"], found[ident]["line"]))
                            continue
                        found[ident] = {"kind": kind, "file": rel, "line": lineno}
    return found, errors


def check(found, expected):
    errors = []
    want = {}

    def need(ident, kind, where):
        want.setdefault(ident, (kind, where))

    def need_paths(lid, paths):
        for p in paths or []:
            for e in p.get("entries", []):
                need(e, "ENTRY", "%s paths" % lid)
            for c in p.get("calls", []):
                need(c, "CALL", "%s paths" % lid)
            for g in p.get("guards", []):
                need(g["guard"], "GUARD", "%s paths" % lid)

    described = {}  # kind -> ids the expected file describes
    for k, v in expected.get("kernels", {}).items():
        need(k, "KERNEL", "kernels")
        for inst in v.get("instantiations", []):
            fn = inst.get("functor")
            if fn:
                need(fn["at"], "FUNCTOR", "kernels.%s functor" % k)
                described.setdefault("FUNCTOR", set()).add(fn["at"])
    for k, v in expected.get("launches", {}).items():
        need(k, "LAUNCH", "launches")
        need(v["kernel"], "KERNEL", "launches.%s.kernel" % k)
        if v.get("site"):
            need(v["site"], "SITE", "launches.%s.site" % k)
            described.setdefault("SITE", set()).add(v["site"])
        for inst in v.get("instantiations", []):
            need_paths("launches." + k, inst.get("paths"))
    for k, v in expected.get("asm_launches", {}).items():
        need(k, "LAUNCH", "asm_launches")
        need_paths("asm_launches." + k, v.get("paths"))
    for k in expected.get("guards", {}):
        need(k, "GUARD", "guards")
    for k in expected.get("calls", {}):
        need(k, "CALL", "calls")
    for k, v in expected.get("entries", {}).items():
        need(k, "ENTRY", "entries")
        for lid in v.get("reaches", []):
            if lid not in expected.get("launches", {}):
                errors.append("entries.%s reaches %s, which is not in launches" % (k, lid))
        for lid in v.get("reaches_asm", []):
            if lid not in expected.get("asm_launches", {}):
                errors.append("entries.%s reaches_asm %s, which is not in asm_launches" % (k, lid))
    for k in expected.get("asm", {}):
        need(k, "ASM", "asm")
    for k, v in expected.get("python_ops", {}).items():
        need(k, "PYOP", "python_ops")
        need(v["entry"], "ENTRY", "python_ops.%s.entry" % k)
    sections = {"KERNEL": ("kernels",), "LAUNCH": ("launches", "asm_launches"), "GUARD": ("guards",),
                "ENTRY": ("entries",), "CALL": ("calls",), "ASM": ("asm",), "PYOP": ("python_ops",)}
    for kind, secs in sections.items():
        for sec in secs:
            described.setdefault(kind, set()).update(expected.get(sec, {}))
    for ident, (kind, where) in sorted(want.items()):
        if ident not in found:
            errors.append("%s: %s %s has no marker" % (where, kind, ident))
        elif found[ident]["kind"] != kind:
            errors.append("%s: %s is a %s marker, expected %s" % (where, ident, found[ident]["kind"], kind))
    for ident, m in sorted(found.items()):
        if ident not in described.get(m["kind"], ()):
            errors.append("marker %s %s at %s:%d is not described in the expected file" % (
                m["kind"], ident, m["file"], m["line"]))
    for sec in ("launches", "asm_launches"):
        for k, v in expected.get(sec, {}).items():
            if k in found and found[k]["file"] != v["file"]:
                errors.append("%s %s: marker in %s, expected says %s" % (sec, k, found[k]["file"], v["file"]))
    for k, v in expected.get("kernels", {}).items():
        where = v.get("defined_in", v["file"])
        if k in found and found[k]["file"] != where:
            errors.append("kernel %s: marker in %s, expected says it is defined in %s"
                          % (k, found[k]["file"], where))
    return errors


def main(argv):
    if len(argv) not in (2, 4) or (len(argv) == 4 and argv[2] != "--check"):
        sys.stderr.write(__doc__)
        return 2
    found, errors = scan(argv[1])
    if len(argv) == 4:
        with open(argv[3], encoding="utf-8") as f:
            errors += check(found, json.load(f))
    for e in errors:
        sys.stderr.write("kw-markers: %s\n" % e)
    if len(argv) == 2:
        json.dump(found, sys.stdout, indent=1, sort_keys=True)
        sys.stdout.write("\n")
    else:
        sys.stdout.write("kw-markers: %d markers, %d errors\n" % (len(found), len(errors)))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
