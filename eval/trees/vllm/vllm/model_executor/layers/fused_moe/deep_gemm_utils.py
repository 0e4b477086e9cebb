# Reconstruction for the evaluation (own text): DeepGEMM MoE is offered on Hopper and the SM100
# family only (the DeepGEMM sm_120 requests, deepseek-ai/DeepGEMM#236, reach vLLM through it).
from vllm.platforms import current_platform


def check_deep_gemm_supported():
    if not (current_platform.is_device_capability(90) or current_platform.is_device_capability_family(100)):
        raise RuntimeError("DeepGEMM needs Hopper or datacenter Blackwell")


def needs_ampere():
    cap = current_platform.get_device_capability()
    if cap < (8, 0):
        raise RuntimeError("needs Ampere or newer")  # admits sm_120: must not be reported
