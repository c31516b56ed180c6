#!/usr/bin/env python3
"""check_layers.py: the source tree's layering, checked (docs/architecture.md).

Each source folder is one pipeline stage and may use only the folders listed
for it in ALLOWED (downward: a stage never uses one that comes after it).
Checked two ways, so that neither an include nor a call can slip by:
  includes  every #include "FOLDER/kw_x.h" in a folder's sources names an
            allowed folder; a bare #include "kw_x.h" names a header of the
            same folder; a folder's internal headers (INTERNAL) are included
            from that folder only; an edge ONLY_FROM lists is used by its
            files alone (none today: render/ includes only model/ and
            common/; the sidecar record types reach it through model/'s
            headers, `kwalk trace`'s report through model/kw_treport.h);
  libraries every static library a folder's CMakeLists.txt declares is in
            LIBS (or in NOT_CHECKED, with its reason), so the call check
            below reads all of them;
  calls     every kw_ symbol a folder's built objects use (nm: undefined) is
            defined in that folder or an allowed one; and inside a folder the
            files' calls form no circle (a file that calls back into the file
            that calls it is one job split in two, or two jobs tangled), except
            the circles KNOWN_CIRCLES lists, which must still exist exactly as
            listed (so the list only shrinks);
  state     no source file declares thread-local storage (_Thread_local,
            thread_local, __thread) unless THREAD_LOCAL_OK lists it, and every
            file listed still does;
  size      no folder holds a quarter or more of the source lines.
Usage: check_layers.py SRC_ROOT BUILD_ROOT. Exit 0 when all hold, 1 otherwise
(every violation printed, one line each)."""
import os
import re
import subprocess
import sys

ALLOWED = {
    "common": [],
    "sidecar": ["common"],
    "codeobj": ["sidecar", "common"],
    "passes": ["sidecar", "common"],
    "index": ["sidecar", "common"],
    "triton": ["codeobj", "sidecar", "common"],
    "model": ["index", "codeobj", "sidecar", "common"],
    "trace": ["model", "index", "codeobj", "sidecar", "common"],
    "render": ["model", "common"],
    "cli": ["render", "trace", "model", "index", "triton", "codeobj", "sidecar", "common"],
    "plugin": ["passes", "codeobj", "sidecar", "common"],
}
# Edges of the table open to a few files of the folder only, {(folder, to):
# {file, ...}}. None today: render/ prints `kwalk trace`'s report from its
# model (model/kw_treport.h, filled by trace/), and a page gets what --trace
# measured through the page model (model/kw_page_perf.h's kw_perf_source).
ONLY_FROM = {}
# Headers private to their folder (besides every *_int.h / *_internal.h and
# every header of plugin/, which nothing else links).
INTERNAL = {"kw_ir_compat.h"}
# The static libraries each folder builds (plugin/ is a module: includes only).
LIBS = {
    "common": ["kw_common", "kw_json", "kw_pool"], "sidecar": ["kw_sidecar"], "codeobj": ["kw_codeobj", "kw_co_sidecar"],
    "passes": ["kw_ir_c", "kw_ir"], "index": ["kw_index"], "triton": ["kw_triton"], "model": ["kw_model"],
    "trace": ["kw_trace"], "render": ["kw_render", "kw_html"], "cli": ["kw_cli"],
}
# Libraries a folder declares that the call check does not read, and why.
NOT_CHECKED = {
    "kw_codeobj_fuzz": "kw_codeobj's own sources, built again for the fuzz target",
}
# Circles of files calling each other that exist today and are to be removed
# (issue 37: render/ writes a page model through one output interface). Each
# entry is one circle exactly: the set of files that reach each other by
# calls (a strongly connected component of the folder's call graph). The test
# fails when a circle is not listed here, and when a listed one no longer
# exists as written: delete or shrink the entry in the change that breaks it.
KNOWN_CIRCLES = set()  # none left (issue 37 removed the kw_html* one)
# Files allowed to declare thread-local storage, and what for (issue 37: the
# HTML printer will hold no thread-local state). The test fails on any other
# file that declares it, and on a file listed here that no longer does.
THREAD_LOCAL_OK = {}  # none: no source file declares thread-local storage
THREAD_LOCAL = re.compile(r"\b(_Thread_local|thread_local|__thread)\b")
INC = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)

problems = []


def internal(folder, header):
    return (folder == "plugin" or header in INTERNAL or header.endswith("_int.h")
            or header.endswith("_internal.h"))


def check_includes(src):
    seen_edges = set()
    for folder in ALLOWED:
        d = os.path.join(src, folder)
        if not os.path.isdir(d):
            problems.append(f"{folder}/: missing (the layer table names it)")
            continue
        own = set(os.listdir(d))
        for f in sorted(own):
            if not f.endswith((".c", ".h", ".cpp")):
                continue
            text = open(os.path.join(d, f), encoding="utf-8").read()
            for m in INC.finditer(text):
                inc = m.group(1)
                line = text.count("\n", 0, m.start()) + 1
                where = f"{folder}/{f}:{line}"
                if "/" not in inc:
                    if inc.endswith(".h") and inc not in own:
                        problems.append(f"{where}: #include \"{inc}\" is not a header of "
                                        f"{folder}/ (name the folder: \"FOLDER/{inc}\")")
                    continue  # a sibling header, or a generated file (.inc)
                to, header = inc.split("/", 1)
                if to not in ALLOWED:
                    continue  # a generated or system-relative path
                if not os.path.exists(os.path.join(src, inc)):
                    problems.append(f"{where}: #include \"{inc}\": no such header")
                elif to == folder:
                    pass
                elif internal(to, header):
                    problems.append(f"{where}: includes {inc}, internal to {to}/")
                elif to not in ALLOWED[folder]:
                    problems.append(f"{where}: includes {inc}: {folder}/ may not use {to}/ "
                                    f"(allowed: {', '.join(ALLOWED[folder]) or 'nothing'})")
                elif (folder, to) in ONLY_FROM and f not in ONLY_FROM[(folder, to)]:
                    problems.append(f"{where}: includes {inc}: only "
                                    f"{', '.join(sorted(ONLY_FROM[(folder, to)]))} of {folder}/ "
                                    f"may use {to}/")
                seen_edges.add((folder, to))
    return seen_edges


def nm(lib):
    """{object: (defined kw_ symbols, undefined kw_ symbols)} of a static library."""
    out = subprocess.run(["nm", "-A", "--no-sort", lib], capture_output=True, text=True)
    if out.returncode != 0:
        problems.append(f"{lib}: nm failed: {out.stderr.strip()}")
        return {}
    objs = {}
    for ln in out.stdout.splitlines():
        # "LIB:OBJ:ADDR T kw_x" (defined) or "LIB:OBJ: U kw_y" (undefined)
        parts = ln.split()
        if len(parts) != 3 or not parts[2].startswith("kw_"):
            continue
        fields = parts[0].split(":")
        if len(fields) < 2:
            continue
        defs, und = objs.setdefault(fields[1], (set(), set()))
        if parts[1] == "U":
            und.add(parts[2])
        elif parts[1] in ("T", "D", "R", "B", "C", "V", "W"):
            defs.add(parts[2])
    return objs


def find_lib(build, folder, name):
    for cand in (f"{build}/{folder}/lib{name}.a", f"{build}/{folder}/lib{name}_tool.a"):
        if os.path.exists(cand):
            return cand
    return None


def check_calls(build):
    seen_circles = set()
    where_defined = {}
    objs_of = {}
    for folder, libs in LIBS.items():
        for name in libs:
            lib = find_lib(build, folder, name)
            if not lib:
                problems.append(f"{folder}/: lib{name}.a not built under {build}/{folder}")
                continue
            for obj, (defs, und) in nm(lib).items():
                objs_of.setdefault(folder, {})[obj] = (defs, und)
                for s in defs:
                    where_defined[s] = (folder, obj)
    for folder, objs in objs_of.items():
        graph = {o: set() for o in objs}
        for obj, (defs, und) in objs.items():
            for s in sorted(und):
                if s not in where_defined:
                    continue  # a symbol of a library outside the tree, or a generated table
                to, to_obj = where_defined[s]
                if to == folder:
                    if to_obj != obj:
                        graph[obj].add(to_obj)
                elif to not in ALLOWED[folder]:
                    problems.append(f"{folder}/{obj} calls {s} of {to}/{to_obj}: {folder}/ may "
                                    f"not use {to}/")
        for cycle in cycles(graph):
            files = [o[:-2] if o.endswith(".o") else o for o in cycle]
            if (folder, frozenset(files)) in KNOWN_CIRCLES:
                seen_circles.add((folder, frozenset(files)))
                continue
            problems.append(f"{folder}/: files call each other in a circle: "
                            + " -> ".join(files + [files[0]]))
    for folder, files in sorted(KNOWN_CIRCLES - seen_circles, key=lambda c: (c[0], sorted(c[1]))):
        problems.append(f"{folder}/: the known circle {', '.join(sorted(files))} no longer exists "
                        "as listed: update KNOWN_CIRCLES in check_layers.py")


def cycles(graph):
    """One representative cycle per strongly connected component of size > 1."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


LIB_DECL = re.compile(r"^\s*(?:kw_c_library|add_library)\s*\(\s*([A-Za-z0-9_]+)\s+(?!MODULE\b|ALIAS\b)",
                      re.M)


def check_libraries(src):
    """Every static library a folder's CMakeLists.txt declares is read by the
    call check (LIBS) or excused (NOT_CHECKED)."""
    listed = {name for libs in LIBS.values() for name in libs}
    found = 0
    for folder in ALLOWED:
        path = os.path.join(src, folder, "CMakeLists.txt")
        if not os.path.exists(path):
            continue
        text = open(path, encoding="utf-8").read()
        for m in LIB_DECL.finditer(text):
            name = m.group(1)
            found += 1
            if name in NOT_CHECKED:
                continue
            if name not in listed:
                problems.append(f"{folder}/CMakeLists.txt declares the library {name}, which LIBS "
                                "does not list (its calls are not checked)")
            elif name not in LIBS.get(folder, []):
                problems.append(f"{folder}/CMakeLists.txt declares {name}, listed in LIBS under "
                                "another folder")
    if found == 0:
        problems.append("no library declaration found in any folder's CMakeLists.txt")


def strip_c_comments(text):
    """TEXT with its comments and string/char literals blanked (newlines kept)."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("\n" * text.count("\n", i, j))
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            out.append(c + c)
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def check_thread_local(src):
    """Thread-local storage only in the files THREAD_LOCAL_OK lists."""
    holders = set()
    for folder in ALLOWED:
        d = os.path.join(src, folder)
        for f in sorted(os.listdir(d)) if os.path.isdir(d) else []:
            if not f.endswith((".c", ".h", ".cpp")):
                continue
            text = strip_c_comments(open(os.path.join(d, f), encoding="utf-8").read())
            rel = f"{folder}/{f}"
            for m in THREAD_LOCAL.finditer(text):
                holders.add(rel)
                if rel not in THREAD_LOCAL_OK:
                    line = text.count("\n", 0, m.start()) + 1
                    problems.append(f"{rel}:{line}: {m.group(1)}: thread-local state outside "
                                    "the allow-list (THREAD_LOCAL_OK in check_layers.py)")
    for rel in sorted(set(THREAD_LOCAL_OK) - holders):
        problems.append(f"{rel}: listed in THREAD_LOCAL_OK but declares no thread-local storage "
                        "any more: remove it from the list")
    return holders


def check_size(src):
    lines = {}
    for folder in ALLOWED:
        d = os.path.join(src, folder)
        for f in os.listdir(d) if os.path.isdir(d) else []:
            if f.endswith((".c", ".h", ".cpp")):
                with open(os.path.join(d, f), encoding="utf-8") as fh:
                    lines[folder] = lines.get(folder, 0) + sum(1 for _ in fh)
    total = sum(lines.values())
    big = max(lines, key=lines.get)
    if lines[big] * 4 >= total:
        problems.append(f"{big}/ holds {lines[big]} of {total} source lines (a quarter or more)")
    return ", ".join(f"{k} {100 * v / total:.0f}%" for k, v in sorted(lines.items(),
                                                                    key=lambda kv: -kv[1]))


def main():
    if len(sys.argv) != 3:
        print(__doc__.strip().splitlines()[-2], file=sys.stderr)
        return 2
    src, build = sys.argv[1], sys.argv[2]
    edges = check_includes(src)
    check_libraries(src)
    check_calls(build)
    tls = check_thread_local(src)
    sizes = check_size(src)
    for p in problems:
        print("FAIL:", p)
    used = ", ".join(f"{a}->{b}" for a, b in sorted(edges) if a != b)
    print(f"{len(problems)} layering problems; folder edges by include: {used}")
    print(f"share of source lines: {sizes}")
    print(f"known circles: {len(KNOWN_CIRCLES)}; files with thread-local storage: "
          f"{', '.join(sorted(tls)) or 'none'}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
