# Modelled on flashinfer/jit/comm.py (FlashInfer before the SM12x fix): several JIT builders ask
# the compilation context for nvcc flags restricted to a list of majors. Three of them carry the
# very same literal; only the scope tells them apart. Written for archpatch's tests.
from .core import JitSpec, current_compilation_context, gen_jit_spec
from . import env as jit_env


def gen_comm_alltoall_module() -> JitSpec:
    return gen_jit_spec(
        "comm",
        [jit_env.FLASHINFER_CSRC_DIR / "trtllm_alltoall.cu"],
    )


def gen_trtllm_mnnvl_comm_module() -> JitSpec:
    # Hopper/Blackwell datacenter only: SM12x is kept out on purpose here.
    nvcc_flags = current_compilation_context.get_nvcc_flags_list(
        supported_major_versions=[9, 10]  # expect: python-gate shape=keyword scope=gen_trtllm_mnnvl_comm_module sm_90=true sm_100a=true sm_120=false sm_121=false
    )
    return gen_jit_spec(
        "trtllm_mnnvl_comm",
        [jit_env.FLASHINFER_CSRC_DIR / "trtllm_mnnvl_allreduce.cu"],
        extra_cuda_cflags=nvcc_flags,
    )


def gen_mixed_comm_module() -> JitSpec:
    sources = [jit_env.FLASHINFER_CSRC_DIR / "mixed_comm.cu"]

    def is_valid_op(op: str, use_tp: bool) -> bool:
        # Not a gate: string comparisons of op names.
        if use_tp:
            return op == "ALLREDUCE"
        return op in ("ALLGATHER", "REDUCESCATTER")

    nvcc_flags = current_compilation_context.get_nvcc_flags_list(
        supported_major_versions=[9, 10]  # expect: python-gate shape=keyword scope=gen_mixed_comm_module sm_120=false sm_90a=true
    ) + ["-rdc=true"]
    return gen_jit_spec("mixed_comm", sources, extra_cuda_cflags=nvcc_flags)


def gen_trtllm_comm_module() -> JitSpec:
    nvcc_flags = current_compilation_context.get_nvcc_flags_list(
        supported_major_versions=[9, 10]  # expect: python-gate shape=keyword scope=gen_trtllm_comm_module sm_120=false sm_121=false sm_100=true
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
    nvcc_flags = current_compilation_context.get_nvcc_flags_list(supported_major_versions=[9, 10, 11, 12])  # expect: python-gate scope=gen_dcp_alltoall_module sm_120=true sm_121=true sm_110=true sm_80=false
    return gen_jit_spec("dcp_alltoall", [], extra_cuda_cflags=nvcc_flags)


def gen_vllm_comm_module() -> JitSpec:
    # No restriction: None means every detected arch.
    nvcc_flags = current_compilation_context.get_nvcc_flags_list(supported_major_versions=None)
    return gen_jit_spec("vllm_comm", [], extra_cuda_cflags=nvcc_flags)
