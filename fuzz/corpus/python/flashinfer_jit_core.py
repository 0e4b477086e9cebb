# Modelled on flashinfer/jit/core.py and compilation_context.py: the compilation context detects
# the GPUs, appends "a" to majors >= 9, and hands out -gencode flags per supported major.
# Written for archpatch's tests.
import os
import torch

sm90a_nvcc_flags = ["-gencode=arch=compute_90a,code=sm_90a"]  # expect: python-gate shape=nvcc-arch-flag name=sm90a_nvcc_flags sm_90=true sm_90a=true sm_100a=false sm_120=false
sm100a_nvcc_flags = ["-gencode=arch=compute_100a,code=sm_100a", "-DFLASHINFER_ENABLE_FP4"]  # expect: python-gate shape=nvcc-arch-flag sm_100a=true sm_103a=false sm_120a=false
sm120f_nvcc_flags = [
    "-gencode=arch=compute_120f,code=sm_120f",  # expect: python-gate shape=nvcc-arch-flag sm_120=true sm_121=true sm_100=false
]
common_nvcc_flags = ["-DFLASHINFER_ENABLE_FP8_E8M0", "-O3", "--use_fast_math"]


class CompilationContext:
    COMMON_NVCC_FLAGS = ["-DFLASHINFER_ENABLE_FP8_E8M0", "-DFLASHINFER_ENABLE_FP4_E2M1"]

    def __init__(self):
        self.TARGET_CUDA_ARCHS = set()
        if "FLASHINFER_CUDA_ARCH_LIST" in os.environ:
            for arch in os.environ["FLASHINFER_CUDA_ARCH_LIST"].split(" "):
                major, minor = arch.split(".")
                self.TARGET_CUDA_ARCHS.add((int(major), str(minor)))
        else:
            for device in range(torch.cuda.device_count()):
                major, minor = torch.cuda.get_device_capability(device)
                if major >= 9:  # expect: python-gate shape=comparison operand=major scope=CompilationContext.__init__ sm_90=true sm_120=true sm_89=false
                    minor = str(minor) + "a"
                self.TARGET_CUDA_ARCHS.add((int(major), str(minor)))

    def get_nvcc_flags_list(self, supported_major_versions=None):
        # The gate itself compares against a parameter: nothing literal to report here.
        if supported_major_versions:
            archs = [t for t in self.TARGET_CUDA_ARCHS if t[0] in supported_major_versions]
        else:
            archs = self.TARGET_CUDA_ARCHS
        if len(archs) == 0:
            raise RuntimeError(
                f"No supported CUDA architectures found for major versions {supported_major_versions}."
            )
        return [
            f"-gencode=arch=compute_{major}{minor},code=sm_{major}{minor}"
            for major, minor in archs
        ] + self.COMMON_NVCC_FLAGS


current_compilation_context = CompilationContext()
