# Reconstruction for the evaluation (own text) of the assertion kvcache-ai/ktransformers#2081 hit
# on an RTX PRO 4500 (sm_120) in sglang/srt/layers/quantization/fp8.py.
from sglang.srt.utils import is_sm90_supported, is_sm100_supported


class Fp8MoEMethod:
    def __init__(self, quant_config):
        self.block_quant = quant_config.weight_block_size is not None
        if self.block_quant:
            assert is_sm100_supported() or is_sm90_supported()


def use_fused_allreduce():
    # sgl-project/sglang#15650: the auto-enable admits SM120 (is_blackwell_supported), the
    # refusal comes from FlashInfer's comm module; this line itself keeps no arch out.
    from sglang.srt.utils import is_blackwell_supported
    if not is_blackwell_supported():
        return False
    return True
