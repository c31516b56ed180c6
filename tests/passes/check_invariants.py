"""check_invariants.py: properties that hold for every kernel kwir-dump
analyzed (all corpus TUs, tests/passes/src, every variant gen_ir.sh made):

- every expression is in the grammar of docs/ir-facts.md and evaluates to the
  same value in this file's Python evaluator and in the C one (kwir-expr), for
  random shapes; no `$N` placeholder survives parameter naming; every unknown
  value says why;
- the analysis only reads the IR: the module written back after it is the
  module read (llvm-dis text identical);
- the analysis gives the same facts with the plugin's analysis manager and
  with its own analyses;
- per kernel, the counts of cross-lane intrinsics, barriers, fences, inline asm
  and memory instructions equal those in the llvm-dis text of the function."""
import glob
import os
import random
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from kwcheck import Checker  # noqa: E402
from kwir_common import LLVM_BIN, KWIR_EXPR, WORK, WHO, evaluate, ll_functions, load  # noqa: E402

C = Checker("ir.invariants", who=WHO)
rng = random.Random(4)
NAME = re.compile(r"\$\d+|[A-Za-z_][A-Za-z0-9_.]*")
FUNCS = {"ceil", "floor", "min", "max"}

names = sorted(os.path.basename(p)[:-5] for p in glob.glob(os.path.join(WORK, "*.yaml"))
               if not p.endswith(".own.yaml"))
C.check(len(names) >= 10, "inputs exist", str(names))

exprs = set()


def walk_vals(k):
    """(where, value, why) of every kw_ir_val-like field."""
    for a in k["accesses"]:
        for key in ("lane_stride_bytes", "group_stride_bytes", "group_stride_bytes_y", "group_stride_bytes_z"):
            if key in a:
                yield f"access {a['id']} {key}", a[key], a.get(key + "_why")
    for lp in k["loops"]:
        yield f"loop {lp['id']} trip_count", lp["trip_count"], lp.get("trip_count_why")
    for key, v in k["work_per_thread"].items():
        if key not in ("asm_uncounted", "mfma"):
            yield f"work {key}", v, k["work_per_thread"].get(key + "_why")


for name in names:
    ks = load(name)
    funcs = ll_functions(name)
    for sym, k in ks.items():
        tag = f"{name} {sym[:50]}"
        for where, v, why in walk_vals(k):
            if v == "unknown":
                C.check(why, f"{tag} {where}: unknown says why")
                C.check(why and "$" not in why, f"{tag} {where}: reason has no $N", why)
            elif isinstance(v, str):
                exprs.add(v)
                C.check("$" not in v, f"{tag} {where}: no $N placeholder", v)
            else:
                C.check(isinstance(v, int), f"{tag} {where}: a number", repr(v))
        body = funcs.get(sym, "")
        xs = k["cross_lane"]
        for op, pat in (("dpp", r"@llvm\.amdgcn\.(?:update|mov)\.dpp\."), ("swizzle", r"@llvm\.amdgcn\.ds\.swizzle"),
                        ("bpermute", r"@llvm\.amdgcn\.ds\.bpermute"), ("readlane", r"@llvm\.amdgcn\.readlane\."),
                        ("readfirstlane", r"@llvm\.amdgcn\.readfirstlane")):
            C.eq(sum(x["op"] == op for x in xs), len(re.findall(r"call [^@\n]*" + pat, body)),
                 f"{tag}: {op} vs llvm-dis")
        C.eq(k["barriers"], len(re.findall(r"call void @llvm\.amdgcn\.s\.barrier\(\)", body)),
             f"{tag}: barriers vs llvm-dis")
        C.eq(sum(b["kind"] == "fence" for b in k["barrier_list"]), len(re.findall(r"^\s+fence ", body, re.M)),
             f"{tag}: fences vs llvm-dis")
        C.eq(len(k["inline_asm"]), len(re.findall(r"\basm (?:sideeffect )?\"", body)),
             f"{tag}: inline asm vs llvm-dis")
        # memory instructions, less the reads of the kernel-argument segment
        launch = set(re.findall(r"(%[\w.]+) = (?:tail )?call (?:noundef )?(?:align \d+ )?(?:dereferenceable\(\d+\) )?"
                                r"ptr addrspace\(4\) @llvm\.amdgcn\.(?:implicitarg|dispatch|kernarg\.segment|queue)\.ptr", body))
        for _ in range(4):
            for m in re.finditer(r"(%[\w.]+) = getelementptr [^\n]*?ptr addrspace\(4\) (%[\w.]+)", body):
                if m.group(2) in launch:
                    launch.add(m.group(1))
        loads = [m for m in re.finditer(r"= load [^\n]*?, ptr(?: addrspace\(\d+\))? (%[\w.]+|@[\w.$]+)", body)
                 if m.group(1) not in launch]
        stores = re.findall(r"^\s+store ", body, re.M)
        rmw = re.findall(r"= (?:atomicrmw|cmpxchg) ", body)
        buffers = re.findall(r"call [^@\n]*@llvm\.amdgcn\.(?:raw|struct)(?:\.ptr)?\.t?buffer\.", body)
        mem = len(loads) + len(stores) + len(rmw) + len(buffers)
        mem += 2 * len(re.findall(r"call void @llvm\.mem(?:cpy|move)\.", body))
        mem += len(re.findall(r"call void @llvm\.memset\.", body))
        C.eq(len(k["accesses"]), mem, f"{tag}: memory accesses vs llvm-dis")

# the grammar: Python and C agree
for e in sorted(exprs):
    vars_ = sorted(set(NAME.findall(e)) - FUNCS)
    for _ in range(2):
        env = {}
        for v in vars_:
            if v.startswith("threadIdx"):
                env[v] = rng.randrange(0, 1024)
            elif v.startswith("blockDim"):
                env[v] = rng.choice([64, 128, 256, 1024])
            else:
                env[v] = rng.randrange(1, 5000)
        try:
            py = evaluate(e, env)
        except Exception as ex:  # noqa: BLE001 - reported as a failure
            C.check(False, f"grammar: {e!r} parses", str(ex))
            break
        out = subprocess.run([KWIR_EXPR, e] + ["%s=%d" % kv for kv in env.items()],
                             capture_output=True, text=True).stdout.strip()
        try:
            c_val = float(out)
        except ValueError:
            C.check(False, f"grammar: C evaluates {e!r}", out)
            break
        C.check(abs(py - c_val) <= 1e-9 * max(1, abs(py)),
                f"grammar: {e!r} Python {py} == C {c_val}")
print(f"{len(exprs)} distinct expressions checked")

# read-only, and the same facts without the analysis manager
for name in names:
    after = os.path.join(WORK, name + ".after.bc")
    if os.path.exists(after):
        text = subprocess.run([os.path.join(LLVM_BIN, "llvm-dis"), after, "-o", "-"],
                              capture_output=True, text=True, check=True).stdout
        orig = open(os.path.join(WORK, name + ".ll")).read()
        strip = lambda t: "\n".join(l for l in t.splitlines() if not l.startswith("; ModuleID"))
        C.check(strip(text) == strip(orig), f"{name}: the module is unchanged by the analysis")
for own in glob.glob(os.path.join(WORK, "*.own.yaml")):
    fam = own.replace(".own.yaml", ".yaml")
    C.check(open(own).read() == open(fam).read(),
            f"{os.path.basename(own)}: same facts as with the analysis manager")
C.finish()
