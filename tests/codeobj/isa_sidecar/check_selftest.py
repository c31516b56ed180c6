#!/usr/bin/env python3
"""The checks catch wrong facts: a copy of one corpus object and its sidecar
gets wrong ISA facts planted (an instruction's text, a dropped instruction, a
branch label moved, a resource, the occupancy, the target id, a class count, a
DPP pattern, a memory width, a kernel missing for one arch), check_corpus.py
runs on the copy and must report each one. The copy is written in the schema 1
form (the listings inline, as `kwalk index` reads them back from the object,
no code-object table), so that the planted facts are what the checks read."""
import os
import shutil
import subprocess
import sys

import yaml

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
from kwis_common import ARCHS, CORPUS, DIR, read_back, scratch  # noqa: E402

TU = "rope_kernels"


def plant(doc):
    """Wrong facts, each with the text its failure line must contain."""
    ks = doc["kernels"]
    first, last = ARCHS[0], ARCHS[-1]
    a0 = ks[0]["archs"][first]
    a1 = ks[1]["archs"][last]
    a2 = ks[2]["archs"][first]
    want = []
    lines = a0["isa"].splitlines()
    i = next(n for n, l in enumerate(lines) if "v_" in l and not l.startswith("L"))
    lines[i] = lines[i].replace("v_", "v_x", 1)
    a0["isa"] = "\n".join(lines) + "\n"
    want.append(ks[0]["symbol"] + ": instructions differing")
    lines = a1["isa"].splitlines()
    j = next(n for n, l in enumerate(lines) if "; -> L" in l)
    lab = lines[j].rsplit("L", 1)[1]
    k = lines.index("L%s:" % lab)
    lines.insert(k + 2, lines.pop(k))  # the label one instruction later
    a1["isa"] = "\n".join(lines) + "\n"
    want.append(": label L%s" % lab)
    lines = a2["isa"].splitlines()
    d = next(n for n in range(len(lines) // 2, len(lines))
             if not lines[n].startswith("L") and not lines[n - 1].startswith("L"))
    del lines[d]  # an unlabeled instruction from the middle
    a2["isa"] = "\n".join(lines) + "\n"
    want.append(ks[2]["symbol"] + ": instruction count")
    a1["resources"]["vgpr"] += 1
    want.append(": resources.vgpr")
    a2["resources"]["occupancy"] -= 1
    want.append(ks[2]["symbol"] + ": occupancy")
    a0["target_id"] = first + ":xnack+"
    want.append(": target_id")
    a1["classes"]["valu"] += 1
    want.append(ks[1]["symbol"] + ": classes add up")
    a2["dpp_patterns"] = (a2.get("dpp_patterns") or []) + [{"key": "row_shr:3", "n": 1}]
    want.append(ks[2]["symbol"] + ": dpp_patterns")
    m = next(m for m in a0["memory"] if m["key"] == "global_load")
    m["bytes"] *= 2
    want.append(ks[0]["symbol"] + ": memory")
    del ks[3]["archs"][last]
    want.append(last + ": kernels")
    return want


def unshared(o):
    """O with every mapping and list its own: repeated subtrees of a sidecar
    are YAML aliases (docs/sidecar-schema.md, "Schema 2"), one object in
    PyYAML; a planted fact must change one kernel only."""
    if isinstance(o, dict):
        return {k: unshared(v) for k, v in o.items()}
    if isinstance(o, list):
        return [unshared(v) for v in o]
    return o


def main():
    work = scratch("selftest")
    shutil.copy(os.path.join(CORPUS, TU + ".o"), work)
    doc = unshared(read_back(os.path.join(CORPUS, TU + ".o.kwalk.yaml"), work))
    doc.pop("index_stderr", None)
    doc["translation_unit"].pop("code_objects", None)
    if len(doc["kernels"]) < 4:
        sys.exit("selftest: %s has fewer than 4 kernels" % TU)
    want = plant(doc)
    with open(os.path.join(work, TU + ".o.kwalk.yaml"), "w") as f:
        yaml.safe_dump(doc, f, sort_keys=False, explicit_end=True)
    env = dict(os.environ, KWIS_CORPUS=work, KWIS_TUS=TU)
    p = subprocess.run([sys.executable, os.path.join(os.path.dirname(__file__), "check_corpus.py")],
                       capture_output=True, text=True, env=env)
    fails = [l for l in p.stdout.splitlines() if l.startswith("FAIL")]
    missed = [w for w in want if not any(w in l for l in fails)]
    # the copy holds one TU: the only other failure is the sidecar list
    print("\n".join(fails))
    print("planted %d wrong facts; check_corpus exit %d, %d FAIL lines; missed: %r" %
          (len(want), p.returncode, len(fails), missed))
    sys.exit(0 if p.returncode == 1 and not missed else 1)


if __name__ == "__main__":
    main()
