"""kwco_common.py: what the codeobj checks share: where things are (from the
environment ctest sets), running tools, reading kwco-dump's YAML and the
ground-truth tools' output (kwllvm), and the side under test's name in a
failure (WHO, for kwcheck.Checker)."""
import glob
import os
import sys

import yaml

import kwllvm
from kwrun import run  # noqa: F401  (the checks import run from here)
from kwllvm import parse_remarks  # noqa: F401  (the checks import it from here)
from kwllvm import YAML_LOADER as SAFE_LOADER

DUMP = os.environ["KWCO_DUMP"]
WORK = os.environ["KWCO_WORK"]
LLVM_BIN = os.environ["LLVM_BIN"]
# the arches of the build (KWALK_HIP_ARCHS), which gen_inputs.sh compiled for
ARCHES = os.environ["KWALK_TEST_ARCHS"].split(",")


def tool(name):
    return kwllvm.tool(LLVM_BIN, name)



def dump_yaml(path, *flags):
    p = run([DUMP, "--yaml", *flags, path], must=True)
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


# The side under test named in an eq() failure (kwcheck.Checker's who).
WHO = "kwco-dump"
