# Fixture shaped like sglang/srt/utils/common.py of mid-2026 (written for archpatch, not copied).
# Here is_sm100_supported means "major == 10": SM120/SM121 do not pass it.
import functools

import torch


def is_cuda() -> bool:
    return torch.cuda.is_available() and torch.version.cuda is not None


@functools.lru_cache(maxsize=1)
def is_sm90_supported(device=None) -> bool:
    return torch.cuda.get_device_capability(device)[0] == 9 and torch.version.cuda >= "12.3"


@functools.lru_cache(maxsize=1)
def is_sm100_supported(device=None) -> bool:
    return torch.cuda.get_device_capability(device)[0] == 10 and torch.version.cuda >= "12.8"


def is_flashinfer_available() -> bool:
    try:
        import flashinfer  # noqa: F401
    except ImportError:
        return False
    return is_cuda()
