# model.py: kwalk's Triton corpus, the "op the user called" layer: small ops
# that call the wrappers, like a model's layer calls aiter's ops. The hook's
# call chain of each launch passes through the line marked `# KWT:CALL <id>`.
import torch

from autotuned import silu_and_mul
from gemm import gemm_a16w16
from norm import rms_norm
from quant import dynamic_per_token_quant_i8


def input_norm(x, weight):
    return rms_norm(x, weight, eps=1e-6, num_prgms=32)  # KWT:CALL norm


def quantize_activations(x):
    return dynamic_per_token_quant_i8(x)  # KWT:CALL quant


def projection(a, b, config):
    return gemm_a16w16(a, b, config)  # KWT:CALL gemm


def mlp_gate(x, g):
    return silu_and_mul(x, g)  # KWT:CALL silu


def make_inputs(device):
    torch.manual_seed(0)
    f16 = dict(dtype=torch.float16, device=device)
    return {
        "x": torch.randn((64, 1000), **f16),
        "w": torch.randn((1000,), **f16),
        "q": torch.randn((32, 3000), **f16),
        "a": torch.randn((256, 256), **f16),
        "b": torch.randn((256, 256), **f16),
        "s": torch.randn((8192,), **f16),
    }
