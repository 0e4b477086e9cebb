# Modelled on flashinfer/gemm and flashinfer/fused_moe: backend requirement decorators list
# compute capabilities as integers, and JIT builders name majors through module-level lists.
# Written for archpatch's tests.
from ..utils import supported_compute_capability, backend_requirement
from .core import current_compilation_context, gen_jit_spec

_SM100_FAMILY_MAJORS = [10, 11]  # expect: python-gate shape=assignment scope=- sm_100=true sm_110=true sm_120=false
_FP4_CCS = (100, 103, 110)  # expect: python-gate shape=assignment scope=- operand=compute_capability sm_103=true sm_121=false


@supported_compute_capability([80, 86, 89, 90, 100, 103])  # expect: python-gate shape=compute-capability-list scope=_cudnn_gemm_requirement sm_90=true sm_103=true sm_120=false
def _cudnn_gemm_requirement(a, b, out=None):
    return True


@backend_requirement({"cutlass": _cutlass_requirement})
@supported_compute_capability([100, 103, 110, 120, 121])  # expect: python-gate scope=_cutlass_fp4_requirement sm_120=true sm_121=true sm_90=false
def _cutlass_fp4_requirement(a, b):
    return a.dtype == b.dtype


class CuteDslMoEWrapper:
    @supported_compute_capability([100, 103])  # expect: python-gate scope=CuteDslMoEWrapper.__init__ sm_100=true sm_120=false
    def __init__(self, num_experts: int, top_k: int):
        self.num_experts = num_experts
        self.supported_ccs = _FP4_CCS  # expect: python-gate shape=assignment via=_FP4_CCS operand=compute_capability sm_110=true sm_120=false

    def run(self, x):
        handler = lambda cc: cc >= 100  # expect: python-gate operand=compute_capability scope=CuteDslMoEWrapper.run sm_100=true sm_90=false
        return handler(x)


def gen_gemm_sm100_module():
    nvcc_flags = current_compilation_context.get_nvcc_flags_list(
        supported_major_versions=_SM100_FAMILY_MAJORS,  # expect: python-gate shape=keyword via=_SM100_FAMILY_MAJORS scope=gen_gemm_sm100_module sm_100=true sm_110=true sm_120=false
    )
    return gen_jit_spec("gemm_sm100", [], extra_cuda_cflags=nvcc_flags)


def gen_cutlass_fused_moe_sm120_module():
    nvcc_flags = current_compilation_context.get_nvcc_flags_list(supported_major_versions=[12])  # expect: python-gate scope=gen_cutlass_fused_moe_sm120_module sm_120=true sm_121a=true sm_100=false
    return gen_jit_spec("fused_moe_120", [], extra_cuda_cflags=nvcc_flags)


def gen_trtllm_gen_fused_moe_sm100_module():
    device_capability_majors = (10,)  # expect: python-gate shape=assignment name=device_capability_majors sm_100=true sm_120=false
    return device_capability_majors
