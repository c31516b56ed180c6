#!/usr/bin/env python3
"""make_bad.py WORK OUT: broken inputs for check_bad_inputs.py, each derived
from a good input of WORK by one targeted corruption (plus pure garbage).
gen_inputs.sh adds no_note.co, host_without_fatbin.o, host_garbage_fatbin.o."""
import os
import random
import struct
import sys

MAGIC = b"__CLANG_OFFLOAD_BUNDLE__"


def main():
    work, out = sys.argv[1], sys.argv[2]

    def rd(name):
        return open(os.path.join(work, name), "rb").read()

    def wr(name, data):
        open(os.path.join(out, name), "wb").write(data)

    co = rd("co/kinds.%s.co" % os.environ["KWALK_TEST_ARCHS"].split(",")[0])
    fb = rd("kinds.hipfb")
    z3 = rd("kinds.ccob3.fatbin")
    z2 = rd("kinds.ccob2.fatbin")
    # the compressed bundle clang wrote when asked for v3: v3 (LLVM 20 on), or
    # v2 (LLVM 19); the corruptions go to that version's header fields
    zv = struct.unpack_from("<H", z3, 4)[0]
    hdr, size_at, size_fmt = (32, 16, "<Q") if zv == 3 else (24, 12, "<I")
    zl = rd("kinds.zlib%d.ccob" % zv)
    rng = random.Random(42)

    wr("empty", b"")
    wr("garbage", bytes(rng.randrange(256) for _ in range(4096)))
    wr("elf_header_only", co[:40])
    wr("elf_truncated_half", co[: len(co) // 2])
    wr("elf_truncated_before_shdrs", co[: struct.unpack_from("<Q", co, 0x28)[0] + 8])
    # section header table offset far outside the file
    wr("elf_bad_shoff", co[:0x28] + struct.pack("<Q", 1 << 40) + co[0x30:])
    wr("bundle_truncated_header", fb[:40])
    wr("bundle_truncated_table", fb[:60])
    wr("bundle_truncated_entries", fb[: len(fb) // 2])
    wr("bundle_wrong_magic", b"__CLANG_OFFLOAD_BUNDLX__" + fb[24:])
    wr("bundle_huge_count", fb[:24] + struct.pack("<Q", 1 << 60) + fb[32:])
    # entry 0: offset at byte 32, size at byte 40, id length at byte 48
    wr("bundle_offset_outside", fb[:32] + struct.pack("<Q", len(fb) + 4096) + fb[40:])
    wr("bundle_size_outside", fb[:40] + struct.pack("<Q", (1 << 64) - 16) + fb[48:])
    wr("bundle_idlen_outside", fb[:48] + struct.pack("<Q", 1 << 40) + fb[56:])
    # every amdgcn entry replaced by garbage of the same size
    n = struct.unpack_from("<Q", fb, 24)[0]
    buf, pos = bytearray(fb), 32
    for _ in range(n):
        off, size, idl = struct.unpack_from("<QQQ", fb, pos)
        pos += 24 + idl
        buf[off : off + size] = bytes(rng.randrange(1, 256) for _ in range(size))
    wr("bundle_garbage_entries", bytes(buf))
    # a code object whose NT_AMDGPU_METADATA desc starts with 0xc1 (never used)
    i = co.find(b"AMDGPU\0")
    desc = (i + 7 + 3) & ~3
    wr("note_bad_msgpack", co[:desc] + b"\xc1" + co[desc + 1 :])
    # a map claiming 2^32-1 entries right at the start of the note
    wr("note_huge_map", co[:desc] + b"\xdf\xff\xff\xff\xff" + co[desc + 5 :])
    # CCOB: corrupt zstd frame, truncated, bad sizes, unknown version/method
    mid = hdr + (len(z3) - hdr) // 2
    n = struct.calcsize(size_fmt)
    big = (1 << 50) if zv == 3 else 0xFFFFFFF0
    flip = lambda d, a, b, x: d[:a] + bytes(c ^ x for c in d[a:b]) + d[b:]  # noqa: E731
    put = lambda d, a, v: d[:a] + struct.pack(size_fmt, v) + d[a + n :]  # noqa: E731
    wr("ccob%d_bad_zstd" % zv, flip(z3, mid, mid + 64, 0x5A))
    wr("ccob%d_zstd_magic_broken" % zv, z3[:hdr] + b"\0\0\0\0" + z3[hdr + 4 :])
    wr("ccob%d_truncated" % zv, z3[: len(z3) // 2])
    wr("ccob%d_header_only" % zv, z3[: hdr - 12])
    wr("ccob%d_huge_uncompressed" % zv, put(z3, size_at, big))
    wr("ccob%d_wrong_uncompressed" % zv, put(z3, size_at, 1000))
    wr("ccob2_total_too_big", z2[:8] + struct.pack("<I", len(z2) + 100) + z2[12:])
    wr("ccob_unknown_version", z3[:4] + struct.pack("<H", 9) + z3[6:])
    wr("ccob_unknown_method", z3[:6] + struct.pack("<H", 7) + z3[8:])
    wr("ccob%d_zlib_corrupt" % zv, flip(zl, hdr + 8, hdr + 48, 0xFF))
    # a CCOB whose payload is not a bundle
    import zlib
    payload = zlib.compress(b"not a bundle" * 10)
    wr("ccob_not_a_bundle",
       b"CCOB" + struct.pack("<HHQQQ", 3, 0, 32 + len(payload), 120, 0) + payload)


if __name__ == "__main__":
    main()
