# Fixture shaped like flashinfer/jit/comm.py of 0.4.0-0.6.16 (written for archpatch, not copied):
# three builders gate on major versions; only gen_trtllm_comm_module is for the rule to widen.
from . import env as jit_env
from .core import JitSpec, current_compilation_context, gen_jit_spec


def gen_trtllm_mnnvl_comm_module() -> JitSpec:
    # Multi-node NVLink: datacenter parts only, SM12x excluded on purpose.
    nvcc_flags = current_compilation_context.get_nvcc_flags_list(
        supported_major_versions=[9, 10]
    )
    return gen_jit_spec(
        "trtllm_mnnvl_comm",
        [jit_env.FLASHINFER_CSRC_DIR / "trtllm_mnnvl_allreduce.cu"],
        extra_cuda_cflags=nvcc_flags,
    )


def gen_mixed_comm_module() -> JitSpec:
    sources = [jit_env.FLASHINFER_CSRC_DIR / "mixed_comm.cu"]
    nvcc_flags = current_compilation_context.get_nvcc_flags_list(
        supported_major_versions=[9, 10]
    )
    return gen_jit_spec("mixed_comm", sources, extra_cuda_cflags=nvcc_flags)


def gen_trtllm_comm_module() -> JitSpec:
    nvcc_flags = current_compilation_context.get_nvcc_flags_list(
        supported_major_versions=[9, 10]
    )
    return gen_jit_spec(
        "trtllm_comm",
        [
            jit_env.FLASHINFER_CSRC_DIR / "trtllm_allreduce.cu",
            jit_env.FLASHINFER_CSRC_DIR / "trtllm_allreduce_fusion.cu",
        ],
        extra_cuda_cflags=nvcc_flags,
    )


def gen_dcp_alltoall_module() -> JitSpec:
    nvcc_flags = current_compilation_context.get_nvcc_flags_list(
        supported_major_versions=[9, 10, 11, 12]
    )
    return gen_jit_spec("dcp_alltoall", [jit_env.FLASHINFER_CSRC_DIR / "dcp_alltoall.cu"], nvcc_flags)
