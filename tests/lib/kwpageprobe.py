"""kwpageprobe.py: the output of tests/model/page_isa_probe (the page model's
ISA part and TTGIR reading of every kernel of an index), read into
[(symbol, cache dir or None, {record kind: [fields, ...]})], one per page;
model.page_isa and model.ttgir both read it."""
import collections

from kwrun import run


def probe_pages(probe, db):
    r = run([probe, db], must=True)
    pages = []
    for line in r.stdout.splitlines():
        f = line.split("\t")
        if f[0] == "K":
            pages.append((f[1], None if f[2] == "-" else f[2], collections.defaultdict(list)))
        elif pages:
            pages[-1][2][f[0]].append(f[1:])
    return pages
