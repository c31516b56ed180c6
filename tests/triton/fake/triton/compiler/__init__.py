"""compiler (fake triton): ASTSource and compile(), which calls the listener
as Triton 3.6's triton.compile does."""

import hashlib
import json
import os

from .. import knobs


class GPUTarget:
    def __init__(self, backend, arch, warp_size):
        self.backend, self.arch, self.warp_size = backend, arch, warp_size


class ASTSource:
    def __init__(self, fn, signature, constexprs=None, attrs=None):
        self.fn = fn
        self.signature = signature
        self.constants = dict(constexprs or {})
        self.attrs = dict(attrs or {})
        self.name = fn.__name__


def compile(src, target, options):
    key = json.dumps([src.name, sorted(map(str, src.constants.items())), target.arch, sorted(options.items())])
    digest = hashlib.sha256(key.encode()).hexdigest()
    folder = os.path.join(os.environ["FAKE_TRITON_CACHE"], "K" + digest[:20].upper())
    name = src.name
    md = {"hash": digest, "target": target}
    md.update({"num_warps": 4, "waves_per_eu": 0, "num_stages": 2, "num_ctas": 1})
    md.update(options)
    md.update({"extern_libs": [["ocml", "/x/ocml.bc"]], "debug": False, "arch": target.arch,
               "default_dot_input_precision": "ieee", "backend_name": "hip", "warp_size": 64,
               "triton_version": "3.6.0", "shared": 512, "profile_scratch_size": 0, "name": name})
    hit = os.path.isdir(folder)
    os.makedirs(folder, exist_ok=True)
    group = {}
    for ext in ("source", "ttir", "ttgir", "llir", "amdgcn", "hsaco", "json"):
        p = os.path.join(folder, "%s.%s" % (name, ext))
        if not hit:
            with open(p, "w") as f:
                f.write(json.dumps(md, default=vars) if ext == "json" else "fake\n")
        group["%s.%s" % (name, ext)] = p
    lis = knobs.compilation.listener
    if lis is not None:
        if hit:  # Triton 3.6 passes KernelMetadata._asdict(): keys sorted
            md = dict(sorted(md.items()))
        lis(src=src, metadata=md, metadata_group=group, times=None, cache_hit=hit)
    return md
