// Reconstruction for the evaluation (own text) of the assertion NVIDIA/TensorRT-LLM#6892 hit on
// an RTX 5090: attention sinks were only implemented for SM90.
#include "tensorrt_llm/common/cudaUtils.h"

void AttentionOp::initialize(at::Tensor& sinks) {
  int mSM = getSMVersion();
  if (sinks.defined()) {
    TLLM_CHECK_WITH_INFO(mSM == kSM_90, "The attention sinks is only supported on SM90");
  }
}
