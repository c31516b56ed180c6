#!/usr/bin/env python3
"""test_index_only.py: one page and `kwalk list` read only their rows of the
index (kw_index_read_file_only), and say what the whole read says.

On an index of the corpus sidecars:
- every kernel `kwalk list` lists (every KIND) rendered by its symbol, and
  every kernel whose printed name is unique rendered by that name (the
  second read, for the symbol the name picks), must be byte-identical, with
  the same exit status and error text, to the page of the whole read
  ($KWALK_INDEX_READ=whole); `kwalk list` and `list --json` too; and so
  must each template's kernel page (several instantiations), with and
  without `--shape`;
- the rows a page does not read are not read: in a copy of the index, the
  rows of the kernels of other templates than the page's (their own
  `kernels` and arch rows: a page by symbol or printed name reads its
  template's kernels only) and every row below another kernel (its
  parameters, calls, IR facts, line tables, and its listings, made
  undecodable; not its kernel struct's template arguments, which every read
  takes) is damaged with Python's sqlite3, so that
  the whole read fails (checked); the page of the kernel from the damaged
  copy must still be the whole read's page of the intact index. So are the
  rows below every launch of another symbol (its guards, constants,
  arguments, operand declarations, macro expansions: damaged_launches).
  So are the host records (launches, entry points, host calls) of every
  translation unit the page cannot need: none of its launches, and no host
  call or entry point of a function above one (found here by walking up the
  host calls: damage_units).
  `kwalk list` the same, with every kernel's rows and every launch's of a
  symbol below it damaged, and every row of the host tables it lists
  nothing of (a launch's guards, constants, arguments, chains, ...; a host
  call's guards and constants).

usage: test_index_only.py --kwalk KWALK --corpus-out DIR
"""
import argparse
import contextlib
import os
import shutil
import sqlite3
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from kwcheck import Checker  # noqa: E402
from kwrun import run  # noqa: E402

WHOLE = dict(os.environ, KWALK_INDEX_READ="whole")
ONLY = {k: v for k, v in os.environ.items() if k != "KWALK_INDEX_READ"}


def tables_below(con, top):
    """The tables whose rows hang below table `top`'s (by the naming rule
    of docs/index-schema.md: a child table is <parent>_<field>), that have a
    _parent column: {name: parent name}."""
    names = [r[0] for r in con.execute(
        "SELECT name FROM sqlite_schema WHERE type = 'table' AND name LIKE '\\_%' ESCAPE '\\'")]
    out = {}
    for raw in names:
        name = raw[1:]
        if not name.startswith(top + "_"):
            continue
        cols = [r[1] for r in con.execute(f'PRAGMA table_info("{raw}")')]
        if "_parent" not in cols:
            continue
        parent = max((p for p in [top] + [n[1:] for n in names]
                      if name.startswith(p + "_") and p != name), key=len)
        out[name] = parent
    return out


# a kernel's template key, as docs/index-schema.md defines it: its template's
# name, else its printed name, else its symbol (the model's group)
KEY = 'coalesce("template", "name", symbol)'


def other_templates(con, keep_symbol):
    """The `kernels` rows of the templates other than keep_symbol's."""
    return {r[0] for r in con.execute(
        f"SELECT _id FROM _kernels WHERE {KEY} NOT IN (SELECT {KEY} FROM _kernels k "
        "JOIN strings s ON s._id = k.symbol WHERE s.value = ?)", (keep_symbol,))}


def damage(src, dst, keep_symbol, templates=False):
    """Copy src to dst; every row below a kernel whose symbol is not
    keep_symbol (None: every kernel) gets a parent that does not exist, and
    those kernels' listings bytes no decompressor takes. With templates, the
    kernels of other templates than keep_symbol's lose their parents too,
    their own rows and their archs'. Returns the rows damaged."""
    shutil.copyfile(src, dst)
    con = sqlite3.connect(dst)
    keep = set()
    if keep_symbol is not None:
        keep = {r[0] for r in con.execute(
            "SELECT k._id FROM _kernels k JOIN strings s ON s._id = k.symbol WHERE s.value = ?",
            (keep_symbol,))}
    others = other_templates(con, keep_symbol) if templates else set()
    below = tables_below(con, "kernels")
    # the ids under each damaged kernel, level by level (parents first)
    chosen = {"kernels": {r[0] for r in con.execute("SELECT _id FROM _kernels")} - keep}
    n = 0
    for name in sorted(below, key=lambda t: t.count("_")):
        par = chosen.get(below[name], set())
        rows = [r[0] for r in con.execute(f'SELECT _id, _parent FROM "_{name}"') if r[1] in par]
        chosen[name] = set(rows)
        if below[name] == "kernels" and others:
            # the other templates' kernels' own tables (archs, Triton records) are not read
            gone = [(r[0],) for r in con.execute(f'SELECT _id, _parent FROM "_{name}"')
                    if r[1] in others]
            n += con.executemany(f'UPDATE "_{name}" SET _parent = -7 WHERE _id = ?', gone).rowcount
        if name == "kernels_archs":
            # the arch rows are read (picking by --arch); their listings are not
            cur = con.executemany(
                f'UPDATE "_{name}" SET isa = x\'00112233445566778899\', isa_size = 1000 '
                'WHERE _id = ? AND isa IS NOT NULL', [(i,) for i in rows])
            n += cur.rowcount
            continue
        if name == "kernels_functor_args":
            continue  # read for every kernel: the names list prints and render NAME takes
        cur = con.executemany(f'UPDATE "_{name}" SET _parent = -7 WHERE _id = ?',
                              [(i,) for i in rows])
        n += cur.rowcount
    if others:
        n += con.executemany('UPDATE _kernels SET _parent = -7, _sidecar = -7 WHERE _id = ?',
                             [(i,) for i in others]).rowcount
    con.commit()
    con.close()
    return n


# the tables below a launch that a page reads for its own kernel's launches only
LAUNCH_PARTS = ("launches_guards", "launches_constants", "launches_args",
                "launches_operand_decls", "launches_macro_expansions")


def damage_launches(con, keep_symbol):
    """Every row below a launch whose kernel is a symbol other than
    keep_symbol (None: any symbol) gets a parent that does not exist.
    Returns the rows damaged."""
    par = {r[0] for r in con.execute(
        "SELECT l._id FROM _launches l JOIN strings s ON s._id = l.kernel "
        "WHERE l.kernel IS NOT NULL AND (?1 IS NULL OR s.value IS NOT ?1)", (keep_symbol,))}
    below = tables_below(con, "launches")
    chosen = {"launches": par}
    n = 0
    for name in sorted(below, key=lambda t: t.count("_")):
        top = next((p for p in LAUNCH_PARTS if name == p or name.startswith(p + "_")), None)
        if top is None:
            continue
        par = chosen.get(below[name], set())
        rows = [r[0] for r in con.execute(f'SELECT _id, _parent FROM "_{name}"') if r[1] in par]
        chosen[name] = set(rows)
        cur = con.executemany(f'UPDATE "_{name}" SET _parent = -7 WHERE _id = ?',
                              [(i,) for i in rows])
        n += cur.rowcount
    con.commit()
    return n


def needed_units(con, sym):
    """The sidecars whose host records a page of sym can need, found here
    from the index's views: those holding a launch of sym, a host call into
    or out of a host function above one (a walk up the callers) or an entry
    point at such a function."""
    units = {r[0] for r in con.execute("SELECT _sidecar FROM launches WHERE kernel = ?", (sym,))}
    up = {r[0] for r in con.execute(
        "SELECT function_symbol FROM launches WHERE kernel = ? AND function_symbol IS NOT NULL",
        (sym,))}
    calls = con.execute("SELECT _sidecar, caller, callee FROM host_calls").fetchall()
    todo = list(up)
    while todo:
        fn = todo.pop()
        for _, caller, callee in calls:
            if callee == fn and caller and caller not in up:
                up.add(caller)
                todo.append(caller)
    units |= {u for u, caller, callee in calls if caller in up or callee in up}
    units |= {r[0] for r in con.execute("SELECT _sidecar, function_symbol FROM entries")
              if r[1] in up}
    return units


def damage_units(con, keep_symbol):
    """The host records (launches, entry points, host calls) of every unit a
    page of keep_symbol cannot need (needed_units) get a parent that does not
    exist. Returns the rows damaged."""
    keep = needed_units(con, keep_symbol)
    n = 0
    for name in ("launches", "entries", "host_calls"):
        rows = [(r[0],) for r in con.execute(f'SELECT _id, _sidecar FROM "_{name}"')
                if r[1] not in keep]
        n += con.executemany(f'UPDATE "_{name}" SET _parent = -7 WHERE _id = ?', rows).rowcount
    con.commit()
    return n


# the host tables `kwalk list` takes no column from: what hangs below a
# launch but its ASM kernels' table rows, and below a host call
LIST_UNREAD = LAUNCH_PARTS + ("launches_instantiation_chain", "launches_call_chain",
                              "host_calls_guards", "host_calls_constants")


def damage_list_host(con):
    """Every row of the host tables `kwalk list` does not read gets a parent
    that does not exist. Returns the rows damaged."""
    n = 0
    for name in LIST_UNREAD:
        n += con.execute(f'UPDATE "_{name}" SET _parent = -7').rowcount
    con.commit()
    return n


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kwalk", required=True)
    ap.add_argument("--corpus-out", required=True)
    a = ap.parse_args()
    c = Checker("index.only")
    tmp = tempfile.mkdtemp(prefix="kwalk-only-")
    # the intact index and its damaged copies, each kwalk.db in a folder of
    # its own (a page names the index it was read from: --db kwalk.db)
    db = os.path.join(tmp, "kwalk.db")
    os.mkdir(os.path.join(tmp, "bad"))
    bad = os.path.join(tmp, "bad", "kwalk.db")
    run([a.kwalk, "index", a.corpus_out, "-o", db], must=True)

    def kw(env, *args, d=db):
        return run([a.kwalk, *args, "--db", "kwalk.db"], env=env, cwd=os.path.dirname(d))

    def same(got, want, what):
        """got == want; on a difference, the first line that differs."""
        if got == want:
            return c.check(True, what)
        g, w = got.splitlines(), want.splitlines()
        i = next((i for i in range(min(len(g), len(w))) if g[i] != w[i]), min(len(g), len(w)))
        return c.check(False, what, f"line {i + 1}: got {g[i] if i < len(g) else '(end)'!r}, "
                       f"want {w[i] if i < len(w) else '(end)'!r}")

    # the list, both ways
    for extra in ([], ["--json"]):
        w, o = kw(WHOLE, "list", *extra), kw(ONLY, "list", *extra)
        c.eq(o.returncode, 0, f"list {extra}: exit status")
        same(o.stdout, w.stdout, f"list {extra}: the whole read's rows")
    rows = [ln.split("\t") for ln in kw(WHOLE, "list").stdout.splitlines() if ln.strip()]
    c.check(len(rows) > 0, "the corpus index lists kernels")
    names = {}
    for r in rows:
        names.setdefault(r[0], []).append(r[1])

    # every kernel's page by its symbol; by its printed name where unique and
    # not the symbol (the second read: KERNEL picks another symbol), every
    # third such name (the corpus on a loaded 2-core machine: minutes)
    pages = 0
    by_name = [n for n, syms in sorted(names.items()) if len(syms) == 1 and n != syms[0]]
    queries = [r[1] for r in rows] + by_name[::3]
    for q in queries:
        w, o = kw(WHOLE, "render", q), kw(ONLY, "render", q)
        c.eq(o.returncode, w.returncode, f"render {q!r}: exit status")
        c.eq(o.stderr, w.stderr, f"render {q!r}: messages")
        if same(o.stdout, w.stdout, f"render {q!r}: the whole read's page") and w.stdout:
            pages += 1
    c.check(pages >= len(rows) and by_name,
            f"pages compared: {pages} (kernels listed: {len(rows)}, by name: {len(by_name[::3])})")

    # a kernel's page (a template's name: several instantiations), plain and
    # with a --shape: its dispatch table needs every instantiation's launches,
    # guards and template arguments, read for it too
    templates = sorted({n.split("<", 1)[0] for n in names if "<" in n
                        and sum(m.split("<", 1)[0] == n.split("<", 1)[0] for m in names) > 1})
    kpages = 0
    for q in templates:
        for extra in ([], ["--shape", "n=300"]):
            w, o = kw(WHOLE, "render", q, *extra), kw(ONLY, "render", q, *extra)
            c.eq(o.returncode, w.returncode, f"render {q!r} {extra}: exit status")
            if same(o.stdout, w.stdout, f"render {q!r} {extra}: the whole read's kernel page") \
                    and w.stdout.startswith("# Kernel "):
                kpages += 1
    c.check(kpages >= 2, f"kernel pages compared: {kpages} (templates: {templates})")

    # the rows a page does not need are not read: damaged, the page is the same
    hip = [r[1] for r in rows if r[6] == "hip" and r[2] != "-"]
    picks = sorted(set([hip[0], hip[len(hip) // 2], hip[-1]])) if hip else []
    grouped = 0
    for sym in picks:
        # a kernel that is no trampoline reads its template's kernels only
        # (a trampoline's family spans templates: it reads every kernel's row)
        with contextlib.closing(sqlite3.connect(db)) as con:
            plain = con.execute(
                "SELECT count(*) = 0 FROM _kernels k JOIN strings s ON s._id = k.symbol "
                "WHERE s.value = ? AND k.functor IS NOT NULL", (sym,)).fetchone()[0]
            others = len(other_templates(con, sym)) if plain else 0
        grouped += others > 0
        n = damage(db, bad, sym, templates=plain)
        c.check(n > 0, f"{sym}: rows of other kernels damaged ({n}; {others} kernels of "
                f"other templates, their own rows too)")
        with contextlib.closing(sqlite3.connect(bad)) as con:
            n = damage_launches(con, sym)
            u = damage_units(con, sym)
        c.check(n > 0, f"{sym}: rows below launches of other symbols damaged ({n})")
        c.check(u > 0, f"{sym}: host records of the units its page cannot need damaged ({u})")
        whole_bad = kw(WHOLE, "render", sym, d=bad)
        c.check(whole_bad.returncode != 0 and "corrupt kwalk index" in whole_bad.stderr,
                f"{sym}: the whole read of the damaged copy fails ({whole_bad.stderr.strip()})")
        o = kw(ONLY, "render", sym, d=bad)
        c.eq(o.returncode, 0, f"{sym}: render from the damaged copy ({o.stderr.strip()})")
        same(o.stdout, kw(WHOLE, "render", sym).stdout,
             f"{sym}: its page from the damaged copy is the intact whole read's")
    c.check(len(picks) > 0, "kernels rendered from a damaged copy")
    c.check(grouped > 0, f"kernels rendered without the other templates' kernels' rows: {grouped}")
    n = damage(db, bad, None)
    c.check(n > 0, f"list: every kernel's rows below it damaged ({n})")
    with contextlib.closing(sqlite3.connect(bad)) as con:
        n = damage_launches(con, None)
        h = damage_list_host(con)
    c.check(n > 0, f"list: rows below every launch of a symbol damaged ({n})")
    c.check(h > 0, f"list: the host rows it lists nothing of damaged ({h}: {LIST_UNREAD})")
    c.check(kw(WHOLE, "list", d=bad).returncode != 0, "list: the whole read of the damaged copy fails")
    same(kw(ONLY, "list", d=bad).stdout, kw(WHOLE, "list").stdout,
         "list: from the damaged copy, the intact whole read's rows")
    shutil.rmtree(tmp, ignore_errors=True)
    c.note(f"{pages} pages compared, {len(picks)} from damaged copies")
    c.finish()


if __name__ == "__main__":
    main()
