# Fixture shaped like flashinfer/jit/nvfp4_attention_sm120.py of 0.6.14-0.6.15 (written for
# archpatch, not copied): the builder compiles for sm_120a only.
import functools

from . import env as jit_env
from .core import JitSpec, gen_jit_spec, sm120a_nvcc_flags


_NVFP4_ATTENTION_SM120_MODULE_NAME = "nvfp4_attention_sm120"
_NVFP4_ATTENTION_SM120_CUDA_FLAGS = ["--use_fast_math"]


@functools.cache
def gen_nvfp4_attention_sm120_module() -> JitSpec:
    source_paths = [jit_env.FLASHINFER_CSRC_DIR / "nvfp4_attention_sm120" / "nvfp4_attention_sm120_binding.cu"]
    include_paths = [jit_env.FLASHINFER_INCLUDE_DIR]
    return gen_jit_spec(
        _NVFP4_ATTENTION_SM120_MODULE_NAME,
        source_paths,
        extra_cuda_cflags=sm120a_nvcc_flags + _NVFP4_ATTENTION_SM120_CUDA_FLAGS,
        extra_include_paths=include_paths,
    )
