"""deps_needs.py: what the build, the corpus compiles and the tests use from the
machine, gathered from the project itself rather than from a hand-kept list:

  cmake_vars     every file named by a CMake variable that the project's CMake
                 files use (KWALK_CLANGXX, KWALK_LD_LLD, Python3_EXECUTABLE,
                 ...) or that the generator runs (the compilers, ar, ninja,
                 cmake, ctest, pkg-config), as this build resolved them
  driver_jobs    the programs clang's HIP driver spawns for a corpus compile
                 (`clang++ -### ...` with the build's own flags: clang -cc1,
                 lld, clang-offload-bundler) and the files those jobs read
                 (device-library bitcode, forced includes)
  llvm_tools     every name of a program in the build's LLVM bin directory
                 that the CMake files, scripts and tests mention
  shell_commands the first word of each command in scripts/*.sh, tests/**/*.sh
                 and .ci/run
  cmake_commands literal COMMAND words in the CMake files (sh, ...)
  python_calls   the tests' subprocess calls with a literal program, their
                 shutil.which() look-ups (optional: the test has a fallback),
                 and the libraries they open with ctypes
  python_modules the non-stdlib, non-local modules the tests import
  libraries      ldd of the built programs and plugins; the libraries kwalk
                 dlopens (string literals given to dlopen in its C sources)
  headers        the headers the C/C++ build read (ninja -t deps) and the
                 corpus TUs include (clang++ -M, host and device side)

Each gatherer adds to a Needs: path -> reasons, plus names it could not find.
"""
import ast
import glob
import os
import re
import shlex
import shutil
import subprocess
import sys


class Needs:
    def __init__(self):
        self.paths = {}       # absolute path -> set of reasons
        self.optional = {}    # path -> reasons, for things a test can do without
        self.missing = {}     # name -> reasons: named, not found on this machine
        self.python_missing = {}  # module -> reasons: not importable by Debian's python3

    def add(self, path, why, optional=False):
        if not (os.path.isabs(path) and os.path.exists(path)):
            if not optional:
                self.miss(path, why)
            return
        (self.optional if optional else self.paths).setdefault(path, set()).add(why)

    def miss(self, name, why):
        self.missing.setdefault(name, set()).add(why)


def _read(path):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    except OSError:
        return ""


def project_files(src, patterns):
    out = []
    for p in patterns:
        out += glob.glob(os.path.join(src, p), recursive=True)
    return sorted(set(f for f in out if os.path.isfile(f)))


CMAKE_FILES = ["CMakeLists.txt", "cmake/*.cmake", "cmake/*.in", "*/CMakeLists.txt",
               "*/*/CMakeLists.txt", "tests/**/CMakeLists.txt", "tests/**/*.cmake"]
SHELL_FILES = ["scripts/*.sh", "tests/**/*.sh", ".ci/run"]
PYTHON_FILES = ["scripts/*.py", "tests/**/*.py"]


def rel(src, path):
    return os.path.relpath(path, src)


def is_bench(path):
    """Run by hand, not by the build or ctest; what they use is reported, not
    required: benchmarks (scripts/bench-*.sh, tests/*/bench_*) and the Triton
    corpus generator with the programs it runs on a machine with Triton and
    PyTorch (scripts/triton-corpus.sh, tests/corpus/triton/*.py; and the
    real-Triton check, scripts/triton-real.sh, tests/triton/real_triton_check.py,
    tests/triton/real/; CI checks their committed output)."""
    base = os.path.basename(path)
    return (base.startswith("bench") or
            base in ("triton-corpus.sh", "triton-real.sh", "real_triton_check.py") or
            os.sep + os.path.join("tests", "corpus", "triton") + os.sep in path or
            os.sep + os.path.join("tests", "triton", "real") + os.sep in path)


# ---- CMake: the values of the build's variables ----------------------------

# What the generator itself runs, named by no project file.
_IMPLICIT_VARS = {"CMAKE_C_COMPILER", "CMAKE_CXX_COMPILER", "CMAKE_AR", "CMAKE_RANLIB",
                  "CMAKE_LINKER", "CMAKE_MAKE_PROGRAM", "CMAKE_COMMAND", "CMAKE_CTEST_COMMAND",
                  "PKG_CONFIG_EXECUTABLE"}  # pkg_check_modules runs the last


def cmake_vars(needs, vars_file, src, skip_dirs):
    """vars_file: NAME=VALUE lines (tests/deps/CMakeLists.txt writes them).
    Kept: the variables the project's CMake files use (${NAME}), and the
    toolchain the generator runs; CMake's own modules find more programs
    (CTest's git, valgrind, ...) that nothing here runs."""
    used = set(_IMPLICIT_VARS)
    for f in project_files(src, CMAKE_FILES):
        used |= set(re.findall(r"\$(?:CACHE)?\{(\w+)\}", _read(f)))
    for line in _read(vars_file).splitlines():
        name, _, value = line.partition("=")
        if name not in used:
            continue
        for item in value.split(";"):
            item = item.strip()
            if not item.startswith("/") or not os.path.isfile(item):
                continue
            if any(item.startswith(d.rstrip("/") + "/") for d in skip_dirs):
                continue
            needs.add(item, "CMake variable %s" % name)


# ---- clang's HIP driver: clang++ -### --------------------------------------

def driver_jobs(needs, clangxx, flags, skip_dirs, work):
    """Run clang++ -### for a HIP compile with the build's flags; every job's
    program and every existing file among the job arguments is needed."""
    src = os.path.join(work, "deps_probe.hip")
    with open(src, "w") as f:
        f.write("__global__ void deps_probe() {}\n")
    cmd = [clangxx, "-###"] + flags + ["-c", src, "-o", os.path.join(work, "deps_probe.o")]
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    why = "%s -### (HIP compile with the build's flags)" % os.path.basename(clangxx)
    jobs = [l for l in p.stdout.splitlines() if l.startswith(' "')]
    if p.returncode != 0 or not jobs:
        raise RuntimeError("%s failed (exit %d):\n%s" % (" ".join(cmd), p.returncode, p.stdout))
    for line in jobs:
        args = shlex.split(line)
        needs.add(args[0], why + ": runs %s" % os.path.basename(args[0]))
        for a in args[1:]:
            path = a.split("=", 1)[1] if a.startswith("-") and "=" in a else a
            if (path.startswith("/") and os.path.isfile(path) and
                    not any(path.startswith(d.rstrip("/") + "/") for d in skip_dirs)):
                needs.add(path, why + ": reads it")
            elif (path.startswith("/") and os.path.islink(path) and
                  os.path.isfile(os.path.realpath(path))):
                # the compat dir's links to Debian's device-library bitcode
                needs.add(os.path.realpath(path), why + ": reads it (through %s)" % path)
    return len(jobs)


# ---- names of LLVM programs mentioned anywhere in the build and tests -------

_WORD = re.compile(r"(?<![\w.+-])([A-Za-z][\w.+-]*[\w+])")


def llvm_tools(needs, src, bindir):
    """Every word of the CMake files, scripts and tests that names a program in
    bindir. A word that names one in no installed bindir is not seen at all:
    for those, the other gatherers (driver jobs, shell and Python calls) speak."""
    names = set(os.listdir(bindir))
    # words that name LLVM programs but are ordinary English in comments
    names -= {"count", "not", "lit", "opt"}
    files = project_files(src, CMAKE_FILES + SHELL_FILES + PYTHON_FILES)
    this_dir = os.path.dirname(os.path.abspath(__file__))
    for f in files:
        if os.path.dirname(os.path.abspath(f)) == this_dir:
            continue  # this checker's own files name tools as examples
        for word in set(_WORD.findall(_read(f))):
            if word in names:
                needs.add(os.path.join(bindir, word), "%s names %s" % (rel(src, f), word))


# ---- shell scripts: the first word of each command --------------------------

_SKIP_PREFIX = {"exec", "command", "nice", "sudo", "$SUDO", "time", "!", "then", "do", "else",
                "elif", "if", "while", "until", "{", "}", "in", "env"}


_HEREDOC = re.compile(r"<<-?[ \t]*(['\"]?)(\w+)\1([^\n]*\n)(.*?\n)?[ \t]*\2[ \t]*$", re.S | re.M)


def _shell_words(text):
    """The first word of every simple command of a shell script (a light
    reading: here-documents and ${...} expansions are blanked first, array
    assignments are skipped)."""
    text = text.replace("\\\n", " ")
    text = _HEREDOC.sub(lambda m: "<< X" + m.group(3), text)
    text = re.sub(r"\$\{[^{}]*\}", "$V", text)
    lex = shlex.shlex(text, posix=True, punctuation_chars=";&|()<>\n")
    lex.whitespace = " \t\r"
    lex.whitespace_split = True
    lex.commenters = "#"
    start = True
    prev = ""
    in_array = False
    try:
        for tok in lex:
            tok_prev, prev = prev, tok
            punct = bool(tok) and set(tok) <= set(";&|()<>\n")
            if in_array:
                in_array = not (punct and ")" in tok)
                continue
            if punct and tok.startswith("(") and tok_prev.endswith("="):
                in_array = ")" not in tok
                continue
            if punct:
                start = not (set(tok) & set("<>"))  # a redirection's target follows
                continue
            if start:
                if re.match(r"^[A-Za-z_]\w*\+?=", tok) or tok in _SKIP_PREFIX:
                    continue
                start = False
                yield tok
    except ValueError:  # an unbalanced quote the shell would read differently
        return


def shell_commands(needs, src):
    for f in project_files(src, SHELL_FILES):
        text = _read(f)
        funcs = set(re.findall(r"^\s*([A-Za-z_][\w-]*)\s*\(\)", text, re.M))
        words = set()
        for w in _shell_words(text):
            if (w in funcs or "$" in w or "`" in w or w.startswith("-") or
                    not re.match(r"^[\w./+-]+$", w) or ("/" in w and not w.startswith("/"))):
                continue
            words.add(w)
        opt = is_bench(f)
        for w, path in _resolve_words(sorted(words)):
            if path:
                needs.add(path, "%s runs %s" % (rel(src, f), w), optional=opt)
            elif not opt:
                needs.miss(w, "%s runs %s" % (rel(src, f), w))


_BASH_WORDS = None


def _resolve_words(words):
    """(word, path or None) for the words bash would run as programs; its
    builtins and keywords are dropped."""
    global _BASH_WORDS
    if _BASH_WORDS is None:
        out = subprocess.run(["bash", "-c", "compgen -b; compgen -k"], stdout=subprocess.PIPE,
                             text=True).stdout
        _BASH_WORDS = set(out.split())
    return [(w, shutil.which(w)) for w in words if w not in _BASH_WORDS]


# ---- CMake: literal COMMAND words (the resolved ones are in cmake_vars) ------

def cmake_commands(needs, src, targets):
    """targets: the project's own target names (a COMMAND naming one runs
    what the build made)."""
    for f in project_files(src, CMAKE_FILES):
        text = _read(f)
        text = re.sub(r"#[^\n]*", "", text)
        words = set(re.findall(r"\bCOMMAND\s+([A-Za-z][\w.+-]*)(?=\s)", text)) - targets
        for w, path in _resolve_words(sorted(words)):
            if path:
                needs.add(path, "%s: COMMAND %s" % (rel(src, f), w))
            else:
                needs.miss(w, "%s: COMMAND %s" % (rel(src, f), w))


# ---- Python tests: subprocess calls, which(), ctypes, imports ---------------

_RUNNERS = {"run", "Popen", "call", "check_call", "check_output"}


def _call_name(node):
    f = node.func
    return f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", "")


_TREES = {}


def _tree(f):
    if f not in _TREES:
        try:
            _TREES[f] = ast.parse(_read(f), f)
        except SyntaxError as e:
            raise RuntimeError("%s: %s" % (f, e))
    return _TREES[f]


def python_calls(needs, src):
    for f in project_files(src, PYTHON_FILES):
        tree = _tree(f)
        lits, optional, libs = set(), set(), set()
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call) or not node.args:
                continue
            a0, name = node.args[0], _call_name(node)
            if name in _RUNNERS and isinstance(a0, ast.List) and a0.elts:
                e = a0.elts[0]
                if isinstance(e, ast.Constant) and isinstance(e.value, str):
                    lits.add(e.value)
            elif name == "which" and isinstance(a0, ast.Constant):
                optional.add(a0.value)
            elif (name in ("CDLL", "LoadLibrary", "PyDLL") and isinstance(a0, ast.Constant)
                  and isinstance(a0.value, str)):
                libs.add(a0.value)  # CDLL(None): the process's own symbols, no file
        opt = is_bench(f)
        for w, path in _resolve_words(sorted(lits)):
            if path:
                needs.add(path, "%s runs %s" % (rel(src, f), w), optional=opt)
            elif not opt:
                needs.miss(w, "%s runs %s" % (rel(src, f), w))
        for w in sorted(optional):
            path = shutil.which(w)
            if path:
                needs.add(path, "%s uses %s when present" % (rel(src, f), w), optional=True)
        for lib in sorted(libs):
            path = soname_path(lib)
            if path:
                needs.add(path, "%s opens %s (ctypes)" % (rel(src, f), lib))
            else:
                needs.miss(lib, "%s opens %s (ctypes)" % (rel(src, f), lib))


def _local_modules(src):
    """Module names the project itself provides: every .py file's stem and
    every directory under tests/ and scripts/."""
    names = set()
    for f in project_files(src, PYTHON_FILES):
        names.add(os.path.splitext(os.path.basename(f))[0])
    for d in glob.glob(os.path.join(src, "tests", "**", ""), recursive=True):
        names.add(os.path.basename(os.path.dirname(d)))
    # the project's own packages (python/kwalk_triton)
    for d in glob.glob(os.path.join(src, "python", "*", "__init__.py")):
        names.add(os.path.basename(os.path.dirname(d)))
    return names


def imported_modules(src):
    """module -> [file, ...]: top-level modules the Python files import that
    are neither in the standard library nor the project's own."""
    local = _local_modules(src)
    mods = {}
    for f in project_files(src, PYTHON_FILES):
        if is_bench(f):
            continue
        for node in ast.walk(_tree(f)):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            for n in names:
                top = n.split(".")[0]
                if top not in sys.stdlib_module_names and top not in local:
                    mods.setdefault(top, set()).add(rel(src, f))
    return mods


_FIND = ("import importlib.util, sys\n"
         "for m in sys.argv[1:]:\n"
         "    try:\n"
         "        s = importlib.util.find_spec(m)\n"
         "    except Exception:\n"
         "        s = None\n"
         "    o = s and (s.origin if s.has_location else None)\n"
         "    print(m + '\\t' + (o or ''))\n")


def python_modules(needs, src, pythons, debian_python):
    """Each module's file as each interpreter the tests run with finds it, and
    as Debian's python3 finds it (a fresh machine's; a pyenv or venv python on
    this one may have its own copy)."""
    mods = imported_modules(src)
    if not mods:
        return
    for py in list(dict.fromkeys(pythons + [debian_python])):
        if not py or not os.path.exists(py):
            continue
        out = subprocess.run([py, "-c", _FIND] + sorted(mods), stdout=subprocess.PIPE,
                             text=True).stdout
        for line in out.splitlines():
            m, _, origin = line.partition("\t")
            why = "import %s (%s), as %s finds it" % (m, ", ".join(sorted(mods[m])), py)
            if origin:
                needs.add(origin, why)
            elif py == debian_python:
                needs.python_missing.setdefault(m, set()).add(why)


# ---- shared libraries -------------------------------------------------------

def soname_path(name):
    if name.startswith("/"):
        return name if os.path.exists(name) else None
    out = subprocess.run(["ldconfig", "-p"], stdout=subprocess.PIPE, text=True).stdout
    for line in out.splitlines():
        m = re.match(r"\s*(\S+) \((.*)\) => (\S+)", line)
        if m and m.group(1) == name and "x86-64" in m.group(2):
            return m.group(3)
    return None


def libraries(needs, binaries, src):
    for b in binaries:
        p = subprocess.run(["ldd", b], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           text=True)
        for line in p.stdout.splitlines():
            m = re.match(r"\s*(\S+) => (not found|\S+)", line)
            if m and m.group(2) == "not found":
                needs.miss(m.group(1), "%s links it (ldd)" % os.path.basename(b))
            elif m:
                needs.add(m.group(2), "%s links it (ldd)" % os.path.basename(b))
            m = re.match(r"\s*(/\S+) \(0x", line)
            if m:
                needs.add(m.group(1), "%s: its program interpreter" % os.path.basename(b))
    for f in project_files(src, ["common/*.c", "sidecar/*.c", "codeobj/*.c", "passes/*.c", "index/*.c",
                                   "model/*.c", "trace/*.c", "render/*.c", "cli/*.c"]):
        for lib in set(re.findall(r'dlopen\("([^"]+)"', _read(f))):
            path = soname_path(lib)
            if path:
                needs.add(path, "%s dlopens %s" % (rel(src, f), lib))
            else:
                needs.miss(lib, "%s dlopens %s" % (rel(src, f), lib))


# ---- headers ----------------------------------------------------------------

def ninja_headers(needs, build, skip_dirs):
    """The files every compile of the C/C++ build read (ninja's deps log)."""
    if not os.path.exists(os.path.join(build, "build.ninja")):
        return False
    out = subprocess.run(["ninja", "-C", build, "-t", "deps"], stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, text=True).stdout
    for line in out.splitlines():
        path = line.strip()
        if line.startswith("    ") and path.startswith("/") and not any(
                path.startswith(d.rstrip("/") + "/") for d in skip_dirs):
            needs.add(path, "the C/C++ build includes it (ninja -t deps)")
    return True


def corpus_headers(needs, clangxx, flags, sources, skip_dirs):
    """Headers of the corpus TUs, host and device side (clang++ -M)."""
    for s in sources:
        for side in ("--cuda-host-only", "--cuda-device-only"):
            cmd = [clangxx] + flags + [side, "-M", s]
            p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            if p.returncode != 0:
                raise RuntimeError("%s failed:\n%s" % (" ".join(cmd), p.stderr))
            for path in p.stdout.replace("\\\n", " ").split()[1:]:
                if path.startswith("/") and not any(
                        path.startswith(d.rstrip("/") + "/") for d in skip_dirs):
                    needs.add(os.path.normpath(path),
                              "the corpus includes it (%s)" % os.path.basename(s))
