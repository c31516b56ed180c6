#!/usr/bin/env python3
"""test_compress: the sidecar's compressed form, the plugin's default
(docs/sidecar-schema.md, "Compression"). One corpus TU compiled to the same
object path four times in a row:

  1. default (no argument, KWALK_COMPRESS unset): only OBJ.kwalk.yaml.zst is
     written, a zstd frame that Debian's `zstd -t` finds whole;
  2. -fplugin-arg-kwalk-compress=none with KWALK_COMPRESS=zstd set (the
     argument wins): only OBJ.kwalk.yaml (the .zst of compile 1 is removed);
  3. default again: only OBJ.kwalk.yaml.zst, and `zstd -dc` of it is byte for
     byte the YAML of compile 2;
  4. -fplugin-arg-kwalk-compress=gzip: one `kwalk: warning` line naming the
     value, the compile goes on, the default form is written.

The four objects are byte-identical. `kwalk index` of the .zst and of the
plain sidecar give the same `kwalk list`; a truncated and a damaged copy of
the .zst are one error line each from `kwalk index`, naming the file.
"""
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import kwcap  # noqa: E402
from kwcheck import Checker  # noqa: E402
import kwzstd  # noqa: E402

TU = "rope_kernels.hip"


def main():
    args = kwcap.parse_args()
    ck = Checker("test_compress")
    if not args.kwalk:
        print("test_compress: no kwalk command in this build")
        sys.exit(kwcap.SKIP)
    if shutil.which("zstd") is None:
        print("test_compress: the zstd command (Debian: zstd) is missing")
        sys.exit(kwcap.SKIP)
    root = kwcap.tmpdir(args, "compress")
    try:
        src = os.path.join(args.corpus_src, TU)
        out = os.path.join(root, "obj")
        os.makedirs(out)
        obj = os.path.join(out, "rope_kernels.o")
        plain, zst = obj + ".kwalk.yaml", obj + ".kwalk.yaml.zst"
        objects, yaml_bytes = [], None

        def compile_(what, extra, env_extra):
            env = kwcap.clean_env(**env_extra)
            if "KWALK_COMPRESS" not in env_extra:
                env.pop("KWALK_COMPRESS", None)
            cmd = kwcap.compile_cmd(args, src, obj, extra=["-cuid=kwcap_compress"] + extra)
            r = subprocess.run(cmd, env=env, capture_output=True, text=True)
            ck.check(r.returncode == 0, "%s: compile failed rc=%d: %s"
                     % (what, r.returncode, (r.stdout + r.stderr)[-2000:]))
            with open(obj, "rb") as f:
                objects.append(f.read())
            return kwcap.kwalk_lines(r.stdout + r.stderr)

        # 1. the default
        ck.eq(compile_("default", [], {}), [], "default: kwalk lines")
        ck.check(os.path.isfile(zst) and not os.path.exists(plain),
                 "default: want only %s, have %s" % (zst, sorted(os.listdir(out))))
        if os.path.isfile(zst):
            with open(zst, "rb") as f:
                ck.check(f.read(4) == kwzstd.MAGIC, "default: %s is not a zstd frame" % zst)
            r = subprocess.run(["zstd", "-tq", zst], capture_output=True, text=True)
            ck.check(r.returncode == 0, "zstd -t %s: %s" % (zst, r.stderr.strip()))

        # 2. compress=none: the argument wins over KWALK_COMPRESS=zstd
        ck.eq(compile_("none", ["-fplugin-arg-kwalk-compress=none"], {"KWALK_COMPRESS": "zstd"}),
              [], "compress=none: kwalk lines")
        ck.check(os.path.isfile(plain) and not os.path.exists(zst),
                 "compress=none: want only %s, have %s" % (plain, sorted(os.listdir(out))))
        if os.path.isfile(plain):
            with open(plain, "rb") as f:
                yaml_bytes = f.read()
            ck.check(yaml_bytes.startswith(b"kwalk_schema:"), "compress=none: not YAML text")
            shutil.copy(plain, os.path.join(root, "plain.kwalk.yaml"))

        # 3. the default again: the same YAML inside
        ck.eq(compile_("default again", [], {}), [], "default again: kwalk lines")
        ck.check(os.path.isfile(zst) and not os.path.exists(plain),
                 "default again: want only %s, have %s" % (zst, sorted(os.listdir(out))))
        if os.path.isfile(zst) and yaml_bytes is not None:
            r = subprocess.run(["zstd", "-dcq", zst], capture_output=True)
            ck.check(r.returncode == 0 and r.stdout == yaml_bytes,
                     "zstd -dc %s differs from the plain sidecar of the same compile" % zst)

        # 4. an unknown value: one warning, the default
        lines = compile_("gzip", ["-fplugin-arg-kwalk-compress=gzip"], {})
        ck.check(len(lines) == 1 and "'gzip'" in lines[0] and "compress" in lines[0],
                 "compress=gzip: want one warning naming the value, got %r" % lines)
        ck.check(os.path.isfile(zst), "compress=gzip: no %s" % zst)
        ck.check(all(o == objects[0] for o in objects),
                 "the objects differ between the compiles (%d)" % len(objects))

        # kwalk reads both forms to the same index
        lists = {}
        for form, path in (("zst", zst), ("plain", os.path.join(root, "plain.kwalk.yaml"))):
            db = os.path.join(root, form + ".db")
            r = kwcap.run([args.kwalk, "index", path, "-o", db])
            ck.check(r.returncode == 0, "kwalk index %s: %s" % (path, r.stderr.strip()))
            r = kwcap.run([args.kwalk, "list", "--db", db])
            ck.check(r.returncode == 0, "kwalk list (%s): %s" % (form, r.stderr.strip()))
            lists[form] = r.stdout
        ck.check(lists.get("zst") and lists.get("zst") == lists.get("plain"),
                 "kwalk list differs between the two forms:\n%s\n---\n%s"
                 % (lists.get("zst"), lists.get("plain")))

        # damaged copies: one error line each, naming the file
        if os.path.isfile(zst):
            with open(zst, "rb") as f:
                data = f.read()
            flipped = bytearray(data)
            flipped[len(data) // 2] ^= 0x20
            for name, bad in (("truncated", data[:len(data) // 2]), ("damaged", bytes(flipped))):
                d = os.path.join(root, name)
                os.makedirs(d)
                path = os.path.join(d, "x.o.kwalk.yaml.zst")
                with open(path, "wb") as f:
                    f.write(bad)
                r = kwcap.run([args.kwalk, "index", d, "-o", os.path.join(root, name + ".db")])
                err = r.stderr.strip().splitlines()
                ck.check(r.returncode != 0 and len(err) == 1 and path in err[0] and
                         "zstd" in err[0], "kwalk index of a %s .zst: rc %d, stderr %r"
                         % (name, r.returncode, r.stderr))
    finally:
        kwcap.cleanup(args, root)
    ck.finish()


if __name__ == "__main__":
    main()
