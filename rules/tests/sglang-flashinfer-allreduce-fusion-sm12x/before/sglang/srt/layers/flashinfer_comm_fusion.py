# Fixture shaped like sglang/srt/layers/flashinfer_comm_fusion.py of mid-2026 (written for
# archpatch, not copied): the backend resolver refuses every GPU but SM90 and SM100.
import logging

import torch

from sglang.srt.utils import is_sm90_supported, is_sm100_supported

logger = logging.getLogger(__name__)


def _resolve_backend(requested: str, multi_node: bool) -> str:
    if not (is_sm90_supported() or is_sm100_supported()):
        raise ValueError(
            "FlashInfer allreduce fusion needs SM90 or SM100; "
            f"got capability {torch.cuda.get_device_capability()}"
        )
    if requested == "auto":
        return "mnnvl" if multi_node else "trtllm"
    return requested


def _mnnvl_supported() -> bool:
    # MNNVL needs multi-node NVLink: SM100 only; this check is not the rule's to change.
    return is_sm100_supported()
