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
from kwcheck import Checker  # noqa: E402
from kwir_common import WHO, load  # noqa: E402

C = Checker("ir.robust", who=WHO)
ks = load("odd")
C.eq(sorted(ks), sorted(["empty", "switchy", "irreducible", "forever", "flat_scratch", "memops", "buffers", "xodd", "deep",
             "asmsyntax"]), "all kernels analyzed")


def acc(k):
    return [(a["op"], a["space"], a["bytes_per_lane"], a["param"] or a.get("object"), a["lane_stride_bytes"])
            for a in k["accesses"]]


k = ks["empty"]
C.eq((k["accesses"], k["loops"], k["cross_lane"], k["barriers"]), ([], [], [], 0), "empty: nothing")
C.eq({v for key, v in k["work_per_thread"].items()}, {0}, "empty: no work")

k = ks["switchy"]
C.eq(acc(k), [("store", "global", 4, "p", 4), ("store", "global", 4, "p", 4),
                                   ("load", "global", 4, "p", 4), ("store", "global", 4, "p", 0)], "switchy: accesses")
C.eq([a["conditional"] for a in k["accesses"]], [True, True, False, False],
     "switchy: the case stores are conditional")
C.eq(k["work_per_thread"]["bytes_written"], 8,
     "switchy: bytes written (one case + the final store)")

k = ks["irreducible"]
C.eq(k["loops"], [], "irreducible: no natural loop")
C.eq(acc(k), [("store", "global", 4, "p", 0)], "irreducible: the store")

k = ks["forever"]
C.eq([lp["trip_count"] for lp in k["loops"]], ["unknown"], "forever: one loop, count unknown")
C.check(k["loops"] and k["loops"][0].get("trip_count_why"), "forever: why")
C.eq(k["barriers"], 1, "forever: barrier")
C.eq(acc(k), [("store", "lds", 4, "q", 0)], "forever: the LDS store through a parameter")
C.eq(k["work_per_thread"]["lds_bytes_written"], "loop0.trips*4",
     "forever: work in terms of the unknown count")

k = ks["flat_scratch"]
C.eq(acc(k), [("store", "scratch", 4, "alloca a", 0), ("load", "scratch", 4, "alloca a", 0),
                                        ("store", "flat", 4, "f", 4)], "flat_scratch: accesses")
C.eq(k["work_per_thread"]["bytes_read"], 0, "flat_scratch: scratch is not counted as traffic")

k = ks["memops"]
C.eq([(a["op"], a["what"], a["bytes_per_lane"], a["param"]) for a in k["accesses"]], [("atomic", "cmpxchg", 4, "d"), ("load", "llvm.memcpy.p1.p1.i64", 0, "s"),
      ("store", "llvm.memcpy.p1.p1.i64", 0, "d"), ("store", "llvm.memset.p1.i64", 16, "s")], "memops: accesses")

C.check(any("leave out 2 access" in n for n in ks["memops"]["notes"]), "memops: the variable-length memcpy is excluded from bytes, with a note",
        str(ks["memops"]["notes"]))

k = ks["buffers"]
a = k["accesses"]
C.eq((a[0]["space"], a[0]["param"], a[0]["bytes_per_lane"],
                                                    a[0]["lane_stride_bytes"]), ("buffer", "base", 8, 8), "buffers: <4 x i32> resource from a pointer")
C.eq((a[1]["space"], a[1]["param"], a[1]["lane_stride_bytes"]), ("buffer", "base", "unknown"),
     "buffers: variable record stride")
C.check("stride" in a[1].get("lane_stride_bytes_why", ""), "buffers: the reason names the stride")

k = ks["xodd"]
xs = {x["op"]: x for x in k["cross_lane"]}
C.eq(sorted(xs), sorted(["readlane", "dpp8", "permlane", "ballot", "wave_reduce_intrinsic", "dpp"]),
     "xodd: ops")
C.eq((xs["readlane"]["control"], bool(xs["readlane"].get("control_why"))), (None, True),
     "xodd: readlane of a variable lane")
sel = 16434824
C.eq(xs["dpp8"]["control"], "dpp8:[%s]" % ",".join(str(sel >> (3 * i) & 7) for i in range(8)),
     "xodd: dpp8 selects")
C.eq(xs["permlane"]["control"], "swap halves (lane^32)", "xodd: permlane64")
C.eq([(d["kind"], d.get("op"), d["via"]) for d in k["idioms"] if d["kind"] == "wave_reduce"], [("wave_reduce", "umin", "intrinsic")],
     "xodd: wave.reduce.umin")
C.eq(xs["dpp"]["idiom"], None,
     "xodd: a DPP step whose old (7) is not add's identity makes no idiom")
C.check(any("could not be simulated" in n for n in k["notes"]), "xodd: ... and a note says so",
        str(k["notes"]))

k = ks["deep"]
a = k["accesses"][0]
C.eq((a["space"], a["lane_stride_bytes"], a["lanes_exact"]), ("lds", 4, False),
     "deep: LDS store, stride from scalar evolution")
C.eq(a["bank_conflict_degree"], 1, "deep: conflict-free")
# 301 adds; the `and` only feeds the GEP index (address arithmetic is not counted)
C.eq(k["work_per_thread"]["int_ops"], 301, "deep: 301 integer adds")
k = ks["asmsyntax"]
C.eq([s["text"] for s in k["inline_asm"]], ["s_nop 0 ; %v0 %1 $"], "asm text in source syntax")
# s_nop is known (no work); the rest of the line is a comment (`;`)
C.eq((k["inline_asm"][0]["flops"], k["work_per_thread"]["asm_uncounted"]), (0, 0),
     "asm: s_nop has no work")
C.finish()
