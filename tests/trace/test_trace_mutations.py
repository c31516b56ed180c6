"""test_trace_mutations.py: `kwalk trace` on damaged traces.

A small valid CSV trace and its JSON form are mutated at random (fixed seed):
bytes flipped, deleted, inserted (quotes, commas, line breaks, braces,
brackets, backslashes, digits, NUL, bytes >= 0x80), the file cut short, lines
duplicated. Every run must end with exit status 0 and a YAML report that
parses, or exit status 1 and exactly one `kwalk: FILE: ...` line; never a
crash, a sanitizer report (the suite builds kwalk with ASan+UBSan) or a hang.
A damaged trace must fail as such even with --db naming no file: kwalk reads a
CSV or JSON trace before the index.

Exit 0 when all runs behave, 1 otherwise, 77 when it cannot run.
"""
import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile

try:
    import yaml
except ImportError:  # pragma: no cover
    print("test_trace_mutations: PyYAML is missing (Debian: python3-yaml)")
    sys.exit(77)

Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

HEADER = ('"Kind","Agent_Id","Queue_Id","Stream_Id","Thread_Id","Dispatch_Id","Kernel_Id",'
          '"Kernel_Name","Correlation_Id","Start_Timestamp","End_Timestamp","LDS_Block_Size",'
          '"Scratch_Size","VGPR_Count","Accum_VGPR_Count","SGPR_Count","Workgroup_Size_X",'
          '"Workgroup_Size_Y","Workgroup_Size_Z","Grid_Size_X","Grid_Size_Y","Grid_Size_Z"\n')
NAMES = ["void kw::mix_sample_kernel<float, 1024>(float const*, float const*, int*, int, float)",
         "_ZN2kw24reshape_and_cache_kernelIfEEvPKT_S3_PS1_S4_PKllliii",
         "greedy_sample_kernel", "void kw::rope_sbhd_fwd_kernel<...", "unknown_kernel(int)"]
INSERTS = [b'"', b",", b"\n", b"\r\n", b"{", b"}", b"[", b"]", b"\\", b":", b"0", b"9" * 30,
           b"-", b"\x00", b"\xff", b"\xe2\x80\xa6", b'\\u12', b'"\\ud800"', b"...", b" ", b"e"]


def base_csv():
    rows = [HEADER]
    t = 1000
    for i in range(12):
        name = NAMES[i % len(NAMES)]
        rows.append('"KERNEL_DISPATCH","Agent 4",1,1,42,%d,%d,"%s",%d,%d,%d,0,0,8,0,16,'
                    '256,1,1,%d,1,1\n' % (i + 1, i % len(NAMES), name, i + 1, t, t + 100 + i,
                                          256 * (i + 1)))
        t += 1000
    return "".join(rows).encode()


def base_json():
    syms = [{"kernel_id": i, "kernel_name": n + ".kd", "formatted_kernel_name": n}
            for i, n in enumerate(NAMES)]
    recs = [{"start_timestamp": 1000 * i, "end_timestamp": 1000 * i + 50 + i,
             "dispatch_info": {"kernel_id": i % len(NAMES), "agent_id": {"handle": 2},
                               "grid_size": {"x": 1024, "y": 1, "z": 1},
                               "workgroup_size": {"x": 256, "y": 1, "z": 1}}}
            for i in range(10)]
    doc = {"rocprofiler-sdk-tool": [{"agents": [{"id": {"handle": 2}, "name": "gfx942"}],
                                     "kernel_symbols": syms,
                                     "buffer_records": {"kernel_dispatch": recs}}]}
    return json.dumps(doc).encode()


def mutate(rng, data):
    data = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        op = rng.randrange(6)
        pos = rng.randrange(len(data) + 1) if data else 0
        if op == 0 and data:
            data[min(pos, len(data) - 1)] = rng.randrange(256)
        elif op == 1 and data:
            del data[pos:pos + rng.randint(1, 8)]
        elif op == 2:
            data[pos:pos] = rng.choice(INSERTS)
        elif op == 3:
            del data[pos:]
        elif op == 4:
            lines = bytes(data).split(b"\n")
            if len(lines) > 1:
                i = rng.randrange(len(lines))
                lines.insert(i, lines[i])
                data = bytearray(b"\n".join(lines))
        else:
            data[pos:pos] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 5)))
    return bytes(data)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kwalk", required=True)
    ap.add_argument("--corpus-out", required=True)
    ap.add_argument("--runs", type=int, default=240)
    ap.add_argument("--seed", type=int, default=20261130)
    args = ap.parse_args()
    if not any(f.endswith(".kwalk.yaml") for f in os.listdir(args.corpus_out)):
        print("test_trace_mutations: no corpus sidecars in %s" % args.corpus_out)
        sys.exit(77)
    rng = random.Random(args.seed)
    tmp = tempfile.mkdtemp(prefix="kwalk-trace-mut-")
    failures = []
    try:
        db = os.path.join(tmp, "idx.db")
        p = subprocess.run([args.kwalk, "index", args.corpus_out, "-o", db],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        if p.returncode:
            print("FAIL: kwalk index: %s" % p.stderr.decode(errors="replace"))
            sys.exit(1)
        # A damaged CSV or JSON trace is read before the index (the index costs most
        # of a run): with --db naming no file, the error is still the trace's.
        for kind, data in (("csv", base_csv()[:40]), ("json", base_json()[:40])):
            path = os.path.join(tmp, "cut.%s" % kind)
            with open(path, "wb") as f:
                f.write(data)
            p = subprocess.run([args.kwalk, "trace", path, "--db", os.path.join(tmp, "none.db")],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
            lines = p.stderr.decode(errors="replace").splitlines()
            if p.returncode != 1 or len(lines) != 1 or not lines[0].startswith("kwalk: %s: " % path):
                failures.append("%s, --db of no file: exit %d, stderr %r (want the trace's error: "
                                "the trace is read before the index)" % (path, p.returncode, lines))
        bases = [("csv", base_csv()), ("json", base_json())]
        for i in range(args.runs):
            kind, data = bases[i % 2]
            data = data if i < 2 else mutate(rng, data)
            path = os.path.join(tmp, "t%d.%s" % (i, kind))
            with open(path, "wb") as f:
                f.write(data)
            try:
                p = subprocess.run([args.kwalk, "trace", path, "--db", db, "--format", "yaml"],
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
            except subprocess.TimeoutExpired:
                failures.append("%s: timeout" % path)
                continue
            err = p.stderr.decode(errors="replace")
            what = "%s (kept as %s)" % (path, os.path.join(tmp, "fail-%d.%s" % (i, kind)))
            bad = None
            if p.returncode == 0:
                try:
                    doc = yaml.load(p.stdout.decode("utf-8"), Loader=Loader)
                    if not isinstance(doc, dict) or doc.get("kwalk_trace") != 1:
                        bad = "exit 0 without a report"
                except Exception as e:  # noqa: BLE001
                    bad = "exit 0, report does not parse: %s" % e
                if err:
                    bad = "exit 0 with stderr %r" % err[:300]
            elif p.returncode == 1:
                lines = err.splitlines()
                if len(lines) != 1 or not lines[0].startswith("kwalk: %s: " % path) or p.stdout:
                    bad = "exit 1 with stderr %r, stdout %r" % (err[:500], p.stdout[:100])
            else:
                bad = "exit %d: %s" % (p.returncode, err[-1500:])
            if bad:
                shutil.copy(path, os.path.join(tmp, "fail-%d.%s" % (i, kind)))
                failures.append("%s: %s" % (what, bad))
    finally:
        if not failures:
            shutil.rmtree(tmp, ignore_errors=True)
    for f in failures[:20]:
        print("FAIL: %s" % f)
    print("%d runs, %d failed" % (args.runs, len(failures)))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
