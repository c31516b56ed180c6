#!/usr/bin/env python3
"""Each kernel's listing equals `llvm-objdump -d --mcpu=<arch>` instruction
for instruction over the kernel's code (objdump's address and encoding
comment removed), its first instruction is objdump's <kernel> symbol, and
every branch target and label agrees with objdump's <symbol+offset> or
the label symbol it prints as the operand."""
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import kwco_common  # noqa: E402
from kwcheck import Checker  # noqa: E402
from kwco_common import (arch_of, code_objects, dump_yaml, isa_lines, kernels_by_arch,
                         run, tool, work)

SYM = re.compile(r"^([0-9a-f]+) <(.+)>:$")
BRANCH = re.compile(r"^s_(branch|cbranch_\w+|call_b64) ")
INSN = re.compile(r"^\t(.*?)\s*// ([0-9A-F]+):[0-9A-F ]+?( <(.+?)(\+0x([0-9a-f]+))?>)?$")


def objdump(path, arch):
    """({address: (text, target symbol, target offset)}, {symbol: address})."""
    insns, syms = {}, {}
    out = run([tool("llvm-objdump"), "-d", "--mcpu=" + arch, path], must=True).stdout
    for line in out.splitlines():
        m = SYM.match(line)
        if m:
            syms[m.group(2)] = int(m.group(1), 16)
            continue
        m = INSN.match(line)
        if m:
            tgt = (m.group(4), int(m.group(6) or "0", 16)) if m.group(3) else None
            insns[int(m.group(2), 16)] = (m.group(1), tgt)
    return insns, syms


def target(insn, syms):
    """The address objdump gives a branch: its <symbol+offset> comment, or the
    label symbol it prints as the operand (a label kept in the symbol table)."""
    text, tgt = insn
    if tgt:
        return syms[tgt[0]] + tgt[1] if tgt[0] in syms else None
    op = text.split()[-1]
    return syms[op] if BRANCH.match(text) and op in syms else None


def main():
    c = Checker("disasm", who=kwco_common.WHO)
    for path in code_objects() + [work("asm_kernel.rel.o")]:
        doc = dump_yaml(path)
        arch = arch_of(doc)
        insns, syms = objdump(path, arch)
        for (name, _), a in kernels_by_arch(doc).items():
            where = "%s: %s" % (path, name)
            c.eq(a["code"]["address"], syms.get(name), where + ": start")
            base, size = a["code"]["address"], a["code"]["bytes"]
            want = sorted((addr - base, t) for addr, (t, _) in insns.items()
                          if base <= addr < base + size)
            got = isa_lines(a)
            c.eq(len(got), len(want), where + ": instruction count")
            for (go, gt), (wo, wt) in zip(got, want):
                c.eq((go, gt), (wo, wt), "%s: +0x%x" % (where, wo))
            labels = a["labels"]
            for b in a["branches"]:
                c.eq(base + b["target"], target(insns[base + b["at"]], syms),
                     "%s: branch at +0x%x target" % (where, b["at"]))
                if b["label"] is not None:
                    c.eq(labels[b["label"]], b["target"], "%s: label %s" % (where, b["label"]))
            # every objdump branch target in the kernel is one of ours
            n = sum(1 for addr, i in insns.items()
                    if target(i, syms) is not None and base <= addr < base + size)
            c.eq(len(a["branches"]), n, where + ": branches")
    c.finish()


if __name__ == "__main__":
    main()
