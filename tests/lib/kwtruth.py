"""kwtruth: ground truth that does not depend on the clang major, computed once
per CI run instead of once per major (docs/test-time.md).

scripts/test.sh sets $KWALK_TEST_TRUTH to a directory of its own for the run
(emptied when the run starts). shared(kind, key, compute) returns the value an
earlier major's run of the same check stored there under the same key (a
digest of every input the value depends on), else compute()'s, which it then
stores for the next major (unless it is None: a failed computation is never
shared). Without the variable (a test run by hand or by ctest alone) every
value is computed."""
import hashlib
import json
import os
import tempfile


def digest(*parts):
    """A key: the SHA-256 of PARTS (JSON values) as JSON."""
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode("utf-8")).hexdigest()


def file_digest(path):
    """The SHA-256 of the file's contents."""
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def tree_digest(root):
    """The SHA-256 of every file under ROOT: relative path and contents."""
    h = hashlib.sha256()
    for d, dirs, files in os.walk(root):
        dirs.sort()
        for f in sorted(files):
            p = os.path.join(d, f)
            h.update(os.path.relpath(p, root).encode("utf-8") + b"\0")
            with open(p, "rb") as fh:
                h.update(hashlib.sha256(fh.read()).digest())
    return h.hexdigest()


def shared(kind, key, compute):
    """(value, "shared" or "computed"): see the module's comment."""
    d = os.environ.get("KWALK_TEST_TRUTH")
    path = os.path.join(d, "%s-%s.json" % (kind, key)) if d else None
    if path and os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            return json.load(f), "shared"
    value = compute()
    if path and value is not None:
        os.makedirs(d, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=d, prefix=".%s-" % kind)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(value, f)
        os.replace(tmp, path)
    return value, "computed"
