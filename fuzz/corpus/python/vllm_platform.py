# Modelled on vLLM's current_platform capability API (has_device_capability,
# is_device_capability, is_device_capability_family) as model code and kernels call it.
# Written for archpatch's tests.
from vllm.platforms import current_platform


def is_sm100_supported() -> bool:
    return current_platform.is_cuda() and current_platform.has_device_capability(100)  # expect: python-gate shape=predicate scope=is_sm100_supported sm_100=true sm_120=true sm_90=false


def use_deep_gemm() -> bool:
    return current_platform.is_device_capability(100)  # expect: python-gate shape=predicate sm_100=true sm_100a=true sm_103=false sm_120=false


def use_trtllm_attention() -> bool:
    return current_platform.is_device_capability_family(100)  # expect: python-gate shape=predicate operand=major sm_100=true sm_103=true sm_120=false


def supports_fp8() -> bool:
    return current_platform.has_device_capability((8, 9))  # expect: python-gate shape=predicate operand=capability sm_89=true sm_90=true sm_86=false


class CutlassScaledMMKernel:
    @classmethod
    def can_implement(cls, c) -> tuple[bool, str]:
        capability = current_platform.get_device_capability()
        if capability == (9, 0):  # expect: python-gate operand=capability scope=CutlassScaledMMKernel.can_implement sm_90=true sm_90a=true sm_100=false
            return True, ""
        compute_capability = capability.to_int()
        if compute_capability < 90:  # expect: python-gate operand=compute_capability sm_89=true sm_90=false
            return False, "requires compute capability 90 or newer"
        return False, "sm_100 is handled elsewhere"


def select_backend(backend: str, sm_version: str):
    if backend in ("120", "121"):  # expect: python-gate operand=arch_name scope=select_backend sm_120=true sm_121=true sm_100=false
        return "cutlass"
    if sm_version != "sm_120":  # expect: python-gate operand=arch_name sm_120=false sm_120a=false sm_121=true
        admissible_archs = ["sm_90a", "sm_100a"]  # expect: python-gate shape=assignment name=admissible_archs sm_90=true sm_100=true sm_103=false sm_120=false
        return admissible_archs
    return None


TORCH_CUDA_ARCH_LIST = "8.0 8.6 9.0a 10.0+PTX"  # expect: python-gate shape=assignment sm_80=true sm_90a=true sm_100=true sm_120=true sm_89=false


def build_env(cuda_version):
    env = {"TORCH_CUDA_ARCH_LIST": "9.0a 12.0"}  # expect: python-gate shape=arch-list-string sm_90=true sm_120=true sm_100=false
    if cuda_version >= Version("12.8"):  # a CUDA version on a line about TORCH_CUDA_ARCH_LIST is no arch
        env["TORCH_CUDA_ARCH_LIST"] += " 10.0"  # expect: python-gate shape=arch-list-string sm_100=true sm_120=false
    return env
