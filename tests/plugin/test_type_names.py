#!/usr/bin/env python3
"""test_type_names: template arguments as the source spelled them, and every
argument in printed names. Compiles src/kw_type_names.hip (one arch) with the
plugin and checks each kernel launched at a `KW:LAUNCH tn.*` line against:

  - the launch line's own text: the template arguments as written there. An
    argument written as a namespace-scope typedef of the file (`tn::fp8_t`),
    as a local alias of one (followed to its `using` line), or as
    `std::conditional_t<true, X, Y>` (X) has `written` = that qualified name
    and `value` = the typedef's definition text when that is a plain type; a
    template-id with such arguments has `written` = the template with each
    argument so spelled and the defaulted rest as in `value`; any other
    argument has no `written`;
  - llvm-cxxfilt's demangling of the kernel's symbol: the printed name and the
    template_args list have as many arguments as the symbol, at every nesting
    level (defaulted arguments included: `Vec = 4`, `traits<..., Rows = 1>`);
  - `kwalk render` (when given): the template table shows `written (value)`.

A lambda in a class of a 75 KB printed name (`tn::wide`, KW:WIDE) is named
with its class's every argument, and naming it costs the capture little
(check_wide).

A launch inside a function template (`tn.chain`) writes the template's own
parameters; each is replaced by the argument its caller wrote (the line
marked `KW:CALL` with the id and `_call`) before the checks above.
"""
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import kwcap  # noqa: E402
from kwcheck import Checker  # noqa: E402

SRC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "src", "kw_type_names.hip")


def shape(text):
    """The bracket structure of a template argument list: '<,<,,>,>' for
    'k<a, b<c, d, e>, f>' (commas inside () ignored)."""
    out, paren = [], 0
    for c in text:
        if c == "(":
            paren += 1
        elif c == ")":
            paren -= 1
        elif paren == 0 and c in "<>,":
            out.append(c)
    return "".join(out)


def template_part(printed):
    """'void ns::k<a, b<c>>(int)' -> '<a, b<c>>' (the first balanced <...>)."""
    i = printed.find("<")
    if i < 0:
        return ""
    depth = 0
    for j in range(i, len(printed)):
        if printed[j] == "<":
            depth += 1
        elif printed[j] == ">":
            depth -= 1
            if depth == 0:
                return printed[i:j + 1]
    return ""


def source_aliases(lines):
    """{name: definition text} for `using N = X;` and `typedef X N;` lines, and
    the namespace each sits in ('' for a function-local alias)."""
    out, ns, depth_fn = {}, "", False
    for l in lines:
        code = kwcap.strip_comment(l)
        m = re.match(r"\s*namespace\s+(\w+)\s*\{", code)
        if m:
            ns = m.group(1)
        if re.match(r"\s*\}\s*//\s*namespace", l):
            ns = ""
        depth_fn = depth_fn or bool(re.match(r'extern\s+"C"', code))
        m = re.match(r"\s*using\s+(\w+)\s*=\s*(.+?);", code) or None
        if m:
            name, text = m.group(1), m.group(2).strip()
        else:
            m = re.match(r"\s*typedef\s+(.+?)\s+(\w+)\s*;", code)
            if not m:
                continue
            name, text = m.group(2), m.group(1).strip()
        local = depth_fn
        out[name] = (text, "" if local else ns, local)
    return out


def expected_written(arg, aliases):
    """The name the source means for one argument text, and that name's
    definition text; (None, None) when the argument is no typedef name."""
    arg = arg.strip()
    m = re.match(r"std::conditional_t<\s*true\s*,(.*)>$", arg)
    if m:
        return expected_written(kwcap.split_top(m.group(1))[0], aliases)
    base = arg.split("::")[-1]
    if not re.match(r"^[A-Za-z_]\w*$", base) or base not in aliases:
        return None, None
    text, ns, local = aliases[base]
    if local:
        return expected_written(text, aliases)
    return ("%s::%s" % (ns, base) if ns else base), text


def main():
    args = kwcap.parse_args()
    ck = Checker("test_type_names")
    arch = args.arches[0]
    cflags = [f for f in args.cflag if not f.startswith("--offload-arch=")]
    root = kwcap.tmpdir(args, "tnames")
    try:
        obj = os.path.join(root, "kw_type_names.o")
        cmd = [args.clangxx] + cflags + ["--offload-arch=" + arch, "-fplugin=" + args.plugin,
                                         "-c", SRC, "-o", obj]
        timing = os.path.join(root, "timing")
        r = kwcap.run(cmd, env=kwcap.clean_env(KWALK_TIMING=timing))
        if not ck.check(r.returncode == 0 and "kwalk:" not in r.stderr,
                        "compile: rc=%d %s" % (r.returncode, r.stderr[-2000:])):
            ck.finish()
        doc = kwcap.load_yaml_file(obj + ".kwalk.yaml")
        kernels = {k["symbol"]: k for k in doc.get("kernels") or []}
        launches = doc.get("launches") or []
        with open(SRC, encoding="utf-8") as f:
            lines = f.read().split("\n")
        check_wide(ck, lines, doc, kernels, timing)
        aliases = source_aliases(lines)
        ck.check(aliases.get("fp8_t", ("",))[0] == "_BitInt(8)", "source: tn::fp8_t is _BitInt(8)")
        marks = {}
        for i, l in enumerate(lines):
            m = re.search(r"KW:LAUNCH (tn\.\w+)", l)
            if m:
                marks[i + 1] = m.group(1)
        ck.eq(len(marks), 5, "launch markers in the source")
        callers = {}  # id -> {template parameter: the caller's argument text}
        for i, l in enumerate(lines):
            m = re.search(r"KW:CALL (tn\.\w+_call)\b", l)
            c = re.search(r"tn::(\w+)<(.*?)>\(", kwcap.strip_comment(l)) if m else None
            if not c:
                continue
            head = next((j for j in range(i, -1, -1)
                         if re.search(r"\bvoid\s+%s\s*\(" % c.group(1), lines[j])), None)
            tpl = lines[head - 1] if head else ""
            params = re.findall(r"typename\s+(\w+)", tpl)
            callers[m.group(1)[:-len("_call")]] = dict(zip(params, kwcap.split_top(c.group(2))))
        ck.check(callers.get("tn.chain"), "source: the caller of tn.chain and its template")
        seen = set()
        for l in launches:
            line = (l.get("location") or {}).get("line")
            if line not in marks:
                continue
            seen.add(marks[line])
            tag = marks[line]
            k = kernels.get(l.get("kernel"))
            if not ck.check(k is not None, "%s: launched kernel %s has no sidecar record"
                            % (tag, l.get("kernel"))):
                continue
            m = re.search(r"tn::convert<(.*)>\s*<<<", kwcap.strip_comment(lines[line - 1]))
            written_args = kwcap.split_top(m.group(1)) if m else []
            for param, arg in (callers.get(tag) or {}).items():
                written_args = [re.sub(r"\b%s\b" % param, arg.strip(), a) for a in written_args]
            targs = k.get("template_args") or []
            # the symbol, demangled by llvm-cxxfilt: as many arguments at every level
            dm = kwcap.run([kwcap.tool(args, "llvm-cxxfilt"), k["symbol"]])
            demangled = dm.stdout.strip()
            ck.check(dm.returncode == 0 and demangled != k["symbol"],
                     "%s: llvm-cxxfilt %s: %s" % (tag, k["symbol"], dm.stderr))
            want = shape(template_part(demangled))
            ck.eq(shape(template_part(k.get("name") or "")), want,
                  "%s: argument structure of the printed name %r vs the symbol %r"
                  % (tag, k.get("name"), demangled))
            sym_args = top_args(template_part(demangled))
            ck.eq(len(targs), len(sym_args),
                  "%s: template_args entries vs the symbol's arguments (%s)" % (tag, demangled))
            for i, ta in enumerate(targs):
                what = "%s: argument %d (%s)" % (tag, i + 1, ta.get("name"))
                if i < len(sym_args):
                    ck.eq(shape(ta.get("value") or ""), shape(sym_args[i]),
                          what + ": nested argument structure vs the symbol's %r" % sym_args[i])
                if i >= len(written_args):
                    ck.check(ta.get("defaulted") is True, what + ": not written, so defaulted")
                    ck.check("written" not in ta, what + ": not written, but has written=%r"
                             % ta.get("written"))
                    continue
                name, text = expected_written(written_args[i], aliases)
                tid = re.match(r"([\w:]+)<(.*)>$", written_args[i].strip())
                if name is None and tid and not tid.group(1).startswith("std::"):
                    # a template-id: the template, each argument as spelled (a typedef
                    # name where it is one), the defaulted rest as the value has them
                    inner = kwcap.split_top(tid.group(2))
                    spelled = [expected_written(a, aliases)[0] for a in inner]
                    if any(spelled):
                        parts = [w or a.strip() for w, a in zip(spelled, inner)]
                        parts += top_args(template_part(ta.get("value") or ""))[len(parts):]
                        name, text = "%s<%s>" % (tid.group(1), ", ".join(parts)), "<"
                if name is None:
                    ck.check("written" not in ta, "%s: written %r, source spells %r (no typedef)"
                             % (what, ta.get("written"), written_args[i]))
                    continue
                ck.eq(ta.get("written"), name, what + ": written (source: %r)" % written_args[i])
                if "<" not in text:
                    ck.eq(ta.get("value"), text, what + ": value = the typedef's definition")
        ck.eq(sorted(seen), sorted(marks.values()), "launches recorded at the markers")
        # the page: written (value)
        if args.kwalk:
            db = os.path.join(root, "ix.db")
            r = kwcap.run([args.kwalk, "index", root, "-o", db])
            ck.check(r.returncode == 0, "kwalk index: %s" % r.stderr)
            for k in kernels.values():
                fp8 = [t for t in k.get("template_args") or [] if t.get("written") == "tn::fp8_t"]
                if not fp8:
                    continue
                r = kwcap.run([args.kwalk, "render", k["name"], "--db", db])
                ck.check(r.returncode == 0 and "`tn::fp8_t (_BitInt(8))`" in r.stdout,
                         "render %s: the template table shows `tn::fp8_t (_BitInt(8))`: %s"
                         % (k["name"], r.stderr))
                break
            else:
                ck.fail("no kernel has an argument written tn::fp8_t")
    finally:
        kwcap.cleanup(args, root)
    ck.finish()


def check_wide(ck, lines, doc, kernels, timing):
    """tn::wide_k's call of the lambda in tn::wide<int, 0, ..., N - 1>::run
    (N: the source's `wide_n`, the KW:WIDE line): named
    tn::wide<...>::run(float *)::(lambda)::operator() with N + 1 arguments, the
    last N - 1. The device job's capture-kernels CPU (KWALK_TIMING) is printed,
    not bounded (speed is measured by scripts/bench-plugin.sh, not by tests):
    naming this 75 KB name was quadratic in its length (5 s or more before the fix)."""
    m = next((re.search(r"wide_n\s*=\s*(\d+)", l) for l in lines if "KW:WIDE" in l), None)
    if not ck.check(m, "source: the KW:WIDE line gives wide_n"):
        return
    n = int(m.group(1))
    k = next((k for k in kernels.values() if k.get("name") == "tn::wide_k"), None)
    if not ck.check(k, "tn::wide_k has a kernel record"):
        return
    # its call edges: written in the kernel, or in the unit's device_calls
    calls = list(k.get("calls") or [])
    for rec in (doc.get("device_calls") or {}).values():
        calls += (rec or {}).get("calls") or []
    lam = [c.get("name") or "" for c in calls
           if re.match(r"tn::wide<.*::\(lambda\)::operator\(\)$", c.get("name") or "")]
    if ck.eq(len(lam), 1, "tn::wide_k: calls of a lambda's operator() in tn::wide"):
        head = re.match(r"tn::wide(<.*>)::run\(float \*\)::\(lambda\)::operator\(\)$", lam[0])
        ck.check(head, "tn::wide_k: the lambda is named in tn::wide<...>::run(float *): %r"
                 % lam[0][:200])
        targs = top_args(head.group(1)) if head else []
        ck.eq(len(targs), n + 1, "tn::wide_k: arguments of tn::wide in the lambda's name")
        ck.eq(targs[-1:], [str(n - 1)], "tn::wide_k: the last argument of tn::wide")
    with open(timing, encoding="utf-8") as f:
        rows = [l.split() for l in f if l.split()[:1] != ["host"]]
    rows = [r for r in rows if len(r) > 2 and r[1] == "capture-kernels"]
    if ck.eq(len(rows), 1, "KWALK_TIMING: one device capture-kernels line"):
        cpu = float(rows[0][2])
        print("tn::wide_k: device capture-kernels %.3f s of CPU" % cpu)


def top_args(tpl):
    """'<a, b<c, d>>' -> ['a', 'b<c, d>'] (split at top-level commas)."""
    inner = tpl[1:-1] if tpl.startswith("<") else tpl
    out, depth, paren, cur = [], 0, 0, []
    for c in inner:
        if c == "(":
            paren += 1
        elif c == ")":
            paren -= 1
        elif c == "<" and not paren:
            depth += 1
        elif c == ">" and not paren:
            depth -= 1
        if c == "," and depth == 0 and paren == 0:
            out.append("".join(cur).strip())
            cur = []
        else:
            cur.append(c)
    if "".join(cur).strip():
        out.append("".join(cur).strip())
    return out


if __name__ == "__main__":
    main()
