"""kwzstd.py: a sidecar's text whatever its form. By default the plugin writes
FILE.kwalk.yaml.zst, one zstd frame of the YAML (docs/sidecar-schema.md,
"Compression"); with compress=none, FILE.kwalk.yaml. The tests decompress with
Debian's `zstd` command (package zstd), independently of kwalk's own reader."""
import io
import subprocess

MAGIC = b"\x28\xb5\x2f\xfd"
SUFFIXES = (".kwalk.yaml", ".kwalk.yaml.zst")


def is_sidecar_name(name):
    """Does NAME end as a sidecar of either form does?"""
    return name.endswith(SUFFIXES)


def read_bytes(path):
    """The YAML bytes of the sidecar at PATH (decompressed where it is a zstd
    frame, told by its magic number, not its name)."""
    with open(path, "rb") as f:
        data = f.read()
    if not data.startswith(MAGIC):
        return data
    r = subprocess.run(["zstd", "-dcq"], input=data, capture_output=True)
    if r.returncode != 0:
        raise ValueError("%s: zstd -d: %s" % (path, r.stderr.decode(errors="replace").strip()))
    return r.stdout


def read_text(path):
    return read_bytes(path).decode("utf-8")


def open_text(path):
    """A text stream of the sidecar's YAML (for yaml.load / yaml.parse)."""
    return io.StringIO(read_text(path))
