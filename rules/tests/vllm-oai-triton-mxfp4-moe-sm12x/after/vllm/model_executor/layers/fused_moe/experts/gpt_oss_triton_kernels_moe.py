# Fixture shaped like vllm/model_executor/layers/fused_moe/experts/gpt_oss_triton_kernels_moe.py
# (written for archpatch from the lines quoted in vllm PR #41028 and issue #40301, not copied).
from vllm.platforms import current_platform


def _triton_kernel_moe_supports_current_device() -> bool:
    # Shared device gate for the OAI Triton MoE expert classes.
    p = current_platform
    if p.is_cuda():
        cap = p.get_device_capability()
        return cap is not None and (9, 0) <= (cap.major, cap.minor) < (13, 0)
    if p.is_rocm():
        return p.is_gfx90a()
    return False


def _supports_swiglu_limit() -> bool:
    # Another capability window, not the device gate: left as it is.
    cap = current_platform.get_device_capability()
    return cap is not None and (9, 0) <= (cap.major, cap.minor) < (11, 0)
