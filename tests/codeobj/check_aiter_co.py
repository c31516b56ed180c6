#!/usr/bin/env python3
"""Every precompiled .co of the aiter fixture (hsa/<arch>/pa/*.co, aiter's
hand-written ASM kernels): each kernel's listing from kwco-dump --yaml equals
`llvm-objdump -d -t -h` over the kernel's symbol range (from its FUNC symbol
to the next one or the end of .text) line for line: the same instruction
count, offsets and text (whitespace normalized, objdump's `//` comment
removed), so no `.long` where objdump decodes an instruction and branch
operands named as objdump names them; and every branch target equals
objdump's (the label symbol it prints as the operand, or its
`<symbol+offset>` comment). One objdump and one kwco-dump per file, two at
a time. Skips (77) when the fixture (../shared) is absent."""
import glob
import os
import re
import sys
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import kwco_common  # noqa: E402
from kwcheck import Checker  # noqa: E402
from kwco_common import ARCHES, dump_yaml, isa_lines, kernels_by_arch, run, tool  # noqa: E402

SKIP = 77
SRC = os.environ["KWCO_SRC"]
FIXTURE = os.path.normpath(os.path.join(SRC, "..", "..", "..", "shared", "fixtures",
                                        "aiter-hip", "aiter", "hsa"))

SECTION = re.compile(r"^\s*\d+ (\S+)\s+([0-9a-f]+) ([0-9a-f]+)")
SYMBOL = re.compile(r"^([0-9a-f]+) (.{7}) (\S+)\t[0-9a-f]+ (?:\.\w+ )?(\S+)$")
INSN = re.compile(r"^\t(.*?)\s*// ([0-9A-F]+):[0-9A-F ]+?( <(.+?)(\+0x([0-9a-f]+))?>)?$")
BRANCH = re.compile(r"^s_(branch|cbranch_\w+|call_b64) ")


def norm(text):
    return " ".join(text.split())


def objdump(path):
    """(.text (start, end), {FUNC symbol: address}, {any symbol: address},
    {address: (text, (symbol, offset) of the target comment or None)})."""
    out = run([tool("llvm-objdump"), "-d", "-t", "-h", path], must=True).stdout
    text, funcs, syms, insns = None, {}, {}, {}
    part = None
    for line in out.splitlines():
        if line.startswith("Sections:"):
            part = "sections"
        elif line.startswith("SYMBOL TABLE:"):
            part = "symbols"
        elif line.startswith("Disassembly of section"):
            part = "code"
        elif part == "sections":
            m = SECTION.match(line)
            if m and m.group(1) == ".text":
                start = int(m.group(3), 16)
                text = (start, start + int(m.group(2), 16))
        elif part == "symbols":
            m = SYMBOL.match(line)
            if m and m.group(3) == ".text":
                addr = int(m.group(1), 16)
                syms.setdefault(m.group(4), addr)
                if "F" in m.group(2):
                    funcs[m.group(4)] = addr
        elif part == "code":
            m = INSN.match(line)
            if m:
                tgt = (m.group(4), int(m.group(6) or "0", 16)) if m.group(3) else None
                insns[int(m.group(2), 16)] = (m.group(1), tgt)
    return text, funcs, syms, insns


def check_file(path):
    """[(where, got, want)] of the differences for one file, and counts."""
    bad, n_insns, n_branches = [], 0, 0
    doc = dump_yaml(path)
    (t0, t1), funcs, syms, insns = objdump(path)
    ours = kernels_by_arch(doc)
    names = sorted({name for name, _ in ours})
    if names != sorted(funcs):
        bad.append((path + ": kernels", names, sorted(funcs)))
    starts = sorted(funcs.values()) + [t1]
    for (name, _), a in ours.items():
        where = "%s: %s" % (os.path.relpath(path, FIXTURE), name)
        base = funcs.get(name)
        if base is None:
            continue
        end = min(s for s in starts if s > base)
        want = sorted((addr - base, norm(t)) for addr, (t, _) in insns.items()
                      if base <= addr < end)
        got = [(o, norm(t)) for o, t in isa_lines(a)]
        n_insns += len(want)
        if a["code"]["address"] != base:
            bad.append((where + ": start", a["code"]["address"], base))
        if len(got) != len(want):
            bad.append((where + ": instruction count", len(got), len(want)))
        longs = [o for o, t in got if t.startswith(".long") and
                 not insns.get(base + o, ("",))[0].startswith(".long")]
        if longs:
            bad.append((where + ": .long where objdump decodes", "%d, first at +0x%x" %
                        (len(longs), longs[0]), 0))
        for g, w in zip(got, want):
            if g != w:
                bad.append(("%s: +0x%x" % (where, w[0]), g, w))
                break  # the first difference of a kernel says enough
        # branches: objdump's target is the label it names as the operand,
        # else its <symbol+offset> comment
        want_b = {}
        for addr, (t, tgt) in insns.items():
            if not (base <= addr < end) or not BRANCH.match(t):
                continue
            op = t.split()[-1]
            if op in syms:
                want_b[addr - base] = syms[op] - base
            elif tgt and tgt[0] in syms:
                want_b[addr - base] = syms[tgt[0]] + tgt[1] - base
        got_b = {b["at"]: b["target"] for b in a["branches"] or []}
        n_branches += len(want_b)
        if got_b != want_b:
            diff = sorted(set(got_b.items()) ^ set(want_b.items()))
            bad.append((where + ": branch targets (at, target) differing", diff[:4],
                        "%d of objdump's %d" % (len(diff), len(want_b))))
        for b in a["branches"] or []:
            if b["label"] is not None and a["labels"][b["label"]] != b["target"]:
                bad.append((where + ": label " + b["label"], a["labels"][b["label"]],
                            b["target"]))
    return bad, n_insns, n_branches


def main():
    if not os.path.isdir(FIXTURE):
        print("SKIP: the aiter fixture is absent (%s)" % FIXTURE)
        sys.exit(SKIP)
    files, skipped = [], set()
    for path in sorted(glob.glob(os.path.join(FIXTURE, "gfx*", "pa", "*.co"))):
        arch = os.path.basename(os.path.dirname(os.path.dirname(path)))
        if arch in ARCHES:
            files.append(path)
        else:
            skipped.add(arch)
    if not files:
        sys.exit("FAILED: no .co of %s under %s" % (",".join(ARCHES), FIXTURE))
    if skipped:
        print("not checked (not an arch of this build): %s" % ", ".join(sorted(skipped)))
    c = Checker("aiter_co", who=kwco_common.WHO)
    totals = [0, 0]
    with ThreadPoolExecutor(2) as ex:
        for bad, n, nb in ex.map(check_file, files):
            totals[0] += n
            totals[1] += nb
            c.count += n + nb  # every instruction and branch compared
            for where, got, want in bad:
                c.eq(got, want, where)
    print("%d files, %d instructions, %d branches compared" % (len(files), *totals))
    c.finish()


if __name__ == "__main__":
    main()
