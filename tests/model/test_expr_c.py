#!/usr/bin/env python3
"""test_expr_c.py (model.expr_c): the expression evaluator in C mode
(model/kw_expr.c through expr_probe) against a C compiler: each expression
text, with its names declared as `long long` variables of the bound values,
is compiled into a program that prints its value, and the evaluator must
give the same number. The cases: C's bitwise operators (~ << >> & ^ |) with
values beyond 2^31 and 2^53 (a result beyond 2^53 is compared as the double
nearest to C's integer: the evaluator's values are doubles, so operands are
kept where + and - stay exact), their
precedence among the other operators (relational above equality, && and ||
kept whole next to & and |), aiter's power-of-two guard, and a few hundred
expressions generated from a fixed seed. And what C leaves undefined or
rejects (a shift by a negative count or by 64 or more, a left shift of a
negative value or past int64, a bitwise operand that is not an integer, a
word, a dangling operator) is "not evaluated" with a one-line reason.
The site's script (kwalk-kernel.js, printed by `expr_probe --js`), loaded
in headless Chromium on a page of the same cases (its #kw-expr-cases hook),
must give C's values and the evaluator's reasons, word for word (noted, not
checked, where Chromium cannot start).

    test_expr_c.py --probe EXPR_PROBE --cc C_COMPILER [--chromium EXE]
"""
import argparse
import html
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import kwbrowser  # noqa: E402
from kwcheck import Checker  # noqa: E402
import kwrun  # noqa: E402

# values beyond 2^31 (a JS 32-bit operation would differ), 2^52, 2^62 and negatives
V = {"a": 2**32 + 2**31, "b": 2**33 + 5, "c": -12345, "d": 255, "e": 3, "z": 0, "one": 1,
     "big": 2**62, "n": 2**52 - 1, "p2": 2**33}
PICK = ("a", "b", "c", "d", "e", "z", "one")

CURATED = [
    "a & b", "a | b", "a ^ b", "~a", "~c", "~~c", "c & d", "c | d", "c ^ b", "a >> 3",
    "c >> 2", "c >> 63", "one << 0",
    "n & (n - 1)", "n | b", "(a & (a - 1)) == 0", "(p2 & (p2 - 1)) == 0",
    "a >> 32 & one",
    # precedence: C's levels, loosest last
    "a & b == c", "a & b != z", "a | b ^ c & d", "a ^ b | c", "d << e + 1", "d >> e - 1",
    "d < e << 2", "d == e << 6 >> 1", "d == e < one", "d != z > one", "a & b && c | d",
    "z || a & one", "z | z || one & one", "d & e ? d >> e : d << e", "~d + 1", "-~d", "!d & e",
    "0xff00 & a", "d ^ 0x1f", "(d & 0x0f) << 4 | d >> 4", "a / e & b", "a % e ^ d",
    "d & e * 2", "a && b", "z || d", "d > e && e > z", "d >= 255 & e <= 3",
]

# aiter's power-of-two guard (add_rmsnorm_quant's dispatch), bound in turn
GUARD = "group_size == 0 || (reduce_thread_size & (reduce_thread_size - 1)) == 0"
GUARD_BINDS = [{"group_size": g, "reduce_thread_size": r} for g, r in
               ((0, 6), (24, 3), (32, 4), (64, 2**32 + 2**31), (64, 2**33), (64, 2**31),
                (64, 2**31 + 1), (64, 0))]

# not evaluated: what C leaves undefined (shifts) or rejects (a double, text
# or a dangling operator as an operand of a bitwise operator)
REFUSED = [
    ("one << 64", {}, "'<<'"), ("one >> 64", {}, "'>>'"), ("one << c", {}, "'<<'"),
    ("d >> c", {}, "'>>'"), ("c << 1", {}, "'<<'"), ("big << 1", {}, "2^53"),
    ("x & 1", {"x": 2.5}, "'&'"), ("d | 1.5", {}, "'|'"), ("1e19 ^ 1", {}, "'^'"),
    ("~x", {"x": 0.5}, "'~'"), ("~w", {"w": "bf16"}, "text"), ("d &", {}, ""),
    ("d &= 1", {}, ""), ("d << ", {}, ""), ("d | | e", {}, ""),
    # an integer of 2^53 or more: a double may hold it rounded (2^62 | 3 is
    # 2^62 as a double), so it is not evaluated rather than shown wrong
    ("one << 62", {}, "2^53"), ("big >> 61", {}, "2^53"), ("big | e", {}, "2^53"),
    ("big ^ d", {}, "2^53"), ("b << 20", {}, "2^53"), ("(p2 << 20 & (p2 << 20) - 1) == 0", {}, "2^53"),
    ("x & (x - 1)", {"x": 2**62}, "2^53"), ("x * x", {"x": 2**27}, "2^53"),
    ("x + 1", {"x": 2**53 - 1}, "2^53"), ("x - 1", {"x": -(2**53)}, "2^53"),
    ("dim3(x * 4, 1, 1)", {"x": 2**52}, "2^53"),
]


def shape_text(binds):
    return ",".join("%s=%s" % kv for kv in sorted(binds.items())) or "-"


def gen(rng, depth):
    """A random expression text over PICK's names: & | ^ + - comparisons
    && || ~ ! - printed without parentheses (C's precedence decides), shifts
    parenthesized with a bounded left operand and a count in 0..63 (no
    undefined behaviour), every value within 2^53."""
    r = rng.random()
    if depth == 0 or r < 0.2:
        # literals as long long (the evaluator skips the suffix): C's own
        # int would overflow where kwalk's int64 does not
        return rng.choice(PICK) if rng.random() < 0.7 else "%dLL" % rng.choice((0, 1, 7, 255, 4096))
    if r < 0.3:
        inner = gen(rng, depth - 1)
        return rng.choice("~!-") + ("(%s)" % inner if not re.fullmatch(r"\w+", inner) else inner)
    if r < 0.38:
        return "((%s) & 65535LL) << %d" % (gen(rng, depth - 1), rng.randrange(31)) \
            if rng.random() < 0.5 else "(%s) >> %d" % (gen(rng, depth - 1), rng.randrange(64))
    if r < 0.45:
        return "(%s)" % gen(rng, depth - 1)
    op = rng.choice(["&", "|", "^", "&", "|", "^", "+", "-", "==", "!=", "<", "<=", ">", ">=",
                     "&&", "||"])
    left, right = gen(rng, depth - 1), gen(rng, depth - 1)
    if left.startswith("((") or left.startswith("(") and ") >> " in left:
        left = "(%s)" % left  # a shift as an operand stays one
    if right.startswith("((") or right.startswith("(") and ") >> " in right:
        right = "(%s)" % right
    return "%s %s %s" % (left, op, right)


def random_cases(seed, count):
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        binds = {k: rng.choice((rng.randrange(-2**40, 2**40), rng.randrange(-300, 300),
                                rng.randrange(2**31, 2**33)))
                 for k in PICK if k not in ("z", "one")}
        binds.update(z=0, one=1)
        out.append((gen(rng, 4), binds))
    return out


def c_values(cc, cases, tmp):
    """Each case's value as the C compiler computes it (long long)."""
    body = []
    for expr, binds in cases:
        decls = " ".join("long long %s = %dLL;" % (k, v) if v >= 0 else
                         "long long %s = -%dLL;" % (k, -v) for k, v in sorted(binds.items()))
        body.append('  { %s printf("%%lld\\n", (long long)(%s)); }' % (decls, expr))
    src = os.path.join(tmp, "truth.c")
    with open(src, "w") as f:
        f.write("#include <stdio.h>\nint main(void) {\n%s\n  return 0;\n}\n" % "\n".join(body))
    exe = os.path.join(tmp, "truth")
    kwrun.run([cc, "-w", "-O0", src, "-o", exe], must=True)
    return [int(x) for x in kwrun.run([exe], must=True).stdout.split()]


def probe(exe, cases):
    """The evaluator's answers: ("=", float) or ("!", reason)."""
    q = "".join("%s\t%s\n" % (shape_text(b), e) for e, b in cases)
    r = kwrun.run([exe], input=q, must=True)
    return [(l[0], float(l[2:]) if l[0] == "=" else l[2:]) for l in r.stdout.splitlines()]


def js_answers(a, cases, tmp):
    """The site script's answers to cases, as probe's; None when Chromium
    cannot start."""
    try:
        chrome = kwbrowser.chromium(a.chromium, "kwexpr-chromium-")
    except SystemExit:
        return None
    with open(os.path.join(tmp, "kwalk-kernel.js"), "w") as f:
        f.write(kwrun.run([a.probe, "--js"], must=True).stdout)
    page = os.path.join(tmp, "expr.html")
    with open(page, "w") as f:
        f.write('<!doctype html><meta charset="utf-8"><pre id="kw-expr-cases">%s</pre>'
                '<script src="kwalk-kernel.js"></script>\n'
                % html.escape("".join("%s\t%s\n" % (shape_text(b), e) for e, b in cases)))
    try:
        p = subprocess.run(chrome + ["--allow-file-access-from-files", "--dump-dom",
                                     "file://" + page], capture_output=True, text=True,
                           errors="replace", timeout=300)
        dom = p.stdout
    except subprocess.TimeoutExpired:
        dom = ""
    shutil.rmtree(kwbrowser.profile(chrome), ignore_errors=True)
    m = re.search(r'<pre id="kw-test-result">(.*?)</pre>', dom, re.S)
    res = json.loads(html.unescape(m.group(1))) if m else []
    return [(k, float(v) if k == "=" else v) for k, v in res]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--probe", required=True)
    ap.add_argument("--cc", required=True)
    ap.add_argument("--chromium")
    a = ap.parse_args()
    ck = Checker("model.expr_c", who="kw_expr")
    tmp = tempfile.mkdtemp(prefix="kwexpr-")
    try:
        cases = [(e, V) for e in CURATED] + [(GUARD, b) for b in GUARD_BINDS]
        cases += random_cases(20261206, 400)
        truth = c_values(a.cc, cases, tmp)
        got = probe(a.probe, cases)
        ck.eq(len(got), len(cases), "an answer per expression")
        ck.eq(len(truth), len(cases), "a C value per expression")
        for (expr, binds), t, g in zip(cases, truth, got):
            # the evaluator's values are doubles: C's integer as the nearest double
            ck.eq(g, ("=", float(t)), "%s [%s]" % (expr, shape_text(binds)))
        pow2 = [t for (e, _), t in zip(cases, truth) if e == GUARD]
        ck.check(0 in pow2 and 1 in pow2, "the guard both holds and fails: %r" % pow2)
        refused = [(e, dict(V, **b)) for e, b, _ in REFUSED]
        for (expr, binds), (_, _, word), g in zip(refused, REFUSED, probe(a.probe, refused)):
            ck.check(g[0] == "!" and word in g[1] and "\n" not in g[1],
                     "%s [%s]: not evaluated, with a reason naming %s" % (expr, shape_text(binds),
                                                                        word or "the input"),
                     "got %r" % (g,))
        ck.note("%d expressions against %s, %d refused" % (len(cases), a.cc, len(refused)))
        js = js_answers(a, cases + refused, tmp)
        if js is None:
            ck.note("chromium cannot start: the site's script not checked")
        elif ck.eq(len(js), len(cases) + len(refused), "the site's script: an answer a case"):
            for (expr, binds), t, g in zip(cases, truth, js):
                ck.eq(g, ("=", float(t)), "the site's script: %s [%s]" % (expr, shape_text(binds)))
            for (expr, binds), g, want in zip(refused, js[len(cases):], probe(a.probe, refused)):
                ck.eq(g, want, "the site's script: %s [%s]: the evaluator's answer"
                      % (expr, shape_text(binds)))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    for n in ck.notes:
        print(n)
    ck.finish()


if __name__ == "__main__":
    main()
