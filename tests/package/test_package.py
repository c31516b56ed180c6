"""test_package.py: the installed kwalk CMake package, used by a separate project.

1. `cmake --install BUILD --prefix T/prefix`: the plugin, the command, the
   env script, the annotation data and lib/cmake/kwalk/kwalkConfig(.Version).cmake
   land where documented; the installed kwalk runs.
2. tests/package/project (find_package(kwalk) + kwalk_document(tinyaxpy)) is
   configured against that prefix and built: its sidecar must appear in
   <build>/kwalk/tinyaxpy/ with the kernel instantiation and the launch line,
   and the tinyaxpy_walkthroughs target (part of ALL) must have rendered the
   walkthroughs into <build>/kwalk/tinyaxpy/walkthroughs/.
3. The prefix moved elsewhere still configures, with the plugin path inside it.

The project is compiled the way this machine can: --language CXX (clang++
with -x hip and the HIP compat flags of this build) on Debian's ROCm 5.2;
--language HIP (CMake's HIP language) under a ROCm install.

Exit 0 when all checks hold, 1 otherwise, 77 when it cannot run.
"""
import argparse
import glob
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from kwcheck import Checker  # noqa: E402
from kwrun import run  # noqa: E402
import kwzstd  # noqa: E402

try:
    import yaml
except ImportError:  # pragma: no cover
    print("test_package: PyYAML is missing (Debian: python3-yaml)")
    sys.exit(77)

HERE = os.path.dirname(os.path.abspath(__file__))
PROJECT = os.path.join(HERE, "project")


def marker_line(path, marker):
    with open(path) as f:
        for i, line in enumerate(f, 1):
            if marker in line:
                return i
    return None


def configure(args, src, build, prefix):
    cmd = [args.cmake, "-S", src, "-B", build, "-DCMAKE_PREFIX_PATH=" + prefix,
           "-DKWALK_TEST_LANGUAGE=" + args.language, "-DKWALK_TEST_ARCHS=" + args.arch,
           "-DCMAKE_BUILD_TYPE=Release"]
    if shutil.which("ninja"):
        cmd += ["-G", "Ninja"]
    if args.rsp and os.path.getsize(args.rsp) > 0:
        cmd.append("-DKWALK_TEST_HIP_FLAGS=@" + os.path.abspath(args.rsp))
    if args.language == "CXX":
        cmd.append("-DCMAKE_CXX_COMPILER=" + args.clangxx)
    else:
        cmd.append("-DCMAKE_HIP_COMPILER=" + args.clangxx)
    return run(cmd, merge=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build-dir", required=True, help="the kwalk build to install")
    ap.add_argument("--cmake", default="cmake")
    ap.add_argument("--clangxx", required=True, help="the clang++ the plugin was built for")
    ap.add_argument("--rsp", default="", help="HIP compat response file (empty: none)")
    ap.add_argument("--arch", default="gfx942")
    ap.add_argument("--language", default="CXX", choices=["CXX", "HIP"])
    ap.add_argument("--keep", action="store_true")
    args = ap.parse_args()
    c = Checker()
    tmp = tempfile.mkdtemp(prefix="kwalk-package-test-")
    try:
        prefix = os.path.join(tmp, "prefix")
        # 1. Install.
        p = run([args.cmake, "--install", args.build_dir, "--prefix", prefix], merge=True)
        if not c.check(p.returncode == 0, "cmake --install: rc %d\n%s" % (p.returncode, p.stdout)):
            c.finish()
        for rel in ["bin/kwalk", "bin/kwalk-env.sh", "lib/kwalk/libkwalk.so",
                    "lib/cmake/kwalk/kwalkConfig.cmake", "lib/cmake/kwalk/kwalkConfigVersion.cmake",
                    "lib/cmake/kwalk/kwalkWalkthroughs.cmake",
                    "share/kwalk/annotations/hw/amdgpu-peaks.txt",
                    "share/kwalk/annotations/hw/amdgpu-occupancy.txt",
                    "share/kwalk/annotations/entrypoints/aiter.txt"]:
            c.check(os.path.isfile(os.path.join(prefix, rel)), "installed: %s" % rel)
        # libkwalk.so loads the real plugin from beside it
        real = glob.glob(os.path.join(prefix, "lib", "kwalk", "libkwalk-clang*.so"))
        c.check(len(real) == 1, "installed: one lib/kwalk/libkwalk-clangNN.so, got %r" % real)
        for rel in ["bin/kwalk", "bin/kwalk-env.sh"]:
            c.check(os.access(os.path.join(prefix, rel), os.X_OK), "executable: %s" % rel)
        p = run([os.path.join(prefix, "bin", "kwalk"), "--version"], merge=True)
        c.check(p.returncode == 0 and p.stdout.startswith("kwalk "),
                "installed kwalk --version: rc %d %r" % (p.returncode, p.stdout))
        # the Triton hook: installed, and started by KWALK_TRITON_DIR alone once its
        # directory is on PYTHONPATH (importing nothing of Triton's)
        pydir = os.path.join(prefix, "share", "kwalk", "python")
        for rel in ["sitecustomize.py", "kwalk_triton/__init__.py", "kwalk_triton/_capture.py"]:
            c.check(os.path.isfile(os.path.join(pydir, rel)), "installed: share/kwalk/python/%s" % rel)
        env = dict(os.environ, PYTHONPATH=pydir, KWALK_TRITON_DIR=os.path.join(tmp, "triton-sidecars"))
        p = subprocess.run([sys.executable, "-c", "import sys, kwalk_triton; "
                            "print(kwalk_triton.__file__, 'triton' in sys.modules)"],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True, env=env)
        c.check(p.returncode == 0 and p.stderr == "" and p.stdout.startswith(pydir) and p.stdout.endswith(" False\n"),
                "installed kwalk_triton: %r %r" % (p.stdout, p.stderr))
        # the installed env script finds the installed plugin by itself
        env = dict(os.environ)
        env.pop("KWALK_PLUGIN", None)
        env["PATH"] = "/usr/bin:/bin"
        p = subprocess.run([os.path.join(prefix, "bin", "kwalk-env.sh"), "--out", tmp],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           universal_newlines=True, env=env)
        c.check(p.returncode == 0 and "-fplugin=%s" % os.path.join(prefix, "lib", "kwalk",
                                                                  "libkwalk.so") in p.stdout,
                "installed kwalk-env.sh: %r %r" % (p.stdout, p.stderr))

        # 2. A separate project against the package.
        build = os.path.join(tmp, "proj")
        p = configure(args, PROJECT, build, prefix)
        if not c.check(p.returncode == 0, "configure the project: rc %d\n%s"
                       % (p.returncode, p.stdout[-4000:])):
            c.finish()
        p = run([args.cmake, "--build", build], merge=True)
        c.check(p.returncode == 0, "build the project: rc %d\n%s" % (p.returncode, p.stdout[-4000:]))
        c.check("kwalk: warning" not in p.stdout, "the plugin warned:\n%s" % p.stdout[-4000:])
        out = os.path.join(build, "kwalk", "tinyaxpy")
        sidecars = glob.glob(os.path.join(out, "*.kwalk.yaml.zst"))  # the default form
        if c.check(len(sidecars) == 1, "sidecars in %s: %r" % (out, sidecars)):
            doc = yaml.safe_load(kwzstd.read_text(sidecars[0]))
            names = [k.get("name") for k in doc.get("kernels") or []]
            c.check(names == ["axpy_kernel<float, 256>"], "sidecar kernels: %r" % names)
            launches = doc.get("launches") or []
            want = marker_line(os.path.join(PROJECT, "axpy.hip"), "KW:LAUNCH axpy")
            got = [(os.path.basename(l["location"]["file"]), l["location"]["line"])
                   for l in launches if l.get("location")]
            c.check(got == [("axpy.hip", want)], "sidecar launches: %r, want axpy.hip:%s"
                    % (got, want))
            archs = sorted((doc["kernels"][0].get("archs") or {}).keys()) if names else []
            c.check(archs == [args.arch], "archs %r" % archs)
        wt = os.path.join(out, "walkthroughs")
        c.check(os.path.isfile(os.path.join(out, "kwalk.db")), "kwalk.db in %s" % out)
        c.check(os.path.isfile(os.path.join(wt, "index.md")), "walkthroughs/index.md")
        pages = [pg for pg in glob.glob(os.path.join(wt, "*.md"))
                 if os.path.basename(pg) != "index.md"]
        if c.check(len(pages) == 1, "walkthrough pages: %r" % pages):
            with open(pages[0]) as f:
                text = f.read()
            c.check("axpy_kernel<float, 256>" in text, "the page names the instantiation")
            want = marker_line(os.path.join(PROJECT, "axpy.hip"), "KW:LAUNCH axpy")
            c.check("axpy.hip:%d" % want in text, "the page names the launch axpy.hip:%d" % want)
        # A second build: nothing to compile, walkthroughs rendered again.
        p = run([args.cmake, "--build", build], merge=True)
        c.check(p.returncode == 0, "rebuild: rc %d\n%s" % (p.returncode, p.stdout[-2000:]))

        # 3. A moved prefix: the package is relocatable.
        moved = os.path.join(tmp, "moved")
        shutil.move(prefix, moved)
        build2 = os.path.join(tmp, "proj2")
        p = configure(args, PROJECT, build2, moved)
        c.check(p.returncode == 0, "configure against the moved prefix: rc %d\n%s"
                % (p.returncode, p.stdout[-3000:]))
        flags = ""
        for name in ("build.ninja", "CMakeFiles/tinyaxpy.dir/flags.make"):
            path = os.path.join(build2, name)
            if os.path.isfile(path):
                with open(path) as f:
                    flags += f.read()
        c.check("-fplugin=%s" % os.path.join(moved, "lib", "kwalk", "libkwalk.so") in flags,
                "moved prefix: the compile flags name the moved plugin")
    finally:
        if args.keep:
            print("kept %s" % tmp)
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    c.finish()


if __name__ == "__main__":
    main()
