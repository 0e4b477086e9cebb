# Reconstruction for the evaluation (own text) of the gate vllm-project/vllm#45317 / #46055 describe:
# the sparse FlashMLA backend accepts capability majors 9 and 10 only, so GB10 (sm_121) never selects it.
class FlashMLASparseBackend:
    @classmethod
    def supports_compute_capability(cls, capability):
        return capability.major in [9, 10]
