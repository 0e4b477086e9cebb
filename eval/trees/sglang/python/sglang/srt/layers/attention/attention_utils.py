# Reconstruction for the evaluation (own text): a second `is_sm100_supported` meaning something
# else (capability at or above 10.0), as the issue on cross-module resolution describes. A module
# that imports this one is decided by this definition, not by sglang.srt.utils'.
import torch


def is_sm100_supported(device=None) -> bool:
    return torch.cuda.get_device_capability(device) >= (10, 0)
