# Fixture shaped like flashinfer/nvfp4_attention_sm120.py of 0.6.14-0.6.15 (written for
# archpatch, not copied): two public entry points carry a capability list.
from .jit.nvfp4_attention_sm120 import gen_nvfp4_attention_sm120_module
from .utils import supported_compute_capability


def _module():
    return gen_nvfp4_attention_sm120_module().build_and_load()


@supported_compute_capability([120, 121])
def nvfp4_attention_sm120_quantize_qkv(q, k, v):
    return _module().quantize_qkv(q, k, v)


@supported_compute_capability([100, 103])
def nvfp4_attention_reference_sm100(q, k, v):
    # Another chip's path: left as it is.
    return None


@supported_compute_capability([120, 121])
def nvfp4_attention_sm120_fwd(q_fp4, k_fp4, v_fp4_t, scales):
    return _module().fwd(q_fp4, k_fp4, v_fp4_t, scales)
