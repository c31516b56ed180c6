#!/usr/bin/env python3
"""test_index_incremental.py: `kwalk index` updating an existing database.
A build of sidecars (the query fixtures and tests/sidecar's good ones) is
indexed, then sidecars are touched, changed, deleted, added and given in
another order; after each step the updated database must read exactly as a
fresh index of the same sidecars (their YAML exports byte-identical, and the
same as `-o X.yaml` built in memory), hold no row of a sidecar that is gone,
and `kwalk index` must say how many sidecars it wrote again (the ground
truth: which files this test changed). A reader inside a read transaction
during an update keeps seeing the old index; after it ends the update
commits. A file at the output path that is not an index is replaced.

usage: test_index_incremental.py --kwalk KWALK --src SOURCE_DIR
"""
import argparse
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from kwcheck import Checker  # noqa: E402
from kwrun import run  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kwalk", required=True)
    ap.add_argument("--src", required=True)
    a = ap.parse_args()
    a.kwalk = os.path.abspath(a.kwalk)
    c = Checker("index.incremental")
    tmp = tempfile.mkdtemp(prefix="kwalk-inc-")

    def kw(*args):
        return run([a.kwalk, *args], cwd=tmp)

    def export(db, out):
        r = kw("index", "--db", db, "-o", out)
        c.check(r.returncode == 0, f"export {db}", r.stderr)
        return open(os.path.join(tmp, out), "rb").read() if r.returncode == 0 else b""

    # the sidecars replaced or gone since the strings and frames no row
    # names were last deleted (docs/index-schema.md: deleted once these are
    # a quarter of the index's sidecars or more), as this test counts them
    garbage = [0]
    deferred = [0]  # steps that left the collection for later

    def compare(step, paths, updated=None, replaced=0, gone=0):
        """Update inc.db with paths; compare with fresh indexes of the same.
        replaced, gone: how many sidecars of inc.db this step rewrites or
        leaves out."""
        r = kw("index", *paths, "-o", "inc.db")
        c.check(r.returncode == 0, f"{step}: kwalk index", r.stderr)
        m = re.search(r"(\d+) updated, (\d+) unchanged", r.stdout)
        if updated is not None:
            got = int(m.group(1)) if m else len(paths)  # no clause: all written
            c.eq(got, updated, f"{step}: sidecars written again ({r.stdout.strip()})")
        for f in ("fresh.db", "fresh.yaml"):
            if os.path.exists(os.path.join(tmp, f)):
                os.unlink(os.path.join(tmp, f))
        r = kw("index", *paths, "-o", "fresh.db")
        c.check(r.returncode == 0, f"{step}: fresh index", r.stderr)
        r = kw("index", *paths, "-o", "fresh.yaml")
        mem = open(os.path.join(tmp, "fresh.yaml"), "rb").read()
        inc, fresh = export("inc.db", "inc.yaml"), export("fresh.db", "fresh-db.yaml")
        c.check(inc == fresh and len(inc) > 100, f"{step}: the updated index reads as a fresh one")
        c.check(fresh == mem, f"{step}: the database reads as the in-memory index")
        con = sqlite3.connect(os.path.join(tmp, "inc.db"))
        stored = sorted(p for (p,) in con.execute("SELECT path FROM sidecars"))
        c.eq(stored, sorted(paths), f"{step}: sidecars stored")
        # the tables of rows (not the shared strings and frames, which no
        # sidecar owns)
        tables = [t for (t,) in con.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT IN "
            "('_sidecars', 'kwalk_meta', 'strings', 'inline_frames')")]
        orphans = sum(con.execute(f'SELECT count(*) FROM "{t}" WHERE _sidecar NOT IN '
                                  "(SELECT _id FROM sidecars)").fetchone()[0] for t in tables)
        c.eq(orphans, 0, f"{step}: rows of sidecars that are gone")
        # strings and inlining frames stored once; those no row names
        # deleted when the replaced and gone sidecars reach a quarter of the
        # index's: then the same as a fresh index of the same sidecars
        # holds, before that a superset of it
        g = garbage[0] + replaced + gone
        if g * 4 >= len(paths):
            g = 0
        garbage[0] = g
        deferred[0] += g > 0
        meta = con.execute("SELECT value FROM kwalk_meta WHERE key = 'garbage_sidecars'").fetchone()
        c.eq(int(meta[0]) if meta else 0, g, f"{step}: sidecars replaced or gone since the last collection")
        fcon = sqlite3.connect(os.path.join(tmp, "fresh.db"))
        strs = "SELECT value FROM strings ORDER BY value"
        frames = "SELECT count(*) FROM inline_frames"
        if g == 0:
            for q in (strs, frames):
                c.eq(con.execute(q).fetchall(), fcon.execute(q).fetchall(), f"{step}: {q}")
        else:
            missing = ({v for (v,) in fcon.execute(strs)} - {v for (v,) in con.execute(strs)})
            c.eq(sorted(missing), [], f"{step}: strings of a fresh index missing")
            c.check(con.execute(frames).fetchone()[0] >= fcon.execute(frames).fetchone()[0],
                    f"{step}: inlining frames of a fresh index missing")
        c.eq(con.execute("SELECT count(*) - count(DISTINCT value) FROM strings").fetchone()[0], 0,
             f"{step}: strings stored twice")
        fcon.close()
        con.close()

    try:
        build = os.path.join(tmp, "build")
        os.makedirs(build)
        srcs = [os.path.join(a.src, "tests", "index", "fixtures", "queries", f)
                for f in ("a.kwalk.yaml", "b.kwalk.yaml")]
        good = os.path.join(a.src, "tests", "sidecar", "fixtures", "good")
        for d, _, files in os.walk(good):
            srcs += [os.path.join(d, f) for f in sorted(files) if f.endswith(".kwalk.yaml")]
        names = []
        for i, s in enumerate(srcs):
            n = "build/%d-%s" % (i, os.path.basename(s))
            shutil.copy(s, os.path.join(tmp, n))
            names.append(n)
        compare("first", names, updated=len(names))
        compare("again", names, updated=0)
        # touched: read and hashed, not written again
        t = time.time() + 5
        os.utime(os.path.join(tmp, names[1]), (t, t))
        compare("touched", names, updated=0)
        # changed: a kernel's resources
        p = os.path.join(tmp, names[0])
        text = open(p).read()
        open(p, "w").write(text.replace("vgpr: 256, agpr: 64", "vgpr: 255, agpr: 60", 1))
        compare("changed", names, updated=1, replaced=1)
        # a kernel of two sidecars: the first one's record changed, the
        # other's kept; then the other gone
        compare("deleted", [n for n in names if n != names[1]], updated=0, gone=1)
        compare("added back", names, updated=1)
        compare("another order", list(reversed(names)), updated=0)
        compare("back in order", names, updated=0)
        # more changed, one at a time, until the replaced and gone reach a
        # quarter again: deferred, then collected
        more = 0
        while (more == 0 or garbage[0]) and more < len(names) - 2:
            more += 1
            q = os.path.join(tmp, names[1 + more])
            with open(q, "a") as f:
                f.write("\n# changed %d\n" % more)
            compare(f"changed {more} more", names, updated=1, replaced=1)
        c.eq(garbage[0], 0, "collected once a quarter of the sidecars were replaced or gone")
        c.check(deferred[0] >= 2, f"steps that deferred the collection: {deferred[0]}")

        # a reader in a read transaction keeps its view; the update waits
        con = sqlite3.connect(os.path.join(tmp, "inc.db"), isolation_level=None)
        con.execute("BEGIN")
        before = con.execute("SELECT count(*) FROM kernels").fetchone()[0]
        proc = subprocess.Popen([a.kwalk, "index", *names[:2], "-o", "inc.db"], cwd=tmp,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        time.sleep(1.0)
        during = con.execute("SELECT count(*) FROM kernels").fetchone()[0]
        c.eq(during, before, "a reader during an update: kernel rows")
        con.execute("COMMIT")
        out, err = proc.communicate(timeout=60)
        c.check(proc.returncode == 0, "the update after the reader ended", err)
        after = con.execute("SELECT count(*) FROM kernels").fetchone()[0]
        con.close()
        yaml_two = [len(open(os.path.join(tmp, n)).read().split("\n- symbol:")) - 1
                    for n in names[:2]]
        c.eq(after, sum(yaml_two),
             "kernel rows after the update (the two sidecars' '- symbol:' lines)")
        c.check(after < before, "fewer kernels after the update")

        # a file that is not an index at the output path is replaced
        with open(os.path.join(tmp, "junk.db"), "w") as f:
            f.write("not a database\n")
        r = kw("index", *names, "-o", "junk.db")
        c.check(r.returncode == 0 and "updated" not in r.stdout, "junk replaced", r.stderr)
        c.check(export("junk.db", "junk.yaml") == export("fresh.db", "fresh2.yaml"),
                "junk replaced: the same index as a fresh one of the same sidecars")
        r = kw("list", "--db", "junk.db")
        c.check(r.returncode == 0, "junk replaced: list reads it", r.stderr)
        c.check(not [f for f in os.listdir(tmp) if ".tmp." in f], "no temporary file left")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    c.finish()


if __name__ == "__main__":
    main()
