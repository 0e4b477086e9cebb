# Reconstruction for the evaluation (own text): uses the local `is_sm100_supported` (>= 10.0),
# which admits sm_120, and the shared one (== 10), which refuses it; sgl-project/sglang#24633
# (SM120 routed into TRT-LLM MLA prefill) is the kind of consequence this difference has.
from sglang.srt.layers.attention.attention_utils import is_sm100_supported
from sglang.srt import utils


class TRTLLMMLABackend:
    def __init__(self, device):
        if not is_sm100_supported(device):
            raise RuntimeError("TRT-LLM MLA needs sm_100 or newer")
        if not utils.is_sm100_supported(device):
            raise RuntimeError("TRT-LLM MLA prefill kernels exist for sm_100 only")
