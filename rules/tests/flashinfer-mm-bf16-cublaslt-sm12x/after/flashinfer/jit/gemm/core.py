# Fixture shaped like flashinfer/jit/gemm/core.py of 0.6.11-0.6.14 (written for archpatch, not
# copied): builders ask for nvcc flags of the majors they support.
from .. import env as jit_env
from ..core import JitSpec, current_compilation_context, gen_jit_spec


def gen_gemm_sm100_module() -> JitSpec:
    nvcc_flags = current_compilation_context.get_nvcc_flags_list(
        supported_major_versions=[10]
    )
    return gen_jit_spec("gemm_sm100", [jit_env.FLASHINFER_CSRC_DIR / "gemm_sm100.cu"], extra_cuda_cflags=nvcc_flags)


def gen_mm_bf16_cublaslt_module() -> JitSpec:
    nvcc_flags = current_compilation_context.get_nvcc_flags_list(
        supported_major_versions=[10, 12]
    )
    return gen_jit_spec(
        "mm_bf16_cublaslt",
        [jit_env.FLASHINFER_CSRC_DIR / "mm_bf16_cublaslt.cu"],
        extra_cuda_cflags=nvcc_flags,
        extra_ldflags=["-lcublasLt"],
    )
