"""check_robust.py: tests/passes/src/odd.ll, hand-written IR shapes the corpus does
not produce (switch, irreducible cycle, infinite loop, unreachable block,
flat and scratch memory, cmpxchg, memcpy of a variable length, memset, a
<4 x i32> buffer resource built from a pointer, a struct buffer with a
variable record stride, cross-lane calls that are not reductions, a 300-deep
chain of lane arithmetic). The expected facts are read off the IR text by
hand (each kernel's comment in odd.ll says what); what cannot be derived must
be `unknown` with a reason, and nothing may crash."""
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from kwir_common import Checker, load  # noqa: E402

C = Checker("ir.robust")
ks = load("odd")
C.eq("all kernels analyzed", sorted(ks),
     sorted(["empty", "switchy", "irreducible", "forever", "flat_scratch", "memops", "buffers", "xodd", "deep",
             "asmsyntax"]))


def acc(k):
    return [(a["op"], a["space"], a["bytes_per_lane"], a["param"] or a.get("object"), a["lane_stride_bytes"])
            for a in k["accesses"]]


k = ks["empty"]
C.eq("empty: nothing", (k["accesses"], k["loops"], k["cross_lane"], k["barriers"]), ([], [], [], 0))
C.eq("empty: no work", {v for key, v in k["work_per_thread"].items()}, {0})

k = ks["switchy"]
C.eq("switchy: accesses", acc(k), [("store", "global", 4, "p", 4), ("store", "global", 4, "p", 4),
                                   ("load", "global", 4, "p", 4), ("store", "global", 4, "p", 0)])
C.eq("switchy: the case stores are conditional", [a["conditional"] for a in k["accesses"]],
     [True, True, False, False])
C.eq("switchy: bytes written (one case + the final store)", k["work_per_thread"]["bytes_written"], 8)

k = ks["irreducible"]
C.eq("irreducible: no natural loop", k["loops"], [])
C.eq("irreducible: the store", acc(k), [("store", "global", 4, "p", 0)])

k = ks["forever"]
C.eq("forever: one loop, count unknown", [lp["trip_count"] for lp in k["loops"]], ["unknown"])
C.true("forever: why", k["loops"] and k["loops"][0].get("trip_count_why"))
C.eq("forever: barrier", k["barriers"], 1)
C.eq("forever: the LDS store through a parameter", acc(k), [("store", "lds", 4, "q", 0)])
C.eq("forever: work in terms of the unknown count", k["work_per_thread"]["lds_bytes_written"], "loop0.trips*4")

k = ks["flat_scratch"]
C.eq("flat_scratch: accesses", acc(k), [("store", "scratch", 4, "alloca a", 0), ("load", "scratch", 4, "alloca a", 0),
                                        ("store", "flat", 4, "f", 4)])
C.eq("flat_scratch: scratch is not counted as traffic", k["work_per_thread"]["bytes_read"], 0)

k = ks["memops"]
C.eq("memops: accesses", [(a["op"], a["what"], a["bytes_per_lane"], a["param"]) for a in k["accesses"]],
     [("atomic", "cmpxchg", 4, "d"), ("load", "llvm.memcpy.p1.p1.i64", 0, "s"),
      ("store", "llvm.memcpy.p1.p1.i64", 0, "d"), ("store", "llvm.memset.p1.i64", 16, "s")])

C.true("memops: the variable-length memcpy is excluded from bytes, with a note",
       any("leave out 2 access" in n for n in ks["memops"]["notes"]), str(ks["memops"]["notes"]))

k = ks["buffers"]
a = k["accesses"]
C.eq("buffers: <4 x i32> resource from a pointer", (a[0]["space"], a[0]["param"], a[0]["bytes_per_lane"],
                                                    a[0]["lane_stride_bytes"]), ("buffer", "base", 8, 8))
C.eq("buffers: variable record stride", (a[1]["space"], a[1]["param"], a[1]["lane_stride_bytes"]),
     ("buffer", "base", "unknown"))
C.true("buffers: the reason names the stride", "stride" in a[1].get("lane_stride_bytes_why", ""))

k = ks["xodd"]
xs = {x["op"]: x for x in k["cross_lane"]}
C.eq("xodd: ops", sorted(xs), sorted(["readlane", "dpp8", "permlane", "ballot", "wave_reduce_intrinsic", "dpp"]))
C.eq("xodd: readlane of a variable lane", (xs["readlane"]["control"], bool(xs["readlane"].get("control_why"))),
     (None, True))
sel = 16434824
C.eq("xodd: dpp8 selects", xs["dpp8"]["control"],
     "dpp8:[%s]" % ",".join(str(sel >> (3 * i) & 7) for i in range(8)))
C.eq("xodd: permlane64", xs["permlane"]["control"], "swap halves (lane^32)")
C.eq("xodd: wave.reduce.umin", [(d["kind"], d.get("op"), d["via"]) for d in k["idioms"] if d["kind"] == "wave_reduce"],
     [("wave_reduce", "umin", "intrinsic")])
C.eq("xodd: a DPP step whose old (7) is not add's identity makes no idiom", xs["dpp"]["idiom"], None)
C.true("xodd: ... and a note says so", any("could not be simulated" in n for n in k["notes"]), str(k["notes"]))

k = ks["deep"]
a = k["accesses"][0]
C.eq("deep: LDS store, stride from scalar evolution", (a["space"], a["lane_stride_bytes"], a["lanes_exact"]),
     ("lds", 4, False))
C.eq("deep: conflict-free", a["bank_conflict_degree"], 1)
# 301 adds; the `and` only feeds the GEP index (address arithmetic is not counted)
C.eq("deep: 301 integer adds", k["work_per_thread"]["int_ops"], 301)
k = ks["asmsyntax"]
C.eq("asm text in source syntax", [s["text"] for s in k["inline_asm"]], ["s_nop 0 ; %v0 %1 $"])
# s_nop is known (no work); the rest of the line is a comment (`;`)
C.eq("asm: s_nop has no work", (k["inline_asm"][0]["flops"], k["work_per_thread"]["asm_uncounted"]), (0, 0))
C.done()
