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
    a head size the source has no branch for keeps none.
"""
import argparse
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import kwcap  # noqa: E402
from kwcheck import Checker  # noqa: E402
import kwrender  # noqa: E402
import kwrun  # noqa: E402

KERNEL = "reshape_and_cache_with_per_token_quant_kernel"


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


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--kwalk", required=True)
    p.add_argument("--corpus-out", required=True)
    p.add_argument("--src", required=True)
    p.add_argument("--llvm-bin", required=True)
    p.add_argument("--archs", required=True)
    p.add_argument("--work", required=True)
    a = p.parse_args()
    ck = Checker("model.kpage_corpus")
    os.makedirs(a.work, exist_ok=True)
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
    db = kwrender.corpus_db(a.kwalk, a.corpus_out, a.work)
    r = kwrun.run([a.kwalk, "render", KERNEL, "--db", db])
    ck.check(r.returncode == 0 and r.stdout.startswith("# Kernel "), "render %s: %d %r"
             % (KERNEL, r.returncode, r.stderr[:300]))
    conds, cur = {}, ""
    for l in r.stdout.split("\n"):
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
    for n in sorted(disp) + ["64"]:
        r = kwrun.run([a.kwalk, "render", KERNEL, "--db", db, "--shape", "head_size=" + n])
        kept = sorted(m.group(1) for m in re.finditer(
            r"^\| `[^`]*`[^|]* \| `([^`]*)` \|.*\| (?:selected|candidate) \|$", r.stdout, re.M))
        ck.eq(kept, sorted(s for s in syms if head[s] == n),
              "--shape head_size=%s: the instantiations kept" % n)
    ck.finish()


if __name__ == "__main__":
    main()
