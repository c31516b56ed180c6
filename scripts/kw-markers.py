#!/usr/bin/env python3
"""kw-markers.py: resolve the test corpus's marker comments to file:line.

Usage:
  kw-markers.py CORPUS_DIR                 print {id: {kind, file, line}} as JSON
  kw-markers.py CORPUS_DIR --check FILE    also check FILE (expected.json): every
                                           id it names exists with the right kind,
                                           every marker is named; exit 1 otherwise

Markers are comments `// KW:<KIND> <id>` (C/C++/HIP) or `# KW:<KIND> <id>`
(Python), at the end of a line; one line may hold several `KW:<KIND> <id>`
items. KIND is one of KERNEL LAUNCH GUARD ENTRY CALL ASM PYOP. Ids are unique
across the corpus. Tests resolve ids with this script instead of hard-coding
line numbers.
"""
import json
import os
import re
import sys

KINDS = ("KERNEL", "LAUNCH", "GUARD", "ENTRY", "CALL", "ASM", "PYOP")
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

    for k in expected.get("kernels", {}):
        need(k, "KERNEL", "kernels")
    for k, v in expected.get("launches", {}).items():
        need(k, "LAUNCH", "launches")
        need(v["kernel"], "KERNEL", "launches.%s.kernel" % k)
        for inst in v.get("instantiations", []):
            for p in inst.get("paths", []):
                for e in p.get("entries", []):
                    need(e, "ENTRY", "launches.%s paths" % k)
                for c in p.get("calls", []):
                    need(c, "CALL", "launches.%s paths" % k)
                for g in p.get("guards", []):
                    need(g["guard"], "GUARD", "launches.%s paths" % k)
    for k in expected.get("guards", {}):
        need(k, "GUARD", "guards")
    for k in expected.get("calls", {}):
        need(k, "CALL", "calls")
    for k in expected.get("entries", {}):
        need(k, "ENTRY", "entries")
    for k in expected.get("asm", {}):
        need(k, "ASM", "asm")
    for k, v in expected.get("python_ops", {}).items():
        need(k, "PYOP", "python_ops")
        need(v["entry"], "ENTRY", "python_ops.%s.entry" % k)
    sections = {"KERNEL": "kernels", "LAUNCH": "launches", "GUARD": "guards", "ENTRY": "entries",
                "CALL": "calls", "ASM": "asm", "PYOP": "python_ops"}
    for ident, (kind, where) in sorted(want.items()):
        if ident not in found:
            errors.append("%s: %s %s has no marker" % (where, kind, ident))
        elif found[ident]["kind"] != kind:
            errors.append("%s: %s is a %s marker, expected %s" % (where, ident, found[ident]["kind"], kind))
    for ident, m in sorted(found.items()):
        if ident not in expected.get(sections[m["kind"]], {}):
            errors.append("marker %s %s at %s:%d is not described in the expected file" % (
                m["kind"], ident, m["file"], m["line"]))
    for k, v in expected.get("launches", {}).items():
        if k in found and found[k]["file"] != v["file"]:
            errors.append("launch %s: marker in %s, expected says %s" % (k, found[k]["file"], v["file"]))
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
