#!/usr/bin/env python3
"""test_launches: launch sites and kernels of the corpus sidecars against the
source's marker comments and tests/corpus/expected.json.

Launches: every launch in a corpus file sits on the line of a `KW:LAUNCH`
marker and every marker has its launches; per marker, the instantiations
launched there (template arguments read through the launched kernel's symbol)
are exactly expected.json's; kind; enclosing function; constant grid / block /
shared memory values and the expressions as written; kernel arguments mapped
to the parameter names read from the kernel's definition in the source, with
the argument text read from the launch in the source; the local guards
(condition text, polarity, line of the `KW:GUARD` marker); the macro expansion
chain of a launch written through a macro; the instantiation chain's calls at
`KW:CALL` markers.

Launches through a kernel library (expected `library`/`site`): the launch is
at the user's call (`KW:LAUNCH`), `library` is the library's name and `site`
the real `<<<>>>` (`KW:SITE` line); config expressions and arguments are read
at the site; the instantiation chain frame by frame (function, `KW:CALL`
line). Launches written in user code have no `library`/`site`, and launches of
kernels no ASM fields.

ASM launches (expected.json `asm_launches`): one launch on the `KW:LAUNCH`
line, with kind (`asm_loader` / `hipModuleLaunchKernel`), loader class, no
`kernel`, the ASM kernel's name and code-object path (the `${KW_ASM_DIR}` the
build defines substituted; the file must exist: the corpus build assembled
it), grid / block values and expressions, stream, shared memory when recorded,
function, local guards (early exits included), empty instantiation chain.

Kernels: per expected kernel, the set of instantiations; definition line ==
`KW:KERNEL` line; template parameter names / kinds and which argument came
from a default; parameter names; doc comment; inline asm at the `KW:ASM` line
with the asm string written there; a trampoline kernel's `functor` (the user
kernel type as printed) and `functor_location` at the `KW:FUNCTOR` line, and
no `functor` on other kernels; the launch-bounds value of the instantiation
where expected.json gives one.
"""
import os
import collections
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import kwcap  # noqa: E402
from kwcheck import Checker  # noqa: E402

KIND_OF_FORM = {("chevron", None): "triple_chevron",
                ("chevron", "hipLaunchKernelGGL"): "hipLaunchKernelGGL",
                ("hipLaunchKernel", None): "hipLaunchKernel"}
PARAM_KIND = {"type": "type", "int": "value", "bool": "value"}


def func_matches(got, want):
    """expected 'kw::sample (lambda)' / 'kw::launch_x' vs the printed function
    'kw::sample::(lambda at f:1:2)' / 'kw::launch_x<float, 128>'."""
    if got is None:
        return False
    lam = want.endswith(" (lambda)")
    base = want[:-len(" (lambda)")] if lam else want
    if not got.startswith(base):
        return False
    rest = got[len(base):]
    if lam:
        return "(lambda" in rest
    return rest == "" or (rest.startswith("<") and "(lambda" not in rest)


def expected_guard(exp, gid, markers, spec):
    g = exp["guards"][gid]
    m = markers[gid]
    cond = g["text"] if g["kind"] == "if" else "%s == %s" % (g["text"], spec["case"])
    kind = "if" if g["kind"] == "if" else "case"
    if kind == "if" and (spec.get("early_exit") or not g.get("enclosing", True)):
        kind = "early_exit"  # if (c) return ...; before the launch
    holds = spec.get("holds", True) if g["kind"] == "if" else True
    return (m["file"], m["line"], kind, kwcap.norm(cond), holds)


def got_guard(args, g):
    f, l = kwcap.loc_line(g)
    return (kwcap.rel_file(args, f), l, g.get("kind"), kwcap.norm(g.get("condition")), g.get("holds"))


def check_kernels(args, ck, exp, markers, docs, src_lines):
    for kid, k in exp["kernels"].items():
        tu = k["file"]  # the TU; the definition may be in a header (defined_in, the marker's file)
        doc = docs.get(tu)
        if doc is None:
            continue
        mk = markers[kid]
        got = [x for x in doc["kernels"] if x.get("template") == k["name"]]
        by_args = {kwcap.kernel_args(x): x for x in got}
        want = {tuple(i["args"]): i for i in k["instantiations"]}
        ck.check(set(by_args) == set(want), "kernel %s: instantiations in the sidecar %s, expected %s"
                 % (kid, sorted(set(by_args) - set(want)) or "(none extra)",
                    sorted(set(want) - set(by_args)) or "(none missing)"))
        ck.eq(len(got), len(by_args), "kernel %s: sidecar entries vs distinct argument lists" % kid)
        lines = src_lines[mk["file"]]
        short = k["name"].split("::")[-1]
        params = kwcap.kernel_params_from_source(lines, mk["line"], short)
        ck.check(params and None not in params, "kernel %s: could not read its parameters from the "
                 "source at %s:%d (test bug)" % (kid, mk["file"], mk["line"]))
        asm_ids = k.get("asm") or []
        for argv, inst in sorted(want.items()):
            x = by_args.get(argv)
            if x is None:
                continue
            what = "kernel %s<%s>" % (kid, ", ".join(argv))
            f, l = kwcap.loc_line(x)
            ck.eq((kwcap.rel_file(args, f), l), (mk["file"], mk["line"]),
                  what + ": definition location vs KW:KERNEL marker")
            ta = x.get("template_args") or []
            ck.eq([a.get("name") for a in ta], [p["name"] for p in k["template_params"]],
                  what + ": template parameter names")
            ck.eq([a.get("kind") for a in ta], [PARAM_KIND[p["kind"]] for p in k["template_params"]],
                  what + ": template argument kinds")
            ck.eq([i for i, a in enumerate(ta) if a.get("defaulted")], inst["defaulted"],
                  what + ": indices of defaulted template arguments")
            ck.eq([p.get("name") for p in (x.get("params") or [])], params, what + ": parameter names")
            doc_text = x.get("doc") or ""
            ck.check(" ".join(doc_text.split()).startswith(" ".join(k["doc_starts_with"].split())),
                     what + ": doc comment %r does not start with %r"
                     % (doc_text[:80], k["doc_starts_with"]))
            # ---- trampoline kernels: the user-level kernel type and its operator()
            fn = inst.get("functor")
            if fn:
                ck.eq(x.get("functor"), fn["type"], what + ": functor (user kernel type)")
                fm = markers[fn["at"]]
                ff, fl = kwcap.loc_line(x, "functor_location")
                ck.eq((kwcap.rel_file(args, ff), fl), (fm["file"], fm["line"]),
                      what + ": functor_location vs KW:FUNCTOR %s" % fn["at"])
                ftext = src_lines[fm["file"]][fm["line"] - 1]
                ck.check("operator()" in ftext, "functor marker %s is not on an operator() line "
                         "(ground truth bug): %r" % (fn["at"], ftext.strip()))
            else:
                ck.check(not x.get("functor") and not x.get("functor_location"),
                         what + ": functor %r given to a kernel that is no trampoline"
                         % x.get("functor"))
            if isinstance(inst.get("launch_bounds"), int):
                vals = {a.get("name"): str(a.get("value")) for a in (x.get("attrs") or [])}
                lb = vals.get("launch_bounds")
                fw = vals.get("amdgpu_flat_work_group_size")
                got_max = (lb.split(",")[0].strip() if lb else
                           fw.split(",")[-1].strip() if fw else None)
                ck.eq(got_max, str(inst["launch_bounds"]),
                      what + ": launch bounds (max threads) of the instantiation, attrs %r" % vals)
            asms = x.get("inline_asm") or []
            if not asm_ids:
                ck.check(not asms, what + ": inline asm listed but the kernel has none: %r" % asms)
            for aid in asm_ids:
                am = markers[aid]
                text = kwcap.asm_text_from_source(src_lines[am["file"]], am["line"])
                ck.check(text, "asm %s: no asm string on its marker line (test bug)" % aid)
                mnemonic = (text or "?").split()[0]
                hits = [a for a in asms
                        if (kwcap.rel_file(args, kwcap.loc_line(a)[0]), kwcap.loc_line(a)[1])
                        == (am["file"], am["line"])]
                if ck.check(hits, what + ": no inline asm at the KW:ASM %s line %s:%d (got %r)"
                            % (aid, am["file"], am["line"], asms)):
                    ck.check(mnemonic in (hits[0].get("text") or ""),
                             what + ": asm text %r lacks %r" % (hits[0].get("text"), mnemonic))
                    ck.eq(hits[0].get("text"), text, what + ": asm text vs the source")


def check_launches(args, ck, exp, markers, docs, src_lines):
    launch_markers = {(m["file"], m["line"]): i for i, m in markers.items() if m["kind"] == "LAUNCH"}
    call_lines = {(m["file"], m["line"]): i for i, m in markers.items() if m["kind"] == "CALL"}
    at_marker = collections.defaultdict(list)  # launch id -> [(doc, launch)]
    for tu, doc in docs.items():
        for ln in doc["launches"]:
            f, l = kwcap.loc_line(ln)
            rf = kwcap.rel_file(args, f)
            if rf is None:
                ck.fail("%s: launch of %s at %s:%s is outside the corpus" % (tu, ln.get("kernel"), f, l))
                continue
            lid = launch_markers.get((rf, l))
            if ck.check(lid, "%s: launch of %s at %s:%s is not on a KW:LAUNCH line"
                        % (tu, ln.get("kernel_name") or ln.get("kernel") or ln.get("asm_kernel"),
                           rf, l)):
                at_marker[lid].append((doc, ln))
    for lid in sorted(i for i, m in markers.items() if m["kind"] == "LAUNCH"):
        ck.check(at_marker.get(lid), "KW:LAUNCH %s (%s:%d) has no launch in any sidecar"
                 % (lid, markers[lid]["file"], markers[lid]["line"]))

    for lid, e in exp["launches"].items():
        mk = markers[lid]
        ek = exp["kernels"][e["kernel"]]
        kind = KIND_OF_FORM[(e["form"], e.get("from_macro"))]
        got = {}
        for doc, ln in at_marker.get(lid, []):
            kern = {k.get("symbol"): k for k in doc["kernels"]}.get(ln.get("kernel"))
            if not ck.check(kern, "launch %s: kernel symbol %s is not among the TU's kernels"
                            % (lid, ln.get("kernel"))):
                continue
            ck.eq(kern.get("template"), ek["name"], "launch %s: launched kernel template" % lid)
            a = kwcap.kernel_args(kern)
            ck.check(a not in got, "launch %s: instantiation <%s> reported twice" % (lid, ", ".join(a)))
            got[a] = (ln, kern)
        want = {tuple(i["args"]): i for i in e["instantiations"]}
        ck.check(set(got) == set(want), "launch %s: instantiations extra %s, missing %s"
                 % (lid, sorted(set(got) - set(want)), sorted(set(want) - set(got))))
        lines = src_lines[mk["file"]]
        # a launch through a kernel library: its <<<>>> (and arguments) at the KW:SITE line
        smk = markers[e["site"]] if e.get("site") else mk
        src_args = kwcap.launch_args_from_source(src_lines[smk["file"]], smk["line"], kind)
        for argv, inst in sorted(want.items()):
            if argv not in got:
                continue
            ln, kern = got[argv]
            what = "launch %s <%s>" % (lid, ", ".join(argv))
            ck.eq(ln.get("kind"), kind, what + ": kind")
            col = (ln.get("location") or {}).get("column")
            text = lines[mk["line"] - 1]
            ck.check(isinstance(col, int) and 1 <= col <= len(text) and not text[col - 1].isspace(),
                     what + ": column %r does not point into the code on line %d: %r"
                     % (col, mk["line"], text.strip()[:80]))
            ck.check(func_matches(ln.get("function"), e["function"]),
                     what + ": function %r is not %r" % (ln.get("function"), e["function"]))
            ck.check(ln.get("function_symbol"), what + ": no function_symbol")
            for key in ("asm_kernel", "code_object", "loader"):
                ck.check(ln.get(key) is None, what + ": %s %r on a kernel launch" % (key, ln.get(key)))
            # ---- kernel library: user's call (the marker, above) and the real site
            if e.get("site"):
                ck.eq(ln.get("library"), e["library"], what + ": library")
                sf, sl = kwcap.loc_line(ln, "site")
                ck.eq((kwcap.rel_file(args, sf), sl), (smk["file"], smk["line"]),
                      what + ": site vs KW:SITE %s" % e["site"])
                scol = (ln.get("site") or {}).get("column")
                stext = src_lines[smk["file"]][smk["line"] - 1]
                ck.check(isinstance(scol, int) and 1 <= scol <= len(stext) and
                         not stext[scol - 1].isspace(),
                         what + ": site column %r does not point into the code of %r"
                         % (scol, stext.strip()[:80]))
            else:
                ck.check(ln.get("library") is None and ln.get("site") is None,
                         what + ": library %r / site %r on a launch written in user code"
                         % (ln.get("library"), ln.get("site")))
            # ---- config
            cfg = ln.get("config") or {}
            for key, ekey in (("grid", "grid"), ("block", "block")):
                item = cfg.get(key) or {}
                dims = inst[ekey]
                if all(isinstance(d, int) for d in dims):
                    ck.eq(item.get("value"), dims, what + ": %s value" % key)
                else:
                    ck.check(item.get("value") is None, what + ": %s %r is not constant (expected %r) "
                             "but has value %r" % (key, item.get("expr"), dims, item.get("value")))
                ck.eq(kwcap.strip_parens(item.get("expr")), kwcap.norm(e["config_text"][ekey]),
                      what + ": %s expression" % key)
            sm = cfg.get("shared_mem") or {}
            ck.eq(sm.get("value"), inst["shmem"], what + ": shared_mem value")
            if e["config_text"]["shmem"] is None:
                ck.check(not sm.get("expr"), what + ": shared_mem not written but expr %r" % sm.get("expr"))
            else:
                ck.eq(kwcap.strip_parens(sm.get("expr")), kwcap.norm(e["config_text"]["shmem"]),
                      what + ": shared_mem expression")
            st = cfg.get("stream") or {}
            if e["config_text"]["stream"] is None:
                ck.check(not st.get("expr"), what + ": stream not written but expr %r" % st.get("expr"))
            else:
                ck.eq(kwcap.strip_parens(st.get("expr")), kwcap.norm(e["config_text"]["stream"]),
                      what + ": stream expression")
            # ---- arguments -> parameters (names from the kernel's definition in the source)
            km = markers[e["kernel"]]
            params = kwcap.kernel_params_from_source(src_lines[km["file"]], km["line"],
                                                     ek["name"].split("::")[-1])
            largs = ln.get("args") or []
            if kind == "hipLaunchKernel":
                # arguments travel through a void*[]; map them if given at all
                if largs:
                    ck.eq([a.get("param") for a in largs], params, what + ": argument parameter names")
                else:
                    ck.note("%s: hipLaunchKernel launch has no args (void* array not followed)" % what)
            else:
                ck.check(src_args is not None, "%s: could not read the arguments in the source "
                         "(test bug)" % what)
                ck.eq([a.get("param") for a in largs], params, what + ": argument parameter names")
                ck.eq([kwcap.strip_parens(a.get("expr")) for a in largs],
                      [kwcap.strip_parens(s) for s in (src_args or [])], what + ": argument expressions")
            # ---- local guards (in the launch's own function, through dispatch lambdas)
            paths = inst.get("paths") or []
            if paths:
                want_local = [expected_guard(exp, g["guard"], markers, g)
                              for g in paths[0]["guards"] if g["scope"] == "local"]
                for p in paths[1:]:
                    other = [expected_guard(exp, g["guard"], markers, g)
                             for g in p["guards"] if g["scope"] == "local"]
                    ck.check(other == want_local, "expected.json: %s paths disagree on local guards "
                             "(ground truth bug)" % what)
            else:
                want_local = []
            ck.eq([got_guard(args, g) for g in (ln.get("guards") or [])], want_local,
                  what + ": guards (file, line, kind, condition, holds)")
            # ---- macro expansions
            mex = ln.get("macro_expansions") or []
            names = [m.get("macro") for m in mex]
            if e.get("from_macro"):
                hits = [m for m in mex if m.get("macro") == e["from_macro"]]
                ck.check(hits, what + ": launch written through %s but macro_expansions is %r"
                         % (e["from_macro"], names))
                for m in hits:
                    f, l = kwcap.loc_line(m)
                    ck.eq((kwcap.rel_file(args, f), l), (mk["file"], mk["line"]),
                          what + ": %s expansion location" % e["from_macro"])
                if mex:
                    f, l = kwcap.loc_line(mex[-1])
                    ck.eq((kwcap.rel_file(args, f), l), (mk["file"], mk["line"]),
                          what + ": outermost macro expansion (%s) location" % mex[-1].get("macro"))
            else:
                # Written by hand. It may sit in a dispatch macro's argument: only those
                # macros may be listed.
                allowed = set()
                for p in paths:
                    for g in p["guards"]:
                        if g["scope"] == "local" and exp["guards"][g["guard"]].get("from_macro"):
                            allowed.add(exp["guards"][g["guard"]]["from_macro"])
                if e.get("inside_macro_argument"):
                    allowed.add(e["inside_macro_argument"].split()[0])
                bad = [n for n in names if n not in allowed]
                ck.check(not bad, what + ": not written through a macro, yet macro_expansions "
                         "lists %r (allowed: enclosing dispatch macros %r)" % (bad, sorted(allowed)))
            # ---- instantiation chain: its KW:CALL calls, outermost last, are one expected path's
            chain = ln.get("instantiation_chain") or []
            chain_calls = []
            for c in chain:
                f, l = kwcap.loc_line(c)
                cid = call_lines.get((kwcap.rel_file(args, f), l))
                if cid:
                    chain_calls.append(cid)
            chain_calls.reverse()
            if "chain" in inst:
                got_frames = [(c.get("function"),) + tuple(
                    (kwcap.rel_file(args, kwcap.loc_line(c)[0]), kwcap.loc_line(c)[1]))
                    for c in chain]
                want_frames = [(c["function"], markers[c["at"]]["file"], markers[c["at"]]["line"])
                               for c in inst["chain"]]
                ck.eq(got_frames, want_frames,
                      what + ": instantiation chain (function, file, line of the call)")
            if paths:
                ck.check(any(chain_calls == p["calls"] for p in paths),
                         what + ": instantiation chain calls %r match no expected path %r"
                         % (chain_calls, [p["calls"] for p in paths]))
                # A launch written in the entry function itself (no calls on
                # any expected path, a non-template function) has no chain.
                ck.check(chain or not any(p["calls"] for p in paths),
                         what + ": empty instantiation chain")
                if chain:
                    outer = chain[-1].get("function") or ""
                    ck.check("<" not in outer.split("::(lambda")[0],
                             what + ": chain ends in a template %r, not in non-template code" % outer)


def check_asm_launches(args, ck, exp, markers, docs, src_lines):
    """Launches of precompiled ASM kernels: no kernel instantiation, the kernel
    named by its code-object symbol and the code object by its path."""
    by_marker = collections.defaultdict(list)
    for tu, doc in docs.items():
        for ln in doc["launches"]:
            f, l = kwcap.loc_line(ln)
            by_marker[(kwcap.rel_file(args, f), l)].append((tu, ln))
    for lid, e in exp.get("asm_launches", {}).items():
        mk = markers[lid]
        got = by_marker.get((mk["file"], mk["line"]), [])
        what = "asm launch %s (%s:%d)" % (lid, mk["file"], mk["line"])
        if not ck.eq(len(got), 1, what + ": launches on the marker line"):
            continue
        tu, ln = got[0]
        ck.eq(tu, e["file"], what + ": sidecar of the TU")
        ck.eq(ln.get("kind"), e["kind"], what + ": kind")
        ck.eq(ln.get("loader"), e["loader"], what + ": loader class")
        ck.check(ln.get("kernel") is None and ln.get("kernel_name") is None,
                 what + ": an ASM launch names a kernel instantiation %r / %r"
                 % (ln.get("kernel"), ln.get("kernel_name")))
        ck.eq(ln.get("asm_kernel"), e["asm_kernel"], what + ": asm_kernel")
        if e["code_object"] is None:  # a table's rows (test_asm_kernels checks them)
            ck.eq(ln.get("code_object"), None, what + ": code_object")
        else:
            want_co = kwcap.asm_path(args, e["code_object"])
            ck.eq(ln.get("code_object"), want_co, what + ": code_object")
            ck.check(os.path.isfile(want_co), what + ": the code object %s does not exist (the "
                     "corpus build assembles it)" % want_co)
        ck.check(ln.get("library") is None and ln.get("site") is None,
                 what + ": library/site on a launch written in user code")
        col = (ln.get("location") or {}).get("column")
        text = src_lines[mk["file"]][mk["line"] - 1]
        ck.check(isinstance(col, int) and 1 <= col <= len(text) and not text[col - 1].isspace(),
                 what + ": column %r does not point into the code: %r" % (col, text.strip()[:80]))
        ck.check(func_matches(ln.get("function"), e["function"]),
                 what + ": function %r is not %r" % (ln.get("function"), e["function"]))
        ck.check(ln.get("function_symbol"), what + ": no function_symbol")
        cfg = ln.get("config") or {}
        for key in ("grid", "block"):
            item = cfg.get(key) or {}
            dims = e[key]
            if all(isinstance(d, int) for d in dims):
                ck.eq(item.get("value"), dims, what + ": %s value" % key)
            else:
                ck.check(item.get("value") is None, what + ": %s %r is not constant (expected %r) "
                         "but has value %r" % (key, item.get("expr"), dims, item.get("value")))
            ck.eq(kwcap.norm(item.get("expr")), kwcap.norm(e["config_text"][key]),
                  what + ": %s expression" % key)
        st = cfg.get("stream") or {}
        ck.eq(kwcap.strip_parens(st.get("expr")), kwcap.norm(e["config_text"]["stream"]),
              what + ": stream expression")
        sm = cfg.get("shared_mem")
        if sm is None:
            ck.note("%s: no shared_mem recorded (expected value %r)" % (what, e["shmem"]))
        else:
            ck.eq(sm.get("value"), e["shmem"], what + ": shared_mem value")
            if e["config_text"]["shmem"] is None:
                ck.check(not sm.get("expr"), what + ": shared_mem not written but expr %r"
                         % sm.get("expr"))
            else:
                ck.eq(kwcap.strip_parens(sm.get("expr")), kwcap.norm(e["config_text"]["shmem"]),
                      what + ": shared_mem expression")
        want_local = []
        for p in e.get("paths") or []:
            loc = [expected_guard(exp, g["guard"], markers, g) for g in p["guards"]
                   if g["scope"] == "local"]
            if p is e["paths"][0]:
                want_local = loc
            ck.check(loc == want_local, what + ": expected.json paths disagree on local guards "
                     "(ground truth bug)")
        ck.eq([got_guard(args, g) for g in (ln.get("guards") or [])], want_local,
              what + ": guards (file, line, kind, condition, holds)")
        ck.eq(ln.get("instantiation_chain") or [], [],
              what + ": instantiation chain of a launch in a non-template function")


def main():
    args = kwcap.parse_args()
    ck = Checker("test_launches")
    exp = kwcap.load_expected(args)
    markers = kwcap.load_markers(args, ck)
    docs = kwcap.load_corpus_sidecars(args, exp, ck)
    files = {m["file"] for m in markers.values()}
    src_lines = {f: kwcap.read_lines(args, f) for f in files}
    check_kernels(args, ck, exp, markers, docs, src_lines)
    check_launches(args, ck, exp, markers, docs, src_lines)
    check_asm_launches(args, ck, exp, markers, docs, src_lines)
    ck.finish()


if __name__ == "__main__":
    main()
