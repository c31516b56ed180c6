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

Kernels: per expected kernel, the set of instantiations; definition line ==
`KW:KERNEL` line; template parameter names / kinds and which argument came
from a default; parameter names; doc comment; inline asm at the `KW:ASM` line
with the asm string written there.
"""
import collections

import kwcap

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
    holds = spec.get("holds", True) if g["kind"] == "if" else True
    return (m["file"], m["line"], kind, kwcap.norm(cond), holds)


def got_guard(args, g):
    f, l = kwcap.loc_line(g)
    return (kwcap.rel_file(args, f), l, g.get("kind"), kwcap.norm(g.get("condition")), g.get("holds"))


def check_kernels(args, ck, exp, markers, docs, src_lines):
    for kid, k in exp["kernels"].items():
        tu = k["file"]
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
                        % (tu, ln.get("kernel_name") or ln.get("kernel"), rf, l)):
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
        src_args = kwcap.launch_args_from_source(lines, mk["line"], kind)
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
            if paths:
                ck.check(any(chain_calls == p["calls"] for p in paths),
                         what + ": instantiation chain calls %r match no expected path %r"
                         % (chain_calls, [p["calls"] for p in paths]))
                ck.check(chain, what + ": empty instantiation chain")
                if chain:
                    outer = chain[-1].get("function") or ""
                    ck.check("<" not in outer.split("::(lambda")[0],
                             what + ": chain ends in a template %r, not in non-template code" % outer)


def main():
    args = kwcap.parse_args()
    ck = kwcap.Checker("test_launches")
    exp = kwcap.load_expected(args)
    markers = kwcap.load_markers(args, ck)
    docs = kwcap.load_corpus_sidecars(args, exp, ck)
    files = {m["file"] for m in markers.values()}
    src_lines = {f: kwcap.read_lines(args, f) for f in files}
    check_kernels(args, ck, exp, markers, docs, src_lines)
    check_launches(args, ck, exp, markers, docs, src_lines)
    ck.finish()


if __name__ == "__main__":
    main()
