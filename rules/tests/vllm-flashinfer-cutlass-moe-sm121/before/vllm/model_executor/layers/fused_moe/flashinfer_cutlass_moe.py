# Fixture shaped like vllm/model_executor/layers/fused_moe/flashinfer_cutlass_moe.py after vllm
# PR #39825 (written for archpatch from the lines quoted in the PR, not copied).
from vllm.platforms import current_platform
from vllm.utils.flashinfer import has_flashinfer_cutlass_fused_moe


class FlashInferExperts:
    @staticmethod
    def _supports_current_device() -> bool:
        p = current_platform
        return (
            p.is_cuda()
            and (
                p.is_device_capability(90)
                or p.is_device_capability_family(100)
                or p.is_device_capability_family(110)
                or p.is_device_capability(120)
                # SM121 left out until flashinfer >= 0.6.8 (BF16 Relu2 MoE GEMM)
            )
            and has_flashinfer_cutlass_fused_moe()
        )


class MarlinExperts:
    @staticmethod
    def _supports_current_device() -> bool:
        # Another class with the same words in its check: not for this rule to change.
        p = current_platform
        return p.is_cuda() and (
            p.is_device_capability(89)
            or p.is_device_capability(120)
        )
