# Fixture shaped like sglang/srt/layers/communicator.py of mid-2026 (written for archpatch, not
# copied): the layer communicator fuses allreduce + residual + RMSNorm through FlashInfer only
# on SM90/SM100.
import torch

from sglang.srt.utils import is_cuda, is_flashinfer_available, is_sm90_supported, is_sm100_supported

_is_cuda = is_cuda()
_is_flashinfer_available = is_flashinfer_available()
_is_sm90_supported = _is_cuda and is_sm90_supported()
_is_sm100_supported = _is_cuda and is_sm100_supported()

FUSE_ALLREDUCE_MAX_BATCH_SIZE = 2048


def apply_flashinfer_allreduce_fusion(batch_size: int, enabled: bool) -> bool:
    return (
        (_is_sm90_supported or _is_sm100_supported)
        and _is_flashinfer_available
        and enabled
        and 0 < batch_size <= FUSE_ALLREDUCE_MAX_BATCH_SIZE
    )


def use_sm100_moe_finalize_fusion() -> bool:
    # A different, SM100-only fusion: the rule leaves it alone.
    return (_is_sm90_supported or _is_sm100_supported) and _is_sm100_supported
