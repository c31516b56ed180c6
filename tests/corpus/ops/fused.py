# ops/fused.py: Python code that calls the corpus ops the way aiter's own
# modules call its @compile_ops stubs (aiter/fused_moe.py calling the sorting
# op, rmsnorm wrappers dispatching to the fast HIP op): through a module
# alias, a from-import, a star import, a private helper and a method. Part of
# the kwalk test corpus: `kwalk map --python-root ops` names these functions
# as the ops' public callers. Never executed by the tests.
import rmsnorm as _rms
from cache import reshape_and_cache
from sample import *


def _quant_rows(out, scale, res_out, x, res_in, w, rows, hidden):
    return _rms.add_rmsnorm_quant(out, scale, res_out, x, res_in, w, rows, hidden, 1e-6, 0, True)


def fused_add_rmsnorm_fp8(out, scale, res_out, x, res_in, w, rows, hidden):
    """Reaches add_rmsnorm_quant through the private helper above."""
    return _quant_rows(out, scale, res_out, x, res_in, w, rows, hidden)


class PagedCache:
    def write(self, key, value, key_cache, value_cache, slots):
        reshape_and_cache(key, value, key_cache, value_cache, slots)


def sample_greedy(logits, out, rows, vocab):
    greedy_sample(logits, out, rows, vocab)


def _unused_private(logits, out, rows, vocab):
    mix_sample(logits, out, rows, vocab)
