# Reconstruction for the evaluation (own text) of SGLang's shared capability predicates, in the
# form kvcache-ai/ktransformers#2081 and sgl-project/sglang#15650 quote (major == 10 / major == 9).
import functools

import torch


@functools.lru_cache(maxsize=1)
def is_sm100_supported(device=None) -> bool:
    return (torch.cuda.get_device_capability(device)[0] == 10) and (torch.version.cuda >= "12.8")


@functools.lru_cache(maxsize=1)
def is_sm90_supported(device=None) -> bool:
    return (torch.cuda.get_device_capability(device)[0] == 9) and (torch.version.cuda >= "12.3")


def is_blackwell_supported(device=None) -> bool:
    major, _ = torch.cuda.get_device_capability(device)
    return major in (10, 12)
