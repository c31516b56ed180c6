#!/usr/bin/env python3
"""test_kpage_corpus: a kernel's page and --shape on the corpus (issue 42),
against the corpus source read here and the code objects' symbols.

The source's dispatch of reshape_and_cache_with_per_token_quant_kernel is
found by its markers: each `// KW:CALL cache.call_N` line's template
argument N, under the `// KW:GUARD cache.head_N` line's condition
`a.head_size == N`. The instantiations are the code objects' kernel symbols
(kwcap: the unbundled code object's FUNC symbols with a .kd), their head
size the last template argument as llvm-cxxfilt prints it. Checked:
  - `kwalk render reshape_and_cache_with_per_token_quant_kernel` is one
    kernel page naming every instantiation (by symbol), each in a group
    whose conditions include its head size's guard as the source writes it;
  - `--shape head_size=N` for each N the source dispatches on keeps
    (selected or candidate) exactly the instantiations of head size N, and
    a head size the source has no branch for keeps none; and `kwalk map
    --shape head_size=N` keeps the kernel's rows (one per entry) counting
    exactly those instantiations, marked, none for the head size without
    a branch;
  - each row's instruction mix per arch (MFMA, VALU, SALU, VMEM, LDS,
    branch, all) is the count of llvm-objdump -d's mnemonics of that
    symbol in the arch's code object (within its llvm-readelf size),
    classified here by their prefixes as docs/render.md defines the mix.
"""
import argparse
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import kwcap  # noqa: E402
import kwrun  # noqa: E402
from kwkshared import corpus_setup, mix_of, objdump  # noqa: E402

KERNEL = "reshape_and_cache_with_per_token_quant_kernel"

def page_mix(cell):
    """{arch: (MFMA, VALU, SALU, VMEM, LDS, branch, all)} of a row's mix cell."""
    out = {}
    for part in cell.split("; "):
        m = re.match(r"(.*): MFMA (\d+), VALU (\d+), SALU (\d+), VMEM (\d+), LDS (\d+), "
                     r"branch (\d+) \(of (\d+)\)$", part.strip())
        if m:
            for arch in m.group(1).split(", "):
                out[arch] = tuple(int(x) for x in m.groups()[1:])
    return out


def source_dispatch(src):
    """{N: guard text} from the cache.head_N / cache.call_N markers."""
    lines = open(os.path.join(src, "tests", "corpus", "cache_kernels.hip"), encoding="utf-8").read().split("\n")
    guards, calls = {}, {}
    for l in lines:
        m = re.search(r"if \((.*)\) \{\s*// KW:GUARD cache\.head_(\d+)", l)
        if m:
            guards[m.group(2)] = m.group(1)
        m = re.search(r"<scalar_t, (\d+)>\(.*// KW:CALL cache\.call_(\d+)", l)
        if m:
            calls[m.group(2)] = m.group(1)
    return {calls[k]: guards[k] for k in calls if k in guards}


def check_source(ck, md, path):
    """The page's quoted definition against the source's lines (read here)
    and its parameter names against the declaration scanned here."""
    text = open(path, encoding="utf-8").read()
    lines = text.split("\n")
    m = re.search(r"__global__\s+void\s+(?:__launch_bounds__\([^)]*\)\s*)?%s\s*\(" % KERNEL, text)
    ck.check(m, "no __global__ definition of %s in %s" % (KERNEL, path))
    if not m:
        return
    line = text.count("\n", 0, m.end()) + 1
    body = re.sub(r"//[^\n]*", " ", text[m.end():])
    depth, cur, names = 0, "", []
    for c in body:
        if c in "(<[" or (c in ")>]" and depth):
            depth += 1 if c in "(<[" else -1
        elif c == ")":
            names.append(re.findall(r"\w+", cur.split("=")[0])[-1])
            break
        elif c == "," and not depth:
            names.append(re.findall(r"\w+", cur.split("=")[0])[-1])
            cur = ""
            continue
        cur += c
    sec = md.split("## The kernel's source", 1)[-1].split("\n## ", 1)[0]
    q = re.search(r"^// (\S+):(\d+)-(\d+)$", sec, re.M)
    ck.check("## The kernel's source" in md and q, "the page quotes no definition")
    if not q:
        return
    first, last = int(q.group(2)), int(q.group(3))
    ck.eq(os.path.realpath(q.group(1)), os.path.realpath(path), "the quoted file")
    ck.check(first <= line <= last and lines[first - 1].lstrip().startswith("template"),
             "the quote %d-%d: from the template header over the kernel's line %d" % (first, last, line))
    quoted = re.findall(r"^ *(\d+) \| (.*)$", sec.split("```")[1] if "```" in sec else "", re.M)
    ck.eq([int(n) for n, _ in quoted], list(range(first, last + 1)), "the quoted line numbers")
    for n, t in quoted:
        ck.eq(t, lines[int(n) - 1], "quoted line %s against the source" % n)
    got = re.findall(r"^\| \d+ \| `([^`]*)` \| `[^`]*` \|", sec, re.M)
    ck.eq(got, names, "the parameter table's names against the declaration")


def main():
    a, ck, db = corpus_setup("model.kpage_corpus")
    disp = source_dispatch(a.src)
    ck.check(len(disp) >= 2, "the source's head-size dispatch: %r" % disp)
    obj = os.path.join(a.corpus_out, "cache_kernels.o")
    syms = set()
    for arch in a.archs.split(","):
        s, err = kwcap.code_object_kernels(argparse.Namespace(llvm_bin=a.llvm_bin), obj, arch, a.work)
        ck.check(s is not None, "%s %s: %s" % (obj, arch, err))
        syms |= {x for x in s or () if KERNEL in x}
    syms = sorted(syms)
    dem = kwrun.run([os.path.join(a.llvm_bin, "llvm-cxxfilt")], input="\n".join(syms) + "\n",
                    must=True).stdout.split("\n")
    head = {}
    for s, d in zip(syms, dem):
        m = re.search(KERNEL + r"<.*, (\d+)>\(", d)
        if not m and d == s:
            # an LLVM too old for a type of the name (19's llvm-cxxfilt has no
            # __bf16, DF16b) leaves it mangled: the last template argument is
            # then the int literal closing the template's arguments (Li128E)
            m = re.search(r"Li(\d+)EEEv", s)
        ck.check(m, "%s: no head size in %r" % (s, d))
        head[s] = m.group(1) if m else "?"
    r = kwrun.run([a.kwalk, "render", KERNEL, "--db", db])
    ck.check(r.returncode == 0 and r.stdout.startswith("# Kernel "), "render %s: %d %r"
             % (KERNEL, r.returncode, r.stderr[:300]))
    check_source(ck, r.stdout, os.path.join(a.src, "tests", "corpus", "cache_kernels.hip"))
    conds, cur, mixes = {}, "", {}
    for l in r.stdout.split("\n"):
        cells = [c.strip() for c in l.strip().strip("|").split(" | ")]
        if len(cells) >= 5 and cells[1].startswith("`"):
            mixes[cells[1].strip("`")] = page_mix(cells[4])
        if l.startswith("### Group "):
            cur = ""
        elif l.startswith("- "):
            cur += l + "\n"
        m = re.match(r"\| `[^`]*`[^|]* \| `([^`]*)` \|", l)
        if m:
            conds[m.group(1)] = cur
    ck.eq(sorted(conds), syms, "the page's instantiations against the code objects'")
    for s in syms:
        want = "`%s`" % disp.get(head[s], "?")
        ck.check(want in conds.get(s, ""), "%s (head size %s): its conditions lack %s: %r"
                 % (s, head[s], want, conds.get(s, "")[:300]))
    compared = 0
    for arch in a.archs.split(","):
        co, err = kwcap.unbundle_code_object(argparse.Namespace(llvm_bin=a.llvm_bin), obj, arch,
                                             a.work)
        ck.check(co, "%s %s: %s" % (obj, arch, err))
        funcs = objdump(a.llvm_bin, co) if co else {}
        for s in syms:
            if s in funcs:
                ck.eq(mixes.get(s, {}).get(arch), mix_of([m for m, _ in funcs[s]]),
                      "%s on %s: the row's instruction mix against llvm-objdump" % (s, arch))
                compared += 1
    ck.check(compared >= len(syms), "instruction mixes compared: %d" % compared)
    for n in sorted(disp) + ["64"]:
        r = kwrun.run([a.kwalk, "render", KERNEL, "--db", db, "--shape", "head_size=" + n])
        kept = sorted(m.group(1) for m in re.finditer(
            r"^\| `[^`]*`[^|]* \| `([^`]*)` \|.*\| (?:selected|candidate) \|$", r.stdout, re.M))
        ck.eq(kept, sorted(s for s in syms if head[s] == n),
              "--shape head_size=%s: the instantiations kept" % n)
        r = kwrun.run([a.kwalk, "map", "--db", db, "--shape", "head_size=" + n])
        ck.eq(r.returncode, 0, "map --shape head_size=%s: %r" % (n, r.stderr[:200]))
        rows = [l.split(" | ")[1] for l in r.stdout.split("\n") if "::%s`" % KERNEL in l]
        want = sum(head[s] == n for s in syms)
        ck.eq(sorted(set(rows)), ["%d, candidate" % want] if want else [],
              "map --shape head_size=%s: the kernel's rows' instantiations" % n)
        if want:
            ck.check(len(rows) >= 2, "map --shape head_size=%s: a row per entry: %r" % (n, rows))
    ck.finish()


if __name__ == "__main__":
    main()
