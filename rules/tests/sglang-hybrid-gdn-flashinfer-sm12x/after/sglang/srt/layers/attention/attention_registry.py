# Fixture shaped like sglang/srt/layers/attention/attention_registry.py (written for archpatch
# from the assertion quoted in sglang issues #20709/#35080, not copied).
import logging

logger = logging.getLogger(__name__)


def attn_backend_wrapper(runner, full_attn_backend):
    from sglang.srt.utils import is_blackwell, is_npu

    if cfg := runner.mambaish_config:
        if runner.hybrid_gdn_config is not None:
            if is_blackwell():
                assert (
                    runner.server_args.attention_backend == "triton"
                    or runner.server_args.attention_backend == "trtllm_mha"
                    or runner.server_args.attention_backend == "fa4"
                    or runner.server_args.attention_backend == "flashinfer"
                ), "triton or trtllm_mha or fa4 backend are the only supported backends on Blackwell GPUs for hybrid GDN models"
            if is_npu():
                assert runner.server_args.attention_backend == "ascend", "ascend only on NPU"
            logger.info("Using hybrid linear attention backend for hybrid GDN models.")
        return cfg
    return full_attn_backend


def create_hybrid_linear_attn_backend(runner):
    from sglang.srt.utils import is_blackwell

    # Another place that checks fa4: not for this rule to change.
    if is_blackwell() and runner.server_args.attention_backend == "fa4":
        return None
    return runner
