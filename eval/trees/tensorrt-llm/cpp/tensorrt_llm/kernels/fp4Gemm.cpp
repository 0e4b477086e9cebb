// Reconstruction for the evaluation (own text) of the checks NVIDIA/TensorRT-LLM#5018 quotes:
// 0.19.0 refused GeForce Blackwell, 0.20 admits it.
#include "tensorrt_llm/common/cudaUtils.h"

void fp4GemmRunner019(torch::Tensor& out) {
  TLLM_CHECK_WITH_INFO(getSMVersion() >= 100 && getSMVersion() < 120,
                       "FP4 Gemm not supported before Blackwell, nor GeForce Blackwell");
}

void fp4GemmRunner020(torch::Tensor& out) {
  TLLM_CHECK_WITH_INFO((getSMVersion() >= 100), "FP4 Gemm not supported before Blackwell");
}
