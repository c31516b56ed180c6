"""kwcap.py: shared helpers of the capture-layer tests (tests/plugin/).

The tests compare what the kwalk plugin wrote into its sidecars with ground
truth that kwalk did not produce:
  - the corpus source itself: `// KW:<KIND> <id>` marker comments (resolved by
    scripts/kw-markers.py, never by hard-coded line numbers), parameter and
    argument lists and asm strings read from the source text;
  - tests/corpus/expected.json, written by hand from the source;
  - the code objects in the host objects' .hip_fatbin sections, read with
    llvm-objcopy + clang-offload-bundler + llvm-readelf.

Every test script takes the same options (see parse_args) and exits 0 when all
checks hold, 1 when one fails (all failures are printed, not just the first),
77 when it cannot run (ctest SKIP_RETURN_CODE).
"""
import argparse
import hashlib
import importlib.util
import json
import os
import pickle
import re
import subprocess
import sys
import tempfile

try:
    import yaml
except ImportError:  # pragma: no cover - CMake picks a python3 that has it
    sys.stderr.write("kwcap: PyYAML is missing (Debian: python3-yaml)\n")
    sys.exit(77)

import kwllvm  # noqa: E402
import kwzstd  # noqa: E402
from kwllvm import YAML_LOADER as YamlLoader  # noqa: E402
from kwrun import run  # noqa: E402  (the plugin tests call kwcap.run)

SKIP = 77

# The capture tests read the plugin's sidecars as plain YAML (FILE.kwalk.yaml):
# every compile they start (and clang's jobs under it) inherits this. The
# default form, FILE.kwalk.yaml.zst, is checked by capture.compress and by the
# aiter tests, which ask for it explicitly.
os.environ["KWALK_COMPRESS"] = "none"


def parse_args(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--build-dir", required=True)
    p.add_argument("--source-dir", required=True, help="the kwalk source tree")
    p.add_argument("--corpus-src", required=True, help="tests/corpus")
    p.add_argument("--corpus-out", required=True, help="where kw_corpus put NAME.o(.kwalk.yaml)")
    p.add_argument("--clangxx", required=True)
    p.add_argument("--rsp", required=True, help="the HIP compat response file")
    p.add_argument("--llvm-bin", required=True)
    p.add_argument("--plugin", required=True, help="libkwalk.so")
    p.add_argument("--kwalk", default="", help="the kwalk command (optional)")
    p.add_argument("--asm-dir", default="",
                   help="KW_ASM_DIR of the corpus build: where the assembled ASM code objects "
                        "are (default: CORPUS_OUT/hsa)")
    p.add_argument("--cflag", action="append", default=[],
                   help="one flag of a corpus compile (repeat); -x hip @rsp, arches, aiter flags, -I")
    p.add_argument("--arches", required=True,
                   help="the build's arches (KWALK_HIP_ARCHS), comma-separated")
    p.add_argument("--keep", action="store_true", help="keep temporary directories")
    a = p.parse_args(argv)
    if not a.asm_dir:
        a.asm_dir = os.path.join(a.corpus_out, "hsa")
    a.arches = [x for x in a.arches.split(",") if x]
    return a


# ---- ground truth: expected.json and the markers --------------------------------

def load_expected(args):
    with open(os.path.join(args.corpus_src, "expected.json"), encoding="utf-8") as f:
        return json.load(f)


def _kw_markers(args):
    """scripts/kw-markers.py, loaded as a module."""
    path = os.path.join(args.source_dir, "scripts", "kw-markers.py")
    spec = importlib.util.spec_from_file_location("kw_markers", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def load_markers(args, ck=None):
    """{id: {kind, file (relative to the corpus), line}} from scripts/kw-markers.py."""
    mod = _kw_markers(args)
    found, errors = mod.scan(args.corpus_src)
    if ck is not None:
        # The ground truth must be consistent with itself before it judges kwalk.
        errors = errors + mod.check(found, load_expected(args))
        for e in errors:
            ck.fail("ground truth inconsistent (tests/corpus, not kwalk): %s" % e)
    return found


def scan_markers(args, root):
    """{id: {kind, file (relative to root), line}} of the marker comments under
    root (scripts/kw-markers.py), and the scan's errors."""
    return _kw_markers(args).scan(root)


def corpus_tus(expected):
    """Relative source paths of the corpus TUs, from expected.json."""
    return list(expected["compile"]["tus"].keys())


def object_of(args, tu):
    """kw_hip_object names the object after the source's NAME_WE."""
    base = os.path.basename(tu)
    return os.path.join(args.corpus_out, base.split(".")[0] + ".o")


def read_lines(args, rel):
    with open(os.path.join(args.corpus_src, rel), encoding="utf-8") as f:
        return f.read().split("\n")


def rel_file(args, path):
    """A sidecar path relative to the corpus dir, or None outside it."""
    if not path:
        return None
    root = os.path.realpath(args.corpus_src)
    p = os.path.realpath(path)
    if p == root or not p.startswith(root + os.sep):
        return None
    return os.path.relpath(p, root)


def asm_path(args, text):
    """An expected.json code-object path with ${KW_ASM_DIR} replaced by the
    value the corpus build defines (the --asm-dir directory, with a slash)."""
    return (text or "").replace("${KW_ASM_DIR}", args.asm_dir.rstrip("/") + "/")


# ---- sidecars ----------------------------------------------------------------------

def load_yaml_file(path):
    """The YAML document at PATH (plain or zstd). Where $KWCAP_YAML_CACHE names a directory
    (test_selftest sets it for the checkers it runs, dozens of times on copies
    of one corpus), a file whose exact bytes were parsed before is read back
    from that parse (pickled, keyed by the bytes' SHA-256) instead of parsed
    again; any other file, a planted mutation among them, is parsed."""
    cache = os.environ.get("KWCAP_YAML_CACHE")
    data = kwzstd.read_bytes(path)  # either form (kwzstd.py)
    if not cache:
        return yaml.load(data.decode("utf-8"), Loader=YamlLoader)
    key = os.path.join(cache, hashlib.sha256(data).hexdigest() + ".pickle")
    try:
        with open(key, "rb") as f:
            return pickle.load(f)
    except OSError:
        pass
    doc = yaml.load(data.decode("utf-8"), Loader=YamlLoader)
    tmp = "%s.%d" % (key, os.getpid())
    with open(tmp, "wb") as f:
        pickle.dump(doc, f, protocol=pickle.HIGHEST_PROTOCOL)
    os.replace(tmp, key)
    return doc


def load_corpus_sidecars(args, expected, ck):
    """{tu: document} for every corpus TU; a missing/unparsable one is a failure."""
    docs = {}
    for tu in corpus_tus(expected):
        sc = object_of(args, tu) + ".kwalk.yaml"
        if not ck.check(os.path.isfile(sc), "%s: sidecar %s missing (was kw_corpus built?)" % (tu, sc)):
            continue
        try:
            doc = load_yaml_file(sc)
        except yaml.YAMLError as e:
            ck.fail("%s: sidecar %s does not parse: %s" % (tu, sc, e))
            continue
        if not ck.check(isinstance(doc, dict), "%s: sidecar %s is not a mapping" % (tu, sc)):
            continue
        ck.eq(doc.get("kwalk_schema"), 3, "%s: kwalk_schema" % tu)
        for key in ("kernels", "launches", "entries", "host_calls"):
            doc[key] = doc.get(key) or []
        docs[tu] = doc
    return docs


def loc_line(obj, key="location"):
    loc = (obj or {}).get(key) or {}
    return loc.get("file"), loc.get("line")


def kernel_args(kernel):
    return tuple(str(a.get("value")) for a in (kernel.get("template_args") or []))


def norm(s):
    """An expression with all whitespace removed (spelling differences in spaces)."""
    return re.sub(r"\s+", "", s or "")


def strip_parens(s):
    """One layer of parentheses a macro may add around an argument."""
    s = norm(s)
    while s.startswith("(") and s.endswith(")") and _balanced(s[1:-1]):
        s = s[1:-1]
    return s


def _balanced(s):
    depth = 0
    for c in s:
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
            if depth < 0:
                return False
    return depth == 0


# ---- source-text ground truth -------------------------------------------------------

def strip_comment(line):
    """Drop a trailing // comment (the corpus has no // inside strings on code lines)."""
    i = line.find("//")
    return line if i < 0 else line[:i]


def balanced_group(lines, start_line, opener_regex):
    """Text inside the parentheses that open at the first match of opener_regex
    (which ends with '(') on or after 1-based start_line, comments stripped."""
    text = "\n".join(strip_comment(l) for l in lines[start_line - 1:start_line + 60])
    m = re.search(opener_regex, text)
    if not m:
        return None
    i = m.end()
    depth = 1
    out = []
    while i < len(text):
        c = text[i]
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
            if depth == 0:
                return "".join(out)
        out.append(c)
        i += 1
    return None


def split_top(text):
    """Split on commas outside (), [], {} and <> that follow an identifier."""
    parts, depth, cur = [], 0, []
    angle = 0
    prev = ""
    for c in text:
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif c == "<" and re.match(r"[A-Za-z0-9_]", prev or " ") and depth == 0:
            angle += 1
        elif c == ">" and angle > 0 and depth == 0:
            angle -= 1
        if c == "," and depth == 0 and angle == 0:
            parts.append("".join(cur).strip())
            cur = []
        else:
            cur.append(c)
        if not c.isspace():
            prev = c
    if "".join(cur).strip():
        parts.append("".join(cur).strip())
    return parts


def kernel_params_from_source(lines, line, name):
    """Parameter names of the kernel defined at `line` (its KW:KERNEL marker)."""
    body = balanced_group(lines, line, r"\b%s\s*\(" % re.escape(name))
    if body is None:
        return None
    names = []
    for p in split_top(body):
        m = re.search(r"([A-Za-z_][A-Za-z0-9_]*)\s*(\[[^\]]*\])?\s*$", p)
        names.append(m.group(1) if m else None)
    return names


def launch_args_from_source(lines, line, kind):
    """The kernel arguments written at the launch on `line`."""
    if kind == "hipLaunchKernelGGL":
        body = balanced_group(lines, line, r"\bhipLaunchKernelGGL\s*\(")
        return None if body is None else split_top(body)[5:]
    if kind == "triple_chevron":
        body = balanced_group(lines, line, r">>>\s*\(")
        return None if body is None else split_top(body)
    return None


def asm_text_from_source(lines, line):
    m = re.search(r'\basm\s*(?:volatile\s*)?\(\s*"((?:[^"\\]|\\.)*)"', lines[line - 1])
    return m.group(1) if m else None


# ---- code objects (llvm-objcopy + clang-offload-bundler + llvm-readelf) ------------

def tool(args, name):
    return kwllvm.tool(args.llvm_bin, name)


def has_section(args, obj, section):
    r = run([tool(args, "llvm-readelf"), "-S", "--wide", obj])
    if r.returncode != 0:
        raise RuntimeError("llvm-readelf -S %s: %s" % (obj, r.stderr.strip()))
    return re.search(r"\s%s\s" % re.escape(section), r.stdout) is not None


def elf_kernel_symbols(args, co):
    """(FUNC symbols, names with a `.kd` kernel descriptor, None) defined in the
    ELF code object co, by llvm-readelf --syms; (None, None, error) if it fails."""
    r = run([tool(args, "llvm-readelf"), "--syms", "--wide", co])
    if r.returncode != 0:
        return None, None, "llvm-readelf --syms: " + r.stderr.strip()
    funcs, kds = set(), set()
    for l in r.stdout.splitlines():
        f = l.split()
        # Num: Value Size Type Bind Vis Ndx Name
        if len(f) >= 8 and f[0].endswith(":") and f[0][:-1].isdigit():
            typ, ndx, name = f[3], f[6], f[7]
            if ndx == "UND":
                continue
            if typ == "FUNC":
                funcs.add(name)
            elif typ == "OBJECT" and name.endswith(".kd"):
                kds.add(name[:-3])
    return funcs, kds, None


def unbundle_code_object(args, obj, arch, workdir):
    """obj's code object for arch, written into workdir by llvm-objcopy and
    clang-offload-bundler: (path, None), or (None, error)."""
    # one work file per object path (objects of the same name in different dirs)
    tag = os.path.realpath(obj).strip(os.sep).replace(os.sep, "__")
    fatbin = os.path.join(workdir, tag + ".hip_fatbin")
    if not os.path.exists(fatbin):
        # an explicit output file: without it llvm-objcopy rewrites obj in place
        r = run([tool(args, "llvm-objcopy"), "--dump-section=.hip_fatbin=" + fatbin, obj,
                 os.path.join(workdir, tag + ".copy")])
        if r.returncode != 0:
            return None, "llvm-objcopy: " + r.stderr.strip()
    co = os.path.join(workdir, "%s.%s.co" % (tag, arch))
    r = run([tool(args, "clang-offload-bundler"), "--unbundle", "--type=o", "--input=" + fatbin,
             "--targets=hipv4-amdgcn-amd-amdhsa--" + arch, "--output=" + co])
    if r.returncode != 0:
        return None, "clang-offload-bundler: " + r.stderr.strip()
    return co, None


def code_object_kernels(args, obj, arch, workdir):
    """Kernel symbols of obj's code object for arch: FUNC symbols that have a
    matching `.kd` kernel descriptor. Returns (set, None) or (None, error)."""
    if not has_section(args, obj, ".hip_fatbin"):
        return set(), None  # no device code at all (e.g. a pybind-only TU)
    co, err = unbundle_code_object(args, obj, arch, workdir)
    if err:
        return None, err
    funcs, kds, err = elf_kernel_symbols(args, co)
    if err:
        return None, err
    missing = kds - funcs
    if missing:
        return None, "kernel descriptors without a FUNC symbol: %s" % sorted(missing)
    return kds, None


def code_object_metadata(args, obj, arch, workdir):
    """The NT_AMDGPU_METADATA document (llvm-readelf --notes) of obj's code
    object for arch, as a dict; (None, error) when it cannot be read."""
    kernels, err = code_object_kernels(args, obj, arch, workdir)
    if err:
        return None, err
    tag = os.path.realpath(obj).strip(os.sep).replace(os.sep, "__")
    co = os.path.join(workdir, "%s.%s.co" % (tag, arch))
    r = run([tool(args, "llvm-readelf"), "--notes", co])
    md = kwllvm.notes_metadata(r.stdout) if r.returncode == 0 else None
    if md is None:
        return None, "llvm-readelf --notes %s: no AMDGPU metadata %s" % (co, r.stderr.strip())
    return md, None


# ---- compiling -----------------------------------------------------------------------

def compile_cmd(args, src, obj, plugin=True, extra=()):
    cmd = [args.clangxx] + list(args.cflag) + list(extra)
    if plugin:
        cmd.append("-fplugin=" + args.plugin)
    return cmd + ["-c", src, "-o", obj]


def compile_plugin(args, src, obj, arch=None, extra=()):
    """src compiled with the plugin into obj in a clean environment, for arch
    alone when given (else the --offload-arch flags of args.cflag): (the
    finished process, what went wrong: "" when clang passed and the plugin
    wrote no `kwalk:` line)."""
    cflags = list(args.cflag)
    if arch:
        cflags = [f for f in cflags if not f.startswith("--offload-arch=")]
        cflags.append("--offload-arch=" + arch)
    cmd = [args.clangxx] + cflags + list(extra) + ["-fplugin=" + args.plugin, "-c", src,
                                                   "-o", obj]
    r = run(cmd, env=clean_env())
    if r.returncode != 0 or kwalk_lines(r.stderr):
        return r, "compile %s: rc=%d %s" % (src, r.returncode, r.stderr[-2000:])
    return r, ""


def source_lines(path, regex):
    """1-based lines of the text file path that regex matches (re.search)."""
    with open(path, encoding="utf-8") as f:
        return [i + 1 for i, line in enumerate(f) if re.search(regex, line)]


def struct_members(path, struct_regex, member_regex):
    """{struct name: 1-based line of its member} in the text file path: a
    line struct_regex matches (re.match, group 1 the name) opens a struct,
    the first later line member_regex matches (re.search) before the next
    struct's is that struct's member."""
    members, cur = {}, None
    with open(path, encoding="utf-8") as f:
        for i, line in enumerate(f, 1):
            m = re.match(struct_regex, line)
            if m:
                cur = m.group(1)
            elif cur and cur not in members and re.search(member_regex, line):
                members[cur] = i
    return members


def clean_env(**extra):
    env = dict(os.environ)
    for k in ("KWALK_OUT", "KWALK_FAULT"):
        env.pop(k, None)
    env.update(extra)
    return env


def compile_cases(args, root, src, obj_name, cuid, cases, unset=()):
    """Compiles src once per case (name, with the plugin?, extra flags, extra
    environment), two at a time, into root/NAME/obj_name with -cuid=cuid and a
    TMPDIR of its own (root/tmp-NAME); the variables in unset are removed from
    the environment first. {name: (rc, stdout, stderr, out dir, TMPDIR, object,
    command)}."""
    runs = {}
    for i in range(0, len(cases), 2):
        procs = []
        for name, plugin, extra, env_extra in cases[i:i + 2]:
            out = os.path.join(root, name)
            tmp = os.path.join(root, "tmp-" + name)
            os.makedirs(out)
            os.makedirs(tmp)
            obj = os.path.join(out, obj_name)
            cmd = compile_cmd(args, src, obj, plugin=plugin, extra=["-cuid=" + cuid] + list(extra))
            env = clean_env(TMPDIR=tmp)
            for k in unset:
                env.pop(k, None)
            env.update(env_extra)
            p = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                 text=True)
            procs.append((name, out, tmp, obj, cmd, p))
        for name, out, tmp, obj, cmd, p in procs:
            so, se = p.communicate()
            runs[name] = (p.returncode, so, se, out, tmp, obj, cmd)
    return runs


def tmpdir(args, prefix):
    d = tempfile.mkdtemp(prefix="kwcap-" + prefix + "-")
    return d


def cleanup(args, d):
    if args.keep:
        print("kept %s" % d)
        return
    import shutil
    shutil.rmtree(d, ignore_errors=True)


def files_under(d):
    out = []
    for dp, dn, fn in os.walk(d):
        for n in fn:
            out.append(os.path.relpath(os.path.join(dp, n), d))
    return sorted(out)


def kwalk_lines(stderr):
    return [l for l in stderr.splitlines() if l.startswith("kwalk:")]


def write_tiny_tu(path, tag, sizes=(64, 128, 256)):
    """A small HIP TU of its own: kernel template kcap_<tag> instantiated once
    per size through a host launcher (a launch per instantiation)."""
    insts = "\n".join("  if (n == %d) kcap_%s<%d><<<dim3(n), dim3(%d)>>>(p, n);" % (s, tag, s, s)
                      for s in sizes)
    text = """// generated by tests/plugin (kwcap.write_tiny_tu)
#include <hip/hip_runtime.h>

/// Scales p by the block size (TU %(tag)s).
template <int BlockSize>
__global__ void __launch_bounds__(BlockSize) kcap_%(tag)s(float* p, int n) {
  __shared__ float tile[BlockSize];
  const int i = blockIdx.x * BlockSize + threadIdx.x;
  tile[threadIdx.x] = i < n ? p[i] : 0.f;
  __syncthreads();
  if (i < n) p[i] = tile[BlockSize - 1 - threadIdx.x] * BlockSize;
}

extern "C" void kcap_run_%(tag)s(float* p, int n) {
%(insts)s
}
""" % {"tag": tag, "insts": insts}
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
