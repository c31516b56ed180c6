"""check_intrinsics.py: the IR analysis against every AMDGPU memory intrinsic
of the LLVM under test, and every amdgcn intrinsic passes/ names.

IntrinsicsAMDGPU.td of that LLVM (LLVM_BIN/../include) is read by
td_intrinsics.py (no llvm-tblgen): each intrinsic's operand types and the
role the .td's comment gives each operand (rsrc, offset, soffset, vindex,
vdata, LDS base, data byte size, ...). For every intrinsic of the
AMDGPUBufferIntrinsics set, global.load.lds, load.to.lds, the global/flat
atomics that take (address, data) and the transposing loads, one kernel is
generated that calls it with operands of the documented types: the resource
made from parameter %b (make.buffer.rsrc for ptr addrspace(8), the pointer's
bits for <4 x i32>), offset = threadIdx.x * STRIDE, soffset and vindex
uniform; a plain address is %b (global), %f (flat) or @kwlds (LDS) plus
threadIdx.x * STRIDE. Every other intrinsic named by a string in passes/
that is a def of the .td gets a kernel calling it with constant operands.
The module must pass `opt -passes=verify`; kwir-dump must analyze it without
crashing, and each memory kernel must have exactly one access, with the
operation, bytes per lane (the data type's size, or the size operand), base
(parameter or LDS variable) and lane stride (STRIDE) that follow from the .td
and the generated operands (the expected values never come from kwir-dump).
s.buffer.prefetch.data, which moves no data to a lane, must have none."""
import os
import re
import subprocess
import sys

import yaml

# libyaml's loader when PyYAML has it (the same documents, many times faster)
YAML_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import td_intrinsics as T  # noqa: E402
from kwcheck import Checker  # noqa: E402
from kwir_common import WHO  # noqa: E402

LLVM_BIN = os.environ.get("LLVM_BIN", "/usr/lib/llvm-22/bin")
KWIR_DUMP = os.environ.get("KWIR_DUMP", "")
WORK = os.environ.get("KWIR_WORK", "/tmp")
SRC = os.environ.get("KWIR_SRC", os.path.dirname(os.path.abspath(__file__)))
PASSES = os.path.join(SRC, "..", "..", "passes")
TD = os.path.normpath(os.path.join(LLVM_BIN, "..", "include", "llvm", "IR", "IntrinsicsAMDGPU.td"))
STRIDE = 48  # bytes between lanes' addresses (offset = threadIdx.x * STRIDE)
SOFF = 64    # the uniform soffset
LDS_SIZE = 4  # the data byte size operand of the *.lds loads

if not os.path.exists(TD):
    print(f"SKIP: {TD} is absent (the LLVM development headers of the LLVM under test)")
    sys.exit(77)
if not KWIR_DUMP:
    print("KWIR_DUMP is not set")
    sys.exit(2)

recs, text, code = T.parse(TD)
C = Checker("ir.intrinsics", who=WHO)

# ---- which intrinsics -------------------------------------------------------------------------

buffer_defs = T.defset_members(code, "AMDGPUBufferIntrinsics")
C.check(len(buffer_defs) > 50, "the .td has the AMDGPUBufferIntrinsics set",
        f"{len(buffer_defs)} defs")
ptr_re = re.compile(r"int_amdgcn_(global_load_lds|load_to_lds|global_atomic_\w+|flat_atomic_\w+|"
                    r"atomic_cond_sub_u32|global_load_tr\w*|ds_load_tr\w*|ds_read_tr\w*)$")
ptr_defs = [n for n, r in recs.items() if r.kind == "def" and ptr_re.match(n)]
memory = [n for n in buffer_defs + ptr_defs if n != "int_amdgcn_s_buffer_prefetch_data"]

# strings in passes/ that name an intrinsic of the .td (dots for underscores)
named = set()
for fn in sorted(os.listdir(PASSES)):
    if fn.endswith(".cpp"):
        with open(os.path.join(PASSES, fn)) as f:
            for lit in re.findall(r'"([a-z0-9_.]+)"', f.read()):
                d = "int_amdgcn_" + lit.strip(".").replace(".", "_")
                if d in recs and recs[d].kind == "def":
                    named.add(d)
others = sorted(named - set(memory))
C.check(len(named) >= 20, "passes/ names intrinsics of the .td", f"{len(named)}")

# ---- types ------------------------------------------------------------------------------------

SCALAR = {"llvm_i1_ty": "i1", "llvm_i8_ty": "i8", "llvm_i16_ty": "i16", "llvm_i32_ty": "i32",
          "llvm_i64_ty": "i64", "llvm_half_ty": "half", "llvm_bfloat_ty": "bfloat",
          "llvm_float_ty": "float", "llvm_double_ty": "double", "llvm_ptr_ty": "ptr",
          "AMDGPUBufferRsrcTy": "ptr addrspace(8)", "global_ptr_ty": "ptr addrspace(1)",
          "local_ptr_ty": "ptr addrspace(3)", "flat_ptr_ty": "ptr"}
ELEM = {"i": lambda b: f"i{b}", "f": lambda b: {"16": "half", "32": "float", "64": "double"}[b],
        "bf": lambda b: "bfloat"}
BYTES = {"i1": 1, "i8": 1, "i16": 2, "i32": 4, "i64": 8, "half": 2, "bfloat": 2, "float": 4,
         "double": 8}
MANGLE = {"half": "f16", "float": "f32", "double": "f64", "bfloat": "bf16"}


def mangle(t):
    m = re.fullmatch(r"<(\d+) x (\w+)>", t)
    if m:
        return "v" + m.group(1) + MANGLE.get(m.group(2), m.group(2))
    m = re.fullmatch(r"ptr(?: addrspace\((\d+)\))?", t)
    if m:
        return "p" + (m.group(1) or "0")
    return MANGLE.get(t, t)


def nbytes(t):
    m = re.fullmatch(r"<(\d+) x (\w+)>", t)
    return int(m.group(1)) * BYTES[m.group(2)] if m else BYTES[t]


def concrete(td, overloads, choice):
    """The IR type of .td type td; an overloaded one takes choice (and is
    recorded in overloads, for the name's suffix); None when not supported."""
    if td in SCALAR:
        return SCALAR[td]
    m = re.fullmatch(r"llvm_v(\d+)(i|f|bf)(\d+)_ty", td)
    if m:
        return f"<{m.group(1)} x {ELEM[m.group(2)](m.group(3))}>"
    m = re.fullmatch(r"LLVMQualPointerType<(\d+)>", td)
    if m:
        return f"ptr addrspace({m.group(1)})"
    m = re.fullmatch(r"LLVMMatchType<(\d+)>", td)
    if m:
        k = int(m.group(1))
        return overloads[k] if k < len(overloads) else None
    if td in ("llvm_any_ty", "llvm_anyint_ty", "llvm_anyfloat_ty", "llvm_anyptr_ty"):
        t = choice(td)
        overloads.append(t)
        return t
    return None


def role(comment, ty):
    c = comment.lower()
    for key, r in (("rsrc", "rsrc"), ("vindex", "vidx"), ("soffset", "soff"), ("voffset", "voff"),
                   ("imm offset", "imm"), ("byte offset", "voff"), ("data byte size", "size"),
                   ("lds base", "lds"), ("vdata", "data"), ("src(", "data"), ("cmp(", "cmp"),
                   ("format", "fmt"), ("auxiliary", "aux"), ("cachepolicy", "aux"),
                   ("vaddr", "ptr"), ("base global pointer", "ptr"), ("base pointer", "ptr")):
        if key in c:
            return r
    if c.startswith("offset"):
        return "voff"
    if not c and ty.startswith("ptr"):
        return "ptr"
    return None


# ---- generation -------------------------------------------------------------------------------

HEAD = """target triple = "amdgcn-amd-amdhsa"

@kwlds = internal addrspace(3) global [16384 x i8] poison, align 16

declare i32 @llvm.amdgcn.workitem.id.x()
"""


def const_of(t):
    if t.startswith("<"):
        return "zeroinitializer"
    if t.startswith("ptr"):
        return "null"
    if t in ("half", "bfloat", "float", "double"):
        return "0.0"
    return "0"


decls = {}
kernels = []   # (kernel name, intrinsic def, expectation or None)
problems = []

# make.buffer.rsrc as this LLVM declares it (19: i32 records, 22: i64; the
# result is overloaded in 22 only): ptr addrspace(8) from ptr addrspace(1) %b
mk = T.resolve(recs, text, code, "int_amdgcn_make_buffer_rsrc")
mk_ov = []
mk_ret = concrete(mk.ret[0], mk_ov, lambda td: "ptr addrspace(8)")
mk_args = [concrete(t, mk_ov, lambda td: "ptr addrspace(1)") for t, _ in mk.args]
MK_NAME = "llvm.amdgcn.make.buffer.rsrc" + "".join("." + mangle(t) for t in mk_ov)
MK_CALL = (f"  %rs = call {mk_ret} @{MK_NAME}(ptr addrspace(1) %b, "
           + ", ".join(f"{t} {v}" for t, v in zip(mk_args[1:], ("0", "1048576", "0"))) + ")")
decls[MK_NAME] = f"declare {mk_ret} @{MK_NAME}({', '.join(mk_args)})"


def gen(defname, is_memory):
    it = T.resolve(recs, text, code, defname)
    if it is None:
        problems.append(f"{defname}: not readable from the .td")
        return
    name = it.name
    atomic = "atomic" in name and "atomic.buffer.load" not in name
    flat = name.startswith("flat.")

    def choice(td):
        if td == "llvm_anyptr_ty":
            return "ptr" if flat else "ptr addrspace(1)"
        if td == "llvm_anyfloat_ty":
            return "float"
        if td == "llvm_anyint_ty" or atomic or not is_memory:
            return "i32"
        return "<4 x i32>"  # llvm_any_ty data of a load or store: 16 bytes

    ov = []
    ret = [concrete(t, ov, choice) for t in it.ret]
    args = []
    for td, comment in it.args:
        t = concrete(td, ov, choice)
        args.append((t, role(comment, t or "")))
    if None in ret or any(t is None for t, _ in args):
        problems.append(f"{defname}: an operand type this test does not generate "
                        f"({it.ret} {[a for a, _ in it.args]})")
        return
    rty = ret[0] if len(ret) == 1 else "{ " + ", ".join(ret) + " }" if ret else "void"
    immarg = {int(k) for k in re.findall(r"ImmArg<ArgIndex<(\d+)>>", it.attrs)}
    fname = "llvm.amdgcn." + name + "".join("." + mangle(t) for t in ov)
    decls[fname] = f"declare {rty} @{fname}({', '.join(t for t, _ in args)})"
    kname = "k_" + defname[len("int_amdgcn_"):]
    body = ["  %t = call i32 @llvm.amdgcn.workitem.id.x()",
            f"  %off = mul i32 %t, {STRIDE}",
            MK_CALL,
            "  %pi = ptrtoint ptr addrspace(1) %b to i64",
            "  %lo = trunc i64 %pi to i32",
            "  %hi64 = lshr i64 %pi, 32",
            "  %hi = trunc i64 %hi64 to i32",
            "  %r0 = insertelement <4 x i32> poison, i32 %lo, i32 0",
            "  %r1 = insertelement <4 x i32> %r0, i32 %hi, i32 1",
            "  %r2 = insertelement <4 x i32> %r1, i32 -1, i32 2",
            "  %rv = insertelement <4 x i32> %r2, i32 159744, i32 3",
            "  %gp = getelementptr i8, ptr addrspace(1) %b, i32 %off",
            "  %fp = getelementptr i8, ptr %f, i32 %off",
            "  %lp = getelementptr i8, ptr addrspace(3) @kwlds, i32 %off"]
    ops = []
    want = {"param": None, "object": None, "space": None}
    data_ty = None
    for i, (t, r) in enumerate(args):
        if i in immarg and r != "size":
            if r == "data":
                data_ty = t
            ops.append(f"{t} {const_of(t)}")
        elif r == "rsrc":
            ops.append(f"{t} " + ("%rs" if t == "ptr addrspace(8)" else "%rv"))
            want.update(param="b", space="buffer")
        elif r == "ptr" and is_memory:
            v = {"ptr addrspace(1)": "%gp", "ptr": "%fp", "ptr addrspace(3)": "%lp"}.get(t)
            if v is None:
                problems.append(f"{defname}: an address of type {t}")
                return
            ops.append(f"{t} {v}")
            want.update({"%gp": dict(param="b", space="global"), "%fp": dict(param="f", space="flat"),
                         "%lp": dict(object="kwlds", space="lds")}[v])
        elif r == "lds":
            ops.append(f"{t} @kwlds")
        elif r == "voff" and t == "i32":
            ops.append("i32 %off")
        elif r == "soff" and t == "i32":
            ops.append(f"i32 {SOFF}")
        elif r == "size" and t == "i32":
            ops.append(f"i32 {LDS_SIZE}")
        else:
            if r == "data":
                data_ty = t
            ops.append(f"{t} {const_of(t)}")
    call = f"call {rty} @{fname}({', '.join(ops)})"
    body.append(("  %v = " if rty != "void" else "  ") + call)
    body.append("  ret void")
    kernels.append("\n".join([f"define amdgpu_kernel void @{kname}(ptr addrspace(1) %a, "
                              "ptr addrspace(1) %b, ptr %f) #0 {"] + body + ["}"]))
    if not is_memory:
        return None
    roles = [r for _, r in args]
    if "data" in roles:
        op = "store" if "IntrWriteMem" in it.attrs else "atomic"
    else:
        op = "load"
    if "size" in roles:
        nb = LDS_SIZE
    elif data_ty:
        nb = nbytes(data_ty)
    elif rty != "void":
        nb = nbytes(rty)
    else:
        return None  # moves no data to a lane (s.buffer.prefetch.data)
    exp = dict(want, op=op, bytes=nb, rsrc_index=it.rsrc,
               rsrc_role=roles.index("rsrc") if "rsrc" in roles else None)
    return kname, exp


expect = {}
for d in memory:
    r = gen(d, True)
    if r:
        expect[r[0]] = r[1]
for d in others:
    gen(d, False)
gen("int_amdgcn_s_buffer_prefetch_data", True) if "int_amdgcn_s_buffer_prefetch_data" in buffer_defs else None

for p in problems:
    C.check(False, p)
C.check(len(expect) >= len(buffer_defs) - 1, "every buffer intrinsic of the .td got a kernel",
        f"{len(expect)} of {len(buffer_defs) - 1}")
# the .td's own statement of the resource operand (AMDGPURsrcIntrinsic<N>)
for k, e in expect.items():
    if e["rsrc_index"] is not None:
        C.eq(e["rsrc_role"], e["rsrc_index"],
             f"{k}: the resource operand the comments name is AMDGPURsrcIntrinsic's")

os.makedirs(WORK, exist_ok=True)
ll = os.path.join(WORK, "intrinsics.ll")
with open(ll, "w") as f:
    f.write(HEAD + "\n".join(sorted(decls.values())) + "\n\n" + "\n\n".join(kernels) +
            '\n\nattributes #0 = { "target-cpu"="gfx942" "amdgpu-flat-work-group-size"="1,256" }\n')
v = subprocess.run([os.path.join(LLVM_BIN, "opt"), "-passes=verify", "-disable-output", ll],
                   capture_output=True, text=True)
if not C.check(v.returncode == 0, "the generated module verifies (opt -passes=verify)",
               v.stderr[-3000:]):
    C.finish()
r = subprocess.run([KWIR_DUMP, ll], capture_output=True, text=True)
C.eq(r.returncode, 0, "kwir-dump exit status (no crash)")
if r.returncode != 0:
    print(r.stderr[-3000:])
    C.finish()
got = {k["symbol"]: k for k in yaml.load(r.stdout, Loader=YAML_LOADER)["kernels"] or []}
C.eq(len(got), len(kernels), "every kernel analyzed")
print(f"{len(expect)} memory intrinsics, {len(others)} others named by passes/, "
      f"{len(kernels)} kernels")

for k, e in sorted(expect.items()):
    acc = [a for a in got.get(k, {}).get("accesses", [])]
    if not C.eq(len(acc), 1, f"{k}: one access"):
        continue
    a = acc[0]
    C.eq(a["op"], e["op"], f"{k}: op")
    C.eq(a["space"], e["space"], f"{k}: space")
    C.eq(a["bytes_per_lane"], e["bytes"], f"{k}: bytes per lane")
    if e["param"]:
        C.eq(a["param"], e["param"], f"{k}: base parameter")
    else:
        C.eq(a.get("object"), e["object"], f"{k}: base variable")
    C.eq(a["lane_stride_bytes"], STRIDE, f"{k}: lane stride (offset = threadIdx.x * {STRIDE})")
if "k_s_buffer_prefetch_data" in got:
    C.eq(got["k_s_buffer_prefetch_data"]["accesses"], [], "s.buffer.prefetch.data: no access")
C.finish()
