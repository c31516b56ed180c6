"""kwllvm.py: ground truth from LLVM's own tools, shared by the test helpers
(kwcap, kwco_common, kwis_common): running a tool, the NT_AMDGPU_METADATA
document as llvm-readelf --notes prints it, and clang's
-Rpass-analysis=kernel-resource-usage remarks. Also the one PyYAML set-up
every test reads YAML with."""
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
YAML_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def tool(bindir, name):
    """The path of LLVM tool `name` in bindir (the build's LLVM bin directory)."""
    return os.path.join(bindir, name)


def run_or_exit(args, ok_rc=(0,), stdin=None):
    """Runs args (text); exits the test with the command and its stderr when
    the exit status is not one of ok_rc."""
    p = subprocess.run(args, capture_output=True, text=True, input=stdin)
    if p.returncode not in ok_rc:
        sys.exit("FAILED: %s\nrc=%d\n%s" % (" ".join(args), p.returncode, p.stderr[-4000:]))
    return p


def notes_metadata(text):
    """The NT_AMDGPU_METADATA document in llvm-readelf --notes output, as a
    mapping; None when the output has none."""
    start = text.find("AMDGPU Metadata:")
    if start < 0:
        return None
    doc = []
    for line in text[start:].splitlines()[1:]:
        if line.strip() == "---" and not doc:
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
