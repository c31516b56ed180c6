"""test_kwalk_env.py: scripts/kwalk-env.sh, the one command that makes
hipcc-driven builds (aiter's JIT) load the kwalk plugin.

A fake hipcc (fake-hipcc.sh: clang++ with the project's HIP compat flags, then
$HIPCC_COMPILE_FLAGS_APPEND appended, as hipcc does) compiles tiny.hip once
with the environment the script printed (eval) and once through `--exec`; each
time a sidecar must land in the chosen output directory, and tiny.hip only
compiles when the flags the variable held before are kept. Also: the printed
line, idempotence, the default directory, plugin discovery from an install
prefix, and the one-line errors.

Exit 0 when every check holds, 1 otherwise, 77 when it cannot run.
"""
import argparse
import glob
import os
import shlex
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from kwcheck import Checker  # noqa: E402
from kwrun import run  # noqa: E402
import kwzstd  # noqa: E402

try:
    import yaml
except ImportError:  # pragma: no cover
    print("test_kwalk_env: PyYAML is missing (Debian: python3-yaml)")
    sys.exit(77)

HERE = os.path.dirname(os.path.abspath(__file__))
ARCH_FLAGS = "--offload-arch=gfx942"
PRIOR = "-DKWALK_ENV_KEPT=1 %s -O2" % ARCH_FLAGS


def base_env(args, prior=PRIOR):
    env = dict(os.environ)
    env.pop("KWALK_PLUGIN", None)
    env.pop("KWALK_OUT", None)
    env["HIPCC_COMPILE_FLAGS_APPEND"] = prior
    env["KWALK_TEST_CLANGXX"] = args.clangxx
    env["KWALK_TEST_RSP"] = args.rsp
    # no `kwalk` on PATH: discovery must not depend on the caller's PATH
    env["PATH"] = "/usr/bin:/bin"
    return env


def value_after_eval(script, script_args, env, cwd=None):
    """Evaluate the printed line in bash; returns (proc, value of the variable)."""
    cmd = 'eval "$(%s)" && printf "%%s" "$HIPCC_COMPILE_FLAGS_APPEND"' % " ".join(
        shlex.quote(a) for a in [script] + script_args)
    p = run(["bash", "-c", cmd], env=env, cwd=cwd)
    return p, p.stdout


def check_sidecar(c, outdir, what):
    found = glob.glob(os.path.join(outdir, "tiny.o.*.kwalk.yaml.zst"))  # the default form
    if not c.check(len(found) == 1, "%s: expected one tiny.o.<cuid>.kwalk.yaml.zst in %s, found %r"
                   % (what, outdir, os.listdir(outdir) if os.path.isdir(outdir) else None)):
        return
    doc = yaml.safe_load(kwzstd.read_text(found[0]))
    names = [k.get("name") for k in doc.get("kernels", [])]
    c.check(names == ["scale_kernel<float, 256>"], "%s: kernels %r" % (what, names))
    archs = sorted(doc["kernels"][0].get("archs", {}).keys()) if names else []
    c.check(archs == ["gfx942"], "%s: archs %r" % (what, archs))
    launches = doc.get("launches", [])
    c.check(len(launches) == 1 and launches[0].get("kernel_name") == "scale_kernel<float, 256>",
            "%s: launches %r" % (what, launches))
    if launches:
        loc = launches[0].get("location", {})
        with open(os.path.join(HERE, "src", "tiny.hip")) as f:
            want = [i + 1 for i, l in enumerate(f) if "<<<" in l]
        c.check(os.path.basename(loc.get("file", "")) == "tiny.hip" and [loc.get("line")] == want,
                "%s: launch location %r, want tiny.hip:%r" % (what, loc, want))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--source-dir", required=True)
    ap.add_argument("--clangxx", required=True)
    ap.add_argument("--rsp", required=True)
    ap.add_argument("--plugin", required=True)
    ap.add_argument("--keep", action="store_true")
    args = ap.parse_args()
    script = os.path.join(os.path.abspath(args.source_dir), "scripts", "kwalk-env.sh")
    hipcc = os.path.join(HERE, "fake-hipcc.sh")
    args.plugin = os.path.abspath(args.plugin)
    args.rsp = os.path.abspath(args.rsp)
    plugin = os.path.normpath(args.plugin)
    c = Checker()
    tmp = tempfile.mkdtemp(prefix="kwalk-env-test-")
    try:
        out1 = os.path.join(tmp, "out-eval")
        # 1. The printed line: one export, existing flags first, then the plugin's.
        p = run([script, "--plugin", args.plugin, "--out", out1], env=base_env(args))
        lines = p.stdout.splitlines()
        c.check(p.returncode == 0 and len(lines) == 1
                and lines[0].startswith("export HIPCC_COMPILE_FLAGS_APPEND="),
                "printed: rc %d, stdout %r, stderr %r" % (p.returncode, p.stdout, p.stderr))
        p, value = value_after_eval(script, ["--plugin", args.plugin, "--out", out1],
                                    base_env(args))
        want = PRIOR.split() + ["-fplugin=" + plugin, "-fplugin-arg-kwalk-out=" + out1]
        c.check(value.split() == want, "after eval: %r, want %r" % (value, want))
        c.check(os.path.isdir(out1), "the output directory is created")
        # 2. Idempotent: sourcing again replaces the kwalk flags, keeps the rest.
        p, again = value_after_eval(script, ["--plugin", args.plugin, "--out", out1],
                                    base_env(args, prior=value))
        c.check(again.split() == want, "twice: %r, want %r" % (again, want))

        # 3. A compile through the fake hipcc with the evaluated environment.
        objdir = os.path.join(tmp, "obj")
        os.makedirs(objdir)
        cmd = 'eval "$(%s --plugin %s --out %s)" && %s -c %s -o %s' % (
            shlex.quote(script), shlex.quote(args.plugin), shlex.quote(out1), shlex.quote(hipcc),
            shlex.quote(os.path.join(HERE, "src", "tiny.hip")), shlex.quote(os.path.join(objdir, "tiny.o")))
        p = run(["bash", "-c", cmd], env=base_env(args))
        c.check(p.returncode == 0, "compile (eval): rc %d: %s" % (p.returncode, p.stderr[-2000:]))
        c.check("kwalk: warning" not in p.stderr, "compile (eval): plugin warned: %s" % p.stderr)
        c.check(os.path.isfile(os.path.join(objdir, "tiny.o")), "compile (eval): no object")
        check_sidecar(c, out1, "eval")

        # 4. The same through --exec, into another directory.
        out2 = os.path.join(tmp, "out-exec")
        p = run([script, "--plugin", args.plugin, "--out", out2, "--exec", hipcc, "-c",
                 os.path.join(HERE, "src", "tiny.hip"), "-o", os.path.join(objdir, "tiny.o")],
                env=base_env(args))
        c.check(p.returncode == 0, "compile (--exec): rc %d: %s" % (p.returncode, p.stderr[-2000:]))
        check_sidecar(c, out2, "--exec")

        # 5. Default directory: $PWD/kwalk-sidecars.
        cwd = os.path.join(tmp, "cwd")
        os.makedirs(cwd)
        p, value = value_after_eval(script, ["--plugin", args.plugin], base_env(args), cwd=cwd)
        c.check(p.returncode == 0 and value.split()[-1] == "-fplugin-arg-kwalk-out=" + os.path.join(
            cwd, "kwalk-sidecars"), "default out dir: %r (stderr %r)" % (value, p.stderr))

        # 6. Discovery from an install prefix (<prefix>/bin/kwalk-env.sh ->
        #    <prefix>/lib/kwalk/libkwalk.so), no --plugin, no KWALK_PLUGIN.
        prefix = os.path.join(tmp, "prefix")
        os.makedirs(os.path.join(prefix, "bin"))
        os.makedirs(os.path.join(prefix, "lib", "kwalk"))
        shutil.copy(script, os.path.join(prefix, "bin", "kwalk-env.sh"))
        os.symlink(plugin, os.path.join(prefix, "lib", "kwalk", "libkwalk.so"))
        p, value = value_after_eval(os.path.join(prefix, "bin", "kwalk-env.sh"),
                                    ["--out", out1], base_env(args))
        c.check("-fplugin=%s" % os.path.join(prefix, "lib", "kwalk", "libkwalk.so") in value.split(),
                "discovery from the prefix: %r (stderr %r)" % (value, p.stderr))
        env = base_env(args)
        env["KWALK_PLUGIN"] = args.plugin
        p, value = value_after_eval(script, ["--out", out1], env)
        c.check("-fplugin=" + plugin in value.split(), "KWALK_PLUGIN: %r" % value)

        # 7. Errors: one line, exit 1.
        lone = os.path.join(tmp, "lone")
        os.makedirs(lone)
        shutil.copy(script, os.path.join(lone, "kwalk-env.sh"))
        for what, cmd in [
            ("missing plugin", [script, "--plugin", os.path.join(tmp, "nope.so")]),
            ("not found", [os.path.join(lone, "kwalk-env.sh")]),
            ("blank in path", [script, "--plugin", args.plugin, "--out", os.path.join(tmp, "a b")]),
            ("unknown option", [script, "--bogus"]),
            ("--exec without a command", [script, "--plugin", args.plugin, "--exec"]),
        ]:
            p = run(cmd, env=base_env(args))
            err = p.stderr.strip().splitlines()
            c.check(p.returncode == 1 and p.stdout == "" and len(err) == 1
                    and err[0].startswith("kwalk-env: "),
                    "%s: rc %d, stdout %r, stderr %r" % (what, p.returncode, p.stdout, p.stderr))
    finally:
        if args.keep:
            print("kept %s" % tmp)
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    c.finish()


if __name__ == "__main__":
    main()
