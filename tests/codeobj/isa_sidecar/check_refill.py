#!/usr/bin/env python3
"""Schema 2's read-back when the object is not the compile's: a corpus
sidecar names its code objects (translation_unit.code_objects), and
`kwalk index` reads the listings back from the object. On copies of the
corpus object (found through --map-prefix OLD=NEW):

  - the unchanged copy: no warning, and the kernels are those of the
    original (listings included);
  - one byte of the first arch's code object changed inside the copy (an
    instruction word of its .text, found with llvm-readelf -S in the
    unbundled code object and located in the .o by its bytes): exit 0, one
    `kwalk: warning:` line naming the new and the recorded MD5 (Python's
    hashlib of the changed and the original code object), every kernel arch
    of that code object has isa_note and no listing, the other arch keeps its
    listing; the page of one kernel says `ARCH ISA not shown:` and lists only
    the other arch;
  - another TU's object under the name: every arch noted, no listing;
  - no object at all: every arch noted `not found`, no listing;
  - the schema 1 form (the read-back listings inline, no code-object table)
    indexes to the same kernels."""
import hashlib
import os
import re
import shutil
import subprocess
import sys

import yaml

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
import kwis_common  # noqa: E402
from kwcheck import Checker  # noqa: E402
from kwis_common import (ARCHS, CORPUS, KWALK, load_yaml, read_back, run,  # noqa: E402
                         scratch, tool, unbundle)

TU = "rope_kernels"
OTHER = "cache_kernels"


def index(sidecar, work, *args):
    """(exit, stderr lines, kernels by symbol, the index) of `kwalk index`
    into work; a kernel's `tu` (the sidecar's path) left out."""
    out = os.path.join(work, "index.yaml")
    if os.path.exists(out):
        os.remove(out)
    p = subprocess.run([KWALK, "index", sidecar, "-o", out, "--format", "yaml", *args],
                       capture_output=True, text=True)
    kernels = {k["symbol"]: k for k in load_yaml(out)["kernels"]} if p.returncode == 0 else {}
    for k in kernels.values():
        k.pop("tu", None)
    return p.returncode, [l for l in p.stderr.splitlines() if l], kernels, out


def text_offset(co):
    """File offset and size of the code object's .text (llvm-readelf -S)."""
    for line in run([tool("llvm-readelf"), "-S", "-W", co], must=True).stdout.splitlines():
        f = line.replace("[ ", "[").split()
        if len(f) > 5 and f[1] == ".text":
            return int(f[4], 16), int(f[5], 16)
    raise SystemExit("%s: no .text" % co)


def main():
    c = Checker("isa_sidecar.refill", who=kwis_common.WHO)
    work = scratch("refill")
    obj = os.path.join(CORPUS, TU + ".o")
    sidecar = obj + ".kwalk.yaml"
    stored = load_yaml(sidecar)
    table = stored["translation_unit"].get("code_objects") or []
    c.eq(sorted(x["arch"] for x in table), sorted(ARCHS),
         "the corpus sidecar names its code objects")
    want = {k["symbol"]: k for k in read_back(sidecar, work)["kernels"]}
    for k in want.values():
        k.pop("tu", None)
    c.check(any(
        a.get("isa") for k in want.values() for a in (k.get("archs") or {}).values()), "the original reads back listings")
    cdir = os.path.join(work, "copy")
    os.makedirs(cdir)
    shutil.copy(obj, cdir)
    # the object as the sidecar names it, moved to the copy
    remap = ["--map-prefix", "%s=%s" % (os.path.dirname(stored["translation_unit"]["object"]),
                                        cdir)]

    rc, err, got, _ = index(sidecar, work, *remap)
    c.eq((rc, err), (0, []), "unchanged copy: exit and warnings")
    c.check(got == want, "unchanged copy: kernels equal the original's")

    # one byte of the first arch's code object, inside the copy
    cos = unbundle(obj, work, TU)
    arch = ARCHS[0]
    tid = next(t for t in cos if t.split(":")[0] == arch)
    with open(cos[tid], "rb") as f:
        co = f.read()
    with open(obj, "rb") as f:
        data = bytearray(f.read())
    at = data.find(co)
    c.check(at >= 0 and data.find(co, at + 1) < 0, "the code object's bytes are in the object once")
    toff, tsize = text_offset(cos[tid])
    pos = at + toff + (tsize // 8) * 4  # an instruction word halfway through .text
    data[pos] ^= 0x01
    with open(os.path.join(cdir, TU + ".o"), "wb") as f:
        f.write(data)
    new = bytearray(co)
    new[pos - at] ^= 0x01
    old_md5, new_md5 = hashlib.md5(co).hexdigest(), hashlib.md5(bytes(new)).hexdigest()
    rc, err, got, db = index(sidecar, work, *remap)
    c.eq(rc, 0, "changed byte: exit")
    c.eq(len(err), 1, "changed byte: one warning line")
    c.check(len(err) == 1 and err[0].startswith(
        "kwalk: warning: ") and new_md5 in err[0] and old_md5 in err[0]
        and "changed since the compile" in err[0], "changed byte: the warning names both MD5s", err)
    for sym, k in sorted(got.items()):
        for a, facts in sorted((k.get("archs") or {}).items()):
            if a.split(":")[0] == arch:
                c.check(facts.get("isa_note") and new_md5 in facts["isa_note"]
                       and not facts.get("isa") and not facts.get("classes"), "changed byte: %s %s: isa_note, no listing" % (sym, a))
            else:
                c.eq(facts, want[sym]["archs"][a],
                     "changed byte: %s %s: the other arch as before" % (sym, a))
    sym = sorted(got)[0]
    page = subprocess.run([KWALK, "render", "--db", db, sym], capture_output=True, text=True)
    c.eq(page.returncode, 0, "changed byte: render exit")
    c.check(re.search(r"^%s ISA not shown: .*changed since the compile" % arch, page.stdout,
                     re.M), "changed byte: the page says the %s ISA is not shown" % arch, page.stdout[-2000:])
    listed = re.findall(r"<summary>(\S+) ISA listing", page.stdout)
    c.eq(listed, [a for a in ARCHS if a != arch], "changed byte: listings on the page")

    # another TU's object under this one's name
    shutil.copy(os.path.join(CORPUS, OTHER + ".o"), os.path.join(cdir, TU + ".o"))
    rc, err, got, _ = index(sidecar, work, *remap)
    c.eq((rc, len(err)), (0, 1), "another TU's object: exit, warning lines")
    c.check(got and all(
        f.get("isa_note") and "changed since the compile" in f["isa_note"] and not f.get("isa")
        for k in got.values() for f in (k.get("archs") or {}).values()), "another TU's object: every arch noted, no listing")

    # no object
    os.remove(os.path.join(cdir, TU + ".o"))
    rc, err, got, _ = index(sidecar, work, *remap)
    c.eq((rc, len(err)), (0, 1), "missing object: exit, warning lines")
    c.check(err and "not found" in err[0], "missing object: the warning says not found", err)
    c.check(got and all(
        f.get("isa_note") and "not found" in f["isa_note"] and not f.get("isa")
        for k in got.values() for f in (k.get("archs") or {}).values()), "missing object: every arch noted, no listing")

    # schema 1 form: the listings inline
    doc = read_back(sidecar, work)
    doc.pop("index_stderr", None)
    doc["translation_unit"].pop("code_objects", None)
    for k in doc["kernels"]:
        k.pop("tu", None)
    inline = os.path.join(work, "inline.kwalk.yaml")
    with open(inline, "w") as f:
        yaml.safe_dump(doc, f, sort_keys=False, explicit_end=True)
    rc, err, got, _ = index(inline, work)
    c.eq((rc, err), (0, []), "schema 1 form: exit and warnings")
    c.check(got == want, "schema 1 form: the same kernels")
    c.finish()


if __name__ == "__main__":
    main()
