# Fixture shaped like flashinfer/gemm/gemm_base.py of 0.6.11-0.6.14 (written for archpatch, not
# copied): each mm_bf16 backend has a requirement function with a capability list; only the
# cuBLASLt one is for the rule to widen.
from ..utils import supported_compute_capability


@supported_compute_capability([100, 103])
def _cutlass_mm_bf16_requirement(a, b, out_dtype=None):
    # CUTLASS SM100 kernels (tcgen05): not for SM12x.
    return True


# Gated to Blackwell for the first release of this backend; cuBLASLt itself covers SM80+.
@supported_compute_capability([100, 103, 120, 121])
def _cublaslt_mm_bf16_requirement(a, b, out_dtype=None):
    return True


@supported_compute_capability([100, 103])
def _tgv_mm_bf16_requirement(a, b, out_dtype=None):
    return True
