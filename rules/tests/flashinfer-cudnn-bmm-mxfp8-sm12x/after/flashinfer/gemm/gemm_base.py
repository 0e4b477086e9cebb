# Fixture shaped like flashinfer/gemm/gemm_base.py of 0.6.0-0.6.11 (written for archpatch, not
# copied): MXFP8 GEMM backends and their capability lists; only the cuDNN bmm one is for the rule.
from ..utils import supported_compute_capability


@supported_compute_capability([100, 103, 110])
def _cutlass_gemm_mxfp8_requirement(a, b, a_descale, b_descale, out=None):
    # CUTLASS SM100 kernels: not for SM12x.
    return True


@supported_compute_capability([100, 103, 120, 121])
def _cudnn_bmm_mxfp8_requirement(A, B, As, Bs, dtype, out=None):
    _check_cudnn_availability()
    return True


def _check_cudnn_availability():
    return True
