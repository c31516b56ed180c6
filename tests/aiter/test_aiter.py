#!/usr/bin/env python3
"""test_aiter: kwalk on real aiter code (../shared/fixtures/aiter-hip, a slice
of ROCm/aiter compiled the way aiter's JIT does). Each fixture TU is compiled
once per mode by the fixture's own compile.sh, and the checks read those
objects and sidecars; ground truth comes from tools kwalk does not contain:

  build MODE      compile.sh compiles every TU, without the plugin (plain) or
                  with it (plugin): every compile succeeds; with the plugin, no
                  `kwalk:` line is printed and no fragment is left behind.
  identical       every object is byte-identical with and without the plugin.
  kernels         per TU and arch, the kernels of the sidecar are exactly the
                  kernel symbols of the TU's code object (llvm-objcopy,
                  clang-offload-bundler, llvm-readelf: FUNC symbols with a .kd).
  launches        every launch statement clang sees in instantiated host code
                  is recorded: per source line, as many launch records as
                  instantiations clang has there. clang-query finds them:
                  CUDAKernelCallExpr (`<<<>>>` and HIP's hipLaunchKernelGGL
                  macro) at the line of its `<<<`, calls of
                  hipModuleLaunchKernel / hipLaunchKernel, and calls of an ASM
                  loader's launch method (annotations/loaders; the runtime call
                  inside that method is the loader's, not a launch). Where
                  $KWALK_TEST_TRUTH is set (scripts/test.sh), clang-query's
                  sites are computed once per CI run, by the first major's run
                  (tests/lib/kwtruth.py); they do not depend on the major.
  size            per TU whose object holds device code, the sidecar file's
                  bytes (the plugin's default zstd form) are at most
                  --max-ratio (default 1) times the object's (issue 10 item
                  10), and its YAML at most --max-kb per instantiation per arch
                  (issue 14); nothing is compiled; every ratio is printed
                  (docs/plugin.md, "Cost").
  site_lines      one opus TU (LINES_TU) compiled with the plugin and
                  `-Xarch_device -gline-tables-only` into WORK/lines (aiter's
                  JIT compiles without line tables, so the builds above have
                  none), indexed and written as a site by --kwalk: on every
                  page and arch, each instruction of the source <-> ISA view's
                  data (what the page script highlights) has the file and
                  line the code object's line table gives its address
                  (llvm-dwarfdump --debug-line; the kernel's address from
                  llvm-nm), or none where the table gives none; among them,
                  lines of the device functions inlined into the kernel
                  (another file than the kernel's), as the innermost row of
                  the table names them.

Exit 77 (ctest SKIP) when the fixture is absent."""
import argparse
import collections
import functools
import json
import os
import re
import shlex
import shutil
import subprocess
import sys

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
import kwcap  # noqa: E402  (code-object helpers shared with the capture tests)
from kwcheck import Checker  # noqa: E402
import kwllvm  # noqa: E402
import kwrun  # noqa: E402
import kwtruth  # noqa: E402
import kwzstd  # noqa: E402

# The calls `<<<>>>` makes to pass its configuration (clang's HIP and CUDA).
CONFIG_CALLS = ("__hipPushCallConfiguration", "hipConfigureCall", "__cudaPushCallConfiguration",
                "cudaConfigureCall")
# The runtime calls that launch a kernel (loader-style launches).
LAUNCH_CALLS = ("hipModuleLaunchKernel", "hipLaunchKernel", "hipExtModuleLaunchKernel",
                "hipLaunchCooperativeKernel", "hipExtLaunchKernel")


def parse_args():
    p = argparse.ArgumentParser()
    p.add_argument("what", choices=("build", "identical", "kernels", "launches", "size",
                                    "site_lines"))
    p.add_argument("--mode", choices=("plain", "plugin"), default="plugin")
    p.add_argument("--fixture", required=True, help="../shared/fixtures/aiter-hip")
    p.add_argument("--work", required=True, help="where the builds go (WORK/plain, WORK/plugin)")
    p.add_argument("--rsp", required=True)
    p.add_argument("--clangxx", required=True)
    p.add_argument("--llvm-bin", required=True)
    p.add_argument("--plugin", required=True)
    p.add_argument("--kwalk", help="site_lines: the kwalk command")
    p.add_argument("--archs", required=True, help="comma-separated")
    p.add_argument("--max-kb", type=float, default=25.0,
                   help="size: the most KB of sidecar YAML allowed per instantiation per arch "
                        "(issue 14)")
    p.add_argument("--max-ratio", type=float, default=1.0,
                   help="size: the largest sidecar file/object byte ratio allowed per TU with "
                        "device code (issue 10's target, 1)")
    p.add_argument("--tu", action="append", default=[],
                   help="build only this TU of compile.sh (repeat; default: all)")
    a = p.parse_args()
    a.archs = [x for x in a.archs.split(",") if x]
    return a


def skip_if_absent(a):
    if not os.path.isfile(os.path.join(a.fixture, "compile.sh")):
        print("SKIP: the aiter fixture %s is absent (it lives in ../shared beside the "
              "checkout)" % a.fixture)
        sys.exit(77)


def out_dir(a, mode):
    return os.path.join(a.work, mode)


def tus(a, mode):
    """The TUs compile.sh built (from its own report), name -> ok."""
    path = os.path.join(out_dir(a, mode), "report.txt")
    if not os.path.exists(path):
        return None
    res = {}
    for l in open(path, encoding="utf-8"):
        f = l.split()
        if len(f) >= 2 and f[0] in ("ok", "FAILED"):
            res[f[1]] = f[0] == "ok"
    return res


def do_build(a, ck):
    out = out_dir(a, a.mode)
    shutil.rmtree(out, ignore_errors=True)
    argv_dir = os.path.join(out, "argv")
    os.makedirs(argv_dir)
    tmp = os.path.join(out, "tmp")
    os.makedirs(tmp)
    # The plugin's default form, FILE.kwalk.yaml.zst, as users get it (kwcap
    # asks the capture tests' compiles for plain YAML).
    env = kwcap.clean_env(TMPDIR=tmp, CXX=os.path.join(HERE, "argv_logger.py"),
                          KW_REAL_CXX=a.clangxx, KW_ARGV_DIR=argv_dir, ARCHS=" ".join(a.archs),
                          KWALK_COMPRESS="zstd")
    plugin = a.plugin if a.mode == "plugin" else ""
    r = kwcap.run(["bash", os.path.join(a.fixture, "compile.sh"), out, a.rsp, plugin] + a.tu, env=env)
    with open(os.path.join(out, "report.txt"), "w", encoding="utf-8") as f:
        f.write(r.stdout)
    print(r.stdout + r.stderr)
    built = tus(a, a.mode) or {}
    ck.check(len(built) > 0, "compile.sh compiled nothing")
    for name, ok in sorted(built.items()):
        log = open(os.path.join(out, "obj", name + ".log"), encoding="utf-8", errors="replace").read()
        if not ck.check(ok, "%s: the compile failed (%s mode):\n%s" % (name, a.mode, log[-3000:])):
            continue
        if a.mode == "plugin":
            ck.eq(kwcap.kwalk_lines(log), [], "%s: kwalk: lines in the compile's output" % name)
    ck.eq(r.returncode, 0, "compile.sh exit status")
    left = [p for p in kwcap.files_under(tmp)]
    ck.eq(left, [], "files left in the compiles' TMPDIR")
    frags = os.path.join(out, "side", ".kwalk-fragments")
    if os.path.isdir(frags):
        ck.eq(kwcap.files_under(frags), [], "device fragments left behind")


def need_builds(a, ck, modes):
    for m in modes:
        built = tus(a, m)
        if not built:
            ck.fail("no %s build in %s (run the aiter.build_%s test first)" % (m, a.work, m))
            ck.finish()
    return tus(a, modes[0])


def do_identical(a, ck):
    built = need_builds(a, ck, ("plain", "plugin"))
    for name in sorted(built):
        p = os.path.join(out_dir(a, "plain"), "obj", name + ".o")
        q = os.path.join(out_dir(a, "plugin"), "obj", name + ".o")
        if not (os.path.exists(p) and os.path.exists(q)):
            ck.fail("%s: an object is missing (%s, %s)" % (name, p, q))
            continue
        with open(p, "rb") as f1, open(q, "rb") as f2:
            ck.check(f1.read() == f2.read(), "%s: objects differ with and without the plugin" % name)


def sidecar_path(a, name):
    """The one sidecar of TU NAME in the plugin build, or (None, why)."""
    side = os.path.join(out_dir(a, "plugin"), "side")
    found = [f for f in os.listdir(side) if f.startswith(name + ".o.") and kwzstd.is_sidecar_name(f)]
    if len(found) != 1:
        return None, "%d sidecars for %s in %s: %s" % (len(found), name, side, found)
    return os.path.join(side, found[0]), None


# What each check reads of a sidecar (load_parts): a key names a mapping key,
# "*" any key or sequence item; True builds the value whole, None keeps the key
# with no value (a mapping's keys are all `kernels` reads of `archs`).
KERNELS_PARTS = {"kernels": {"*": {"symbol": True, "not_in_object": True,
                                   "archs": {"*": {"*": None}}}}}
LAUNCHES_PARTS = {"launches": True}


def resolve_aliases(events):
    """EVENTS with each alias replaced by the events of its anchored node
    (kwalk writes repeated subtrees once: docs/sidecar-schema.md, "Schema 2").
    The raw events of every anchored node are kept (an alias inside them is
    expanded when replayed); an alias to an anchor not yet complete
    (undefined, or inside its own node) is an error, as for any loader."""
    anchors = {}
    opened = []  # [anchor, events, depth]
    depth = 0

    def expand(ev):
        if ev.anchor not in anchors:
            raise yaml.YAMLError("alias *%s at %s: no complete anchor before it"
                                 % (ev.anchor, ev.start_mark))
        for e in anchors[ev.anchor]:
            if isinstance(e, yaml.AliasEvent):
                yield from expand(e)
            else:
                yield e

    for ev in events:
        for o in opened:
            o[1].append(ev)
        if isinstance(ev, yaml.AliasEvent):
            yield from expand(ev)
            continue
        if isinstance(ev, yaml.ScalarEvent) and ev.anchor is not None:
            anchors[ev.anchor] = [ev]
        elif isinstance(ev, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
            if ev.anchor is not None:
                opened.append([ev.anchor, [ev], depth])
            depth += 1
        elif isinstance(ev, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
            depth -= 1
            while opened and opened[-1][2] == depth:
                name, evs, _ = opened.pop()
                anchors[name] = evs
        yield ev


def load_parts(stream, parts):
    """The YAML document of STREAM as yaml.safe_load reads it, but built only
    where PARTS (above) says: libyaml still parses every byte (a malformed
    sidecar fails as it would with a full load), while the Python objects for
    what no check reads (call trees, IR, ISA: most of a real aiter sidecar's
    hundreds of MB) are never made. Scalars are resolved and constructed by
    PyYAML's own SafeLoader rules. Aliases read as their anchored nodes
    (resolve_aliases)."""
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    events = resolve_aliases(yaml.parse(stream, Loader=loader))
    ctor = yaml.SafeLoader("")
    skip = object()

    def scalar(ev):
        tag = ev.tag
        if tag is None or tag == "!":
            tag = ctor.resolve(yaml.ScalarNode, ev.value, ev.implicit)
        node = yaml.ScalarNode(tag, ev.value, ev.start_mark, ev.end_mark, ev.style)
        value = ctor.construct_object(node, deep=True)
        ctor.constructed_objects.clear()
        return value

    def node(ev, spec):
        """The value of the node that starts with event EV, per SPEC."""
        build = spec is True
        if isinstance(ev, yaml.ScalarEvent):
            return scalar(ev) if build else skip
        if isinstance(ev, yaml.SequenceStartEvent):
            sub = True if build else (spec.get("*") if isinstance(spec, dict) else None)
            out = []
            for e in events:
                if isinstance(e, yaml.SequenceEndEvent):
                    return out if sub is not None or build else skip
                v = node(e, sub)
                if v is not skip:
                    out.append(v)
        if isinstance(ev, yaml.MappingStartEvent):
            out = {}
            for e in events:
                if isinstance(e, yaml.MappingEndEvent):
                    return out if build or isinstance(spec, dict) else skip
                if not isinstance(e, yaml.ScalarEvent):
                    raise yaml.YAMLError("a non-scalar key at %s: sidecars have none"
                                         % e.start_mark)
                key = scalar(e)
                if build:
                    sub = True
                elif isinstance(spec, dict) and key in spec:
                    sub = spec[key]
                elif isinstance(spec, dict) and "*" in spec:
                    sub = spec["*"]
                else:
                    sub = skip
                v = node(next(events), None if sub is skip else sub)
                if sub is not skip:
                    out[key] = None if v is skip else v
        raise yaml.YAMLError("unexpected %s" % ev)

    doc = skip
    for ev in events:
        if isinstance(ev, (yaml.StreamStartEvent, yaml.StreamEndEvent, yaml.DocumentEndEvent)):
            continue
        if isinstance(ev, yaml.DocumentStartEvent):
            if doc is not skip:
                raise yaml.YAMLError("more than one document")
            doc = node(next(events), parts)
    return None if doc is skip else doc


def sidecar_of(a, name, parts):
    path, err = sidecar_path(a, name)
    if path is None:
        return None, err
    try:
        return load_parts(kwzstd.open_text(path), parts), None
    except (yaml.YAMLError, ValueError) as e:
        return None, "%s: not YAML: %s" % (path, e)


class ToolArgs:
    def __init__(self, llvm_bin):
        self.llvm_bin = llvm_bin


def do_kernels(a, ck):
    built = need_builds(a, ck, ("plugin",))
    work = os.path.join(a.work, "kernels-work")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    ta = ToolArgs(a.llvm_bin)
    total = 0
    for name in sorted(built):
        doc, err = sidecar_of(a, name, KERNELS_PARTS)
        if not ck.check(doc is not None, err or ""):
            continue
        obj = os.path.join(out_dir(a, "plugin"), "obj", name + ".o")
        for arch in a.archs:
            want, err = kwcap.code_object_kernels(ta, obj, arch, work)
            if not ck.check(want is not None, "%s %s: %s" % (name, arch, err)):
                continue
            got, marked = set(), set()
            for k in doc.get("kernels") or []:
                if k.get("not_in_object"):  # compiled, but the object holds no code object
                    marked.add(k.get("symbol"))
                    # schema 2: its arch list without per-arch facts (the TU
                    # whose object holds it has them; rmsnorm_opus_norm_entry)
                    ck.check(arch in (k.get("archs") or {}), "%s %s: %s (not in the object) "
                             "lost its arch list" % (name, arch, k.get("symbol")))
                    facts = (k.get("archs") or {}).get(arch)
                    ck.eq(sorted(facts or {}), [], "%s %s: %s is not in the object but has "
                          "per-arch facts" % (name, arch, k.get("symbol")))
                    continue
                archs = k.get("archs") or []
                names = [x if isinstance(x, str) else x.get("arch") for x in archs]
                if arch in names:
                    got.add(k.get("symbol"))
            total += len(want)
            ck.eq(sorted(got - want), [], "%s %s: sidecar kernels not in the code object" % (name, arch))
            ck.eq(sorted(want - got), [], "%s %s: code-object kernels missing from the sidecar" % (name, arch))
            ck.eq(sorted(marked & want), [], "%s %s: kernels marked not_in_object that the code "
                  "object holds" % (name, arch))
    ck.note("%d kernel symbols over %d TUs and %d archs" % (total, len(built), len(a.archs)))
    shutil.rmtree(work, ignore_errors=True)


# ---- launches: clang-query's view of the TU ------------------------------------------

def expand_rsp(argv, cwd):
    out = []
    for x in argv:
        if x.startswith("@"):
            path = os.path.join(cwd, x[1:])
            with open(path, encoding="utf-8") as f:
                out.extend(expand_rsp(shlex.split(f.read()), os.path.dirname(path)))
        else:
            out.append(x)
    return out


def query_args(rec, src):
    """The compile's flags for a host-only syntax parse by clang-query."""
    argv = expand_rsp(rec["argv"], rec["cwd"])
    res, skip = [], False
    for x in argv:
        if skip:
            skip = False
            continue
        if x in ("-o", "-c"):
            skip = x == "-o"
            continue
        if x.startswith("-fplugin") or x == src or x.startswith("--offload-arch="):
            continue
        res.append(x)
    return res + ["--cuda-host-only", "-Wno-everything"]


MATCH_RE = re.compile(r'^(/[^:]+):(\d+):(\d+): note: "(\w+)" binds here')


def clang_query(a, rec, src, matchers):
    """{label: Counter((file, line))} for each (label, traversal, matcher)."""
    qbin = os.path.join(a.llvm_bin, "clang-query")
    cmds = ["-c", "set output diag"]
    for label, trav, m in matchers:
        cmds += ["-c", "set traversal " + trav, "-c", "match " + m]
    r = subprocess.run([qbin] + cmds + [src, "--"] + query_args(rec, src), cwd=rec["cwd"],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    counts = {label: collections.Counter() for label, _, _ in matchers}
    errors = [l for l in r.stdout.splitlines() if ": error: " in l]
    for l in r.stdout.splitlines():
        m = MATCH_RE.match(l)
        if m and m.group(4) in counts:
            counts[m.group(4)][(os.path.realpath(m.group(1)), int(m.group(2)))] += 1
    return counts, errors, r.returncode


def user_file(a, path):
    return os.path.realpath(path).startswith(os.path.realpath(a.fixture) + os.sep)


def launch_lines(l):
    """The source lines a launch record names: its location and the macro
    expansions it comes through."""
    lines = set()
    for loc in [l.get("location")] + [m.get("location") for m in l.get("macro_expansions") or []]:
        if loc and loc.get("file") and loc.get("line"):
            lines.add((os.path.realpath(loc["file"]), int(loc["line"])))
    return lines


def loader_classes():
    """The ASM loader classes and their launch methods (annotations/loaders):
    a call of such a method is a launch; the runtime call inside it is not."""
    path = os.path.join(HERE, "..", "..", "annotations", "loaders", "loaders.txt")
    classes, methods = set(), set()
    for l in open(path, encoding="utf-8"):
        f = l.split()
        if len(f) >= 4 and not f[0].startswith("#"):
            classes.add(f[0])
            methods.add(f[3])
    return sorted(classes), sorted(methods)


def any_name(names):
    return "hasAnyName(%s)" % ", ".join('"%s"' % n for n in names)


def do_launches(a, ck):
    built = need_builds(a, ck, ("plugin",))
    classes, methods = loader_classes()
    # Launch statements in instantiated code: in a template instantiation, or
    # outside any template (template patterns are not launches). AsIs
    # traversal sees the instantiations.
    live = "anyOf(isInTemplateInstantiation(), unless(hasAncestor(decl(anyOf(" \
           "functionTemplateDecl(), classTemplateDecl(), classTemplatePartialSpecializationDecl())))))"
    # `<<<>>>` (and hipLaunchKernelGGL, which expands to it): the line of its
    # `<<<`, the implicit configuration call.
    chev = ('cudaKernelCallExpr(%s, has(callExpr(callee(functionDecl(%s))).bind("chev")))' %
            (live, any_name(CONFIG_CALLS)))
    call = ('callExpr(callee(functionDecl(%s)), %s, unless(hasAncestor(cxxMethodDecl(%s))))'
            '.bind("call")' % (any_name(LAUNCH_CALLS), live, any_name(methods)))
    loader = ('cxxMemberCallExpr(callee(cxxMethodDecl(%s)), on(anyOf(hasType(cxxRecordDecl(%s)), '
              'hasType(pointsTo(cxxRecordDecl(%s))))), %s).bind("loader")' %
              (any_name(methods), any_name(classes), any_name(classes), live))
    matchers = [("chev", "AsIs", chev), ("call", "AsIs", call), ("loader", "AsIs", loader)]
    total, how_many = 0, collections.Counter()
    fixture_sum = kwtruth.tree_digest(a.fixture)
    for name in sorted(built):
        doc, err = sidecar_of(a, name, LAUNCHES_PARTS)
        if not ck.check(doc is not None, err or ""):
            continue
        rec = json.load(open(os.path.join(out_dir(a, "plugin"), "argv", name + ".o.json")))
        src = [x for x in rec["argv"] if x.endswith((".cu", ".hip", ".cpp"))][-1]
        sites, how = kwtruth.shared("aiter-launches-" + name,
                                    launch_key(a, name, rec, src, matchers, fixture_sum),
                                    lambda: query_sites(a, ck, name, rec, src, matchers))
        how_many[how] += 1
        if sites is None:
            continue
        want = collections.Counter({(f, line): n for f, line, n in sites})
        got = collections.Counter()
        for l in doc.get("launches") or []:
            for site in launch_lines(l):
                got[site] += 1
        for site, n in sorted(want.items()):
            total += n
            ck.eq(got.get(site, 0), n, "%s: launch records at %s:%d (clang sees %d launch "
                  "statements there, one per instantiation)" % (name, site[0], site[1], n))
    ck.note("%d launch statements in instantiated code over %d TUs (clang-query run here on %d, "
            "shared from an earlier major's run on %d)"
            % (total, len(built), how_many["computed"], how_many["shared"]))


def query_sites(a, ck, name, rec, src, matchers):
    """[[file, line, count]]: clang-query's launch statements in the fixture's
    files, or None (a FAIL) where clang-query failed."""
    counts, errors, rc = clang_query(a, rec, src, matchers)
    if not ck.check(rc == 0 and not errors, "%s: clang-query failed (rc %d): %s" %
                    (name, rc, "\n".join(errors[:5]))):
        return None
    want = collections.Counter()
    for c in counts.values():
        for site, n in c.items():
            if user_file(a, site[0]):
                want[site] += n
    return [[f, line, n] for (f, line), n in sorted(want.items())]


def launch_key(a, name, rec, src, matchers, fixture_sum):
    """What clang-query's launch sites depend on but the clang major (the host
    parse of the same source with the same flags; docs/test-time.md): the
    matchers, the TU, its flags with the build's directories named by role,
    compile.sh's generated header and every file of the fixture. Left out
    with the major: its clang's own headers and the HIP compat directory made
    for it (hip_compat_rcp.h says whether that clang's HIP wrapper declares
    the rcp functions: 1 on clang 22, 0 on 19)."""
    compat, work = os.path.dirname(a.rsp), a.work
    args = [x.replace(compat, "<compat>").replace(work, "<work>")
            for x in query_args(rec, src)]
    made = {}
    gen = os.path.join(out_dir(a, "plugin"), "gen")
    for f in sorted(os.listdir(gen)) if os.path.isdir(gen) else []:
        made[f] = kwtruth.file_digest(os.path.join(gen, f))
    return kwtruth.digest("aiter.launches", matchers, name, src, rec["cwd"], args, made,
                          fixture_sum)


def do_size(a, ck):
    """The sidecars' cost, per TU whose object holds device code, the
    instantiations counted in the object's code objects
    (kwcap.code_object_kernels: llvm-objcopy, clang-offload-bundler,
    llvm-readelf), not in the sidecar:
      - issue 10's target: the sidecar file as the plugin wrote it (its default
        form, zstd) at most --max-ratio times the object;
      - issue 14's: at most --max-kb KB of YAML text (the sidecar decompressed by
        Debian's zstd) per instantiation per arch, where the build has two archs
        or more (the issue's measure; with one, as clang 19 builds it, nothing
        is shared between archs: reported only).
    A TU whose object holds no device code (a host-only entry TU of a few KB)
    is reported, not checked: its launch records alone outweigh such an object."""
    built = need_builds(a, ck, ("plugin",))
    work = os.path.join(a.work, "size-work")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    ta = ToolArgs(a.llvm_bin)
    total_side = total_text = total_obj = total_inst = 0
    for name in sorted(built):
        side, err = sidecar_path(a, name)
        obj = os.path.join(out_dir(a, "plugin"), "obj", name + ".o")
        if not ck.check(side is not None, err or "") or \
                not ck.check(os.path.isfile(obj), "%s: no object %s" % (name, obj)):
            continue
        ck.check(side.endswith(".zst"), "%s: the default sidecar is not FILE.kwalk.yaml.zst" % side)
        try:
            t = len(kwzstd.read_bytes(side))
        except ValueError as e:
            ck.fail(str(e))
            continue
        s, o = os.path.getsize(side), os.path.getsize(obj)
        inst = 0
        for arch in a.archs:
            kernels, err = kwcap.code_object_kernels(ta, obj, arch, work)
            if not ck.check(kernels is not None, "%s %s: %s" % (name, arch, err)):
                continue
            inst += len(kernels)
        total_side += s
        total_text += t
        total_obj += o
        total_inst += inst
        per = " (%d instantiation-archs, %.1f KB of YAML each)" % (inst, t / 1024 / inst) \
            if inst else " (no device code in the object: not checked)"
        ck.note("%s: sidecar %d bytes (YAML %d), object %d bytes, ratio %.3f (YAML %.2f)%s"
                % (name, s, t, o, s / o, t / o, per))
        if not inst:
            continue
        if len(a.archs) >= 2:
            ck.check(t <= a.max_kb * 1024 * inst, "%s: %.1f KB of YAML per instantiation per "
                     "arch, above %g" % (name, t / 1024 / inst, a.max_kb))
        ck.check(s <= a.max_ratio * o, "%s: the sidecar (%d bytes) is %.2f times the object "
                 "(%d bytes), above %g" % (name, s, s / o, o, a.max_ratio))
    if total_obj:
        ck.note("all TUs: sidecars %d bytes (YAML %d), objects %d bytes, ratio %.3f (YAML %.2f); "
                "%d instantiation-archs, %.1f KB of YAML each"
                % (total_side, total_text, total_obj, total_side / total_obj,
                   total_text / total_obj, total_inst, total_text / 1024 / max(total_inst, 1)))


# ---- site_lines: the source <-> ISA view of real code with line tables ------------------

LINES_TU = "rmsnorm_opus_norm_bf16"  # opus: deep inlining into a few kernels


@functools.lru_cache(maxsize=None)
def real(path):
    """os.path.realpath, once per path (a few files, tens of thousands of lines)."""
    return os.path.realpath(path)


def page_data(path):
    """The source <-> ISA data (#kw-data) of a site page, each arch's
    instructions read as the page's script reads them (docs/site.md) into
    "i": [offset, text, class, file, line, note], a label [None, text]."""
    text = open(path, encoding="utf-8").read()
    m = re.search(r'<script type="application/json" id="kw-data">(.*?)</script>', text, re.S)
    if not m:
        return None
    data = json.loads(m.group(1))
    mn = {x[0]: x for x in data.get("mn", [])}
    for view in data.get("archs", []):
        listing = view.get("t")
        if view.get("x") is not None:
            x = re.search(r'<script type="text/plain" id="kw-isa-%d">(.*?)</script>' % view["x"],
                          text, re.S)
            listing = x.group(1) if x else None
        runs, at, left, f, l, rows = view.get("r", []), 0, 0, -1, 0, []
        for line in listing.split("\n") if isinstance(listing, str) else []:
            off = re.match(r"([0-9a-fA-F]{1,16}):", line)
            if not off:
                rows.append([None, line])
                continue
            while not left and at < len(runs):
                left, f, l = runs[at:at + 3]
                at += 3
            left -= 1
            ins = re.sub(r"^[ \t]+", "", line[len(off.group(0)):])
            k = mn[ins.split(" ")[0]]
            rows.append([int(off.group(1), 16), ins, k[1], f, l, k[2]])
        view["i"] = rows
    return data


def do_site_lines(a, ck):
    out = os.path.join(a.work, "lines")
    shutil.rmtree(out, ignore_errors=True)
    tmp = os.path.join(out, "tmp")
    os.makedirs(tmp)
    cxx = os.path.join(out, "clang-lines.sh")
    with open(cxx, "w", encoding="utf-8") as f:
        f.write("#!/bin/sh\nexec %s \"$@\" -Xarch_device -gline-tables-only\n"
                % shlex.quote(a.clangxx))
    os.chmod(cxx, 0o755)
    env = kwcap.clean_env(TMPDIR=tmp, CXX=cxx, ARCHS=" ".join(a.archs), KWALK_COMPRESS="zstd")
    r = kwcap.run(["bash", os.path.join(a.fixture, "compile.sh"), out, a.rsp, a.plugin, LINES_TU],
                  env=env)
    log = os.path.join(out, "obj", LINES_TU + ".log")
    log = open(log, encoding="utf-8", errors="replace").read() if os.path.exists(log) else ""
    if not ck.check(r.returncode == 0, "%s with line tables: the compile failed:\n%s%s"
                    % (LINES_TU, r.stdout, log[-3000:])):
        ck.finish()
    ck.eq(kwcap.kwalk_lines(log), [], "%s: kwalk: lines in the compile's output" % LINES_TU)
    db, site = os.path.join(out, "lines.db"), os.path.join(out, "site")
    for cmd in ([a.kwalk, "index", os.path.join(out, "side"), "-o", db],
                [a.kwalk, "site", "--db", db, "-o", site]):
        r = kwcap.run(cmd)
        if not ck.check(r.returncode == 0, "%s: exit %d: %s" % (" ".join(cmd), r.returncode,
                                                             r.stderr)):
            ck.finish()
    # every instantiation's row: instantiations.html (index.html lists kernels)
    idx = open(os.path.join(site, "instantiations.html"), encoding="utf-8").read()
    pages = dict(re.findall(r'<tr data-i="\d+" data-g="\d+" data-sym="([^"]+)"><td>.*?'
                            r'<a href="([^"]+)"', idx))
    obj = os.path.join(out, "obj", LINES_TU + ".o")
    ta = ToolArgs(a.llvm_bin)
    checked = lined = inlined = 0
    for arch in a.archs:
        co, err = kwcap.unbundle_code_object(ta, obj, arch, tmp)
        if not ck.check(co is not None, "%s: %s" % (arch, err)):
            continue
        table = kwllvm.LineTable(kwllvm.tool(a.llvm_bin, "llvm-dwarfdump"), co)
        nm = kwrun.run([kwllvm.tool(a.llvm_bin, "llvm-nm"), co], must=True).stdout
        start = {f[2]: int(f[0], 16) for f in (l.split() for l in nm.splitlines()) if len(f) == 3}
        funcs, kernels, err = kwcap.elf_kernel_symbols(ta, co)
        ck.check(kernels, "%s: no kernel in the code object: %s" % (arch, err))
        ck.eq(sorted((kernels or set()) - (funcs or set())), [],
              "%s: kernel descriptors without a FUNC symbol" % arch)
        for sym in sorted((kernels or set()) & (funcs or set())):
            if not ck.check(sym in pages, "%s: no page for %s" % (arch, sym)):
                continue
            data = page_data(os.path.join(site, pages[sym]))
            views = [v for v in (data or {}).get("archs", []) if v.get("a") == arch]
            if not ck.check(len(views) == 1, "%s %s: the page has no %s view" % (arch, sym, arch)):
                continue
            files = [real(f["p"]) for f in data["files"]]  # the kernel's own first
            bad = []
            for ins in views[0]["i"]:
                if ins[0] is None:  # a label
                    continue
                want = table.at(start[sym] + ins[0])
                got = (files[ins[3]], ins[4]) if ins[3] >= 0 else None
                if want:
                    want = (real(want[0]), want[1])
                checked += 1
                lined += want is not None
                inlined += bool(want and files and want[0] != files[0])
                if got != want:
                    bad.append((hex(ins[0]), ins[1], got, want))
            ck.eq(bad[:3], [], "%s %s: instructions whose line is not the line table's "
                  "(offset, text, page, line table; %d in all)" % (arch, sym, len(bad)))
    ck.check(lined > checked // 2, "fewer than half the instructions have a line (%d of %d): "
             "were line tables compiled?" % (lined, checked))
    ck.check(inlined > 0, "no instruction maps to a device function inlined from another file")
    ck.note("%d instructions checked, %d with a line, %d of them in inlined code of another file"
            % (checked, lined, inlined))


def main():
    a = parse_args()
    skip_if_absent(a)
    ck = Checker("aiter." + a.what + ("_" + a.mode if a.what == "build" else ""))
    {"build": do_build, "identical": do_identical, "kernels": do_kernels,
     "launches": do_launches, "size": do_size, "site_lines": do_site_lines}[a.what](a, ck)
    ck.finish()


if __name__ == "__main__":
    main()
