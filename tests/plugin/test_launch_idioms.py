#!/usr/bin/env python3
"""test_launch_idioms: launch idioms of aiter's host code (tests/plugin/src),
compiled here with the plugin, against the source text, the markers, facts
worked out by hand from the source (written below, with the reasoning), and
the code objects (llvm-readelf).

kw_dead_launches.hip (conditions the compiler knows):
  - every instantiation is in the code object (emitted), per arch;
  - the launches at each KW:LAUNCH line, as (template arguments, dead), are
    exactly those worked out from the source: a launch in the discarded
    branch of an `if constexpr` of non-template code, under `if (Vec > 8)`
    with Vec = 4, or in a `case` a constant switch operand does not select,
    is dead; every dead launch has a guard with `constant: never`, no live
    one has;
  - every guard whose condition is plain integer arithmetic is evaluated
    here: `constant` is `always` when that value is what `holds` needs,
    `never` otherwise; a condition on a runtime value has no `constant`;
  - the call made only from a discarded branch (KW:CALL dead.legacy_call) is
    dead; the calls of the launchers are not;
  - with kwalk: the pages of exactly the instantiations no live launch
    reaches say "Emitted but unreachable from any entry point", and
    `kwalk map` says "(emitted but unreachable from any entry point)" at
    exactly their launch sites.
kw_generic_lambda.hip (launches in generic lambdas): one launch per
  instantiation of the lambda's call operator at the KW:LAUNCH line, with
  the guard inside the lambda; each is reached from its entry point along
  the host calls, through the lambda call at its KW:CALL line, under the
  guard of that call; a lambda written under an `if` of its function has
  that guard too.
kw_launch_details.hip:
  - hipLaunchKernelGGL((kernel<...>), ...) of a kernel whose host-pass
    definition has no parameter names: arguments carry the names of the
    declaration (read from the source at KW:KERNEL det.row_sum);
  - a grid declared inside the launching macro: its declaration and
    initializer (read from the macro's text), and `--shape rows=N` gives the
    grid computed here from that initializer;
  - `const auto [block, grid] = pick_dims(...)`: both operands are
    `binding` declarations at the KW:DECL line;
  - a check macro (do { if (!(c)) [[noreturn]]-call } while (0)) before a
    launch is an `early_exit` guard with the checked condition as written;
  - a page with a message about a variable (`grid` changed after its
    declaration) holds no backslash-escaped backtick;
  - the data-flow box of a kernel with a two-line asm statement keeps its
    frame (every line as wide as its border) and names both instructions;
  - the kernel's __shared__ bytes (one array per instantiation of a generic
    lambda) add up to the code object's group_segment_fixed_size.
kw_two_callers.hip (issue 36: one instantiation of make_kernel, the ck_tile
  pattern of include/kw_tile/maker_launch.h, launched from two functions):
  the launch_kernel(...) lines, the `if (` line above each, and the grid
  each function declares are found by a scan of the source text; one launch
  record per line, each cited at its own line (the <<<>>> in the library's
  header), its grid being its own caller's variable; on the page, each
  launch site is reached from its own function only, under its own guard,
  and `--shape n=N` gives each the grid evaluated here from its caller's
  initializer.
"""
import collections
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import kwcap  # noqa: E402
from kwcheck import Checker  # noqa: E402

TUS = ("kw_dead_launches.hip", "kw_generic_lambda.hip", "kw_launch_details.hip",
       "kw_two_callers.hip", "kw_functor_entry.hip")
UNREACHABLE_PHRASE = "Emitted but unreachable from any entry point"

# Worked out by hand from kw_dead_launches.hip. KWD_IMPL(64, 8): `8 > 8` is
# false, so the then-branch's two launches (interleaved and plain) are dead
# and the else-branch's interleaved one lives; KWD_IMPL(256, 16): `16 > 8`,
# both then-branch launches live, the else-branch one is dead. launch_tail<4>
# is under `4 > 8` (dead), launch_tail<16> under `16 > 8`. kMode is 1: `case 0`
# is dead, `default` lives. launch_legacy has no condition of its own, but
# its only call is in a discarded branch.
DEAD = {
    "dead.narrow": [(("float", "64", "8", "true"), True), (("float", "64", "8", "false"), True),
                    (("float", "64", "8", "true"), False)],
    "dead.wide": [(("float", "256", "16", "true"), False), (("float", "256", "16", "false"), False),
                  (("float", "256", "16", "true"), True)],
    "dead.tail": [(("float", "128", "4", "false"), True), (("float", "128", "16", "false"), False)],
    "dead.mode0": [(("float", "32", "2", "true"), True)],
    "dead.mode_other": [(("float", "32", "2", "false"), False)],
    "dead.legacy": [(("double", "512", "1", "false"), False)],
}
# No launch that runs reaches these.
UNREACHABLE = {("float", "64", "8", "false"), ("float", "128", "4", "false"),
               ("float", "32", "2", "true"), ("double", "512", "1", "false")}
UNREACHABLE_SITES = {"dead.narrow", "dead.tail", "dead.mode0", "dead.legacy"}

# Per launch and instantiation, the calls that lead to it, innermost first
# (the lambda's call, then the call of the function holding the lambda).
GENERIC = {"gen.fill": {("4",): ["gen.call4"], ("1",): ["gen.call1"]},
           "gen.scaled": {("6",): ["gen.call_scaled", "gen.scaled3"],
                          ("10",): ["gen.call_scaled", "gen.scaled5"]}}


def compile_all(args, ck, root):
    src_dir = os.path.join(args.source_dir, "tests", "plugin", "src")
    jobs = []
    for tu in TUS:
        name = tu.split(".")[0]
        obj = os.path.join(root, name + ".o")
        jobs.append((tu, obj, kwcap.compile_cmd(args, os.path.join(src_dir, tu), obj,
                                                extra=["-cuid=" + name])))
    out = {}
    for i in range(0, len(jobs), 2):  # two at a time (2 cores)
        procs = [(tu, obj, cmd, subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                                 text=True, env=kwcap.clean_env()))
                 for tu, obj, cmd in jobs[i:i + 2]]
        for tu, obj, cmd, p in procs:
            so, se = p.communicate()
            if not ck.check(p.returncode == 0, "%s: compile failed (rc %d): %s\n%s"
                            % (tu, p.returncode, " ".join(cmd), so + se)):
                continue
            ck.eq(kwcap.kwalk_lines(se), [], "%s: kwalk: lines on stderr" % tu)
            try:
                doc = kwcap.load_yaml_file(obj + ".kwalk.yaml")
            except (OSError, kwcap.yaml.YAMLError) as e:
                ck.fail("%s: sidecar: %s" % (tu, e))
                continue
            for key in ("kernels", "launches", "entries", "host_calls"):
                doc[key] = doc.get(key) or []
            out[tu] = (obj, doc)
    return src_dir, out


def rel(src_dir, path):
    return os.path.relpath(os.path.realpath(path), os.path.realpath(src_dir)) if path else None


def at_markers(src_dir, markers, doc, kind="LAUNCH"):
    """{marker id: [launch]} by the launch's location line."""
    lines = {(m["file"], m["line"]): i for i, m in markers.items() if m["kind"] == kind}
    out = collections.defaultdict(list)
    for ln in doc["launches"]:
        f, l = kwcap.loc_line(ln)
        out[lines.get((rel(src_dir, f), l))].append(ln)
    return out


def kernel_of(doc, ln):
    return {k.get("symbol"): k for k in doc["kernels"]}.get(ln.get("kernel"))


def eval_condition(cond):
    """The value of a condition made of integer literals only, or None."""
    c = kwcap.norm(cond)
    if not c or not re.fullmatch(r"[0-9()<>=!+\-*/%&|]+", c) or not re.search(r"[0-9]", c):
        return None
    py = c.replace("&&", " and ").replace("||", " or ").replace("/", "//")
    py = re.sub(r"!(?!=)", " not ", py)
    try:
        return bool(eval(py, {"__builtins__": {}}))  # noqa: S307 - digits and operators only
    except Exception:  # noqa: BLE001
        return None


def check_dead(args, ck, src_dir, markers, obj, doc, root):
    tu = "kw_dead_launches.hip"
    for arch in args.arches:
        co, err = kwcap.code_object_kernels(args, obj, arch, root)
        if ck.check(err is None, "%s/%s: %s" % (tu, arch, err)):
            side = {k.get("symbol") for k in doc["kernels"]}
            want = {k.get("symbol") for k in doc["kernels"] if kwcap.kernel_args(k) in
                    {a for site in DEAD.values() for a, _ in site}}
            ck.eq(len(want), 9, "%s: the nine instantiations of the source among the kernels" % tu)
            ck.check(want <= co, "%s/%s: instantiations missing from the code object: %s"
                     % (tu, arch, sorted(want - co)))
            ck.check(side == co, "%s/%s: sidecar kernels vs code object differ in %s"
                     % (tu, arch, sorted(side ^ co)))
    by = at_markers(src_dir, markers, doc)
    ck.eq(sorted(k for k in by if k), sorted(DEAD), "%s: KW:LAUNCH lines holding launches" % tu)
    evaluated = 0
    for mid, want in DEAD.items():
        got = []
        for ln in by.get(mid, []):
            k = kernel_of(doc, ln)
            if not ck.check(k, "%s: launch of %s: no such kernel" % (mid, ln.get("kernel"))):
                continue
            dead = bool(ln.get("dead"))
            got.append((kwcap.kernel_args(k), dead))
            never = [g for g in ln.get("guards") or [] if g.get("constant") == "never"]
            ck.check(bool(never) == dead, "%s <%s>: dead %r but guards with constant never: %r"
                     % (mid, ", ".join(kwcap.kernel_args(k)), dead, never))
            for g in ln.get("guards") or []:
                v = eval_condition(g.get("condition"))
                if v is None:
                    if re.search(r"\bn\b", g.get("condition") or ""):
                        ck.check(g.get("constant") is None, "%s: guard %r on a runtime value is "
                                 "marked constant %r" % (mid, g.get("condition"), g.get("constant")))
                    continue
                evaluated += 1
                ck.eq(g.get("constant"), "always" if v == g.get("holds") else "never",
                      "%s: guard %r (holds %r), value %r" % (mid, g.get("condition"), g.get("holds"), v))
        ck.eq(sorted(got), sorted(want), "%s: launches as (template arguments, dead)" % mid)
    ck.check(evaluated >= 4, "%s: only %d guards with literal conditions (8 > 8, 16 > 8 ...)"
             % (tu, evaluated))
    lc = markers["dead.legacy_call"]
    legacy = [c for c in doc["host_calls"] if kwcap.loc_line(c)[1] == lc["line"] and
              rel(src_dir, kwcap.loc_line(c)[0]) == lc["file"]]
    ck.check(legacy and all(c.get("dead") for c in legacy),
             "KW:CALL dead.legacy_call: the call from a discarded branch is not dead: %r" % legacy)
    for c in doc["host_calls"]:
        if re.search(r"launch_(tail|mode)<", c.get("callee_name") or ""):
            ck.check(not c.get("dead"), "call of %s is marked dead" % c.get("callee_name"))


def check_dead_pages(args, ck, src_dir, markers, doc, db):
    for k in doc["kernels"]:
        a = kwcap.kernel_args(k)
        r = kwcap.run([args.kwalk, "render", k.get("name"), "--db", db])
        if not ck.check(r.returncode == 0, "kwalk render %s: %s" % (k.get("name"), r.stderr.strip())):
            continue
        ck.eq(UNREACHABLE_PHRASE in r.stdout, a in UNREACHABLE,
              "page of %s says %r" % (k.get("name"), UNREACHABLE_PHRASE))
        if a == ("float", "64", "8", "true"):  # one live and one dead launch at the same site
            ck.check("This launch never runs" in r.stdout and "kwdead_norm" in r.stdout,
                     "page of %s: its dead launch is not shown as never running, or its entry "
                     "is missing" % k.get("name"))
    r = kwcap.run([args.kwalk, "map", "--db", db])
    if not ck.check(r.returncode == 0, "kwalk map: %s" % r.stderr.strip()):
        return
    sites = set()
    for row in r.stdout.splitlines():
        if "kwdead::norm_kernel" in row and "emitted but unreachable from any entry point" in row:
            m = re.search(r"kw_dead_launches\.hip:(\d+)", row)
            sites.add(int(m.group(1)) if m else None)
    ck.eq(sites, {markers[s]["line"] for s in UNREACHABLE_SITES},
          "kwalk map: lines of the launch sites said to be emitted but unreachable")


def check_generic(args, ck, src_dir, markers, doc):
    by = at_markers(src_dir, markers, doc)
    calls = doc["host_calls"]
    entries = {e.get("name"): e for e in doc["entries"]}
    for mid, want in GENERIC.items():
        got = {}
        for ln in by.get(mid, []):
            k = kernel_of(doc, ln)
            if ck.check(k, "%s: launch of %s: no such kernel" % (mid, ln.get("kernel"))):
                a = kwcap.kernel_args(k)
                ck.check(a not in got, "%s: <%s> twice" % (mid, a))
                got[a] = ln
        ck.eq(sorted(got), sorted(want), "%s: instantiations launched" % mid)
        for a, call_ids in want.items():
            ln = got.get(a)
            if not ln:
                continue
            fn = ln.get("function") or ""
            ck.check("(lambda at" in fn and "operator()" in fn,
                     "%s <%s>: function %r is not an instantiation of the lambda" % (mid, a, fn))
            # the calls leading to this instantiation, at the KW:CALL lines
            cur = ln.get("function_symbol")
            for call_id in call_ids:
                cm = markers[call_id]
                into = [c for c in calls if c.get("callee") == cur]
                hit = [c for c in into if kwcap.loc_line(c)[1] == cm["line"]]
                if not ck.check(hit, "%s <%s>: no call of %s at KW:CALL %s (line %d); calls: %r"
                                % (mid, a, cur, call_id, cm["line"], [kwcap.loc_line(c) for c in into])):
                    break
                cur = hit[0].get("caller")
            # reached from the entry along host calls
            entry = entries.get("kwgen_fill" if mid == "gen.fill" else "kwgen_scaled")
            ck.check(entry and reaches(calls, entry.get("function_symbol"), ln.get("function_symbol")),
                     "%s <%s>: the entry does not reach the launch along host calls" % (mid, a))
        if mid == "gen.scaled":  # a guard of the function the lambda is written in
            g = markers["gen.scaled_big"]
            for a, ln in got.items():
                gs = [(kwcap.loc_line(x)[1], kwcap.norm(x.get("condition")), x.get("holds"))
                      for x in ln.get("guards") or []]
                ck.check((g["line"], "n>=128", True) in gs,
                         "gen.scaled <%s>: guard `n >= 128` (KW:GUARD gen.scaled_big) missing: %r"
                         % (a, gs))
        if mid == "gen.fill":
            g_in = markers["gen.nonempty"]
            g_big = markers["gen.big"]
            for a, ln in got.items():
                gs = [(kwcap.loc_line(g)[1], kwcap.norm(g.get("condition")), g.get("holds"))
                      for g in ln.get("guards") or []]
                ck.check((g_in["line"], "n>0", True) in gs,
                         "gen.fill <%s>: guard `n > 0` (KW:GUARD gen.nonempty) missing: %r" % (a, gs))
                into = [c for c in calls if c.get("callee") == ln.get("function_symbol")]
                cg = [(kwcap.loc_line(g)[1], kwcap.norm(g.get("condition")), g.get("holds"))
                      for c in into for g in c.get("guards") or []]
                ck.check((g_big["line"], "n>4096", a == ("4",)) in cg,
                         "gen.fill <%s>: the call's guard `n > 4096` (holds %r) missing: %r"
                         % (a, a == ("4",), cg))


def reaches(calls, start, target):
    seen, todo = {start}, [start]
    while todo:
        u = todo.pop()
        if u == target:
            return True
        for c in calls:
            if c.get("caller") == u and not c.get("dead") and c.get("callee") not in seen:
                seen.add(c.get("callee"))
                todo.append(c.get("callee"))
    return False


def macro_line(lines, text):
    return next((l for l in lines if text in l), None)


def check_details(args, ck, src_dir, markers, obj, doc, root, db):
    lines = open(os.path.join(src_dir, "kw_launch_details.hip"), encoding="utf-8").read().split("\n")
    km = markers["det.row_sum"]
    params = kwcap.kernel_params_from_source(lines, km["line"], "row_sum_kernel")
    ck.check(params and None not in params, "could not read row_sum_kernel's parameters (test bug)")
    by = at_markers(src_dir, markers, doc)
    for mid in ("det.paren", "det.macro_grid", "det.macro_grid_plain", "det.rounded"):
        ck.eq(len(by.get(mid, [])), 1, "%s: launches at the marker" % mid)
        for ln in by.get(mid, []):
            ck.eq([a.get("param") for a in ln.get("args") or []], params,
                  "%s: parameter names of the arguments" % mid)
    # the grid and block declared inside KWDET_LAUNCH_ROWS
    gtext = macro_line(lines, "dim3 grid((rows")
    btext = macro_line(lines, "dim3 block(64)")
    ginit = "dim3(" + re.search(r"dim3 grid\((.*)\);", gtext).group(1) + ")"
    for mid in ("det.macro_grid", "det.macro_grid_plain"):
        for ln in by.get(mid, []):
            ds = {d.get("operand"): d for d in ln.get("operand_decls") or []}
            for op, name, init in (("grid", "grid", ginit), ("block", "block", "dim3(64)")):
                d = ds.get(op) or {}
                ck.eq((d.get("name"), d.get("kind"), kwcap.norm(d.get("init"))),
                      (name, "local", kwcap.norm(init)), "%s: %s declared in the macro" % (mid, op))
                written = re.search(r"(dim3 %s\(.*\));" % op, gtext if op == "grid" else btext)
                ck.eq(kwcap.norm(d.get("text")), kwcap.norm(written.group(1) if written else None),
                      "%s: %s declaration text vs the macro's" % (mid, op))
                ck.eq(kwcap.loc_line(d)[1], markers[mid]["line"],
                      "%s: %s declared at the macro's use" % (mid, op))
    # the binding
    bm = markers["det.binding"]
    for ln in by.get("det.paren", []):
        ds = {d.get("operand"): d for d in ln.get("operand_decls") or []}
        src = kwcap.norm(kwcap.strip_comment(lines[bm["line"] - 1])).rstrip(";")
        for op in ("grid", "block"):
            d = ds.get(op) or {}
            ck.eq((d.get("name"), d.get("kind"), kwcap.loc_line(d)[1]), (op, "binding", bm["line"]),
                  "det.paren: %s from the structured binding (KW:DECL det.binding)" % op)
            ck.eq(kwcap.norm(d.get("text")), src, "det.paren: %s's declaration text" % op)
    # the check macro before the launches
    cm = markers["det.check"]
    cond = re.search(r"KWDET_CHECK\((.*), \"", lines[cm["line"] - 1]).group(1)
    for mid in ("det.macro_grid", "det.macro_grid_plain"):
        for ln in by.get(mid, []):
            gs = [(g.get("kind"), kwcap.loc_line(g)[1], kwcap.strip_parens(g.get("condition")),
                   g.get("holds")) for g in ln.get("guards") or []]
            ck.check(("early_exit", cm["line"], kwcap.norm(cond), True) in gs,
                     "%s: the check %r (KW:GUARD det.check) is no early_exit guard: %r"
                     % (mid, cond, gs))
    # LDS of the generic lambda's instantiations vs the code object
    mix = next((k for k in doc["kernels"] if k.get("template") == "kwdet::mix_kernel"), None)
    if ck.check(mix, "mix_kernel missing from the sidecar"):
        declared = sum(s.get("bytes") or 0 for s in mix.get("shared") or [])
        for arch in args.arches:
            md, err = kwcap.code_object_metadata(args, obj, arch, root)
            if not ck.check(md, "%s: %s" % (arch, err)):
                continue
            ks = [k for k in md.get("amdhsa.kernels") or [] if k.get(".name") == mix.get("symbol")]
            if ck.check(ks, "%s: mix_kernel not in the code object metadata" % arch):
                ck.eq(declared, ks[0].get(".group_segment_fixed_size"),
                      "%s: declared __shared__ bytes vs the code object's group segment" % arch)
    if not db:
        return
    # --shape on the grid declared in the macro: (rows + 63) / 64 at rows = 1000
    rows = 1000
    gx = (rows + 63) // 64
    name = next((k.get("name") for k in doc["kernels"] if k.get("template") == "kwdet::row_sum_kernel"
                 and kwcap.kernel_args(k)[1] == "true"), None)
    r = kwcap.run([args.kwalk, "render", name or "?", "--db", db, "--shape", "rows=%d" % rows])
    if ck.check(r.returncode == 0, "kwalk render %s --shape: %s" % (name, r.stderr.strip())):
        ck.check("(%d, 1, 1)" % gx in r.stdout, "%s --shape rows=%d: grid (%d, 1, 1) not on the page"
                 % (name, rows, gx))
        ck.check("has no initializer" not in r.stdout, "%s: a grid 'has no initializer'" % name)
    # backslashes: the page of the kernel launched with a rounded grid
    for k in doc["kernels"]:
        if k.get("template") != "kwdet::row_sum_kernel":
            continue
        r = kwcap.run([args.kwalk, "render", k.get("name"), "--db", db, "--shape", "rows=1000,cols=64"])
        if ck.check(r.returncode == 0, "kwalk render %s: %s" % (k.get("name"), r.stderr.strip())):
            ck.check("\\`" not in r.stdout, "page of %s holds an escaped backtick: %r" % (
                k.get("name"), [l for l in r.stdout.splitlines() if "\\`" in l][:3]))
    # the data-flow box around the two-line asm
    am = markers["det.asm2"]
    insns = re.findall(r'"\s*(v_[a-z0-9_]+)', "\n".join(lines[am["line"] - 1:am["line"] + 3]))
    r = kwcap.run([args.kwalk, "render", mix.get("name") if mix else "?", "--db", db])
    if ck.check(r.returncode == 0 and insns, "kwalk render mix_kernel: %s" % r.stderr.strip()):
        boxes = boxes_in(r.stdout)
        asm_boxes = [b for b in boxes if any("asm:" in l for l in b)]
        ck.check(asm_boxes, "mix_kernel: no data-flow box with the asm statement")
        for b in asm_boxes:
            ck.check(len({len(l) for l in b}) == 1, "mix_kernel: box frame broken:\n%s" % "\n".join(b))
            asm = [l for l in b if "asm:" in l]
            ck.check(all(i in " ".join(asm) for i in insns),
                     "mix_kernel: box asm line %r lacks %r" % (asm, insns))


def scan_two_callers(path):
    """[(function, launch line, guard line, guard text, grid var, grid init)]:
    each launch_kernel( statement of kw_two_callers.hip, read from its text."""
    lines = open(path, encoding="utf-8").read().split("\n")
    out = []
    fn = guard = grid = None
    for i, l in enumerate(lines):
        code = l.split("//")[0]
        m = re.match(r'extern "C" float (\w+)\(', code)
        if m:
            fn, guard, grid = m.group(1), None, None
        m = re.search(r"const dim3 (grid_\w+)\((.*)\);", code)
        if m:
            grid = (m.group(1), m.group(2))
        m = re.search(r"\bif \((.*)\)\s*$", code)
        if m:
            guard = (i + 1, m.group(1).strip())
        if re.search(r"\blaunch_kernel\(", code) and fn and guard and grid:
            out.append((fn, i + 1, guard[0], guard[1], grid[0], grid[1]))
    return out


def check_two_callers(args, ck, src_dir, doc, db):
    path = os.path.join(src_dir, "kw_two_callers.hip")
    want = scan_two_callers(path)
    if not ck.check(len(want) == 2, "kw_two_callers.hip: the scan found %d launch_kernel( lines"
                    % len(want)):
        return
    lib = os.path.join(src_dir, "include", "kw_tile", "maker_launch.h")
    chevron = [i + 1 for i, l in enumerate(open(lib, encoding="utf-8").read().split("\n"))
               if "<<<" in l.split("//")[0]]
    launches = [ln for ln in doc["launches"] if "mk_entry" in (ln.get("kernel") or "")]
    ck.eq(sorted(kwcap.loc_line(ln)[1] for ln in launches), sorted(w[1] for w in want),
          "kw_two_callers.hip: the lines the mk_entry launches are cited at")
    for ln in launches:
        ck.eq(((ln.get("site") or {}).get("line"), ln.get("library")), (chevron[0], "kw_tile"),
              "kw_two_callers.hip: the launch's <<<>>> in the library")
        mine = [w for w in want if w[1] == kwcap.loc_line(ln)[1]]
        if not mine:
            continue
        decls = {d.get("operand"): d.get("name") for d in ln.get("operand_decls") or []}
        ck.eq(decls.get("grid"), mine[0][4], "kw_two_callers.hip:%d: the grid's variable"
              % mine[0][1])
    if not db:
        return
    n = 8192
    r = kwcap.run([args.kwalk, "render", "mk_entry", "--db", db, "--shape", "n=%d" % n])
    if not ck.check(r.returncode == 0, "kwalk render mk_entry: %s" % r.stderr.strip()):
        return
    sites = re.split(r"^### Launch site \d+ of \d+: ", r.stdout, flags=re.M)[1:]
    ck.eq(len(sites), 2, "mk_entry's page: launch sites")
    for fn, line, gline, gtext, gvar, ginit in want:
        at = "%s:%d" % (os.path.realpath(path), line)
        sec = [x for x in sites if x.split("\n", 1)[0].strip() == at]
        if not ck.check(len(sec) == 1, "mk_entry's page: no launch site %s" % at):
            continue
        sec = sec[0].split("\n## ")[0]
        other = [w for w in want if w[0] != fn][0]
        ck.check("From extern \"C\" `%s`" % fn in sec and
                 "From extern \"C\" `%s`" % other[0] not in sec,
                 "mk_entry's page, site %s: not reached from %s alone" % (at, fn))
        ck.check("`%s` at `%s:%d`" % (gtext, os.path.realpath(path), gline) in sec and
                 "`%s`" % other[3] not in sec,
                 "mk_entry's page, site %s: not under its own guard %r alone" % (at, gtext))
        ck.check("launches the kernel at `%s`" % at in sec,
                 "mk_entry's page, site %s: the last step does not launch there" % at)
        expr = re.sub(r"\bn\b", str(n), ginit).replace("/", "//")
        if not ck.check(re.fullmatch(r"[\d\s+*/()-]+", expr), "%s: grid %r is not arithmetic on n"
                        % (fn, ginit)):
            continue
        grid = eval(expr)  # integer arithmetic on literals only
        m = re.search(r"^\| grid \|.*$", sec, re.M)
        cells = [c.strip() for c in m.group(0).strip("|").split("|")] if m else []
        ck.check("(%d, 1, 1)" % grid in cells,
                 "mk_entry's page, site %s: grid %s for --shape n=%d, its caller's %s = %s gives %d"
                 % (at, cells, n, gvar, ginit, grid))


def scan_functors(path):
    """kw_functor_entry.hip read as text: ({struct: line of the member its
    entry runs (`operator()(` or `run(`, the first after `struct NAME`)},
    line of `extern "C" ... fe_moe_sort(`)."""
    members = kwcap.struct_members(path, r"\s*struct\s+(Fe\w+)\s*\{",
                                   r"\b(operator\(\)|run)\s*\(")
    host = kwcap.source_lines(path, r'^extern "C" .*\bfe_moe_sort\(')
    return members, host[-1] if host else None


def demangle(args, syms):
    r = kwcap.run([kwcap.tool(args, "llvm-cxxfilt")], input="\n".join(syms) + "\n")
    return dict(zip(syms, r.stdout.split("\n")))


def check_functors(args, ck, src_dir, obj, doc, root, db):
    """kw_functor_entry.hip (issue 42): the generic entries fe_entry<F, Kargs>
    (`Kernel{}.operator()(kargs)`) and fe_static_entry<F, Kargs>
    (`Kernel::run(kargs)`) are named, grouped and located by the functor F:
    the code objects' kernels (llvm-readelf, llvm-cxxfilt) grouped by F's
    template are `kwalk map --kernels`' and `render F`'s, every device code
    cited is F's member line found by the scan above, the host entry
    fe_moe_sort's line."""
    tu = "kw_functor_entry.hip"
    path = os.path.join(src_dir, tu)
    members, host = scan_functors(path)
    ck.eq(sorted(members), ["FeClear", "FeCount", "FeSort"], "%s: the scan's functors" % tu)
    ck.check(host, "%s: the scan found no fe_moe_sort(" % tu)
    want = {}  # functor template -> its instantiations' symbols, from the code objects
    for arch in args.arches:
        syms, err = kwcap.code_object_kernels(args, obj, arch, root)
        if not ck.check(not err, "%s %s: %s" % (tu, arch, err)):
            continue
        for sym, dem in demangle(args, sorted(syms)).items():
            m = re.match(r"void fe::fe_(?:static_)?entry<fe::(Fe\w+)", dem)
            ck.check(m, "%s %s: kernel %s runs no fe:: functor" % (tu, arch, dem))
            if m:
                want.setdefault(m.group(1), set()).add(sym)
    ck.eq({f: len(s) for f, s in want.items()}, {"FeSort": 2, "FeClear": 2, "FeCount": 1},
          "%s: the code objects' kernels per functor" % tu)
    for k in doc["kernels"]:
        f = re.match(r"fe::(Fe\w+)", k.get("functor") or "")
        if not ck.check(f, "%s: kernel %s: no fe:: functor recorded" % (tu, k.get("name"))):
            continue
        ck.eq(k["symbol"] in want.get(f.group(1), ()), True,
              "%s: %s's functor %s agrees with the code object" % (tu, k["symbol"], f.group(1)))
        ck.eq(kwcap.loc_line(k, "functor_location"), (path, members.get(f.group(1))),
              "%s: %s's functor_location" % (tu, k["name"]))
    if not db:
        return
    names = sorted(want)
    r = kwcap.run([args.kwalk, "map", "--db", db, "--root", src_dir, "--kernels", ",".join(names)])
    ck.check(r.returncode == 0, "kwalk map --kernels: %s" % r.stderr.strip())
    rows = [l for l in r.stdout.splitlines() if l.startswith("| `")]
    ck.eq([re.match(r"\| `([^`]+)`", l).group(1) for l in rows], names,
          "kwalk map --kernels: a row per functor, named by it")
    for name, l in zip(names, rows):
        cells = [c.strip() for c in l.strip("|").split(" | ")]
        ck.eq(re.findall(r"`([^`]+):(\d+)`", cells[2]), [(tu, str(members.get(name)))],
              "kwalk map --kernels: %s's device code" % name)
        ck.check(re.search(r"`fe_moe_sort` `[^`]*%s:%s`" % (re.escape(tu), host), cells[1]),
                 "kwalk map --kernels: %s's host entry %r, want fe_moe_sort at line %s"
                 % (name, cells[1], host))
    r = kwcap.run([args.kwalk, "map", "--db", db, "--json"])
    rows = [x for x in json.loads(r.stdout)["rows"] if x["kernel"].startswith("fe::")] \
        if r.returncode == 0 else []
    ck.check(rows, "kwalk map --json: no fe:: rows (%s)" % r.stderr.strip())
    for x in rows:
        ck.eq(len((x.get("functors") or "").split(", ")), 1,
              "kwalk map --json: row %s launched at %s runs one functor" % (x["kernel"], x["launch"]))
        f = (x.get("functors") or "").replace("fe::", "")
        ck.eq((x.get("device") or {}).get("line"), members.get(f),
              "kwalk map --json: %s running %s: device code line" % (x["kernel"], f))
    for name in names:
        r = kwcap.run([args.kwalk, "render", name, "--db", db])
        ck.check(r.returncode == 0, "kwalk render %s: %s" % (name, r.stderr.strip()[:300]))
        got = {s for s in re.findall(r"_Z\w+", r.stdout) if s in set().union(*want.values())}
        ck.eq(got, want[name], "kwalk render %s: the instantiations named" % name)
        ck.check("%s:%d" % (tu, members[name]) in r.stdout,
                 "kwalk render %s: cites the functor's member line %d" % (name, members[name]))


def boxes_in(page):
    """ASCII boxes: runs of lines from a +---+ border to the next one."""
    out, cur = [], None
    for l in page.splitlines():
        s = l.rstrip("\n")
        if re.fullmatch(r"\s*\+-+\+", s):
            if cur is None:
                cur = [s]
            else:
                cur.append(s)
                out.append(cur)
                cur = None
        elif cur is not None:
            cur.append(s)
    return out


def main():
    args = kwcap.parse_args()
    ck = Checker("test_launch_idioms")
    root = kwcap.tmpdir(args, "idioms")
    try:
        src_dir = os.path.join(args.source_dir, "tests", "plugin", "src")
        markers, errors = kwcap.scan_markers(args, src_dir)
        for e in errors:
            ck.fail("markers: %s" % e)
        src_dir, docs = compile_all(args, ck, root)
        db = None
        if args.kwalk and docs:
            db = os.path.join(root, "idioms.db")
            r = kwcap.run([args.kwalk, "index", root, "-o", db])
            if not ck.check(r.returncode == 0, "kwalk index: %s" % r.stderr.strip()):
                db = None
        if "kw_dead_launches.hip" in docs:
            obj, doc = docs["kw_dead_launches.hip"]
            check_dead(args, ck, src_dir, markers, obj, doc, root)
            if db:
                check_dead_pages(args, ck, src_dir, markers, doc, db)
        if "kw_generic_lambda.hip" in docs:
            check_generic(args, ck, src_dir, markers, docs["kw_generic_lambda.hip"][1])
        if "kw_launch_details.hip" in docs:
            obj, doc = docs["kw_launch_details.hip"]
            check_details(args, ck, src_dir, markers, obj, doc, root, db)
        if "kw_two_callers.hip" in docs:
            check_two_callers(args, ck, src_dir, docs["kw_two_callers.hip"][1], db)
        if "kw_functor_entry.hip" in docs:
            obj, doc = docs["kw_functor_entry.hip"]
            check_functors(args, ck, src_dir, obj, doc, root, db)
    finally:
        kwcap.cleanup(args, root)
    ck.finish()


if __name__ == "__main__":
    main()
