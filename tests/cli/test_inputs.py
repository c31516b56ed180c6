#!/usr/bin/env python3
"""test_inputs.py: what the kwalk command does with inputs that are not the
files it expects (issue 11, part 4), through the real binary.

Every file kwalk reads goes through one checked reader (common/kw_fs.h):
only regular files, opened without blocking (a FIFO must not hang it), with
a size limit per kind of file (64 MiB sources/Python/annotations, 1 GiB
sidecars/indexes/traces, 4 GiB code objects, which are mapped rather than
read whole). Each case runs with a timeout (a hang is a failure) and bounded
memory: RLIMIT_AS (or, under AddressSanitizer, which reserves terabytes of
address space, ASan's hard_rss_limit_mb) so that an unbounded read fails, and
the child's peak RSS (wait4) checked against a bound far below the file's
size. Errors are exactly one 'kwalk: ...' line on stderr with exit status 1.

Also: a dangling *.kwalk.yaml symbolic link (and a FIFO by that name) in a
directory given to `kwalk index` is skipped with one warning line;
`kwalk trace` refuses a workgroup size of 0, naming the row; a foreign
binary given as --db is "FILE: not a kwalk index".

Sizes in the expected messages come from os.stat of the files the test
made; row numbers from the rows the test wrote.

usage: test_inputs.py KWALK
"""
import json
import os
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from kwcheck import Checker  # noqa: E402
from kwmd import md_plain  # noqa: E402

KWALK = os.path.abspath(sys.argv[1])
TMP = None  # the test's directory (main)
MiB, GiB = 1 << 20, 1 << 30
RSS_BOUND = 256 * MiB  # peak RSS allowed to any run (kwalk itself needs a few MiB)
AS_LIMIT = 1 * GiB  # address space (plain builds): a whole-file read of >= 1 GiB fails
TIMEOUT = 30  # seconds; the cases take well under one
C = Checker("cli.inputs")
check = C.check


def sanitized():
    """Whether kwalk is built with AddressSanitizer (its runtime's symbols)."""
    with open(KWALK, "rb") as f:
        return b"__asan_init" in f.read()


ASAN = sanitized()


def kwalk_run(args, env=None, limit_as=True, cwd=None):
    cwd = cwd or TMP
    """Run kwalk ARGS; returns (rc, stdout, stderr, peak RSS in bytes, timed out)."""
    e = dict(os.environ if env is None else env)
    # two threads: each has a stack and may get a malloc arena (64 MiB of
    # address space), which on a many-core machine would eat into RLIMIT_AS
    e["KWALK_JOBS"] = "2"
    if ASAN:
        e["ASAN_OPTIONS"] = (e.get("ASAN_OPTIONS", "") + ":hard_rss_limit_mb=%d"
                             % (RSS_BOUND // MiB)).lstrip(":")

    def limits():
        if limit_as and not ASAN:
            resource.setrlimit(resource.RLIMIT_AS, (AS_LIMIT, AS_LIMIT))

    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        p = subprocess.Popen([KWALK, *args], stdin=subprocess.DEVNULL, stdout=out, stderr=err,
                             env=e, cwd=cwd, preexec_fn=limits)
        deadline, timed_out = time.monotonic() + TIMEOUT, False
        while True:
            pid, status, ru = os.wait4(p.pid, os.WNOHANG)
            if pid:
                break
            if time.monotonic() > deadline:
                timed_out = True
                os.kill(p.pid, signal.SIGKILL)
                pid, status, ru = os.wait4(p.pid, 0)
                break
            time.sleep(0.02)
        p.returncode = os.waitstatus_to_exitcode(status)  # reaped here, not by Popen
        out.seek(0)
        err.seek(0)
        return (p.returncode, out.read().decode(errors="replace"),
                err.read().decode(errors="replace"), ru.ru_maxrss * 1024, timed_out)


def bounded(what, rss, timed_out):
    check(not timed_out, f"{what}: no answer within {TIMEOUT} s (a hang)")
    check(rss < RSS_BOUND, f"{what}: peak RSS {rss >> 20} MiB, bound {RSS_BOUND >> 20} MiB")


def expect_error(what, args, contains, env=None, limit_as=True, exact=None):
    """Exit 1, nothing on stdout, one 'kwalk: ' line on stderr, bounded time and memory."""
    rc, out, err, rss, timed_out = kwalk_run(args, env=env, limit_as=limit_as)
    bounded(what, rss, timed_out)
    if timed_out:
        return
    check(rc == 1, f"{what}: exit {rc}, wanted 1 (stderr {err[-300:]!r})")
    check(out == "", f"{what}: stdout {out[:200]!r}")
    lines = err.split("\n")
    check(len(lines) == 2 and lines[1] == "" and lines[0].startswith("kwalk: "),
          f"{what}: stderr is not one 'kwalk: ' line: {err[-500:]!r}")
    check("Sanitizer" not in err and "runtime error" not in err, f"{what}: sanitizer report")
    for c in contains:
        check(c in err, f"{what}: {err[-300:]!r} lacks {c!r}")
    if exact is not None:
        check(err == exact + "\n", f"{what}: {err!r}, wanted {exact!r}")


def sparse(path, size):
    with open(path, "wb") as f:
        f.truncate(size)
    return path


def too_big(path, limit_text):
    return [f"kwalk: {path}: {os.stat(path).st_size} bytes, over kwalk's {limit_text} limit"]


SIDECAR = """kwalk_schema: 1
producer: {{name: kwalk, version: "0.1.0"}}
translation_unit: {{source: {src}, object: t.o, offload_archs: [gfx942]}}
kernels:
- symbol: _Z10src_kernelv
  name: src_kernel
  location: {{file: {src}, line: 3, column: 1}}
  archs:
    gfx942: {{}}
launches:
- kernel: _Z10src_kernelv
  kernel_name: src_kernel
  kind: triple_chevron
  location: {{file: {src}, line: 9, column: 3}}
  function: run()
  function_symbol: _Z3runv
- asm_kernel: _ZN5aiter9fifo_asm_E
  code_object: {co}
  kind: hipModuleLaunchKernel
  location: {{file: {src}, line: 12, column: 3}}
  function: kwalk_run()
  function_symbol: _Z3runv
entries:
- {{name: run_c, kind: extern_c, function: run, function_symbol: _Z3runv}}
...
"""

CSV_HEADER = ["Kind", "Kernel_Name", "Start_Timestamp", "End_Timestamp", "Workgroup_Size_X",
              "Workgroup_Size_Y", "Workgroup_Size_Z", "Grid_Size_X", "Grid_Size_Y", "Grid_Size_Z"]


def csv_text(rows):
    lines = [",".join('"%s"' % h for h in CSV_HEADER)]
    for r in rows:
        lines.append(",".join('"%s"' % v if isinstance(v, str) else str(v) for v in r))
    return "\n".join(lines) + "\n"


def json_text(blocks):
    recs = [{"start_timestamp": 1000 * i, "end_timestamp": 1000 * i + 50,
             "dispatch_info": {"kernel_id": 1, "agent_id": {"handle": 2},
                               "grid_size": {"x": 1024, "y": 1, "z": 1},
                               "workgroup_size": dict(zip("xyz", b))}}
            for i, b in enumerate(blocks)]
    return json.dumps({"rocprofiler-sdk-tool": [{
        "agents": [{"id": {"handle": 2}, "name": "gfx942"}],
        "kernel_symbols": [{"kernel_id": 1, "kernel_name": "_Z10src_kernelv.kd",
                            "formatted_kernel_name": "src_kernel()"}],
        "buffer_records": {"kernel_dispatch": recs}}]})


def main(tmp):
    fifo = os.path.join(tmp, "pipe")
    os.mkfifo(fifo)

    # ---- code objects: /dev/zero, a FIFO, a large sparse file, one past the limit
    expect_error("isa /dev/zero", ["isa", "/dev/zero"],
                 ["kwalk: /dev/zero: not a regular file (a character device)"])
    expect_error("isa FIFO", ["isa", fifo], [f"kwalk: {fifo}: not a regular file (a FIFO)"])
    # 512 MiB of zeros, within the 4 GiB limit: mapped, so only the pages read
    # count (the old whole-file read made the peak RSS the file's size). The
    # mapping needs address space: no RLIMIT_AS here, the RSS bound instead.
    big = sparse(os.path.join(tmp, "zeros.co"), 512 * MiB)
    expect_error("isa 512 MiB sparse", ["isa", big], [f"kwalk: {big}: not a code object"],
                 limit_as=False)
    huge = sparse(os.path.join(tmp, "huge.co"), 4 * GiB + 1)
    expect_error("isa past 4 GiB", ["isa", huge], too_big(huge, "4 GiB"))

    # ---- sidecars and indexes
    src = os.path.join(tmp, "src.hip")
    with open(src, "w") as f:
        f.write("// a source file\n" * 20)
    good = os.path.join(tmp, "good")
    os.mkdir(good)
    with open(os.path.join(good, "t.o.kwalk.yaml"), "w") as f:
        f.write(SIDECAR.format(src=src, co=os.path.join(tmp, "no-such.co")))
    db = os.path.join(tmp, "idx.db")
    rc, _, err, rss, to = kwalk_run(["index", good, "-o", db])
    bounded("index good", rss, to)
    check(rc == 0 and err == "", f"index of the test's sidecar: exit {rc} {err!r}")

    expect_error("index FIFO", ["index", fifo], [f"kwalk: {fifo}: not a regular file (a FIFO)"])
    bigsc = sparse(os.path.join(tmp, "big.kwalk.yaml"), GiB + 1)
    expect_error("index past 1 GiB", ["index", bigsc, "-o", os.path.join(tmp, "x.db")],
                 too_big(bigsc, "1 GiB"))
    expect_error("--db FIFO", ["list", "--db", fifo], [f"kwalk: {fifo}: not a regular file"])
    expect_error("--db /dev/zero", ["list", "--db", "/dev/zero"],
                 ["kwalk: /dev/zero: not a regular file"])

    # a dangling symbolic link and a FIFO by a sidecar's name: one warning each,
    # the index is still written from the regular sidecar
    mixed = os.path.join(tmp, "mixed")
    os.mkdir(mixed)
    shutil.copy(os.path.join(good, "t.o.kwalk.yaml"), os.path.join(mixed, "a.o.kwalk.yaml"))
    dangling = os.path.join(mixed, "b.o.kwalk.yaml")
    os.symlink(os.path.join(tmp, "gone.kwalk.yaml"), dangling)
    mdb = os.path.join(tmp, "mixed.db")
    rc, out, err, rss, to = kwalk_run(["index", mixed, "-o", mdb])
    bounded("index with a dangling link", rss, to)
    check(rc == 0 and os.path.isfile(mdb), f"index with a dangling link: exit {rc} {err!r}")
    check(err == f"kwalk: warning: {dangling}: dangling symbolic link, skipped\n",
          f"index with a dangling link: stderr {err!r}")
    os.unlink(dangling)
    pipe_sc = os.path.join(mixed, "c.o.kwalk.yaml")
    os.mkfifo(pipe_sc)
    rc, out, err, rss, to = kwalk_run(["index", mixed, "-o", mdb])
    bounded("index with a FIFO sidecar", rss, to)
    check(rc == 0, f"index with a FIFO by a sidecar's name: exit {rc} {err!r}")
    check(err == f"kwalk: warning: {pipe_sc}: not a regular file, skipped\n",
          f"index with a FIFO by a sidecar's name: stderr {err!r}")

    # a foreign binary as --db: this kwalk executable itself (ELF), and gzip's magic
    expect_error("--db ELF", ["list", "--db", KWALK], [],
                 exact=f"kwalk: {KWALK}: not a kwalk index (neither its database nor YAML text)")
    gz = os.path.join(tmp, "x.gz")
    with open(gz, "wb") as f:
        f.write(b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03kwalk_index: 1\n")
    expect_error("--db gzip", ["render", "src_kernel", "--db", gz], [],
                 exact=f"kwalk: {gz}: not a kwalk index (neither its database nor YAML text)")

    # ---- traces: FIFO, past the limit, workgroup size 0 (CSV row, JSON record)
    expect_error("trace FIFO", ["trace", fifo, "--db", db],
                 [f"kwalk: {fifo}: not a regular file (a FIFO)"])
    bigtr = sparse(os.path.join(tmp, "big.csv"), GiB + 1)
    expect_error("trace past 1 GiB", ["trace", bigtr, "--db", db], too_big(bigtr, "1 GiB"))
    rows = [["KERNEL_DISPATCH", "src_kernel()", 100, 200, 256, 1, 1, 1024, 1, 1],
            ["KERNEL_DISPATCH", "src_kernel()", 300, 400, 64, 0, 1, 1024, 1, 1]]
    ok_csv = os.path.join(tmp, "ok.csv")
    with open(ok_csv, "w") as f:
        f.write(csv_text(rows[:1]))
    rc, out, err, rss, to = kwalk_run(["trace", ok_csv, "--db", db])
    bounded("trace ok", rss, to)
    check(rc == 0 and err == "", f"trace of a good row: exit {rc} {err!r}")
    bad_csv = os.path.join(tmp, "wg0.csv")
    text = csv_text(rows)
    with open(bad_csv, "w") as f:
        f.write(text)
    bad_line = 1 + text.split("\n").index(csv_text(rows[1:]).split("\n")[1])  # its line
    expect_error("trace workgroup 0 (CSV)", ["trace", bad_csv, "--db", db],
                 [f"kwalk: {bad_csv}: line {bad_line}: Workgroup_Size_Y is 0"])
    bad_json = os.path.join(tmp, "wg0.json")
    with open(bad_json, "w") as f:
        f.write(json_text([(256, 1, 1), (128, 1, 1), (64, 1, 0)]))
    ok_json = os.path.join(tmp, "ok.json")
    with open(ok_json, "w") as f:
        f.write(json_text([(256, 1, 1)]))
    rc, out, err, rss, to = kwalk_run(["trace", ok_json, "--db", db])
    check(rc == 0 and err == "", f"trace of a good JSON record: exit {rc} {err!r}")
    expect_error("trace workgroup 0 (JSON)", ["trace", bad_json, "--db", db],
                 [f"kwalk: {bad_json}: kernel_dispatch[2]: workgroup_size.z is 0"])

    # ---- Python sources, annotations: FIFO, past the 64 MiB limit
    expect_error("map --python-root FIFO", ["map", "--db", db, "--python-root", fifo],
                 [f"kwalk: {fifo}: not a regular file (a FIFO)"])
    bigpy = sparse(os.path.join(tmp, "big.py"), 64 * MiB + 1)
    expect_error("map --python-root past 64 MiB", ["map", "--db", db, "--python-root", bigpy],
                 too_big(bigpy, "64 MiB"))
    ann = os.path.join(tmp, "ann")
    os.makedirs(os.path.join(ann, "entrypoints"))
    os.mkfifo(os.path.join(ann, "entrypoints", "x.txt"))
    expect_error("KWALK_ANNOTATIONS FIFO", ["render", "src_kernel", "--db", db],
                 [f"{os.path.join(ann, 'entrypoints', 'x.txt')}: not a regular file (a FIFO)"],
                 env=dict(os.environ, KWALK_ANNOTATIONS=ann))

    # ---- render: a source file and an ASM kernel's code object that are FIFOs.
    # The walkthrough says why it quotes nothing / has no ISA; nothing hangs.
    fifo_db = os.path.join(tmp, "fifo.db")
    fdir = os.path.join(tmp, "fifo-sc")
    os.mkdir(fdir)
    with open(os.path.join(fdir, "t.o.kwalk.yaml"), "w") as f:
        f.write(SIDECAR.format(src=fifo, co=fifo))
    rc, _, err, rss, to = kwalk_run(["index", fdir, "-o", fifo_db])
    check(rc == 0, f"index of the FIFO sidecar: exit {rc} {err!r}")
    pages = os.path.join(tmp, "pages")
    rc, out, err, rss, to = kwalk_run(["render", "--all", "-o", pages, "--db", fifo_db])
    bounded("render --all with FIFOs", rss, to)
    check(rc == 0 and "Sanitizer" not in err, f"render --all with FIFOs: exit {rc} {err[-300:]!r}")
    text = ""
    for name in sorted(os.listdir(pages)) if os.path.isdir(pages) else []:
        with open(os.path.join(pages, name)) as f:
            text += f.read()
    check(f"ISA not read: {fifo}: not a regular file (a FIFO)" in md_plain(text),
          "render --all: no page says the ASM code object is not a regular file")
    check(f"{fifo} cannot be read now (not a regular file (a FIFO))" in md_plain(text),
          "render --all: no page says the source is not quoted because it is a FIFO")

    # ---- the limits are documented in --help
    rc, out, err, rss, to = kwalk_run(["--help"])
    check(rc == 0 and "64 MiB" in out and "1 GiB" in out and "4 GiB" in out,
          f"--help does not state the size limits: {out[-400:]!r}")


if __name__ == "__main__":
    tmp = TMP = tempfile.mkdtemp(prefix="kwalk-inputs-")
    try:
        main(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if ASAN:
        C.note("AddressSanitizer build")
    C.finish()
