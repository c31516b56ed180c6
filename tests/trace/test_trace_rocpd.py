"""test_trace_rocpd.py: `kwalk trace FILE.db` and `kwalk render --trace FILE.db`
on rocprofv3's default output, the rocpd SQLite database, built here.

The database is written with Python's sqlite3 from the schema ROCprofiler-SDK
documents and ships: source/share/rocprofiler-sdk-rocpd/rocpd_tables.sql
(the tables, each named with the run's uuid as a suffix) and rocpd_views.sql
(a view without the suffix over each), https://github.com/ROCm/rocprofiler-sdk
(the rocpd format: https://rocm.docs.amd.com/projects/rocprofiler-sdk/en/latest/
how-to/using-rocpd-output-format.html). Two published layouts of
rocpd_kernel_dispatch are built: times and agent on the row (`start`, `end`,
`agent_id`), and times in rocpd_timestamp (`start_id`, `end_id`) with the agent
on the row's track (rocpd_track). Only the tables the kernel trace fills are
written, with the columns the schema gives them.

Ground truth: the kernels are symbols read from the corpus index with Python's
sqlite3 (`instantiations`, docs/index-schema.md); the durations, launch
configurations and the arch are drawn and inserted here; the dispatch count,
total, median, min and max per instantiation and per launch configuration,
the grid in workgroups and the names not in the index are computed here and
compared with `kwalk trace --format yaml`. With the index database ATTACHed,
`joined_in_sql` counts the dispatches whose kernel_name (".kd" removed) is a
symbol of the index (computed here); with its YAML export, none. kernel_name
(the mangled symbol with ".kd", as rocprofv3 writes it) joins by symbol even
where display_name would join otherwise; a symbol row without kernel_name falls back to display_name.
The same database with the index given as its YAML export must give the same
figures, and `--json` (read with Python's json) the same report. Damaged and foreign databases get one `kwalk: FILE: ...` line and
exit 1.

Exit 0 when all checks hold, 1 otherwise, 77 when it cannot run.
"""
import json
import os
import random
import shutil
import sqlite3
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from kwrun import run  # noqa: E402
import test_trace as tt  # noqa: E402  (set-up, index, statistics)
UUID = "_0f1e2d3c"  # the run's uuid suffix of every table
GUID = "11111111-2222-3333-4444-555555555555"

# The tables of rocpd_tables.sql the kernel trace fills, with their columns
# (types as the schema declares them). {u}: the uuid suffix.
TABLES_COMMON = """
CREATE TABLE "rocpd_metadata{u}" (id INTEGER PRIMARY KEY AUTOINCREMENT, tag TEXT NOT NULL,
  value TEXT NOT NULL);
CREATE TABLE "rocpd_string{u}" (id INTEGER PRIMARY KEY AUTOINCREMENT, guid TEXT NOT NULL,
  string TEXT NOT NULL UNIQUE);
CREATE TABLE "rocpd_info_node{u}" (id INTEGER PRIMARY KEY AUTOINCREMENT, guid TEXT NOT NULL,
  hash BIGINT NOT NULL UNIQUE, machine_id TEXT NOT NULL UNIQUE, system_name TEXT, hostname TEXT,
  release TEXT, version TEXT, hardware_name TEXT, domain_name TEXT);
CREATE TABLE "rocpd_info_process{u}" (id INTEGER PRIMARY KEY AUTOINCREMENT, guid TEXT NOT NULL,
  nid INTEGER NOT NULL, ppid INTEGER, pid INTEGER NOT NULL, init BIGINT, fini BIGINT,
  start BIGINT, "end" BIGINT, command TEXT, environment JSONB NOT NULL DEFAULT '{{}}',
  extdata JSONB NOT NULL DEFAULT '{{}}');
CREATE TABLE "rocpd_info_agent{u}" (id INTEGER PRIMARY KEY AUTOINCREMENT, guid TEXT NOT NULL,
  nid INTEGER NOT NULL, pid INTEGER NOT NULL, type TEXT CHECK (type IN ('CPU', 'GPU')),
  absolute_index INTEGER, logical_index INTEGER, type_index INTEGER, uuid INTEGER, name TEXT,
  model_name TEXT, vendor_name TEXT, product_name TEXT, user_name TEXT,
  extdata JSONB NOT NULL DEFAULT '{{}}');
CREATE TABLE "rocpd_info_code_object{u}" (id INTEGER PRIMARY KEY AUTOINCREMENT,
  guid TEXT NOT NULL, nid INTEGER NOT NULL, pid INTEGER NOT NULL, agent_id INTEGER, uri TEXT,
  load_base BIGINT, load_size BIGINT, load_delta BIGINT,
  storage_type TEXT CHECK (storage_type IN ('FILE', 'MEMORY')),
  extdata JSONB NOT NULL DEFAULT '{{}}');
CREATE TABLE "rocpd_info_kernel_symbol{u}" (id INTEGER PRIMARY KEY AUTOINCREMENT,
  guid TEXT NOT NULL, nid INTEGER NOT NULL, pid INTEGER NOT NULL,
  code_object_id INTEGER NOT NULL, kernel_name TEXT, display_name TEXT, kernel_object INTEGER,
  kernarg_segment_size INTEGER, kernarg_segment_alignment INTEGER, group_segment_size INTEGER,
  private_segment_size INTEGER, sgpr_count INTEGER, arch_vgpr_count INTEGER,
  accum_vgpr_count INTEGER, extdata JSONB NOT NULL DEFAULT '{{}}');
"""
# rocpd_kernel_dispatch with its times and agent on the row.
DISPATCH_ROW = """
CREATE TABLE "rocpd_kernel_dispatch{u}" (id INTEGER PRIMARY KEY AUTOINCREMENT,
  guid TEXT NOT NULL, nid INTEGER NOT NULL, pid INTEGER NOT NULL, tid INTEGER,
  agent_id INTEGER NOT NULL, kernel_id INTEGER NOT NULL, dispatch_id INTEGER NOT NULL,
  queue_id INTEGER NOT NULL, stream_id INTEGER NOT NULL, start BIGINT NOT NULL,
  "end" BIGINT NOT NULL, private_segment_size INTEGER, group_segment_size INTEGER,
  workgroup_size_x INTEGER NOT NULL, workgroup_size_y INTEGER NOT NULL,
  workgroup_size_z INTEGER NOT NULL, grid_size_x INTEGER NOT NULL, grid_size_y INTEGER NOT NULL,
  grid_size_z INTEGER NOT NULL, region_name_id INTEGER, event_id INTEGER,
  extdata JSONB NOT NULL DEFAULT '{{}}');
"""
# rocpd_kernel_dispatch with its times in rocpd_timestamp and its agent on its track.
DISPATCH_TS = """
CREATE TABLE "rocpd_track{u}" (id INTEGER PRIMARY KEY AUTOINCREMENT, guid TEXT NOT NULL,
  nid INTEGER NOT NULL, ppid INTEGER, pid INTEGER, tid INTEGER, agent_id INTEGER,
  queue_id INTEGER, stream_id INTEGER, name_id INTEGER, extdata JSONB NOT NULL DEFAULT '{{}}');
CREATE TABLE "rocpd_timestamp{u}" (id INTEGER PRIMARY KEY AUTOINCREMENT, guid TEXT NOT NULL,
  value BIGINT NOT NULL, phase INTEGER CHECK (phase IN (0, 1, 2)), track_id INTEGER);
CREATE TABLE "rocpd_kernel_dispatch{u}" (id INTEGER PRIMARY KEY AUTOINCREMENT,
  guid TEXT NOT NULL, track_id INTEGER NOT NULL, kernel_id INTEGER NOT NULL,
  dispatch_id INTEGER NOT NULL, start_id INTEGER NOT NULL, end_id INTEGER NOT NULL,
  private_segment_size INTEGER, group_segment_size INTEGER, workgroup_size_x INTEGER NOT NULL,
  workgroup_size_y INTEGER NOT NULL, workgroup_size_z INTEGER NOT NULL,
  grid_size_x INTEGER NOT NULL, grid_size_y INTEGER NOT NULL, grid_size_z INTEGER NOT NULL,
  region_name_id INTEGER, event_id INTEGER, extdata JSONB NOT NULL DEFAULT '{{}}');
"""


def write_rocpd(path, symbols, dispatches, layout):
    """symbols: [(kernel_name or None, display_name)], ids 1..n; dispatches:
    dicts with sym (1-based symbol id), start, end, block, grid."""
    if os.path.exists(path):
        os.remove(path)
    db = sqlite3.connect(path)
    u = UUID
    db.executescript((TABLES_COMMON + (DISPATCH_ROW if layout == "row" else DISPATCH_TS))
                     .format(u=u))
    views = ["rocpd_metadata", "rocpd_string", "rocpd_info_node", "rocpd_info_process",
             "rocpd_info_agent", "rocpd_info_code_object", "rocpd_info_kernel_symbol",
             "rocpd_kernel_dispatch"] + (["rocpd_track", "rocpd_timestamp"]
                                         if layout == "ts" else [])
    for v in views:
        db.execute('CREATE VIEW "%s" AS SELECT * FROM "%s%s"' % (v, v, u))
    db.executemany('INSERT INTO "rocpd_metadata%s" (tag, value) VALUES (?, ?)' % u,
                   [("schema_version", "3"), ("uuid", u), ("guid", GUID)])
    db.execute('INSERT INTO "rocpd_info_node%s" (guid, hash, machine_id, hostname) '
               "VALUES (?, 1, 'm1', 'host')" % u, (GUID,))
    db.execute('INSERT INTO "rocpd_info_process%s" (guid, nid, pid, command) '
               "VALUES (?, 1, 4242, 'app')" % u, (GUID,))
    db.execute('INSERT INTO "rocpd_info_agent%s" (id, guid, nid, pid, type, absolute_index, name, '
               "product_name) VALUES (1, ?, 1, 1, 'CPU', 0, 'AMD EPYC 9654', 'AMD EPYC 9654')"
               % u, (GUID,))
    db.execute('INSERT INTO "rocpd_info_agent%s" (id, guid, nid, pid, type, absolute_index, name, '
               "product_name) VALUES (2, ?, 1, 1, 'GPU', 1, 'gfx942', 'AMD Instinct MI300X')"
               % u, (GUID,))
    db.execute('INSERT INTO "rocpd_info_code_object%s" (id, guid, nid, pid, agent_id, uri, '
               "storage_type) VALUES (1, ?, 1, 1, 2, 'file:///app#offset=0&size=1', 'FILE')" % u,
               (GUID,))
    for i, (kname, shown) in enumerate(symbols):
        db.execute('INSERT INTO "rocpd_info_kernel_symbol%s" (id, guid, nid, pid, code_object_id, '
                   "kernel_name, display_name) VALUES (?, ?, 1, 1, 1, ?, ?)" % u,
                   (i + 1, GUID, kname, shown))
    if layout == "ts":
        db.execute('INSERT INTO "rocpd_track%s" (id, guid, nid, pid, agent_id, queue_id) '
                   "VALUES (1, ?, 1, 1, 2, 1)" % u, (GUID,))
    for i, d in enumerate(dispatches):
        size = list(d["block"]) + list(d["grid"])
        if layout == "row":
            db.execute('INSERT INTO "rocpd_kernel_dispatch%s" (guid, nid, pid, tid, agent_id, '
                       "kernel_id, dispatch_id, queue_id, stream_id, start, \"end\", "
                       "workgroup_size_x, workgroup_size_y, workgroup_size_z, grid_size_x, "
                       "grid_size_y, grid_size_z) VALUES (?, 1, 1, 1, 2, ?, ?, 1, 1, ?, ?, "
                       "?, ?, ?, ?, ?, ?)" % u,
                       [GUID, d["sym"], i + 1, d["start"], d["end"]] + size)
        else:
            ids = []
            for value, phase in ((d["start"], 1), (d["end"], 2)):
                cur = db.execute('INSERT INTO "rocpd_timestamp%s" (guid, value, phase, track_id) '
                                 "VALUES (?, ?, ?, 1)" % u, (GUID, value, phase))
                ids.append(cur.lastrowid)
            db.execute('INSERT INTO "rocpd_kernel_dispatch%s" (guid, track_id, kernel_id, '
                       "dispatch_id, start_id, end_id, workgroup_size_x, workgroup_size_y, "
                       "workgroup_size_z, grid_size_x, grid_size_y, grid_size_z) "
                       "VALUES (?, 1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)" % u,
                       [GUID, d["sym"], i + 1] + ids + size)
    db.commit()
    db.close()


def main():
    args, c, _ = tt.setup("test_trace_rocpd")
    with tt.indexed(args, c, "kwalk-rocpd-test-") as (tmp, db):
        ix = sqlite3.connect(db)
        names = {}
        for sym, name in ix.execute("SELECT symbol, name FROM instantiations"):
            names.setdefault(sym, set()).add(name)
        ix.close()
        syms = sorted(s for s in names if s.startswith("_Z"))
        if len(syms) < 4:
            print("test_trace_rocpd: the corpus index has fewer than 4 kernels")
            sys.exit(77)
        printed = {}  # printed name -> symbols
        for s, ns in names.items():
            for n in ns:
                printed.setdefault(n, set()).add(s)
        # A kernel whose printed name is its own (joined through display_name).
        by_name = next((s for s in syms if len(names[s]) == 1 and next(iter(names[s]))
                        and len(printed[next(iter(names[s]))]) == 1), None)
        picked = [s for s in syms if s != by_name][:3]
        unknown = "_Z20not_a_corpus_kernelPi"
        # kernel_name with ".kd"; display_name a name the name rules would join
        # to another kernel (kernel_name must win)
        symbols = [(s + ".kd", next(iter(names[picked[(i + 1) % 3]])) or s)
                   for i, s in enumerate(picked)]
        symbols.append((unknown + ".kd", "not_a_corpus_kernel(int*)"))
        want_sym = picked + [None]
        if by_name:
            symbols.append((None, next(iter(names[by_name]))))
            want_sym.append(by_name)
        rng = random.Random(4321)
        configs = [((256, 1, 1), (256 * 1024, 1, 1)), ((64, 4, 1), (64 * 5, 4 * 2, 1)),
                   ((128, 1, 1), (1000, 1, 1))]
        t = 1700000000000000001  # ns since the epoch: beyond a double's 53 bits
        dispatches = []
        for k in range(len(symbols)):
            for _ in range(rng.randrange(1, 6)):
                block, grid = configs[rng.randrange(len(configs))]
                t += rng.randrange(1000, 5000)
                dur = rng.randrange(1500, 90000)
                dispatches.append({"sym": k + 1, "start": t, "end": t + dur, "block": block,
                                   "grid": grid})
                t += dur
        rng.shuffle(dispatches)

        per, cfgs = {}, {}
        for d in dispatches:
            key = want_sym[d["sym"] - 1] or ("unknown", unknown)
            per.setdefault(key, []).append(d["end"] - d["start"])
            wg = tuple(-(-g // b) for g, b in zip(d["grid"], d["block"]))
            cfgs.setdefault(key, {}).setdefault((wg, d["block"]), []).append(d["end"] - d["start"])

        def check_report(rep, what, sql):
            c.eq(rep.get("format"), "rocpd", what + ": format")
            # the join in SQL: every dispatch whose kernel_name is an index symbol
            c.eq(rep.get("joined_in_sql"),
                 sum(1 for d in dispatches if symbols[d["sym"] - 1][0]
                     and symbols[d["sym"] - 1][0][:-3] in names) if sql else 0,
                 what + ": dispatches joined in SQL")
            c.eq(rep.get("dispatches"), len(dispatches), what + ": dispatches")
            got = {k["symbol"]: k for k in rep.get("kernels") or []}
            c.eq(sorted(got), sorted(k for k in per if isinstance(k, str)),
                 what + ": joined instantiations")
            for sym, k in got.items():
                if sym not in per:
                    continue
                c.check(sym in names, "%s: %s is a symbol of the index" % (what, sym))
                for key, v in tt.stats(per[sym]).items():
                    c.eq(k.get(key), v, "%s: %s %s" % (what, sym, key))
                c.eq(k.get("match"), "name" if sym == by_name else "symbol",
                     "%s: %s matched by" % (what, sym))
                gcfg = {(tuple(x["grid_workgroups"]), tuple(x["workgroup_size"])): x
                        for x in k.get("launch_configs") or []}
                c.eq(sorted(gcfg), sorted(cfgs[sym]), "%s: %s launch configurations" % (what, sym))
                for ck, durs in cfgs[sym].items():
                    x = gcfg.get(ck) or {}
                    for key, v in tt.stats(durs).items():
                        c.eq(x.get(key), v, "%s: %s %r %s" % (what, sym, ck, key))
                    c.eq(x.get("arch"), "gfx942", "%s: %s arch from the agent" % (what, sym))
            un = {u["trace_name"]: u for u in rep.get("unmatched") or []}
            c.eq(sorted(un), [unknown], what + ": names not in the index (kernel_name, no .kd)")
            if unknown in un:
                for key, v in tt.stats(per[("unknown", unknown)]).items():
                    c.eq(un[unknown].get(key), v, "%s: unknown %s" % (what, key))
            c.eq(rep.get("ambiguous"), [], what + ": no ambiguous names")

        yml = os.path.join(tmp, "idx.yaml")
        p = run([args.kwalk, "index", "--db", db, "-o", yml])
        c.check(p.returncode == 0, "export the index as YAML: %s" % p.stderr)
        for layout in ("row", "ts"):
            rp = os.path.join(tmp, "host", "4242_results_%s.db" % layout)
            os.makedirs(os.path.dirname(rp), exist_ok=True)
            write_rocpd(rp, symbols, dispatches, layout)
            for index in (db, yml):
                what = "%s layout, index %s" % (layout, os.path.basename(index))
                p = run([args.kwalk, "trace", rp, "--db", index, "--format", "yaml"])
                if c.check(p.returncode == 0 and p.stderr == "",
                           "%s: rc %d %r" % (what, p.returncode, p.stderr)):
                    check_report(tt.yaml.load(p.stdout, Loader=tt.Loader), what, index == db)
            # --json (docs/json.md): read with Python's json, the same checks
            p = run([args.kwalk, "trace", rp, "--db", db, "--json"])
            if c.check(p.returncode == 0 and p.stderr == "",
                       "%s --json: rc %d %r" % (layout, p.returncode, p.stderr)):
                try:
                    check_report(json.loads(p.stdout), layout + " layout --json", True)
                except ValueError as e:
                    c.check(False, "%s --json: not JSON: %s" % (layout, e))
            # render --trace FILE.db: section 4's Measured subsection counts them
            sym = picked[0]
            p = run([args.kwalk, "render", sym, "--db", db, "--trace", rp])
            n = len(per[sym])
            c.check(p.returncode == 0 and ("**%d dispatch%s** of this instantiation"
                                           % (n, "" if n == 1 else "es")) in p.stdout,
                    "render --trace %s (%s): rc %d %r" % (layout, sym, p.returncode, p.stderr))

        # Damaged and foreign databases: one line, exit 1.
        good = os.path.join(tmp, "host", "4242_results_row.db")
        data = open(good, "rb").read()
        bad = {
            "truncated.db": data[:len(data) // 2],
            "header_only.db": data[:100],
            "garbage.db": b"SQLite format 3\0" + bytes(rng.randrange(256) for _ in range(4096)),
        }
        for fname, blob in bad.items():
            with open(os.path.join(tmp, fname), "wb") as f:
                f.write(blob)
        other = os.path.join(tmp, "other.db")
        o = sqlite3.connect(other)
        o.execute("CREATE TABLE t (a INTEGER)")
        o.commit()
        o.close()
        bad_rows = {}
        for what, change in (("end before start", 'UPDATE "rocpd_kernel_dispatch%s" SET '
                              '"end" = start - 1 WHERE id = 2'),
                             ("workgroup size 0", 'UPDATE "rocpd_kernel_dispatch%s" SET '
                              "workgroup_size_y = 0 WHERE id = 3"),
                             ("no symbol", 'DELETE FROM "rocpd_info_kernel_symbol%s"'),
                             ("text time", 'UPDATE "rocpd_kernel_dispatch%s" SET '
                              "start = 'soon' WHERE id = 1")):
            path = os.path.join(tmp, what.replace(" ", "_") + ".db")
            shutil.copy(good, path)
            m = sqlite3.connect(path)
            m.execute(change % UUID)
            m.commit()
            m.close()
            bad_rows[what] = path
        nocols = os.path.join(tmp, "nocols.db")
        m = sqlite3.connect(nocols)
        m.execute("CREATE TABLE rocpd_kernel_dispatch (id INTEGER, kernel_id INTEGER)")
        m.execute("CREATE TABLE rocpd_info_kernel_symbol (id INTEGER, kernel_name TEXT)")
        m.execute("CREATE TABLE rocpd_info_agent (id INTEGER, name TEXT)")
        m.commit()
        m.close()
        cases = [os.path.join(tmp, f) for f in sorted(bad)] + [other, db, nocols] + \
            [bad_rows[k] for k in sorted(bad_rows)]
        for path in cases:
            p = run([args.kwalk, "trace", path, "--db", db])
            err = p.stderr.splitlines()
            c.check(p.returncode == 1 and p.stdout == "" and len(err) == 1
                    and err[0].startswith("kwalk: %s: " % path),
                    "%s: rc %d, stdout %r, stderr %r" % (os.path.basename(path), p.returncode,
                                                         p.stdout[:200], p.stderr))
    c.finish()


if __name__ == "__main__":
    main()
