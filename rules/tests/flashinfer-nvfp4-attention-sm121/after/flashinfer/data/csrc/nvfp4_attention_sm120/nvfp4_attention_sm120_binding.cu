// Fixture shaped like csrc/nvfp4_attention_sm120/nvfp4_attention_sm120_binding.cu of
// 0.6.14-0.6.15 (written for archpatch, not copied): the entry point checks the device.
#include <cuda_runtime.h>
#include <tvm/ffi/error.h>

void quantize_qkv(int device_id) {
  cudaDeviceProp props;
  cudaGetDeviceProperties(&props, device_id);
  TVM_FFI_ICHECK(props.major >= 8) << "needs SM80 or newer";
}

void fwd(int device_id) {
  cudaDeviceProp props;
  cudaError_t status = cudaGetDeviceProperties(&props, device_id);
  TVM_FFI_ICHECK(status == cudaSuccess) << "cudaGetDeviceProperties failed";
  TVM_FFI_ICHECK(props.major == 12 && (props.minor == 0 || props.minor == 1))
      << "NVFP4 attention SM120 kernel requires compute capability 12.0";
}
