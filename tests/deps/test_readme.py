#!/usr/bin/env python3
"""test_readme.py: readme.commands. The README's commands work as written:

  - every `kwalk SUBCOMMAND ...` line of its code blocks names a subcommand
    that `kwalk --help` lists, and every option on it appears in
    `kwalk SUBCOMMAND --help`;
  - every `scripts/X.sh ...` it shows exists, and every option given to
    scripts/kwalk-env.sh appears in `kwalk-env.sh --help`;
  - the code block that compiles with -fplugin= is run line by line with
    bash from the source directory (with `build/` read as this build's
    directory, the clang++ as this build's and the --offload-arch flags as
    this build's arches): each line must exit 0, the sidecar it promises must
    exist, and the walkthrough must be about the kernel it names.

  test_readme.py --readme README.md --source-dir DIR --build-dir DIR
                 --kwalk KWALK --clangxx CLANGXX --arches gfx942,gfx950
"""
import argparse
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from kwrun import run  # noqa: E402


def code_blocks(text):
    """The README's code blocks: indented by 4 spaces, or fenced."""
    blocks, cur, fenced = [], [], False
    for line in text.splitlines():
        if line.startswith("```"):
            if fenced:
                blocks.append(cur)
                cur = []
            fenced = not fenced
            continue
        if fenced or line.startswith("    "):
            cur.append(line[0 if fenced else 4:])
        elif line.strip() == "" and cur and not fenced:
            cur.append("")
        elif cur:
            blocks.append(cur)
            cur = []
    if cur:
        blocks.append(cur)
    return blocks


def logical_lines(block):
    """Lines with backslash continuations joined, comments and blanks dropped."""
    out, acc = [], ""
    for l in block:
        if l.rstrip().endswith("\\"):
            acc += l.rstrip()[:-1] + " "
            continue
        acc += l
        s = acc.split("  #", 1)[0].strip() if not acc.lstrip().startswith("#") else ""
        if s:
            out.append(s)
        acc = ""
    return out


def options_of(words):
    """The option names among words: --opt, --opt=..., -o."""
    words = [w.strip("[]") for w in words]
    return [w.split("=", 1)[0] for w in words if re.match(r"^--?[A-Za-z]", w)]


def check_kwalk_lines(bad, lines, kwalk):
    top = run([kwalk, "--help"]).stdout
    subs = set(re.findall(r"^[ \t]+kwalk (\w+)", top, re.M))
    if not subs:
        bad.append("`kwalk --help` lists no commands:\n" + top)
    seen = 0
    for line in lines:
        for cmd in re.split(r"\s*(?:&&|;|\|)\s*", line):
            words = cmd.split()
            if not words or not (words[0] == "kwalk" or words[0].endswith("/kwalk")):
                continue
            if len(words) < 2:
                continue
            seen += 1
            sub = words[1]
            if sub not in subs:
                bad.append("README: `%s`: kwalk has no command '%s' (kwalk --help: %s)" %
                           (cmd, sub, " ".join(sorted(subs))))
                continue
            helptext = run([kwalk, sub, "--help"]).stdout
            for opt in options_of(words[2:]):
                if not re.search(r"(?<![\w-])%s(?![\w-])" % re.escape(opt), helptext):
                    bad.append("README: `%s`: `kwalk %s --help` does not know %s" %
                               (cmd, sub, opt))
    if seen < 6:
        bad.append("README: only %d kwalk command lines found (the README's synopsis lists "
                   "every command)" % seen)


def check_scripts(bad, lines, src):
    env_help = run(["bash", os.path.join(src, "scripts", "kwalk-env.sh"), "--help"]).stdout
    for line in lines:
        for m in re.finditer(r"(?<![\w/.-])(scripts/[\w.-]+\.sh)([^\"$)&;|]*)", line):
            script, rest = m.group(1), m.group(2)
            if not os.path.isfile(os.path.join(src, script)):
                bad.append("README: `%s`: no such script" % line)
            elif script.endswith("kwalk-env.sh"):
                for opt in options_of(rest.split()):
                    if opt not in env_help:
                        bad.append("README: `%s`: kwalk-env.sh --help does not know %s" %
                                   (line, opt))


def adapt(line, a):
    """A README line as this build runs it."""
    line = re.sub(r"(?<![\w/.-])build/", a.build_dir.rstrip("/") + "/", line)
    line = re.sub(r"(?<![\w/.-])/usr/lib/llvm-\d+/bin/clang\+\+", a.clangxx, line)
    archs = " ".join("--offload-arch=" + x for x in a.arches.split(","))
    line = re.sub(r"(?:--offload-arch=\S+\s*)+", archs + " ", line)
    return line


def run_compile_block(bad, blocks, a):
    block = next((b for b in blocks if any("-fplugin=" in l for l in b)), None)
    if block is None:
        bad.append("README: no code block compiles with -fplugin=")
        return
    text = "\n".join(block)
    sidecar = re.search(r"->\s*(\S+\.kwalk\.yaml(?:\.zst)?)", text)
    kernel = re.search(r"kwalk render (?:--db \S+ )?'([^']+)'", text)
    if not sidecar or not kernel:
        bad.append("README: the -fplugin= block names no sidecar (# -> X.kwalk.yaml.zst) or no "
                   "quoted kernel for kwalk render")
        return
    sidecar = adapt(sidecar.group(1), a)
    if os.path.exists(sidecar):
        os.remove(sidecar)
    out = ""
    for line in logical_lines(block):
        cmd = adapt(line, a)
        p = run(["bash", "-c", "set -e; " + cmd], cwd=a.source_dir)
        if p.returncode != 0:
            bad.append("README line fails (exit %d): %s\n  as run: %s\n%s" %
                       (p.returncode, line, cmd, p.stderr))
            return
        if "kwalk: warning" in p.stderr:
            bad.append("README line warns: %s\n%s" % (line, p.stderr))
        out += p.stdout
    if not os.path.isfile(sidecar):
        bad.append("README: the compile did not write %s" % sidecar)
    # the walkthrough's title names the kernel (template arguments as given)
    name = kernel.group(1)
    if not re.search(r"^#.*%s" % re.escape(name.replace(" ", "")).replace(",", ",\\s*"),
                     out, re.M):
        bad.append("README: the walkthrough printed has no title naming %s:\n%s" %
                   (name, out[:400]))


def main():
    ap = argparse.ArgumentParser()
    for o in ("--readme", "--source-dir", "--build-dir", "--kwalk", "--clangxx", "--arches"):
        ap.add_argument(o, required=True)
    a = ap.parse_args()
    with open(a.readme, encoding="utf-8") as f:
        blocks = code_blocks(f.read())
    lines = [l for b in blocks for l in logical_lines(b)]
    bad = []
    check_kwalk_lines(bad, lines, a.kwalk)
    check_scripts(bad, lines, a.source_dir)
    run_compile_block(bad, blocks, a)
    for b in bad:
        print("readme.commands: FAIL: " + b)
    if not bad:
        print("readme.commands: ok (%d code blocks, %d command lines)" % (len(blocks), len(lines)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
