#!/usr/bin/env python3
"""test_cli.py: the kwalk command end to end on the hand-written sidecars of
fixtures/: `kwalk index` and `kwalk list` output (reachability from entry
points over a host call graph designed by hand: cross-TU edges, a cycle, an
entry that launches directly, an unreachable launcher, a launched kernel with
no device record, a kernel never launched), both index forms, `kwalk list
--json` (read with Python's json: the same rows, docs/json.md), exit codes,
and the one-line "kwalk: ..." error contract on bad input, including garbage
that must never crash the tool.

usage: test_cli.py KWALK FIXTURES_DIR
"""
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from kwcheck import Checker  # noqa: E402

KWALK, FIX = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
GOOD, BAD = os.path.join(FIX, "good"), os.path.join(FIX, "bad")
C = Checker("cli.commands")
check = C.check


def kwalk(*args, cwd):
    p = subprocess.run([KWALK, *args], cwd=cwd, capture_output=True, text=True, errors="replace")
    return p.returncode, p.stdout, p.stderr


def expect_error(args, cwd, code, contains=None, exact=None):
    """Exit status `code`, nothing on stdout, exactly one 'kwalk: ' line on stderr."""
    rc, out, err = kwalk(*args, cwd=cwd)
    what = f"kwalk {' '.join(args)}"
    check(rc == code, f"{what}: exit {rc}, wanted {code} (stderr {err!r})")
    check(out == "", f"{what}: unexpected stdout {out!r}")
    lines = err.split("\n")
    check(len(lines) == 2 and lines[1] == "" and lines[0].startswith("kwalk: "),
          f"{what}: stderr is not one 'kwalk: ' line: {err!r}")
    check("Sanitizer" not in err and "runtime error" not in err, f"{what}: sanitizer report")
    if contains:
        check(contains in err, f"{what}: {err!r} lacks {contains!r}")
    if exact:
        check(err == exact + "\n", f"{what}: {err!r}, wanted {exact!r}")
    return err


# The expected `kwalk list` for fixtures/good, worked out by hand:
#   a: aiter.rmsnorm -> rmsnorm_fwd -> dispatch -> launch<float> -> rmsnorm<float>   (a.cu:40)
#                                           \\-> launch<_Float16> -> rmsnorm<_Float16> (a.cu:40)
#   b: rope_c -> rope_launch -> rope (b.cu:20), rmsnorm<float> (b.cu:25)
#      aiter.cycle -> cycleA <-> cycleB -> dispatch (defined in a) -> both rmsnorms
#      unreached (called only by unreached2, not an entry) -> orphan_kernel (no device record)
#      dead_kernel: never launched
#   c/sub/deep: pybind "direct" is launch<float> itself -> rmsnorm<float>
EXPECTED = [
    ["dead_kernel", "_Z4deadv", "gfx942", "-", "-", "-", "hip", "-"],
    ["orphan_kernel", "_Z6orphanv", "-", "/fx/b.cu:30", "-", "-", "hip", "-"],
    ["rmsnorm<_Float16>", "_Z7rmsnormIDF16_EvPT_", "gfx942,gfx950", "/fx/a.cu:40",
     "pybind:aiter.rmsnorm,pybind:aiter.cycle", "-", "hip", "-"],
    ["rmsnorm<float>", "_Z7rmsnormIfEvPT_", "gfx942,gfx950", "/fx/a.cu:40,/fx/b.cu:25",
     "pybind:aiter.rmsnorm,extern_c:rope_c,pybind:aiter.cycle,pybind:direct", "-", "hip", "-"],
    ["rope", "_Z4ropev", "gfx942", "/fx/b.cu:20", "extern_c:rope_c", "-", "hip", "-"],
]


def check_list(out, what):
    rows = [line.split("\t") for line in out.splitlines()]
    check(out.endswith("\n"), f"{what}: output does not end with a newline")
    check(all(len(r) == 8 for r in rows), f"{what}: a line without 8 tab-separated fields")
    check(rows == EXPECTED, f"{what}: got\n{out}")


def check_list_json(out, what):
    """list --json, read with Python's json, against the same expected rows:
    each field of a row is the JSON key's value (lists joined as the TSV
    joins them, null as "-")."""
    try:
        doc = json.loads(out)
    except ValueError as e:
        check(False, f"{what}: not JSON: {e}: {out[:300]!r}")
        return
    check(doc.get("kwalk_list") == 1 and isinstance(doc.get("kernels"), list),
          f"{what}: kwalk_list 1 and a kernels list: {out[:300]!r}")
    rows = []
    for k in doc.get("kernels") or []:
        entries = ["%s:%s%s" % (e["kind"], e["module"] + "." if e["module"] else "", e["name"])
                   for e in k["entries"]]
        rows.append([k["name"], k["symbol"], ",".join(k["archs"]) or "-",
                     ",".join("%s:%d" % (la["file"], la["line"]) for la in k["launches"]) or "-",
                     ",".join(entries) or "-", k["tu"] or "-", k["kind"],
                     ",".join(k["code_objects"]) or "-"])
    check(rows == EXPECTED, f"{what}: got\n{rows}")


def main():
    tmp = tempfile.mkdtemp(prefix="kwalk-cli-")
    try:
        commands(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    C.finish()


def commands(tmp):
    # --help, --version
    rc, out, err = kwalk("--help", cwd=tmp)
    check(rc == 0 and "kwalk index" in out and "kwalk list" in out and err == "", "kwalk --help")
    rc, out, err = kwalk("--version", cwd=tmp)
    check(rc == 0 and out.startswith("kwalk ") and out.count("\n") == 1, f"--version: {out!r}")
    for cmd in ("index", "list"):
        rc, out, err = kwalk(cmd, "--help", cwd=tmp)
        check(rc == 0 and out.startswith(f"usage: kwalk {cmd}"), f"kwalk {cmd} --help")

    # usage errors: exit 2
    expect_error([], tmp, 2, exact="kwalk: no command given (see 'kwalk --help')")
    expect_error(["frobnicate"], tmp, 2, contains="unknown command 'frobnicate'")
    expect_error(["index"], tmp, 2, exact="kwalk: index: no PATH given (see 'kwalk index --help')")
    expect_error(["index", "--bogus", GOOD], tmp, 2, contains="unknown option '--bogus'")
    expect_error(["index", GOOD, "-o"], tmp, 2, contains="option -o needs a file name")
    expect_error(["index", GOOD, "--format", "xml"], tmp, 2, contains="--format takes")
    expect_error(["list", "extra"], tmp, 2, contains="unexpected argument 'extra'")
    expect_error(["list", "--db"], tmp, 2, contains="option --db needs a file name")
    expect_error(["list", "-x"], tmp, 2, contains="unknown option '-x'")

    # list before any index
    expect_error(["list"], tmp, 1, contains="kwalk.db: No such file or directory (run 'kwalk index")

    # index + list, default names
    rc, out, err = kwalk("index", GOOD, cwd=tmp)
    check(rc == 0 and err == "", f"kwalk index: exit {rc}, {err!r}")
    check(out == "kwalk.db: 3 sidecars, 4 kernels, 5 launches, 4 entry points\n",
          f"kwalk index summary: {out!r}")
    check(os.path.isfile(os.path.join(tmp, "kwalk.db")), "kwalk.db written")
    with open(os.path.join(tmp, "kwalk.db"), "rb") as f:
        packed = f.read()
    check(packed.startswith(b"SQLite format 3\0"), "the default index is an SQLite database")
    rc, out, err = kwalk("list", cwd=tmp)
    check(rc == 0 and err == "", f"kwalk list: exit {rc}, {err!r}")
    check_list(out, "kwalk list")
    rc, out, err = kwalk("list", "--json", cwd=tmp)
    check(rc == 0 and err == "", f"kwalk list --json: exit {rc}, {err!r}")
    check_list_json(out, "kwalk list --json")

    # the YAML form, --db both ways, -o/--output both ways; the same list
    rc, out, err = kwalk("index", "--format", "yaml", "--output", "ix.txt", GOOD, cwd=tmp)
    check(rc == 0 and out.startswith("ix.txt: 3 sidecars"), f"index --format yaml: {err!r}")
    rc, out, err = kwalk("index", "--output", "ix.yaml", GOOD, cwd=tmp)
    check(rc == 0 and out.startswith("ix.yaml: 3 sidecars"), f"index -o ix.yaml: {err!r}")
    rc, out, err = kwalk("index", "--format=db", "-o", "packed.yaml", GOOD, cwd=tmp)
    check(rc == 0, f"index --format=db: {err!r}")
    with open(os.path.join(tmp, "packed.yaml"), "rb") as f:
        check(f.read().startswith(b"SQLite format 3\0"), "--format=db overrides the name")
    with open(os.path.join(tmp, "ix.yaml")) as f:
        text = f.read()
    with open(os.path.join(tmp, "ix.txt")) as f:
        check(f.read() == text, "--format yaml and -o FILE.yaml write the same")
    check(text.startswith("kwalk_index: 1\nkwalk_schema: 3\n") and text.endswith("\n...\n"),
          "the YAML index layout")
    for db in (["--db", "ix.yaml"], ["--db=ix.yaml"], ["--db", "packed.yaml"]):
        rc, out, err = kwalk("list", *db, cwd=tmp)
        check(rc == 0, f"list {db}: {err!r}")
        check_list(out, f"kwalk list {' '.join(db)}")
        rc, out, err = kwalk("list", "--json", *db, cwd=tmp)
        check_list_json(out, f"kwalk list --json {' '.join(db)}")

    # the same file reached twice, sidecars given one by one, order of arguments
    a = os.path.join(GOOD, "a", "rmsnorm.kwalk.yaml")
    rc, out, err = kwalk("index", "-o=twice.db", GOOD, a, os.path.join(GOOD, "a", "..", "a"), cwd=tmp)
    check(rc == 0 and out.startswith("twice.db: 3 sidecars, 4 kernels"), f"dedup: {out!r} {err!r}")
    rc, out, err = kwalk("list", "--db", "twice.db", cwd=tmp)
    check_list(out, "list after duplicate paths")
    files = [os.path.join(GOOD, p) for p in
             ("c/sub/deep/direct.kwalk.yaml", "b/rope.kwalk.yaml", "a/rmsnorm.kwalk.yaml")]
    rc, out, err = kwalk("index", "-o", "files.db", *files, cwd=tmp)
    check(rc == 0, f"index of files: {err!r}")
    rc, out, err = kwalk("list", "--db", "files.db", cwd=tmp)
    # TU order changes the order of launch sites and entries, not their sets
    rows = [line.split("\t") for line in out.splitlines()]
    check([r[:3] for r in rows] == [e[:3] for e in EXPECTED], "files in another order: kernels")
    check([sorted(r[3].split(",")) for r in rows] == [sorted(e[3].split(",")) for e in EXPECTED],
          "files in another order: launch sites")
    check([sorted(r[4].split(",")) for r in rows] == [sorted(e[4].split(",")) for e in EXPECTED],
          "files in another order: entries")

    # a sidecar alone: only its own graph (no cross-TU edge to dispatch)
    rc, out, err = kwalk("index", "-o", "b.db", os.path.join(GOOD, "b"), cwd=tmp)
    rc, out, err = kwalk("list", "--db", "b.db", cwd=tmp)
    check(out.splitlines() == [
        "dead_kernel\t_Z4deadv\tgfx942\t-\t-\t-\thip\t-",
        "orphan_kernel\t_Z6orphanv\t-\t/fx/b.cu:30\t-\t-\thip\t-",
        "rmsnorm<float>\t_Z7rmsnormIfEvPT_\tgfx950\t/fx/b.cu:25\textern_c:rope_c\t-\thip\t-",
        "rope\t_Z4ropev\tgfx942\t/fx/b.cu:20\textern_c:rope_c\t-\thip\t-",
    ], f"list of b alone:\n{out}")

    # bad input: exit 1, one line, no index written
    bad_dir = os.path.join(tmp, "bad")
    os.mkdir(bad_dir)
    expect_error(["index", os.path.join(BAD, "truncated.kwalk.yaml")], bad_dir, 1,
                 exact=f"kwalk: {BAD}/truncated.kwalk.yaml: line 9: truncated: the document does "
                       "not end with '...'")
    expect_error(["index", os.path.join(BAD, "broken.kwalk.yaml")], bad_dir, 1,
                 contains=f"kwalk: {BAD}/broken.kwalk.yaml: line 3: did not find expected ',' or '}}'")
    expect_error(["index", os.path.join(BAD, "schema4.kwalk.yaml")], bad_dir, 1,
                 exact=f"kwalk: {BAD}/schema4.kwalk.yaml: unsupported kwalk_schema 4 (this kwalk reads 1 to 3)")
    expect_error(["index", os.path.join(BAD, "wrongtype.kwalk.yaml")], bad_dir, 1,
                 exact=f"kwalk: {BAD}/wrongtype.kwalk.yaml: line 5: kernels[0].location.line: "
                       "expected an integer, got a quoted string \"12\"")
    expect_error(["index", GOOD, BAD], bad_dir, 1, contains=f"{BAD}/broken.kwalk.yaml")
    expect_error(["index", "no/such/dir"], bad_dir, 1,
                 exact="kwalk: no/such/dir: No such file or directory")
    os.mkdir(os.path.join(bad_dir, "empty"))
    expect_error(["index", "empty"], bad_dir, 1,
                 exact="kwalk: empty: no sidecars (*.kwalk.yaml, *.kwalk.yaml.zst, or embedded in objects) found")
    expect_error(["index", "-o", "/no/such/dir/x.db", GOOD], bad_dir, 1,
                 contains="cannot write /no/such/dir/x.db")
    expect_error(["index", os.path.join(tmp, "ix.yaml")], bad_dir, 1,
                 contains="ix.yaml: a kwalk index, not a sidecar")
    check(os.listdir(bad_dir) == ["empty"], f"files left behind: {os.listdir(bad_dir)}")
    # a failed index leaves the previous one alone
    before = open(os.path.join(tmp, "kwalk.db"), "rb").read()
    expect_error(["index", GOOD, os.path.join(BAD, "schema2.kwalk.yaml")], tmp, 1)
    check(open(os.path.join(tmp, "kwalk.db"), "rb").read() == before, "index kept")

    # bad databases
    expect_error(["list", "--db", a], tmp, 1,
                 exact=f"kwalk: {a}: a sidecar, not a kwalk index (build one with 'kwalk index')")
    expect_error(["list", "--db", "nope.db"], tmp, 1, exact="kwalk: nope.db: No such file or directory")
    expect_error(["list", "--db", bad_dir], tmp, 1, exact=f"kwalk: {bad_dir}: Is a directory")
    with open(os.path.join(tmp, "half.db"), "wb") as f:
        f.write(packed[: len(packed) // 2])
    expect_error(["list", "--db", "half.db"], tmp, 1, contains="half.db: corrupt kwalk index")
    with open(os.path.join(tmp, "half.yaml"), "w") as f:
        f.write(text[: len(text) // 2])
    expect_error(["list", "--db", "half.yaml"], tmp, 1, contains="half.yaml: line ")
    flipped = bytearray(packed)
    flipped[16:18] = b"\x00\x03"  # the page size: not a power of two
    with open(os.path.join(tmp, "flip.db"), "wb") as f:
        f.write(bytes(flipped))
    expect_error(["list", "--db", "flip.db"], tmp, 1, contains="flip.db: corrupt kwalk index")

    # render --all into a directory it wrote before removes the pages of
    # instantiations that are gone, and nothing else
    pages = os.path.join(tmp, "pages")
    rc, out, err = kwalk("index", "-o", "all.db", GOOD, cwd=tmp)
    check(rc == 0, f"index for render --all: {err!r}")
    rc, out, err = kwalk("render", "--all", "--db", "all.db", "-o", pages, cwd=tmp)
    check(rc == 0, f"render --all: exit {rc}, {err!r}")
    first = set(f for f in os.listdir(pages) if f.endswith(".md") and f != "index.md")
    with open(os.path.join(pages, "notes.md"), "w") as f:
        f.write("the user's own file\n")
    rc, out, err = kwalk("index", "-o", "one.db", os.path.join(GOOD, "a"), cwd=tmp)
    rc, out, err = kwalk("render", "--all", "--db", "one.db", "-o", pages, cwd=tmp)
    check(rc == 0, f"render --all (second): exit {rc}, {err!r}")
    fresh = os.path.join(tmp, "pages-fresh")
    rc, out, err = kwalk("render", "--all", "--db", "one.db", "-o", fresh, cwd=tmp)
    want = set(f for f in os.listdir(fresh) if f.endswith(".md") and f != "index.md")
    have = set(f for f in os.listdir(pages) if f.endswith(".md") and f != "index.md")
    check(len(want) < len(first) and want < first,
          f"render --all: the smaller index has fewer pages ({sorted(want)} of {sorted(first)})")
    check(have == want | {"notes.md"},
          f"render --all into a used directory: pages {sorted(have)}, want {sorted(want)} "
          "and the user's notes.md")

    # garbage never crashes either reader
    rnd = random.Random(7)
    gdir = os.path.join(tmp, "garbage")
    os.mkdir(gdir)
    for i in range(30):
        blob = bytes(rnd.randrange(256) for _ in range(rnd.randrange(1, 400)))
        if i % 3 == 0:
            blob = b"SQLite format 3\x00" + blob
        elif i % 3 == 1:
            blob = text.encode()[: rnd.randrange(len(text))] + blob
        g = os.path.join(gdir, f"g{i}.kwalk.yaml")
        with open(g, "wb") as f:
            f.write(blob)
        for args in (["index", "-o", os.path.join(tmp, "g.db"), g], ["list", "--db", g]):
            rc, out, err = kwalk(*args, cwd=tmp)
            check(rc in (0, 1), f"garbage {i}: {args[0]} exit {rc}")
            if rc == 1:
                check(err.count("\n") == 1 and err.startswith("kwalk: "),
                      f"garbage {i}: {args[0]} stderr {err!r}")


if __name__ == "__main__":
    main()
