"""test_trace.py: `kwalk trace` on rocprofv3 kernel traces written here.

The traces name kernels of the corpus (symbols read from the corpus sidecars
with PyYAML) the ways rocprofv3 does: mangled (--mangled-kernels), demangled
(its default; demangled here with binutils' c++filt), cut short with "..."
(unique, and ambiguous), as the bare name (--truncate-kernels), plus a kernel
the index does not know. The expected candidates of the ambiguous names are
computed here from the printed names and the C++ runtime's __cxa_demangle
(called through ctypes: the demangler rocprofv3 and kwalk use, which may fail
where c++filt succeeds). Durations and
launch configurations are drawn at random (fixed seed); the dispatch count,
total, median, min and max per instantiation and per launch configuration,
and the grid in workgroups, are computed here independently and compared with
`kwalk trace --format yaml`. The same dispatches as rocprofv3's JSON form,
the CSV with its columns shuffled and with CRLF line ends must give the same
numbers. Bad traces get one `kwalk: FILE: ...` line and exit 1.

Bytes moved and bandwidth: the sidecars have no IR facts yet, so kwalk must say
"not known (no IR facts)"; that is what is checked (a sidecar with IR facts
would make this test say so and skip that check).

Exit 0 when all checks hold, 1 otherwise, 77 when it cannot run.
"""
import argparse
import contextlib
import ctypes
import glob
import json
import os
import random
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from kwcheck import Checker  # noqa: E402
from kwrun import run  # noqa: E402

import yaml  # noqa: E402
from kwllvm import YAML_LOADER as Loader  # noqa: E402

# rocprofv3's kernel trace columns, in its documented order
# (rocprofiler-sdk docs, "Kernel naming and filtering": *_kernel_trace.csv).
COLUMNS = ["Kind", "Agent_Id", "Queue_Id", "Stream_Id", "Thread_Id", "Dispatch_Id", "Kernel_Id",
           "Kernel_Name", "Correlation_Id", "Start_Timestamp", "End_Timestamp", "LDS_Block_Size",
           "Scratch_Size", "VGPR_Count", "Accum_VGPR_Count", "SGPR_Count", "Workgroup_Size_X",
           "Workgroup_Size_Y", "Workgroup_Size_Z", "Grid_Size_X", "Grid_Size_Y", "Grid_Size_Z"]


def demangle(symbols):
    """binutils' c++filt, one symbol per line; None when it is missing."""
    cxxfilt = shutil.which("c++filt")
    if not cxxfilt:
        return None
    p = run([cxxfilt], input="\n".join(symbols) + "\n")
    out = p.stdout.splitlines()
    return dict(zip(symbols, out)) if p.returncode == 0 and len(out) == len(symbols) else None


def cxa_demangle_all(symbols):
    """The C++ runtime's __cxa_demangle (libstdc++), as kwalk and rocprofv3 call
    it; a symbol it cannot demangle maps to None."""
    try:
        lib = ctypes.CDLL("libstdc++.so.6")
    except OSError:
        return None
    fn = lib.__cxa_demangle
    fn.restype = ctypes.c_char_p  # the malloc'd result leaks: a test process
    fn.argtypes = [ctypes.c_char_p, ctypes.c_void_p, ctypes.c_void_p,
                   ctypes.POINTER(ctypes.c_int)]
    out = {}
    for s in symbols:
        st = ctypes.c_int(1)
        r = fn(s.encode(), None, None, ctypes.byref(st))
        out[s] = r.decode() if st.value == 0 and r else None
    return out


def base_name(name):
    """rocprofv3's --truncate-kernels rule: the unqualified name before the
    trailing (...), <...> and [...] groups."""
    i = len(name)
    pairs = {")": "(", ">": "<", "]": "["}
    while i > 0:
        ch = name[i - 1]
        if ch == " ":
            i -= 1
            continue
        if ch not in pairs:
            break
        depth = 0
        while i > 0:
            i -= 1
            if name[i] == ch:
                depth += 1
            elif name[i] == pairs[ch]:
                depth -= 1
                if depth == 0:
                    break
    stop = i
    while i > 0 and name[i - 1] not in " :":
        i -= 1
    return name[i:stop]


def csv_field(v):
    s = str(v)
    if any(ch in s for ch in ',"\r\n') or isinstance(v, str):
        return '"' + s.replace('"', '""') + '"'
    return s


def write_csv(path, dispatches, columns=COLUMNS, eol="\n"):
    with open(path, "w", newline="") as f:
        f.write(",".join('"%s"' % c for c in columns) + eol)
        for i, d in enumerate(dispatches):
            row = {
                "Kind": "KERNEL_DISPATCH", "Agent_Id": "Agent 4", "Queue_Id": 1, "Stream_Id": 1,
                "Thread_Id": 4242, "Dispatch_Id": i + 1, "Kernel_Id": d["kid"],
                "Kernel_Name": d["trace_name"], "Correlation_Id": i + 1,
                "Start_Timestamp": d["start"], "End_Timestamp": d["end"], "LDS_Block_Size": 0,
                "Scratch_Size": 0, "VGPR_Count": 32, "Accum_VGPR_Count": 0, "SGPR_Count": 16,
                "Workgroup_Size_X": d["block"][0], "Workgroup_Size_Y": d["block"][1],
                "Workgroup_Size_Z": d["block"][2], "Grid_Size_X": d["grid"][0],
                "Grid_Size_Y": d["grid"][1], "Grid_Size_Z": d["grid"][2]}
            if d.get("kind"):
                row["Kind"] = d["kind"]
            f.write(",".join(csv_field(row[c]) for c in columns) + eol)


def write_json(path, dispatches, mangled_of):
    """rocprofv3 --output-format json: kernel_symbols carry the mangled name with
    ".kd"; dispatches refer to them by kernel_id."""
    syms, seen = [], {}
    for d in dispatches:
        if d["kid"] in seen:
            continue
        seen[d["kid"]] = True
        mangled = mangled_of.get(d["trace_name"], d["trace_name"])
        syms.append({"kernel_id": d["kid"], "code_object_id": 1, "kernel_name": mangled + ".kd",
                     "formatted_kernel_name": d["trace_name"],
                     "truncated_kernel_name": d["trace_name"].split("(")[0]})
    recs = []
    for i, d in enumerate(dispatches):
        if d.get("kind"):
            continue
        recs.append({"size": 80, "kind": 11, "operation": 1, "thread_id": 4242,
                     "correlation_id": {"internal": i + 1, "external": 0},
                     "start_timestamp": d["start"], "end_timestamp": d["end"],
                     "dispatch_info": {"size": 64, "agent_id": {"handle": 7},
                                       "queue_id": {"handle": 1}, "kernel_id": d["kid"],
                                       "dispatch_id": i + 1, "private_segment_size": 0,
                                       "group_segment_size": 0,
                                       "workgroup_size": dict(zip("xyz", d["block"])),
                                       "grid_size": dict(zip("xyz", d["grid"]))}})
    doc = {"rocprofiler-sdk-tool": [{
        "metadata": {"pid": 4242},
        "agents": [{"id": {"handle": 1}, "type": 1, "name": "AMD EPYC"},
                   {"id": {"handle": 7}, "type": 2, "name": "gfx942"}],
        "kernel_symbols": syms,
        "buffer_records": {"kernel_dispatch": recs}}]}
    with open(path, "w") as f:
        json.dump(doc, f, indent=1)


def stats(durs):
    s = sorted(durs)
    n = len(s)
    med = s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2
    return {"dispatches": n, "total_ns": sum(s), "median_ns": med, "min_ns": s[0], "max_ns": s[-1]}


def setup(name):
    """The trace tests' arguments (--kwalk, --corpus-out, --keep), their
    Checker and the corpus's sidecars (none: the test is skipped)."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--kwalk", required=True)
    ap.add_argument("--corpus-out", required=True)
    ap.add_argument("--keep", action="store_true")
    args = ap.parse_args()
    sidecars = sorted(glob.glob(os.path.join(args.corpus_out, "*.kwalk.yaml")))
    if not sidecars:
        print("%s: no corpus sidecars in %s (build target kw_corpus)" % (name, args.corpus_out))
        sys.exit(77)
    return args, Checker(), sidecars


@contextlib.contextmanager
def indexed(args, c, prefix):
    """A new temporary folder holding `kwalk index` of the corpus: (folder,
    index); removed at the end unless --keep (then its path printed)."""
    tmp = tempfile.mkdtemp(prefix=prefix)
    try:
        db = os.path.join(tmp, "idx.db")
        p = run([args.kwalk, "index", args.corpus_out, "-o", db])
        if not c.check(p.returncode == 0, "kwalk index: %s" % p.stderr):
            c.finish()
        yield tmp, db
    finally:
        if args.keep:
            print("kept %s" % tmp)
        else:
            shutil.rmtree(tmp, ignore_errors=True)


def main():
    args, c, sidecars = setup("test_trace")
    kernels = {}
    has_ir = False
    for s in sidecars:
        with open(s) as f:
            doc = yaml.load(f, Loader=Loader)
        for k in doc.get("kernels") or []:
            k = dict(k)
            k["name"] = k.get("name") or ""  # absent: not captured from the AST
            kernels.setdefault(k["symbol"], k)
            for a in (k.get("archs") or {}).values():
                has_ir |= isinstance(a, dict) and "ir" in a
    dem = demangle(sorted(kernels))
    cxa = cxa_demangle_all(sorted(kernels))
    if dem is None or cxa is None:
        print("test_trace: c++filt (binutils) or libstdc++'s __cxa_demangle is missing")
        sys.exit(77)

    with indexed(args, c, "kwalk-trace-test-") as (tmp, db):

        # Kernels of the corpus, picked by symbol (never by line numbers; the
        # printed name may be absent for a kernel the AST capture missed).
        def by_sym(*parts):
            return next((s for s in sorted(kernels) if all(x in s for x in parts)), None)
        k_demangled = by_sym("20greedy_sample_kernelIfLi")
        k_cut = by_sym("rope_sbhd_fwd_kernelIf") or by_sym("rope_sbhd_fwd_kernel")
        amb_tmpl = "kw::mix_sample_kernel"
        k_mangled = by_sym("reshape_and_cache_kernelIf") or by_sym("reshape_and_cache")
        if not (k_mangled and k_demangled and k_cut and by_sym("17mix_sample_kernel")):
            print("test_trace: the corpus lacks the kernels this test names (%r)" % sorted(kernels))
            sys.exit(77)

        # What kwalk can compare a trace name with, per kernel: the C++
        # runtime's demangling (the demangler rocprofv3 and kwalk use; it may
        # fail where c++filt succeeds, e.g. libstdc++ 12 on DF16b) and the
        # printed name. The join rules are modelled here on those forms.
        def forms(sym):
            out = []
            if cxa.get(sym):
                out.append(cxa[sym])
            if kernels[sym]["name"]:
                out.append(kernels[sym]["name"])
            return out

        def unvoid(x):
            return x[5:] if x.startswith("void ") else x

        # Trace names.
        names = {}  # trace name -> expected symbol (None: ambiguous / unknown)
        mangled_of = {}  # trace name -> mangled symbol (for the JSON form)
        names[k_mangled] = k_mangled
        mangled_of[k_mangled] = k_mangled
        d_name = dem[k_demangled]
        c.check(d_name != k_demangled and "," in d_name, "c++filt demangled %s" % k_demangled)
        names[d_name] = k_demangled
        mangled_of[d_name] = k_demangled
        # A cut name: long enough to be unique among every form of every kernel.
        full = dem[k_cut]
        cut = None
        for n in range(10, len(full)):
            head = full[:n]
            if sum(1 for s in kernels
                   if dem[s].startswith(head) or any(f.startswith(head) or
                                                     unvoid(f).startswith(unvoid(head))
                                                     for f in forms(s))) == 1:
                cut = head + "..."
                break
        c.check(cut is not None, "no unique prefix of %r" % full)
        names[cut] = k_cut
        mangled_of[cut] = k_cut
        # An ambiguous cut: the template's name and '<'.
        amb = "void %s<..." % amb_tmpl
        head = amb[:-3]
        amb_cands = sorted(s for s in kernels
                           if any(f.startswith(head) or f.startswith(unvoid(head))
                                  for f in forms(s)))
        names[amb] = None
        # --truncate-kernels: the bare name, ambiguous across instantiations.
        base = amb_tmpl.split("::")[-1]
        base_cands = sorted(s for s in kernels if forms(s) and base_name(forms(s)[0]) == base)
        names[base] = None
        unknown = "void not_a_corpus_kernel<int>(int*, int)"
        names[unknown] = None

        rng = random.Random(1234)
        dispatches = []
        t = 1700000000000000000  # ns since the epoch: beyond a double's 53 bits
        kid = {n: 10 + i for i, n in enumerate(names)}
        configs = [((256, 1, 1), (256 * 1024, 1, 1)), ((256, 1, 1), (256 * 77, 3, 1)),
                   ((64, 4, 1), (64 * 5, 4 * 2, 1)), ((128, 1, 1), (1000, 1, 1))]
        plan = [(k_mangled, 7), (d_name, 6), (cut, 3), (amb, 2), (base, 2), (unknown, 1)]
        for name, count in plan:
            for i in range(count):
                block, grid = configs[rng.randrange(len(configs))]
                t += rng.randrange(1000, 5000)
                dur = rng.randrange(1500, 90000)
                dispatches.append({"trace_name": name, "kid": kid[name], "start": t,
                                   "end": t + dur, "block": block, "grid": grid})
                t += dur
        rng.shuffle(dispatches)
        # A record of another kind: skipped.
        dispatches.insert(3, {"trace_name": k_mangled, "kid": kid[k_mangled], "start": 5,
                              "end": 4, "block": (1, 1, 1), "grid": (1, 1, 1),
                              "kind": "MEMORY_COPY"})

        partial = {}

        def expect():
            per, cfgs = {}, {}
            for d in dispatches:
                if d.get("kind"):
                    continue
                key = names[d["trace_name"]] or ("name", d["trace_name"])
                per.setdefault(key, []).append(d["end"] - d["start"])
                wg = tuple(-(-g // b) for g, b in zip(d["grid"], d["block"]))
                cfgs.setdefault(key, {}).setdefault((wg, tuple(d["block"])), []).append(
                    d["end"] - d["start"])
                partial[(key, (wg, tuple(d["block"])))] = any(
                    g % b for g, b in zip(d["grid"], d["block"]))
            return per, cfgs
        per, cfgs = expect()

        def check_report(rep, what, json_form=False):
            c.eq(rep.get("dispatches"), sum(len(v) for v in per.values()), what + ": dispatches")
            got = {k["symbol"]: k for k in rep.get("kernels") or []}
            want_syms = {k for k in per if isinstance(k, str)}
            c.eq(sorted(got), sorted(want_syms), what + ": joined instantiations")
            want_match = {k_mangled: "symbol", k_demangled: "symbol" if json_form else "demangled",
                          k_cut: "symbol" if json_form else "prefix"}
            for sym in want_syms & set(got):
                k = got[sym]
                st = stats(per[sym])
                for key, v in st.items():
                    c.eq(k.get(key), v, "%s: %s %s" % (what, kernels[sym]["name"], key))
                c.eq(k.get("match"), want_match[sym], "%s: %s match" % (what, sym))
                gcfg = {(tuple(x["grid_workgroups"]), tuple(x["workgroup_size"])): x
                        for x in k.get("launch_configs") or []}
                c.eq(sorted(gcfg), sorted(cfgs[sym]), "%s: %s launch configurations" % (what, sym))
                for cfg_key, durs in cfgs[sym].items():
                    x = gcfg.get(cfg_key)
                    if not x:
                        continue
                    for key, v in stats(durs).items():
                        c.eq(x.get(key), v, "%s: %s %r %s" % (what, sym, cfg_key, key))
                    part = partial[(sym, cfg_key)]
                    c.eq(x.get("partial_workgroups"), part, "%s: %s %r partial" % (what, sym, cfg_key))
                    if has_ir:
                        c.notes.append("sidecars have IR facts: bytes moved not checked")
                    else:
                        c.eq(x.get("bytes_moved"), None, "%s: %s bytes_moved" % (what, sym))
                        c.eq(x.get("bytes_moved_note"), "not known (no IR facts)",
                             "%s: %s bytes_moved_note" % (what, sym))
                    if json_form:
                        c.eq(x.get("arch"), "gfx942", "%s: %s arch from the agent" % (what, sym))
                peaks = k.get("peaks") or []
                c.check(peaks and all(p.get("hbm_tbs", 0) > 0 for p in peaks),
                        "%s: %s peaks %r" % (what, sym, peaks))
            if json_form:
                return  # JSON names are the mangled symbols: no ambiguity to check
            amb_got = {a["trace_name"]: a for a in rep.get("ambiguous") or []}
            c.eq(sorted(amb_got), sorted([amb, base]), what + ": ambiguous names")
            for name, cands, how in ((amb, amb_cands, "prefix"), (base, base_cands, "base_name")):
                a = amb_got.get(name)
                if not a:
                    continue
                c.eq(sorted(x["symbol"] for x in a.get("candidates") or []), cands,
                     "%s: candidates of %r" % (what, name))
                c.eq(a.get("match"), how, "%s: %r matched by" % (what, name))
                for key, v in stats(per[("name", name)]).items():
                    c.eq(a.get(key), v, "%s: %r %s" % (what, name, key))
            un = {u["trace_name"]: u for u in rep.get("unmatched") or []}
            c.eq(sorted(un), [unknown], what + ": names not in the index")
            if unknown in un:
                for key, v in stats(per[("name", unknown)]).items():
                    c.eq(un[unknown].get(key), v, "%s: unknown %s" % (what, key))

        def trace_yaml(path, what):
            p = run([args.kwalk, "trace", path, "--db", db, "--format", "yaml"])
            if not c.check(p.returncode == 0 and p.stderr == "",
                           "%s: rc %d, stderr %r" % (what, p.returncode, p.stderr)):
                return None
            return yaml.load(p.stdout, Loader=Loader)

        csv1 = os.path.join(tmp, "run_kernel_trace.csv")
        write_csv(csv1, dispatches)
        rep = trace_yaml(csv1, "csv")
        if rep:
            check_report(rep, "csv")
            c.eq(rep.get("skipped_rows"), 1, "csv: skipped rows of another Kind")

        # Columns in another order, CRLF line ends.
        cols = COLUMNS[:]
        random.Random(7).shuffle(cols)
        csv2 = os.path.join(tmp, "shuffled.csv")
        write_csv(csv2, dispatches, columns=cols, eol="\r\n")
        rep = trace_yaml(csv2, "csv shuffled+crlf")
        if rep:
            check_report(rep, "csv shuffled+crlf")

        # The JSON form: mangled names with .kd; the arch from the agent.
        js = os.path.join(tmp, "run_results.json")
        write_json(js, [d for d in dispatches if names[d["trace_name"]]], mangled_of)
        saved = per, cfgs
        keep = dispatches
        dispatches = [d for d in keep if names[d["trace_name"]]]
        per, cfgs = expect()
        rep = trace_yaml(js, "json")
        if rep:
            check_report(rep, "json", json_form=True)
            c.eq(rep.get("format"), "json", "json: format")
        dispatches = keep
        per, cfgs = saved

        # Text form: the same counts, the bytes line, exit 0.
        p = run([args.kwalk, "trace", csv1, "--db", db])
        c.check(p.returncode == 0, "text: rc %d %s" % (p.returncode, p.stderr))
        st = stats(per[k_mangled])
        c.check("%d dispatches, total %.3f us" % (st["dispatches"], st["total_ns"] / 1000.0)
                in p.stdout, "text: the dispatch line of %s:\n%s" % (k_mangled, p.stdout[:3000]))
        if not has_ir:
            c.check("bytes moved: not known (no IR facts)" in p.stdout, "text: bytes moved line")
        c.check('ambiguous: "%s"' % base in p.stdout, "text: ambiguous base name")
        c.check('not in the index: "%s"' % unknown in p.stdout, "text: unknown name")
        # --gpu picks the product whose peak is shown.
        p = run([args.kwalk, "trace", csv1, "--db", db, "--gpu", "MI325X", "--format", "yaml"])
        rep = yaml.load(p.stdout, Loader=Loader) if p.returncode == 0 else {}
        gpus = {pk.get("gpu") for k in rep.get("kernels") or [] for pk in k.get("peaks") or []}
        c.eq(gpus, {"MI325X"}, "--gpu MI325X: peaks")

        # Bad inputs: one line "kwalk: FILE: ...", exit 1.
        header = ",".join('"%s"' % x for x in COLUMNS) + "\n"
        good_row = ('"KERNEL_DISPATCH","Agent 4",1,1,1,1,1,"%s",1,100,200,0,0,8,0,16,256,1,1,'
                    '1024,1,1\n' % k_mangled)
        bad = {
            "empty.csv": "",
            "nocol.csv": header.replace('"End_Timestamp"', '"Finish"') + good_row,
            "badint.csv": header + good_row.replace(",100,200,", ",1x0,200,"),
            "order.csv": header + good_row.replace(",100,200,", ",300,200,"),
            "fields.csv": header + good_row.replace(",1024,1,1", ",1024,1"),
            "quote.csv": header + good_row.replace('"%s"' % k_mangled, '"%s' % k_mangled),
            "afterquote.csv": header + good_row.replace('"%s"' % k_mangled, '"%s"x' % k_mangled),
            "trunc.json": '{"rocprofiler-sdk-tool": [{"buffer_records": {"kernel_dispatch": [',
            "other.json": '{"a": [1, 2, 3]}',
            "nosym.json": json.dumps({"rocprofiler-sdk-tool": [{"kernel_symbols": [],
                                      "buffer_records": {"kernel_dispatch": [
                                          {"start_timestamp": 1, "end_timestamp": 2,
                                           "dispatch_info": {"kernel_id": 3}}]}}]}),
        }
        for fname, text in sorted(bad.items()):
            path = os.path.join(tmp, fname)
            with open(path, "w") as f:
                f.write(text)
            p = run([args.kwalk, "trace", path, "--db", db])
            err = p.stderr.splitlines()
            c.check(p.returncode == 1 and p.stdout == "" and len(err) == 1
                    and err[0].startswith("kwalk: %s: " % path),
                    "%s: rc %d, stdout %r, stderr %r" % (fname, p.returncode, p.stdout[:200],
                                                         p.stderr))
        # A header without rows: a trace with no dispatches, not an error.
        path = os.path.join(tmp, "headeronly.csv")
        with open(path, "w") as f:
            f.write(header)
        p = run([args.kwalk, "trace", path, "--db", db, "--format", "yaml"])
        rep = yaml.load(p.stdout, Loader=Loader) if p.returncode == 0 else {}
        c.check(p.returncode == 0 and rep.get("dispatches") == 0 and rep.get("kernels") == [],
                "header only: rc %d %r %r" % (p.returncode, p.stdout[:300], p.stderr))
        p = run([args.kwalk, "trace", os.path.join(tmp, "missing.csv"), "--db", db])
        c.check(p.returncode == 1 and len(p.stderr.splitlines()) == 1, "missing file: %r" % p.stderr)
        p = run([args.kwalk, "trace", csv1, "--db", os.path.join(tmp, "nodb.db")])
        c.check(p.returncode == 1 and len(p.stderr.splitlines()) == 1, "missing db: %r" % p.stderr)
        for what, cmd in [("no file", []), ("two files", [csv1, csv1]),
                          ("bad format", [csv1, "--format", "xml"]),
                          ("unknown gpu", [csv1, "--gpu", "H100", "--db", db]),
                          ("unknown option", [csv1, "--bogus"])]:
            p = run([args.kwalk, "trace"] + cmd)
            c.check(p.returncode == 2 and len(p.stderr.splitlines()) == 1
                    and p.stderr.startswith("kwalk: trace: "),
                    "usage error (%s): rc %d, %r" % (what, p.returncode, p.stderr))
    c.finish()


if __name__ == "__main__":
    main()
