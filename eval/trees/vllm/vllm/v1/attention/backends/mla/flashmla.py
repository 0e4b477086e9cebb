# Reconstruction for the evaluation (own text), vllm-project/vllm#46055: the dense FlashMLA backend.
class FlashMLABackend:
    @classmethod
    def supports_compute_capability(cls, capability):
        return capability.major in [9, 10]
