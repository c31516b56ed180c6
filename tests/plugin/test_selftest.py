#!/usr/bin/env python3
"""test_selftest: the sidecar checkers can fail. Copies of the corpus output
are planted with one wrong fact each (a launch moved a line, a guard's
polarity flipped, a kernel dropped, an edge removed, ...); the checker meant
to catch it is run on the copy and must report at least one FAIL line that
it does not report on an unmodified copy."""
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import kwcap  # noqa: E402
from kwcheck import Checker  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))


def find(lst, pred):
    for x in lst:
        if pred(x):
            return x
    raise LookupError("mutation target not found")


def unshared(o):
    """O with every mapping and list its own: a sidecar's repeated subtrees
    are YAML aliases (docs/sidecar-schema.md, "Schema 2"), which PyYAML loads
    as one shared object; a mutation must change one place only."""
    if isinstance(o, dict):
        return {k: unshared(v) for k, v in o.items()}
    if isinstance(o, list):
        return [unshared(v) for v in o]
    return o


def launches_at(doc, name_part):
    return [l for l in doc["launches"] if name_part in (l.get("kernel_name") or "")]


# (test script, TU, description, mutation(doc))
def m_drop_kernel(doc):
    doc["kernels"].pop(0)


def m_drop_arch(doc):
    archs = doc["kernels"][0]["archs"]
    archs.pop(list(archs)[-1])


def m_launch_line(doc):
    doc["launches"][0]["location"]["line"] += 1


def m_guard_holds(doc):
    g = find(doc["launches"], lambda l: l.get("guards"))["guards"][-1]
    g["holds"] = not g["holds"]


def m_defaulted(doc):
    k = find(doc["kernels"], lambda k: any(a.get("defaulted") for a in k.get("template_args") or []))
    for a in k["template_args"]:
        a["defaulted"] = False


def m_block_value(doc):
    doc["launches"][0]["config"]["block"]["value"][0] += 64


def m_grid_value(doc):
    doc["launches"][0]["config"]["grid"]["value"] = [1, 1, 1]


def m_arg_param(doc):
    a = doc["launches"][0]["args"]
    a[0]["param"], a[1]["param"] = a[1]["param"], a[0]["param"]


def m_kind(doc):
    doc["launches"][0]["kind"] = "triple_chevron"


def m_macro(doc):
    doc["launches"][0]["macro_expansions"] = []


def m_asm_line(doc):
    k = find(doc["kernels"], lambda k: k.get("inline_asm"))
    k["inline_asm"][0]["location"]["line"] -= 1


def m_kernel_line(doc):
    doc["kernels"][0]["location"]["line"] += 1


def m_drop_edge(doc):
    doc["host_calls"] = [h for h in doc["host_calls"] if h.get("caller") != "kw_rope_sbhd_fwd"]


def m_extra_edge(doc):
    lam = find(doc["launches"], lambda l: "mix_sample" in (l.get("kernel_name") or ""))
    doc["host_calls"].append({"caller": "kw_greedy_sample", "callee": lam["function_symbol"],
                              "caller_name": "kw_greedy_sample", "callee_name": "x",
                              "location": dict(lam["location"])})


def m_pybind_module(doc):
    find(doc["entries"], lambda e: e.get("kind") == "pybind")["module"] = "module_other"


def m_caller_guard(doc):
    h = find(doc["host_calls"], lambda h: any(g.get("kind") == "if" for g in h.get("guards") or []))
    g = find(h["guards"], lambda g: g.get("kind") == "if")
    g["holds"] = not g["holds"]


def m_functor_swap(doc):
    a, b = [k for k in doc["kernels"] if k.get("functor")][:2]
    a["functor"], b["functor"] = b["functor"], a["functor"]


def m_functor_line(doc):
    find(doc["kernels"], lambda k: k.get("functor_location"))["functor_location"]["line"] += 1


def m_functor_extra(doc):
    k = find(doc["kernels"], lambda k: not k.get("functor"))
    k["functor"] = "kw::NotAKernel"


def m_site_line(doc):
    find(doc["launches"], lambda l: l.get("site"))["site"]["line"] -= 1


def m_library_dropped(doc):
    find(doc["launches"], lambda l: l.get("library")).pop("library")


def m_not_attributed(doc):
    l = find(doc["launches"], lambda l: l.get("site"))
    l["location"] = l.pop("site")
    l.pop("library", None)


def m_chain_frame(doc):
    l = find(doc["launches"], lambda l: len(l.get("instantiation_chain") or []) > 1)
    l["instantiation_chain"].pop(0)


def m_asm_kernel(doc):
    find(doc["launches"], lambda l: l.get("asm_kernel"))["asm_kernel"] = "kw_asm_other"


def m_code_object(doc):
    l = find(doc["launches"], lambda l: l.get("kind") == "hipModuleLaunchKernel")
    l["code_object"] = l["code_object"].replace("gfx942", "gfx950")


def m_asm_kind(doc):
    find(doc["launches"], lambda l: l.get("kind") == "asm_loader")["kind"] = "hipModuleLaunchKernel"


def m_asm_grid(doc):
    find(doc["launches"], lambda l: l.get("kind") == "asm_loader")["config"]["grid"]["value"] = [1, 1, 1]


def m_asm_guard_dropped(doc):
    find(doc["launches"], lambda l: l.get("kind") == "hipModuleLaunchKernel")["guards"].pop()


def m_early_exit_kind(doc):
    h = find(doc["host_calls"], lambda h: any(g.get("kind") == "early_exit" for g in h.get("guards") or []))
    find(h["guards"], lambda g: g.get("kind") == "early_exit")["kind"] = "if"


def m_asm_edge(doc):
    doc["host_calls"] = [h for h in doc["host_calls"] if h.get("callee_name") != "kw::asm_scale"]


MUTATIONS = [
    ("kernel_symbols", "rope_kernels", "kernel dropped", m_drop_kernel),
    ("kernel_symbols", "sample_kernels", "arch dropped from a kernel", m_drop_arch),
    ("launches", "rope_kernels", "launch moved one line", m_launch_line),
    ("launches", "sample_kernels", "guard polarity flipped", m_guard_holds),
    ("launches", "rmsnorm_quant_kernels", "defaulted flag cleared", m_defaulted),
    ("launches", "cache_kernels", "block value changed", m_block_value),
    ("launches", "rope_kernels", "non-constant grid given a value", m_grid_value),
    ("launches", "sample_kernels", "argument parameters swapped", m_arg_param),
    ("launches", "rope_kernels", "hipLaunchKernelGGL reported as <<<>>>", m_kind),
    ("launches", "rope_kernels", "macro expansion chain dropped", m_macro),
    ("launches", "rmsnorm_quant_kernels", "inline asm moved a line", m_asm_line),
    ("launches", "cache_kernels", "kernel definition moved a line", m_kernel_line),
    ("entries_reach", "rope_kernels", "entry's call edge removed", m_drop_edge),
    ("entries_reach", "sample_kernels", "spurious call edge added", m_extra_edge),
    ("entries_reach", "cache_kernels", "pybind module renamed", m_pybind_module),
    ("entries_reach", "rmsnorm_quant_kernels", "caller guard polarity flipped", m_caller_guard),
    ("kwalk_cli", "sample_kernels", "kernel dropped", m_drop_kernel),
    ("launches", "tile_kernels", "trampoline functors swapped", m_functor_swap),
    ("launches", "tile_kernels", "functor_location moved a line", m_functor_line),
    ("launches", "rope_kernels", "functor given to a plain kernel", m_functor_extra),
    ("launches", "tile_kernels", "library launch site moved a line", m_site_line),
    ("launches", "tile_kernels", "library name dropped", m_library_dropped),
    ("launches", "tile_kernels", "library launch not attributed to the user's call", m_not_attributed),
    ("launches", "tile_kernels", "instantiation chain frame dropped", m_chain_frame),
    ("launches", "asm_kernels", "ASM kernel renamed", m_asm_kernel),
    ("launches", "asm_kernels", "code object path changed", m_code_object),
    ("launches", "asm_kernels", "asm_loader reported as hipModuleLaunchKernel", m_asm_kind),
    ("launches", "asm_kernels", "non-constant ASM grid given a value", m_asm_grid),
    ("launches", "asm_kernels", "early exit before hipModuleLaunchKernel dropped", m_asm_guard_dropped),
    ("entries_reach", "tile_kernels", "early exit reported as an enclosing if", m_early_exit_kind),
    ("entries_reach", "asm_kernels", "call edge to the ASM launch removed", m_asm_edge),
    ("asm_kernels", "asm_kernels", "ASM kernel renamed", m_asm_kernel),
]


def run_checker(args, script, corpus_out):
    argv = [sys.executable, os.path.join(HERE, "test_%s.py" % script)]
    raw = sys.argv[1:]
    i = 0
    while i < len(raw):  # same options, another --corpus-out
        if raw[i] == "--corpus-out":
            i += 2
            continue
        if raw[i].startswith("--corpus-out="):
            i += 1
            continue
        argv.append(raw[i])
        i += 1
    argv += ["--corpus-out", corpus_out]
    r = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    fails = {l for l in r.stdout.splitlines() if l.startswith("FAIL:")}
    return r.returncode, fails, r.stdout + r.stderr


def main():
    args = kwcap.parse_args()
    ck = Checker("test_selftest")
    root = kwcap.tmpdir(args, "self")
    try:
        # the checkers parse each unchanged sidecar once, not once per run (kwcap.load_yaml_file)
        os.makedirs(os.path.join(root, "yaml-cache"))
        os.environ["KWCAP_YAML_CACHE"] = os.path.join(root, "yaml-cache")
        base = os.path.join(root, "base")
        shutil.copytree(args.corpus_out, base)
        baseline = {}
        for script in sorted({m[0] for m in MUTATIONS}):
            rc, fails, text = run_checker(args, script, base)
            if rc == kwcap.SKIP:
                baseline[script] = None
                continue
            ck.check(rc in (0, 1) and (rc == 0) == (not fails),
                     "%s on the unmodified corpus: rc=%d, output:\n%s" % (script, rc, text[-3000:]))
            baseline[script] = fails
        for n, (script, tu, what, fn) in enumerate(MUTATIONS):
            if baseline.get(script) is None:
                continue
            d = os.path.join(root, "m%02d" % n)
            shutil.copytree(base, d)
            path = os.path.join(d, tu + ".o.kwalk.yaml")
            doc = unshared(kwcap.load_yaml_file(path))
            try:
                fn(doc)
            except (LookupError, KeyError, IndexError, TypeError) as e:
                ck.fail("%s/%s: could not plant %r: %r (sidecar layout changed?)" % (script, tu, what, e))
                continue
            with open(path, "w", encoding="utf-8") as f:
                dumper = getattr(kwcap.yaml, "CSafeDumper", kwcap.yaml.SafeDumper)
                f.write(kwcap.yaml.dump(doc, Dumper=dumper, sort_keys=False, width=1 << 20))
                f.write("...\n")
            rc, fails, text = run_checker(args, script, d)
            new = fails - baseline[script]
            ck.check(rc == 1 and new, "%s did not catch '%s' planted in %s (rc=%d)\n%s"
                     % (script, what, tu, rc, text[-1500:]))
            shutil.rmtree(d, ignore_errors=True)
    finally:
        kwcap.cleanup(args, root)
    ck.finish()


if __name__ == "__main__":
    main()
