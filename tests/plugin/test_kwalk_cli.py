#!/usr/bin/env python3
"""test_kwalk_cli: the kwalk command on the corpus's sidecars.

`kwalk index <corpus out dir> -o DB` then `kwalk list --db DB` (NAME SYMBOL
ARCHS LAUNCHES ENTRIES KIND CODE_OBJECTS, tab-separated), both exit 0, and
against ground truth:
  - SYMBOL of the KIND hip lines: exactly the kernels of the corpus code
    objects (llvm-objcopy + clang-offload-bundler + llvm-readelf), one line
    each; ARCHS: the arches whose code object has the kernel;
  - SYMBOL of the KIND asm lines: exactly the kernels (FUNC + .kd, llvm-readelf
    --syms) of the precompiled code objects the corpus's launches load
    (expected.json compile.asm_objects, which `render` and `map` show), each
    with CODE_OBJECTS the files holding it, ARCHS -, and launch sites;
  - NAME: exactly expected.json's instantiations, printed `name<args...>`;
  - LAUNCHES: the file:line of the KW:LAUNCH markers of expected.json's
    launches of that instantiation; ENTRIES: the entries that reach it.
Bad sidecars, each in a directory next to a good one: cut mid-line, cut at a
line boundary (no `...` end marker), empty, broken YAML, `kwalk_schema: 99`:
`kwalk index DIR` exits non-zero (not by a signal) with exactly one stderr
line, starting `kwalk:` and naming the bad file.
Skipped (77) when the kwalk command is not built."""
import os
import re
import shutil
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import kwcap  # noqa: E402
from kwcheck import Checker  # noqa: E402


def check_asm_rows(args, ck, exp, root, asm_rows):
    """The asm lines against the kernels of the code objects the launches load."""
    want = {}  # kernel -> {realpath of the code objects holding it}
    for path in (exp["compile"].get("asm_objects") or {}):
        co = kwcap.asm_path(args, path)
        if not ck.check(os.path.isfile(co), "asm code object %s missing (kw_corpus built?)" % co):
            continue
        funcs, kds, err = kwcap.elf_kernel_symbols(args, co)
        if not ck.check(not err, "%s: %s" % (co, err)):
            continue
        for k in funcs & kds:
            want.setdefault(k, set()).add(os.path.realpath(co))
    ck.check(want, "no ASM kernel in expected.json's asm_objects (test input)")
    ck.check(set(asm_rows) == set(want), "kwalk list asm kernels vs the code objects' kernels: "
             "only listed %s, only in code objects %s" % (sorted(set(asm_rows) - set(want)),
                                                          sorted(set(want) - set(asm_rows))))
    for sym in sorted(set(asm_rows) & set(want)):
        name, archs, launches, cos = asm_rows[sym]
        ck.eq({os.path.realpath(c) for c in cos.split(",")}, want[sym], "kwalk list %s: CODE_OBJECTS" % sym)
        ck.eq((name, archs), (sym, "-"), "kwalk list %s: NAME, ARCHS" % sym)
        ck.check(launches != "-", "kwalk list %s: no launch site" % sym)


def main():
    args = kwcap.parse_args()
    if not args.kwalk or not os.path.isfile(args.kwalk):
        print("kwalk command not built (%r): skipped" % args.kwalk)
        raise SystemExit(kwcap.SKIP)
    ck = Checker("test_kwalk_cli")
    exp = kwcap.load_expected(args)
    markers = kwcap.load_markers(args, ck)
    arches = args.arches
    root = kwcap.tmpdir(args, "cli")
    try:
        # ---- ground truth: code-object kernels, expected names / launches / entries
        co_archs = {}
        for tu in kwcap.corpus_tus(exp):
            obj = kwcap.object_of(args, tu)
            if not ck.check(os.path.isfile(obj), "%s: object %s missing (kw_corpus built?)" % (tu, obj)):
                continue
            for arch in arches:
                co, err = kwcap.code_object_kernels(args, obj, arch, root)
                if ck.check(err is None, "%s/%s: %s" % (tu, arch, err)):
                    for s in co:
                        co_archs.setdefault(s, set()).add(arch)
        want_names = {}
        for kid, k in exp["kernels"].items():
            for inst in k["instantiations"]:
                want_names["%s<%s>" % (k["name"], ", ".join(inst["args"]))] = (kid, tuple(inst["args"]))
        launch_sites = {}
        for lid, le in exp["launches"].items():
            m = markers[lid]
            for inst in le["instantiations"]:
                launch_sites.setdefault((le["kernel"], tuple(inst["args"])), set()).add((m["file"], m["line"]))
        entry_names = {}
        for eid, e in exp["entries"].items():
            if e.get("shadowed_by"):
                continue  # another entry binds its function: kwalk list leaves it out
            if e["kind"] == "extern_c":
                names = {"extern_c:" + e["symbol"]}
            elif e["kind"] == "cxx":
                names = {"cxx:" + e["name"]}
            else:
                names = {"pybind:" + e["name"], "pybind:%s.%s" % (e["module"], e["name"])}
            for lid, insts in e["reaches_instantiations"].items():
                kid = exp["launches"][lid]["kernel"]
                for a in insts:
                    entry_names.setdefault((kid, tuple(a)), []).append((eid, names))

        # ---- index + list
        db = os.path.join(root, "corpus.db")
        r = kwcap.run([args.kwalk, "index", args.corpus_out, "-o", db])
        ck.check(r.returncode == 0, "kwalk index %s: rc=%d %s" % (args.corpus_out, r.returncode, r.stderr))
        r = kwcap.run([args.kwalk, "list", "--db", db])
        ck.check(r.returncode == 0, "kwalk list: rc=%d %s" % (r.returncode, r.stderr))
        rows, asm_rows = {}, {}
        for line in r.stdout.splitlines():
            cols = line.split("\t")
            if not ck.check(len(cols) == 8, "kwalk list: not 8 tab-separated columns: %r" % line):
                continue
            name, sym, archs, launches, entries, _, kind, cos = cols
            ck.check(sym not in rows and sym not in asm_rows, "kwalk list: symbol %s on two lines" % sym)
            ck.check(kind in ("hip", "asm"), "kwalk list %s: KIND %r" % (sym, kind))
            if kind == "asm":
                asm_rows[sym] = (name, archs, launches, cos)
                continue
            ck.check(cos == "-", "kwalk list %s: CODE_OBJECTS %r of a hip kernel" % (sym, cos))
            rows[sym] = (name, archs, launches, entries)
        check_asm_rows(args, ck, exp, root, asm_rows)
        ck.check(set(rows) == set(co_archs), "kwalk list symbols vs code objects: only listed %s, "
                 "only in code objects %s" % (sorted(set(rows) - set(co_archs)),
                                              sorted(set(co_archs) - set(rows))))
        ck.check({v[0] for v in rows.values()} == set(want_names),
                 "kwalk list names vs expected.json: only listed %s, only expected %s"
                 % (sorted({v[0] for v in rows.values()} - set(want_names)),
                    sorted(set(want_names) - {v[0] for v in rows.values()})))
        for sym, (name, archs, launches, entries) in sorted(rows.items()):
            if sym in co_archs:
                ck.eq(sorted(archs.split(",")), sorted(co_archs[sym]), "kwalk list %s: ARCHS" % name)
            key = want_names.get(name)
            if key is None:
                continue
            got_sites = set()
            if launches != "-":
                for site in launches.split(","):
                    f, _, l = site.rpartition(":")
                    got_sites.add((kwcap.rel_file(args, f), int(l) if l.isdigit() else l))
            ck.eq(sorted(got_sites), sorted(launch_sites.get(key, set())), "kwalk list %s: LAUNCHES" % name)
            got_entries = set() if entries == "-" else set(entries.split(","))
            want = entry_names.get(key, [])
            for eid, names in want:
                ck.check(got_entries & names, "kwalk list %s: ENTRIES %r lacks %s (%s)"
                         % (name, entries, eid, " or ".join(sorted(names))))
            allowed = set().union(*[n for _, n in want]) if want else set()
            ck.check(not (got_entries - allowed), "kwalk list %s: ENTRIES lists %s that do not reach it"
                     % (name, sorted(got_entries - allowed)))

        # ---- bad sidecars
        good_src = kwcap.object_of(args, "rope_kernels.hip") + ".kwalk.yaml"
        with open(good_src, encoding="utf-8") as f:
            good = f.read()
        body = good.rstrip("\n")
        last_nl = body.rfind("\n")
        cases = {
            "cut_midline": good[:len(good) // 2],
            "cut_at_line": body[:last_nl + 1],        # everything but the final '...'
            "empty": "",
            "broken_yaml": "kwalk_schema: 1\nkernels:\n- {symbol: _Zx, name: \"k<1>\"\n  bad: [\n",
            "schema_99": re.sub(r"^kwalk_schema: \d+", "kwalk_schema: 99", good, count=1,
                                flags=re.M),
        }
        ck.check(cases["schema_99"] != good and cases["cut_at_line"].rstrip().endswith("...") is False,
                 "building the bad inputs (test bug)")
        for name, text in cases.items():
            d = os.path.join(root, "bad_" + name)
            os.makedirs(d)
            shutil.copy(good_src, os.path.join(d, "a_good.o.kwalk.yaml"))
            bad = os.path.join(d, "m_%s.o.kwalk.yaml" % name)
            with open(bad, "w", encoding="utf-8") as f:
                f.write(text)
            out = os.path.join(root, "bad_%s.db" % name)
            r = kwcap.run([args.kwalk, "index", d, "-o", out])
            ck.check(0 < r.returncode < 128, "%s: kwalk index exit status %d (want non-zero, no signal)"
                     % (name, r.returncode))
            lines = r.stderr.splitlines()
            ck.check(len(lines) == 1 and lines[0].startswith("kwalk:")
                     and os.path.basename(bad) in lines[0] and "a_good" not in lines[0],
                     "%s: stderr must be one 'kwalk:' line naming %s, got %r"
                     % (name, os.path.basename(bad), lines))
            if os.path.exists(out):
                ck.note("%s: kwalk index left a database %s despite the error" % (name, out))
    finally:
        kwcap.cleanup(args, root)
    ck.finish()


if __name__ == "__main__":
    main()
