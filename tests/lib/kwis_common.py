"""kwis_common.py: what the isa_sidecar checks share: paths (from the
environment ctest sets), the ground-truth tools (llvm-objcopy,
clang-offload-bundler, llvm-readelf, llvm-objdump, llvm-symbolizer, clang's
remarks; kwllvm), reading the sidecars' ISA facts, and the side under test's
name in a failure (WHO, for kwcheck.Checker)."""
import filecmp
import os
import re
import shutil
import subprocess

import yaml

import kwllvm
from kwrun import run  # noqa: F401  (the checks import run from here)
from kwllvm import parse_remarks  # noqa: F401  (the checks import it from here)

DIR = os.environ["KWIS_DIR"]
CORPUS = os.environ["KWIS_CORPUS"]
TUS = [t for t in os.environ["KWIS_TUS"].split(",") if t]
LINES_TU = os.environ["KWIS_LINES_TU"]
LLVM_BIN = os.environ["LLVM_BIN"]
KWALK = os.environ["KWALK"]
SRC = os.environ["KWIS_SRC"]
# the build's arches (KWALK_HIP_ARCHS): the corpus and the inputs are compiled for each
ARCHS = tuple(os.environ["KWALK_TEST_ARCHS"].split(","))


# A kernel's header line in `kwalk isa` output: symbol, target id, the rest.
ISA_HEADER = re.compile(r"^kernel (\S+)  \(([^,]+), (.*)\)$")


def kwalk_isa(*args):
    """`kwalk isa ARGS` (the CompletedProcess, text)."""
    return subprocess.run([KWALK, "isa", *args], capture_output=True, text=True)


def tool(name):
    return kwllvm.tool(LLVM_BIN, name)



def scratch(name):
    """A fresh directory for one check's files."""
    d = os.path.join(DIR, "work", name)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    return d


def load_yaml(path):
    with open(path) as f:
        return yaml.safe_load(f)


# the sidecar keys that schema 2 reads back from the object instead of storing
DERIVED_KEYS = ("classes", "dpp_patterns", "memory", "isa", "lines_note", "lines")


def read_back(sidecar, work):
    """The sidecar's document with its kernels as `kwalk index` reads them: a
    schema 2 sidecar names its code objects (translation_unit.code_objects)
    and the index reads each kernel arch's listing, classes, DPP patterns,
    memory widths and lines back from the object; a sidecar with the listing
    inline is taken as it is. The index is written as YAML into work."""
    doc = load_yaml(sidecar)
    out = os.path.join(work, os.path.basename(sidecar) + ".index.yaml")
    p = subprocess.run([KWALK, "index", sidecar, "-o", out, "--format", "yaml"],
                       capture_output=True, text=True)
    if p.returncode != 0:
        raise SystemExit("kwalk index %s failed (%d): %s" % (sidecar, p.returncode, p.stderr))
    doc["kernels"] = load_yaml(out).get("kernels") or []
    doc["index_stderr"] = p.stderr
    return doc


# ---- code objects, as LLVM's own tools get them out ------------------------

def target_of(co):
    """amdhsa.target of a code object, without "amdgcn-amd-amdhsa--"."""
    m = re.search(r"amdhsa\.target:\s+'?amdgcn-amd-amdhsa--([^'\s]+)",
                  run([tool("llvm-readelf"), "--notes", co], must=True).stdout)
    return m.group(1) if m else None


def unbundle(path, outdir, stem):
    """{target_id: code object path} of a host object (.hip_fatbin), an
    offload bundle or a bare code object (what a device-only compile for one
    arch writes), through llvm-readelf, llvm-objcopy and clang-offload-bundler."""
    bundle = path
    with open(path, "rb") as f:
        head = f.read(64)
    if head[:4] == b"\x7fELF":
        if int.from_bytes(head[18:20], "little") == 224:  # EM_AMDGPU
            return {target_of(path): path}
        if ".hip_fatbin" not in run([tool("llvm-readelf"), "-S", "--wide", path], must=True).stdout:
            return {}
        bundle = os.path.join(outdir, stem + ".fatbin")
        run([tool("llvm-objcopy"), "--dump-section=.hip_fatbin=" + bundle, path], must=True)
    ids = run([tool("clang-offload-bundler"), "--list", "--type=o",
               "--input=" + bundle], must=True).stdout.split()
    out = {}
    for bid in ids:
        if not bid.startswith("hip") or "-amdgcn-" not in bid:
            continue
        tid = bid.split("--", 1)[1]
        co = os.path.join(outdir, "%s.%s.co" % (stem, tid.replace(":", "_")))
        run([tool("clang-offload-bundler"), "--unbundle", "--type=o", "--input=" + bundle,
             "--targets=" + bid, "--output=" + co], must=True)
        out[tid] = co
    return out


def same_bytes(a, b):
    return filecmp.cmp(a, b, shallow=False)


def readelf_kernels(path):
    """{name: metadata mapping} of amdhsa.kernels."""
    md = kwllvm.readelf_metadata(LLVM_BIN, path) or {}
    return {k[".name"]: k for k in md.get("amdhsa.kernels", [])}


# sidecar resources key -> NT_AMDGPU_METADATA key
RESOURCE_KEYS = {
    "vgpr": ".vgpr_count", "agpr": ".agpr_count", "sgpr": ".sgpr_count",
    "vgpr_spill": ".vgpr_spill_count", "sgpr_spill": ".sgpr_spill_count",
    "lds_bytes": ".group_segment_fixed_size", "scratch_bytes": ".private_segment_fixed_size",
    "kernarg_bytes": ".kernarg_segment_size", "wavefront_size": ".wavefront_size",
    "max_flat_workgroup_size": ".max_flat_workgroup_size",
}


def symbols(path):
    """{name: (value, size)} of the FUNC symbols (llvm-readelf -s)."""
    out = {}
    for line in run([tool("llvm-readelf"), "-s", "--wide", path], must=True).stdout.splitlines():
        f = line.split()
        if len(f) >= 8 and f[3] == "FUNC" and f[0].endswith(":"):
            out[f[7]] = (int(f[1], 16), int(f[2], 0))
    return out


OBJ_SYM = re.compile(r"^([0-9a-f]+) <(.+)>:$")
OBJ_INSN = re.compile(r"^\t(.*?)\s*// ([0-9A-F]+):[0-9A-F ]+?( <(.+?)(\+0x([0-9a-f]+))?>)?$")


def objdump(path, arch):
    """({address: (text, (target symbol, offset) or None)}, {symbol: address})
    from llvm-objdump -d --mcpu=ARCH, address and encoding comment removed."""
    insns, syms = {}, {}
    out = run([tool("llvm-objdump"), "-d", "--mcpu=" + arch, path], must=True).stdout
    for line in out.splitlines():
        m = OBJ_SYM.match(line)
        if m:
            syms[m.group(2)] = int(m.group(1), 16)
            continue
        m = OBJ_INSN.match(line)
        if m:
            tgt = (m.group(4), int(m.group(6) or "0", 16)) if m.group(3) else None
            insns[int(m.group(2), 16)] = (m.group(1), tgt)
    return insns, syms


def kernel_insns(insns, start, size):
    """[(offset, text, target)] of objdump's instructions in [start, start+size)."""
    return [(a - start, t, g) for a, (t, g) in sorted(insns.items()) if start <= a < start + size]


# ---- the sidecar's ISA facts ------------------------------------------------

ISA_LABEL = re.compile(r"^L(\d+):$")
ISA_INSN = re.compile(r"^([0-9a-f]{4,}): (.*?)(  ; -> L(\d+))?$")


def parse_isa(text):
    """([(offset, text, target label or None)], {label: offset}) of a sidecar
    isa listing; raises ValueError on a line of neither form."""
    insns, labels, pending = [], {}, []
    for line in text.splitlines():
        m = ISA_LABEL.match(line)
        if m:
            pending.append(int(m.group(1)))
            continue
        m = ISA_INSN.match(line)
        if not m:
            raise ValueError("isa line of no known form: %r" % line)
        off = int(m.group(1), 16)
        for lab in pending:
            labels[lab] = off
        pending = []
        insns.append((off, m.group(2), int(m.group(4)) if m.group(4) else None))
    if pending:
        raise ValueError("label at the end of the listing: %r" % pending)
    return insns, labels


def sidecar_archs(doc):
    """{(symbol, arch key): arch mapping} of a sidecar's kernels."""
    out = {}
    for k in doc.get("kernels") or []:
        for arch, a in (k.get("archs") or {}).items():
            out[(k["symbol"], arch)] = a
    return out


CLASS_KEYS = ("salu", "valu", "valu_packed", "valu_trans", "cvt_fp8_fp4", "mfma", "smfmac",
              "wmma", "readlane", "writelane", "readfirstlane", "permlane", "vmem_load",
              "vmem_store", "vmem_atomic", "smem", "lds", "ds_swizzle", "ds_bpermute",
              "ds_permute", "branch", "waitcnt", "barrier", "nop", "other")
ISA_FACT_KEYS = ("target_id", "resources", "classes", "dpp_patterns", "memory", "isa")


# The side under test named in an eq() failure (kwcheck.Checker's who).
WHO = "sidecar/kwalk"
