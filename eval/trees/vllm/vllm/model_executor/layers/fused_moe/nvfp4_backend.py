# Reconstruction for the evaluation (own text) of the selection vllm-project/vllm#35065 reports on
# an RTX 5090: every NvFp4 MoE backend tests for the SM100 family, then the selection fails.
from vllm.platforms import current_platform


def select_nvfp4_moe_backend(has_flashinfer):
    if current_platform.is_device_capability_family(100) and has_flashinfer:
        return "FLASHINFER_TRTLLM"
    if current_platform.is_device_capability(100):
        return "CUTLASS"
    raise ValueError("No NvFp4 MoE backend supports the deployment configuration")


def marlin_fallback(use_marlin):
    # A fallback: every arch gets Marlin when nothing native applies (not a gate on sm_120).
    if use_marlin:
        return "MARLIN"
    return "MARLIN"
