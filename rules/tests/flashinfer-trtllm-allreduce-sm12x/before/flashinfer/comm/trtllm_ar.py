# Fixture: the Python side of the TRT-LLM allreduce; since 0.4.0 its JIT builder lives in
# flashinfer/jit/comm.py, so this file only loads the module.
import functools

from ..jit.comm import gen_trtllm_comm_module


@functools.cache
def get_trtllm_comm_module():
    return gen_trtllm_comm_module().build_and_load()
