#!/usr/bin/env python3
"""make_ccob.py IN OUT VERSION METHOD: wrap the offload bundle IN in a CCOB
header the way clang's OffloadBundler.cpp (CompressedOffloadBundle) writes it:
"CCOB", u16 version, u16 method (0 zlib, 1 zstd), then
  v2: u32 total size, u32 uncompressed size, u64 hash
  v3: u64 total size, u64 uncompressed size, u64 hash
(hash: the low 64 bits of the MD5 of the uncompressed bundle), then the
compressed bytes. Used to make zlib CCOBs, which clang itself only writes when
LLVM lacks zstd; gen_inputs.sh then checks clang-offload-bundler reads them."""
import hashlib
import struct
import sys
import zlib


def main():
    src, dst, version, method = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
    data = open(src, "rb").read()
    if method != "zlib":
        sys.exit("only zlib is made here; zstd CCOBs come from clang --offload-compress")
    payload = zlib.compress(data, 9)
    digest = struct.unpack("<Q", hashlib.md5(data).digest()[:8])[0]
    if version == 2:
        hdr_len = 4 + 2 + 2 + 4 + 4 + 8
        hdr = b"CCOB" + struct.pack("<HHIIQ", 2, 0, hdr_len + len(payload), len(data), digest)
    elif version == 3:
        hdr_len = 4 + 2 + 2 + 8 + 8 + 8
        hdr = b"CCOB" + struct.pack("<HHQQQ", 3, 0, hdr_len + len(payload), len(data), digest)
    else:
        sys.exit("version must be 2 or 3")
    assert len(hdr) == hdr_len
    open(dst, "wb").write(hdr + payload)


if __name__ == "__main__":
    main()
