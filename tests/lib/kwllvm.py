"""kwllvm.py: ground truth from LLVM's own tools, shared by the test helpers
(kwcap, kwco_common, kwis_common) and the site tests: a tool's path (tool),
the NT_AMDGPU_METADATA document as llvm-readelf --notes prints it
(readelf_metadata, notes_metadata), clang's
-Rpass-analysis=kernel-resource-usage remarks, and a code object's line
tables as llvm-dwarfdump --debug-line prints them. Also the one PyYAML
set-up every test reads YAML with."""
import bisect
import os
import re

import yaml

from kwrun import run

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


def readelf_metadata(bindir, path):
    """The NT_AMDGPU_METADATA document of code object path (llvm-readelf
    --notes), as a mapping; None when it has none. A failing llvm-readelf
    ends the test."""
    return notes_metadata(run([tool(bindir, "llvm-readelf"), "--notes", path], must=True).stdout)


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


class LineTable:
    """The line tables of code object co as llvm-dwarfdump --debug-line
    prints them (every sequence of every table): at(addr) is the (path, line)
    of the row that covers addr, a row covering [its address, the next
    row's), or None where that row has line 0 or ends a sequence, or no row
    comes before addr. Paths are joined to their include directory (and that
    to directory 0, the compile's) and normalized."""

    def __init__(self, dwarfdump, co):
        out = run([dwarfdump, "--debug-line", co], must=True).stdout
        rows, dirs, files, fname = [], {}, {}, None
        for line in out.splitlines():
            if line.startswith("debug_line["):
                dirs, files = {}, {}
            m = re.match(r'^include_directories\[\s*(\d+)\] = "(.*)"$', line)
            if m:
                dirs[int(m.group(1))] = m.group(2)
            m = re.match(r"^file_names\[\s*(\d+)\]:", line)
            if m:
                fname = int(m.group(1))
            m = re.match(r'^\s+name: "(.*)"$', line)
            if m and fname is not None:
                files[fname] = [m.group(1), 0]
            m = re.match(r"^\s+dir_index: (\d+)$", line)
            if m and fname is not None:
                files[fname][1] = int(m.group(1))
            m = re.match(r"^0x([0-9a-f]+)\s+(\d+)\s+(\d+)\s+(\d+)\s.*?$", line)
            if m:
                name, di = files.get(int(m.group(4)), ["?", 0])
                d = dirs.get(di, "")
                if not os.path.isabs(d):
                    d = os.path.join(dirs.get(0, ""), d)
                path = os.path.normpath(os.path.join(d, name))
                rows.append((int(m.group(1), 16), path, int(m.group(2)), "end_sequence" in line))
        # by address; where a sequence ends at the address another begins, the end first
        rows.sort(key=lambda r: (r[0], not r[3]))
        self.rows = rows
        self.addrs = [r[0] for r in rows]

    def at(self, addr):
        i = bisect.bisect_right(self.addrs, addr) - 1
        if i < 0:
            return None
        _, path, line, end = self.rows[i]
        return None if end or not line else (path, line)
