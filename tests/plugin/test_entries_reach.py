#!/usr/bin/env python3
"""test_entries_reach: host entry points and what they reach.

The call graph is built here, in Python, from the sidecars of all corpus TUs
(entries' function_symbol, host_calls caller -> callee, launches'
function_symbol; TU-local `_ZL...` symbols are kept apart per TU, external
ones join across TUs as the linker would). A BFS from each entry gives the
launches it reaches; they must be exactly expected.json's, both as launch
marker ids and as (launch, template arguments) instantiations.

Entries of kind `cxx` (outermost host functions with external linkage) are
checked like the others, `shadowed_by` ones included: the sidecar has them.

Also: every entry sits on a `KW:ENTRY` line and every marker has its entry,
with kind, C name / Python name and module; the launches of functions no
entry calls are reached by none; and for each expected path (entry -> KW:CALL
calls -> launch) some path of the graph has exactly those marked calls and
exactly the expected guards along it (host_calls guards + the launch's own,
outermost first: if conditions with polarity, switch cases, early exits as
kind `early_exit`).

ASM launches (expected.json `asm_launches`, no kernel instantiation) join the
same graph: each entry reaches exactly its `reaches_asm`, and each expected
path to them holds as above.
"""
import collections
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import kwcap  # noqa: E402
from kwcheck import Checker  # noqa: E402

MAX_PATHS = 2000


def node(tu, sym):
    if sym and (sym.startswith("_ZL") or sym.startswith("_ZZL")):
        return (tu, sym)  # internal linkage: one per TU
    return ("", sym)


def guard_key(args, g):
    f, l = kwcap.loc_line(g)
    return (kwcap.rel_file(args, f), l, g.get("kind"), kwcap.norm(g.get("condition")), g.get("holds"))


def expected_guard(exp, markers, spec):
    g = exp["guards"][spec["guard"]]
    m = markers[spec["guard"]]
    if g["kind"] == "if":
        # an early exit (`if (c) return ...;` before the call or launch on the path)
        early = spec.get("early_exit") or not g.get("enclosing", True)
        kind = "early_exit" if early else "if"
        return (m["file"], m["line"], kind, kwcap.norm(g["text"]), spec.get("holds", True))
    return (m["file"], m["line"], "case", kwcap.norm("%s == %s" % (g["text"], spec["case"])), True)


def main():
    args = kwcap.parse_args()
    ck = Checker("test_entries_reach")
    exp = kwcap.load_expected(args)
    markers = kwcap.load_markers(args, ck)
    docs = kwcap.load_corpus_sidecars(args, exp, ck)
    launch_at = {(m["file"], m["line"]): i for i, m in markers.items() if m["kind"] == "LAUNCH"}
    entry_at = {(m["file"], m["line"]): i for i, m in markers.items() if m["kind"] == "ENTRY"}
    call_at = {(m["file"], m["line"]): i for i, m in markers.items() if m["kind"] == "CALL"}

    edges = collections.defaultdict(list)     # node -> [(callee node, host_call)]
    launches = collections.defaultdict(list)  # node -> [(launch id, args, launch)]
    asm_launches = collections.defaultdict(list)  # node -> [(asm launch id, launch)]
    entries = {}                              # entry id -> (tu, entry)
    for tu, doc in docs.items():
        kern = {k.get("symbol"): k for k in doc["kernels"]}
        for hc in doc["host_calls"]:
            edges[node(tu, hc.get("caller"))].append((node(tu, hc.get("callee")), hc))
        for ln in doc["launches"]:
            f, l = kwcap.loc_line(ln)
            lid = launch_at.get((kwcap.rel_file(args, f), l))
            if lid in exp.get("asm_launches", {}) and (ln.get("asm_kernel") or ln.get("asm_choices")):
                asm_launches[node(tu, ln.get("function_symbol"))].append((lid, ln))
                continue
            k = kern.get(ln.get("kernel"))
            if lid is None or k is None:
                continue  # test_launches reports these
            launches[node(tu, ln.get("function_symbol"))].append((lid, kwcap.kernel_args(k), ln))
        for en in doc["entries"]:
            f, l = kwcap.loc_line(en)
            eid = entry_at.get((kwcap.rel_file(args, f), l))
            if ck.check(eid, "%s: entry %r (%s) at %s:%s is not on a KW:ENTRY line"
                        % (tu, en.get("name"), en.get("kind"), f, l)):
                ck.check(eid not in entries, "entry %s reported twice" % eid)
                entries[eid] = (tu, en)

    def reach(start):
        seen, todo = {start}, [start]
        while todo:
            n = todo.pop()
            for m, _ in edges.get(n, []):
                if m not in seen:
                    seen.add(m)
                    todo.append(m)
        return seen

    def paths(start, goal):
        """Simple paths start -> goal as lists of host_call edges."""
        out = []

        def dfs(n, path, on):
            if len(out) >= MAX_PATHS:
                return
            if n == goal:
                out.append(list(path))
            for m, hc in edges.get(n, []):
                if m not in on:
                    on.add(m)
                    path.append(hc)
                    dfs(m, path, on)
                    path.pop()
                    on.discard(m)
        dfs(start, [], {start})
        return out

    reached_by_any = set()
    for eid, e in exp["entries"].items():
        if not ck.check(eid in entries, "entry %s (%s:%d) missing from the sidecars"
                        % (eid, markers[eid]["file"], markers[eid]["line"])):
            continue
        tu, en = entries[eid]
        ck.eq(tu, e["file"], "entry %s: sidecar of the TU" % eid)
        ck.eq(en.get("kind"), e["kind"], "entry %s: kind" % eid)
        if e["kind"] == "extern_c":
            ck.eq(en.get("name"), e["symbol"], "entry %s: name" % eid)
            ck.eq(en.get("function_symbol"), e["symbol"], "entry %s: function_symbol (C linkage)" % eid)
        elif e["kind"] == "cxx":
            # an outermost C++ function with external linkage: named as printed
            ck.eq(en.get("name"), e["name"], "entry %s: name" % eid)
            ck.eq(en.get("function"), e["name"], "entry %s: function" % eid)
        else:
            ck.eq(en.get("name"), e["name"], "entry %s: Python name" % eid)
            ck.eq(en.get("module"), e["module"], "entry %s: module" % eid)
            fn = en.get("function") or ""
            if e["target"] == "(lambda)":
                ck.check("(lambda" in fn, "entry %s: function %r is not a lambda" % (eid, fn))
            else:
                ck.check(fn == e["target"] or fn.endswith("::" + e["target"]),
                         "entry %s: function %r, expected %r" % (eid, fn, e["target"]))
        start = node(tu, en.get("function_symbol"))
        seen = reach(start)
        got = set()
        for n in seen:
            for lid, a, _ in launches.get(n, []):
                got.add((lid, a))
        reached_by_any |= got
        want = set()
        for lid, insts in e["reaches_instantiations"].items():
            for a in insts:
                want.add((lid, tuple(a)))
        ck.eq(sorted({l for l, _ in got}), sorted(e["reaches"]), "entry %s: launches reached" % eid)
        ck.check(got == want, "entry %s: reached instantiations: extra %s, missing %s"
                 % (eid, sorted(got - want), sorted(want - got)))
        got_asm = {lid for n in seen for lid, _ in asm_launches.get(n, [])}
        ck.eq(sorted(got_asm), sorted(e.get("reaches_asm", [])), "entry %s: ASM launches reached" % eid)

    for u in exp.get("unreachable_host_functions", []):
        for lid in u["launches"]:
            hit = sorted(a for l, a in reached_by_any if l == lid)
            ck.check(not hit, "launch %s in %s is reached by an entry: %s" % (lid, u["function"], hit))

    # ---- paths: marked calls and guards from the entry to each launch (instantiation)
    def check_paths(what0, targets, spec_paths):
        for p in spec_paths:
            want_calls = p["calls"]
            want_guards = [expected_guard(exp, markers, g) for g in p["guards"]]
            for eid in p["entries"]:
                if eid not in entries:
                    continue
                tu, en = entries[eid]
                start = node(tu, en.get("function_symbol"))
                what = "path %s -> %s" % (eid, what0)
                cands = []
                for goal, ln in targets:
                    for hp in paths(start, goal):
                        calls = []
                        guards = []
                        for hc in hp:
                            f, l = kwcap.loc_line(hc)
                            cid = call_at.get((kwcap.rel_file(args, f), l))
                            if cid:
                                calls.append(cid)
                            guards += [guard_key(args, g) for g in (hc.get("guards") or [])]
                        guards += [guard_key(args, g) for g in (ln.get("guards") or [])]
                        dedup = []
                        for g in guards:  # a guard enclosing both a call and a lambda body
                            if g not in dedup:
                                dedup.append(g)
                        cands.append((calls, dedup))
                if not ck.check(cands, what + ": no path in the host call graph"):
                    continue
                ok_calls = [c for c in cands if c[0] == want_calls]
                if not ck.check(ok_calls, what + ": no path through calls %r (paths found: %r)"
                                % (want_calls, sorted({tuple(c[0]) for c in cands}))):
                    continue
                ok = [c for c in ok_calls if c[1] == want_guards]
                if not ok:
                    best = ok_calls[0][1]
                    missing = [g for g in want_guards if g not in best]
                    extra = [g for g in best if g not in want_guards]
                    ck.fail("%s: guards along the path differ: missing %r, unexpected %r%s"
                            % (what, missing, extra,
                               "" if missing or extra else ", order %r vs %r" % (best, want_guards)))

    for lid, le in exp["launches"].items():
        for inst in le["instantiations"]:
            argv = tuple(inst["args"])
            targets = [(n, ln) for n, lst in launches.items() for l, a, ln in lst
                       if l == lid and a == argv]
            if not targets:
                continue  # test_launches reports it
            check_paths("%s <%s>" % (lid, ", ".join(argv)), targets, inst.get("paths", []))
    for lid, le in exp.get("asm_launches", {}).items():
        targets = [(n, ln) for n, lst in asm_launches.items() for l, ln in lst if l == lid]
        if not targets:
            continue  # test_launches reports it
        check_paths(lid, targets, le.get("paths", []))
    ck.finish()


if __name__ == "__main__":
    main()
