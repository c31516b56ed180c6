"""kwdecoded.py: what the decode-cache tests read of kwalk's decoding
(docs/index-schema.md, "Listings decoded on use", "The decode cache"):
the KWALK_CACHE_STATS line, the cache file's record keys and the MD5s they
name, and what a database still stores of listings for a set of units."""
import os
import re
import sqlite3

STATS = re.compile(r"kwalk: decode cache: (\d+) code objects from the cache, (\d+) decoded")


def stats(c, err, what):
    """(code objects read from the cache, decoded) that kwalk's stderr err
    says, checked to be there with Checker c; (-1, -1) when not."""
    m = STATS.search(err)
    c.check(m is not None, f"{what}: kwalk says what it decoded", err[-400:])
    return (int(m.group(1)), int(m.group(2))) if m else (-1, -1)


def cache_keys(path):
    """The keys of the cache file's records ([] when it has none)."""
    if not os.path.exists(path):
        return []
    con = sqlite3.connect(path)
    try:
        return [k for (k,) in con.execute("SELECT key FROM decoded")]
    except sqlite3.Error:
        return []
    finally:
        con.close()


def key_md5s(keys):
    """The MD5s record keys name."""
    return {m for k in keys for m in re.findall(r"\b[0-9a-f]{32}\b", k)}


def stored_listings(db, kernels):
    """(how many of the kernel archs of the kernels the SQL `kernels`
    selects (their _id) have a listing, a line table, instruction classes,
    DPP patterns or memory widths in database db; how many such archs
    there are)."""
    con = sqlite3.connect(db)
    archs = f"SELECT x._id FROM _kernels_archs x WHERE x._parent IN ({kernels})"
    n = con.execute(f"SELECT count(*) FROM ({archs})").fetchone()[0]
    cols = [r[1] for r in con.execute("PRAGMA table_info(_kernels_archs)")
            if r[1] == "isa" or r[1].startswith("classes_") or r[1] == "lines_note"]
    some = " OR ".join(f"{c} IS NOT NULL" for c in cols)
    stored = con.execute(f"SELECT count(*) FROM _kernels_archs WHERE _id IN ({archs}) "
                         f"AND ({some})").fetchone()[0]
    for t, col in (("_kernels_archs_lines", "_parent"), ("kernels_archs_lines_packed", "_id"),
                   ("_kernels_archs_memory", "_parent"), ("_kernels_archs_dpp_patterns", "_parent")):
        stored += con.execute(f"SELECT count(*) FROM {t} WHERE {col} IN ({archs})").fetchone()[0]
    con.close()
    return stored, n
