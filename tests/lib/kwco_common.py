"""kwco_common.py: what the codeobj checks share: where things are (from the
environment ctest sets), running tools, reading kwco-dump's YAML and the
ground-truth tools' output, and collecting failures."""
import glob
import os
import subprocess
import sys

import yaml

# llvm-readelf --notes of LLVM 19 tags a string that YAML could read as another
# type with !str (`.name: !str n`, an argument named n); LLVM 22 does not.
for _loader in (yaml.SafeLoader, getattr(yaml, "CSafeLoader", None)):
    if _loader:
        _loader.add_constructor("!str", lambda loader, node: loader.construct_scalar(node))

# libyaml's loader where PyYAML has it (same documents, several times faster)
SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

DUMP = os.environ["KWCO_DUMP"]
WORK = os.environ["KWCO_WORK"]
LLVM_BIN = os.environ["LLVM_BIN"]
# the arches of the build (KWALK_HIP_ARCHS), which gen_inputs.sh compiled for
ARCHES = os.environ["KWALK_TEST_ARCHS"].split(",")


def tool(name):
    return os.path.join(LLVM_BIN, name)


def run(args, ok_rc=(0,), stdin=None):
    p = subprocess.run(args, capture_output=True, text=True, input=stdin)
    if p.returncode not in ok_rc:
        sys.exit("FAILED: %s\nrc=%d\n%s" % (" ".join(args), p.returncode, p.stderr[-4000:]))
    return p


def dump_yaml(path, *flags):
    p = run([DUMP, "--yaml", *flags, path])
    if p.stderr:
        sys.exit("kwco-dump wrote to stderr for %s:\n%s" % (path, p.stderr[-4000:]))
    return yaml.load(p.stdout, Loader=SAFE_LOADER)


def work(*parts):
    return os.path.join(WORK, *parts)


def code_objects():
    """Every code object clang-offload-bundler unbundled, plus the ASM ones."""
    return sorted(glob.glob(work("co", "*.co")))


def arch_of(doc):
    return doc["code_objects"][0]["target_id"].split(":")[0]


def kernels_by_arch(doc):
    """{(symbol, arch): arch entry} of a kwco-dump --yaml document."""
    out = {}
    for k in doc["kernels"] or []:
        for arch, a in k["archs"].items():
            out[(k["symbol"], arch)] = a
    return out


def isa_lines(entry):
    """[(offset, text)] from an arch entry's isa block."""
    out = []
    for line in entry.get("isa", "").splitlines():
        off, text = line.split(": ", 1)
        out.append((int(off, 16), text))
    return out


def readelf_metadata(path):
    """The NT_AMDGPU_METADATA document as llvm-readelf --notes prints it."""
    text = run([tool("llvm-readelf"), "--notes", path]).stdout
    start = text.find("AMDGPU Metadata:")
    if start < 0:
        return None
    body = text[start:].split("\n", 1)[1]
    doc = []
    for line in body.splitlines():
        if line.strip() == "---":
            continue
        if line.strip() == "...":
            break
        doc.append(line)
    return yaml.safe_load("\n".join(doc))


def parse_remarks(path):
    """{function: {field: value}} from -Rpass-analysis=kernel-resource-usage."""
    out, cur = {}, None
    for line in open(path):
        if "[-Rpass-analysis=kernel-resource-usage]" not in line or "remark:" not in line:
            continue
        body = line.split("remark:", 1)[1].rsplit("[-Rpass-analysis", 1)[0].strip()
        key, _, val = body.rpartition(":")
        key, val = key.strip(), val.strip()
        if key == "Function Name":
            cur = out.setdefault(val, {})
        elif cur is not None:
            # the SGPR total (NumSGPR): "SGPRs" in clang 19, "TotalSGPRs" from 20 on
            cur["TotalSGPRs" if key == "SGPRs" else key] = val
    return out


class Check:
    """Collects failures; report() prints them and exits 1 if there were any."""

    def __init__(self, name):
        self.name, self.fails, self.n = name, [], 0

    def eq(self, what, got, want):
        self.n += 1
        if got != want:
            self.fails.append("%s: kwco-dump %r, ground truth %r" % (what, got, want))

    def true(self, what, cond):
        self.n += 1
        if not cond:
            self.fails.append(what)

    def report(self):
        for f in self.fails[:60]:
            print("FAIL", f)
        if len(self.fails) > 60:
            print("... %d more" % (len(self.fails) - 60))
        print("%s: %d comparisons, %d failures" % (self.name, self.n, len(self.fails)))
        sys.exit(1 if self.fails or self.n == 0 else 0)
