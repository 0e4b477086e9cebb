// Fixture shaped like include/flashinfer/comm/trtllm_allreduce.cuh up to 0.6.16 (written for
// archpatch, not copied). expect: 13 gates excluding sm_120 (drop the `< 1200` bound) and 2
// `>= 700` gates that already hold on sm_120.
#pragma once

#include <cuda_runtime.h>
#include <cooperative_groups.h>

namespace flashinfer {
namespace trtllm_allreduce {

static inline __device__ void st_flag_release(uint32_t const& flag, uint32_t* flag_addr) {
#if __CUDA_ARCH__ >= 700  // expect: cuda-gate sm_120=true
  asm volatile("st.global.release.sys.b32 [%1], %0;" ::"r"(flag), "l"(flag_addr));
#else
  __threadfence_system();
  *flag_addr = flag;
#endif
}

static inline __device__ uint32_t ld_flag_acquire(uint32_t* flag_addr) {
  uint32_t flag;
#if __CUDA_ARCH__ >= 700  // expect: cuda-gate sm_120=true
  asm volatile("ld.global.acquire.sys.b32 %0, [%1];" : "=r"(flag) : "l"(flag_addr));
#else
  flag = *reinterpret_cast<volatile uint32_t*>(flag_addr);
#endif
  return flag;
}

template <typename T>
__global__ void rms_norm_kernel(T const* in, T* out, int n) {
#if (defined(__CUDA_ARCH__) && (__CUDA_ARCH__ >= 900))  // expect: cuda-gate sm_120=false
  cudaGridDependencySynchronize();
#endif
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    out[i] = in[i];
  }
#if (defined(__CUDA_ARCH__) && (__CUDA_ARCH__ >= 900))  // expect: cuda-gate sm_120=false
  cudaTriggerProgrammaticLaunchCompletion();
#endif
}

template <typename T>
__global__ void rms_pre_post_norm_kernel(T const* in, T* out, int n) {
#if (defined(__CUDA_ARCH__) && (__CUDA_ARCH__ >= 900))  // expect: cuda-gate sm_120=false
  cudaGridDependencySynchronize();
#endif
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    out[i] = in[i];
  }
#if (defined(__CUDA_ARCH__) && (__CUDA_ARCH__ >= 900))  // expect: cuda-gate sm_120=false
  cudaTriggerProgrammaticLaunchCompletion();
#endif
}

template <typename T>
__global__ void one_shot_prenorm_kernel(T const* in, T* out, int n) {
#if (defined(__CUDA_ARCH__) && (__CUDA_ARCH__ >= 900))  // expect: cuda-gate sm_120=false
  cudaGridDependencySynchronize();
#endif
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    out[i] = in[i];
  }
#if (defined(__CUDA_ARCH__) && (__CUDA_ARCH__ >= 900))  // expect: cuda-gate sm_120=false
  cudaTriggerProgrammaticLaunchCompletion();
#endif
}

template <typename T>
__global__ void two_shot_prenorm_kernel(T const* in, T* out, int n) {
#if (defined(__CUDA_ARCH__) && (__CUDA_ARCH__ >= 900))  // expect: cuda-gate sm_120=false
  cudaGridDependencySynchronize();
#endif
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    out[i] = in[i];
  }
#if (defined(__CUDA_ARCH__) && (__CUDA_ARCH__ >= 900))  // expect: cuda-gate sm_120=false
  cudaTriggerProgrammaticLaunchCompletion();
#endif
}

template <typename T>
__global__ void oneShotAllReduceKernel(T const* in, T* out, int n) {
#if (defined(__CUDA_ARCH__) && (__CUDA_ARCH__ >= 900))  // expect: cuda-gate sm_120=false
  cudaGridDependencySynchronize();
#endif
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    out[i] = in[i];
  }
#if (defined(__CUDA_ARCH__) && (__CUDA_ARCH__ >= 900))  // expect: cuda-gate sm_120=false
  cudaTriggerProgrammaticLaunchCompletion();
#endif
}

template <typename T>
__global__ void twoShotAllReduceKernel(T const* in, T* out, int n) {
#if (defined(__CUDA_ARCH__) && (__CUDA_ARCH__ >= 900))  // expect: cuda-gate sm_120=false
  cudaGridDependencySynchronize();
#endif
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    out[i] = in[i];
  }
#if (defined(__CUDA_ARCH__) && (__CUDA_ARCH__ >= 900))  // expect: cuda-gate sm_120=false
  cudaTriggerProgrammaticLaunchCompletion();
#endif
}

template <int ClusterSize, typename T>
__global__ void lamport_style_one_shot_all_reduce_norm_kernel(T const* in, T* out, int n) {
#if (defined(__CUDA_ARCH__) && (__CUDA_ARCH__ >= 900))  // expect: cuda-gate sm_120=false
  namespace cg = cooperative_groups;
  cg::cluster_group cluster = cg::this_cluster();
  int i = cluster.block_rank() * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i];
  cluster.sync();
#endif
}

}  // namespace trtllm_allreduce
}  // namespace flashinfer
