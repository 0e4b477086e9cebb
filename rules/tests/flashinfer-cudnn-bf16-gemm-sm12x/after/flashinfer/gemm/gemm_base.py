# Fixture shaped like flashinfer/gemm/gemm_base.py of 0.6.4-0.6.10 (written for archpatch, not
# copied): BF16 GEMM backends with a capability list each; only the cuDNN ones are for the rule.
from ..utils import supported_compute_capability


@supported_compute_capability([100, 103])
def _cutlass_mm_bf16_requirement(a, b, out=None, out_dtype=None):
    return True


@supported_compute_capability([100, 103, 120, 121])
def _cudnn_mm_bf16_requirement(a, b, out=None, out_dtype=None, bias=None, pdl=False):
    if bias is not None:
        raise ValueError("the cuDNN backend takes no bias")
    return True


@supported_compute_capability([100, 103, 120, 121])
def _cudnn_bmm_bf16_requirement(A, B, out=None, out_dtype=None):
    return True


@supported_compute_capability([89, 90, 100, 103, 110, 120, 121])
def _cudnn_bmm_fp8_requirement(A, B, A_scale, B_scale, dtype, out=None):
    # Already admits SM12x.
    return True
