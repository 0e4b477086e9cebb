#!/usr/bin/env python3
"""Generates a source tree shaped like a CUDA library for bench/audit_bench.sh.

Most files are gate-free kernels and host code; about 8% carry __CUDA_ARCH__ #if chains, a few
<nv/target> macros or host runtime checks. Content is deterministic (seeded). To add a kind of
file (a Python tree, say), write a function returning the text and add it to GENERATORS with
its share and extension.

A few CuTe-shaped headers (--dense-files, --dense-gates) give the tree CUTLASS's density: files of
several MB with hundreds of gates, where work per gate that grows with the file's size shows.
--single writes one such header (bench/scaling_bench.py doubles its atoms).

usage: gen_tree.py OUT_DIR [--files N] [--megabytes M] [--dense-files N] [--dense-gates G]
       gen_tree.py OUT_FILE --single --dense-gates G
"""
import argparse
import os
import random

KERNEL_BODY = """
template <typename T, int kBlock>
__global__ void __launch_bounds__(kBlock) {name}(const T* __restrict__ in, T* __restrict__ out, int n) {{
  __shared__ float smem[kBlock];
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  float acc = 0.f;
  // accumulate in registers, reduce through shared memory
  for (int i = idx; i < n; i += gridDim.x * blockDim.x) {{
    acc += static_cast<float>(in[i]) * {scale}f;
  }}
  smem[threadIdx.x] = acc;
  __syncthreads();
  for (int s = kBlock / 2; s > 0; s >>= 1) {{
    if (threadIdx.x < s) smem[threadIdx.x] += smem[threadIdx.x + s];
    __syncthreads();
  }}
  if (threadIdx.x == 0) out[blockIdx.x] = static_cast<T>(smem[0]);
}}
"""

HOST_BODY = """
void launch_{name}(const float* in, float* out, int n, cudaStream_t stream) {{
  constexpr int kBlock = 256;
  int grid = (n + kBlock - 1) / kBlock;
  // grid-stride launch; the kernel handles any n
  {name}<float, kBlock><<<grid, kBlock, 0, stream>>>(in, out, n);
  auto status = cudaGetLastError();
  if (status != cudaSuccess) report_error("{name}", status);
}}
"""

GATED = """
template <typename T>
__global__ void {name}_pdl(T* out, int n) {{
#if (defined(__CUDA_ARCH__) && (__CUDA_ARCH__ >= 900) && (__CUDA_ARCH__ < 1200))
  asm volatile("griddepcontrol.wait;");
#endif
  if (threadIdx.x < n) out[threadIdx.x] = T(1);
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 1000
  asm volatile("griddepcontrol.launch_dependents;");
#elif defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  __threadfence();
#else
  return;
#endif
}}
"""

NV_TARGET = """
__device__ void {name}_fence() {{
  NV_IF_TARGET(NV_PROVIDES_SM_90, (asm volatile("fence.proxy.async;");));
}}
"""

RUNTIME = """
bool {name}_supported(int major, int minor) {{
  TORCH_CHECK(major == 9 || major == 10, "{name}: unsupported architecture");
  if (major * 10 + minor < 80) return false;
  return true;
}}
"""

# CUTLASS/CuTe-shaped density (include/cute/arch/mma_sm90_gmma_ext.hpp: 2.8 MB, 737 gates): a
# feature macro defined under an arch branch, then hundreds of MMA atoms, each an inline-asm
# wgmma behind `#if defined(<feature macro>)`, with wide register lists.
DENSE_PROLOGUE = """// Copyright (c) the authors. Licensed under the BSD 3-Clause License.
#pragma once
#include <cute/config.hpp>
#include <cute/arch/mma.hpp>

#if (defined(__CUDA_ARCH_FEAT_SM90_ALL) || defined(__CUDA_ARCH_FEAT_SM100_ALL))
#  define BENCH_ARCH_MMA_SM90A_ENABLED
#endif

namespace cute::bench{index} {{
"""

DENSE_ATOM = """
// GMMA 64x{n}x16 F16+=F16*F16, variant {i}
template <GMMA::Major tnspA, GMMA::Major tnspB, GMMA::ScaleIn scaleA = GMMA::ScaleIn::One,
          GMMA::ScaleIn scaleB = GMMA::ScaleIn::One>
struct MMA_64x{n}x16_F16F16F16_SS_{i}
{{
  using DRegisters = void;
  using ARegisters = uint64_t[1];
  using BRegisters = uint64_t[1];
  using CRegisters = uint32_t[{regs}];

  CUTE_HOST_DEVICE static void
  fma(uint64_t const& desc_a, uint64_t const& desc_b,
      {params},
      GMMA::ScaleOut const scale_D = GMMA::ScaleOut::One)
  {{
#if defined(BENCH_ARCH_MMA_SM90A_ENABLED)
    cutlass::arch::synclog_emit_wgmma_smem_smem(__LINE__, desc_a, desc_b);
    asm volatile(
    "{{\\n"
      ".reg .pred p;\\n"
      "setp.ne.b32 p, %{k}, 0;\\n"
      "wgmma.mma_async.sync.aligned.m64n{n}k16.f16.f16.f16 "
      "{{{operands}}},"
      " %{a}, %{b}, p, %{sa}, %{sb}, %{ta}, %{tb};\\n"
    "}}\\n"
      : {outputs}
      :  "l"(desc_a), "l"(desc_b), "r"(int32_t(scale_D)), "n"(int32_t(scaleA)), "n"(int32_t(scaleB)),
         "n"(int32_t(tnspA)), "n"(int32_t(tnspB)));
#else
    CUTE_INVALID_CONTROL_PATH("Attempting to use MMA_64x{n}x16_F16F16F16_SS without BENCH_ARCH_MMA_SM90A_ENABLED");
#endif
  }}
}};
"""


def dense_header(index, gates):
    """A CuTe-shaped header with `gates` MMA atoms (two gate findings each: #if and #else)."""
    parts = [DENSE_PROLOGUE.format(index=index)]
    for i in range(gates):
        n = 8 * (1 + i % 32)
        regs = n // 2
        params = ", ".join(f"uint32_t& d{r:03d}" for r in range(regs))
        operands = ", ".join(f"%{r}" for r in range(regs))
        outputs = ", ".join(f'"+r"(d{r:03d})' for r in range(regs))
        k = regs
        parts.append(DENSE_ATOM.format(n=n, i=i, regs=regs, params=params, operands=operands, outputs=outputs,
                                       k=k, a=k + 1, b=k + 2, sa=k + 3, sb=k + 4, ta=k + 5, tb=k + 6))
    parts.append("}  // namespace\n")
    return "".join(parts)


HEADER = """// Copyright (c) the authors. Licensed under the Apache License, Version 2.0.
#pragma once
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include "common/{dep}.cuh"

namespace bench::{ns} {{
"""


def cuda_file(rng, index, gated):
    parts = [HEADER.format(dep=f"util_{index % 37}", ns=f"ns{index % 11}")]
    for k in range(rng.randint(4, 8)):
        name = f"k{index}_{k}"
        parts.append(KERNEL_BODY.format(name=name, scale=rng.randint(1, 9)))
        parts.append(HOST_BODY.format(name=name))
        if gated and k == 0:
            parts.append(GATED.format(name=name))
            if index % 3 == 0:
                parts.append(NV_TARGET.format(name=name))
            if index % 4 == 0:
                parts.append(RUNTIME.format(name=name))
    parts.append("}  // namespace\n")
    return "".join(parts)


EXTENSIONS = [".cu", ".cuh", ".h", ".cc", ".cpp"]
GATED_SHARE = 0.08
# Other generators (extension, share of files, function(rng, index) -> text) go here.
GENERATORS = []


def main():
    p = argparse.ArgumentParser()
    p.add_argument("out")
    p.add_argument("--files", type=int, default=3200)
    p.add_argument("--megabytes", type=float, default=72)
    p.add_argument("--dense-files", type=int, default=4,
                   help="CuTe-shaped headers of several MB with hundreds of gates each (0: none)")
    p.add_argument("--dense-gates", type=int, default=700, help="MMA atoms per dense header")
    p.add_argument("--single", action="store_true",
                   help="write one dense header with --dense-gates atoms to OUT (a file) and stop")
    args = p.parse_args()
    if args.single:
        text = dense_header(0, args.dense_gates)
        with open(args.out, "w") as f:
            f.write(text)
        print(f"1 file, {args.dense_gates} atoms, {len(text)} bytes in {args.out}")
        return
    rng = random.Random(20260101)
    target = int(args.megabytes * 1024 * 1024)
    per_file = target // args.files
    total = 0
    for i in range(args.files):
        folder = os.path.join(args.out, f"csrc/mod{i % 40}/sub{i % 7}")
        os.makedirs(folder, exist_ok=True)
        gated = rng.random() < GATED_SHARE
        text = cuda_file(rng, i, gated)
        while len(text) < per_file:  # pad with more gate-free kernels
            text += KERNEL_BODY.format(name=f"pad{i}_{len(text)}", scale=3)
        path = os.path.join(folder, f"file{i}{EXTENSIONS[i % len(EXTENSIONS)]}")
        with open(path, "w") as f:
            f.write(text)
        total += len(text)
    for i in range(args.dense_files):
        folder = os.path.join(args.out, f"include/cute/arch{i % 3}")
        os.makedirs(folder, exist_ok=True)
        text = dense_header(i, args.dense_gates)
        with open(os.path.join(folder, f"mma_sm90_gmma_bench{i}.hpp"), "w") as f:
            f.write(text)
        total += len(text)
    for ext, share, make in GENERATORS:
        for i in range(int(args.files * share)):
            folder = os.path.join(args.out, f"py/pkg{i % 20}")
            os.makedirs(folder, exist_ok=True)
            text = make(rng, i)
            with open(os.path.join(folder, f"mod{i}{ext}"), "w") as f:
                f.write(text)
            total += len(text)
    print(f"{args.files} files, {total / 1e6:.1f} MB in {args.out}")


if __name__ == "__main__":
    main()
