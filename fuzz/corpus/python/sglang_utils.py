# Modelled on sglang/srt/utils (common.py) and layers/flashinfer_comm_fusion.py: capability
# helpers built on torch.cuda.get_device_capability, in the two meanings is_sm100_supported has
# had across releases. Written for archpatch's tests.
import functools
from typing import Optional, Tuple

import torch


def get_device_capability(device_id: int = 0) -> Tuple[Optional[int], Optional[int]]:
    major, minor = None, None
    if torch.cuda.is_available():
        major, minor = torch.cuda.get_device_capability(device_id)
    return major, minor


def is_arch_supported(major: int, minor: int = 0, device=None) -> bool:
    arch = torch.cuda.get_device_capability(device)
    return arch >= (major, minor)


@functools.lru_cache(maxsize=1)
def is_sm90_supported(device=None) -> bool:
    return is_arch_supported(9, 0, device=device)  # expect: python-gate shape=predicate scope=is_sm90_supported sm_90=true sm_120=true sm_89=false


@functools.lru_cache(maxsize=1)
def is_sm100_supported(device=None) -> bool:
    return is_arch_supported(10, minor=0, device=device)  # expect: python-gate shape=predicate scope=is_sm100_supported sm_100=true sm_120=true sm_90=false


def is_sm100_supported_exact(device=None) -> bool:
    # The stricter meaning some releases give it: major 10 only.
    return (torch.cuda.get_device_capability(device)[0] == 10) and (  # expect: python-gate shape=comparison operand=major scope=is_sm100_supported_exact sm_100=true sm_103=true sm_120=false
        torch.version.cuda >= "12.8"
    )


def is_blackwell_consumer() -> bool:
    major, minor = get_device_capability()
    return major == 12 and minor == 0  # expect: python-gate shape=condition scope=is_blackwell_consumer sm_120=true sm_120a=true sm_121=false sm_100=false


def _resolve_backend(backend: str) -> str:
    cap = torch.cuda.get_device_capability()
    if cap[0] in [11, 12]:  # expect: python-gate shape=comparison operand=major scope=_resolve_backend sm_110=true sm_121=true sm_100=false
        return "trtllm"
    if cap not in {(9, 0), (10, 0), (10, 3)}:  # expect: python-gate operand=capability scope=_resolve_backend sm_90=false sm_103=false sm_120=true
        raise ValueError(f"unsupported device capability {cap}: need (9, 0) or (10, 0)")
    return backend


class ServerArgs:
    def _handle_gpu_memory_settings(self):
        props = torch.cuda.get_device_properties(0)
        if props.major >= 10:  # expect: python-gate operand=major scope=ServerArgs._handle_gpu_memory_settings sm_100=true sm_90=false
            self.chunked_prefill_size = 16384
        cc = props.major * 10 + props.minor
        if self.attention_backend is None and 90 <= cc:  # expect: python-gate operand=compute_capability sm_90=true sm_89=false
            pass

    def _handle_allreduce_fusion(self):
        major, minor = torch.cuda.get_device_capability()
        capability = major * 10 + minor
        if capability in [90, 100]:  # expect: python-gate operand=compute_capability scope=ServerArgs._handle_allreduce_fusion sm_90=true sm_100=true sm_120=false
            self.enable_flashinfer_allreduce_fusion = True
        if 100 <= capability < 120:  # expect: python-gate operand=compute_capability sm_100=true sm_90=false sm_120=true # expect: python-gate operand=compute_capability sm_100=true sm_120=false
            self.enable_flashinfer_autotune = True
