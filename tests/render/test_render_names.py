#!/usr/bin/env python3
"""test_render_names.py: `kwalk render KERNEL` takes a kernel the way people
write it: the printed name without the blanks (`k<float,256>` for
`k<float, 256>`), and the full demangled signature as c++filt prints it for
the device symbol (with and without the leading `void `). Each must pick
exactly that instantiation: the page's title names it.
"""
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import kwrender as kr  # noqa: E402
from kwcheck import Checker  # noqa: E402


def title(page):
    for l in page.splitlines():
        if l.startswith("# "):
            return l
    return ""


def main():
    args = kr.parse_args()
    c = Checker("test_render_names")
    tmp = kr.mkdtemp(args, "kwalk-render-names-")
    K = args.kwalk
    try:
        db, index = kr.build_index(args, tmp)
        kernels = [k for k in index.get("kernels") or [] if ", " in (k.get("name") or "")]
        c.check(len(kernels) >= 3, f"the corpus has kernels with several template arguments: {len(kernels)}")
        for k in kernels[:6]:
            name, sym = k["name"], k["symbol"]
            rc, want, err = kr.run([K, "render", sym, "--db", db])
            c.check(rc == 0, f"render {sym}: exit {rc} {err!r}")
            demangled = subprocess.run(["c++filt", sym], stdout=subprocess.PIPE, text=True).stdout.strip()
            queries = [name.replace(" ", ""), demangled]
            if demangled.startswith("void "):
                queries.append(demangled[5:])
            for q in queries:
                rc, out, err = kr.run([K, "render", q, "--db", db])
                c.check(rc == 0 and out == want,
                        f"render {q!r} (for {name}): exit {rc}, {err.strip()!r}, title {title(out)!r}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    c.finish()


if __name__ == "__main__":
    main()
