# Fixture shaped like flashinfer/comm/trtllm_ar.py of 0.2.7-0.3.0 (written for archpatch, not
# copied): no arch refusal; the module is built for whatever arches torch reports (SM12x too).
from ..jit import gen_jit_spec, env as jit_env, sm100a_nvcc_flags
from ..jit.cpp_ext import _get_cuda_arch_flags


def gen_trtllm_comm_module():
    gencode_flags = _get_cuda_arch_flags()
    has_sm100 = any("compute_100" in flag for flag in gencode_flags)
    return gen_jit_spec(
        "trtllm_comm",
        [jit_env.FLASHINFER_CSRC_DIR / "trtllm_allreduce.cu"],
        extra_cuda_cflags=sm100a_nvcc_flags if has_sm100 else [],
    )
