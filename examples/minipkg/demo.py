#!/usr/bin/env python3
"""The example's "service": builds minifi's allreduce through its own JIT path and checks it.

    demo.py                 # GPU: build, run the kernel, compare with a CPU reference
    demo.py --compile-only  # no GPU (also the fallback when torch sees none): build for
                            # MINIFI_CUDA_ARCH_LIST and check the kernel body in the PTX

Exit status: 0 the kernel is right (or, compile-only, has its body); 1 wrong result or empty
kernel body; 4 the JIT refused to build (minifi's arch gate).
Run it with PYTHONPATH pointing at the site-packages that holds minifi.
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

EXIT_OK, EXIT_WRONG, EXIT_REFUSED = 0, 1, 4


def build():
    from minifi.jit.comm import gen_allreduce_module

    spec = gen_allreduce_module()
    path = spec.build_and_load()
    print(f"demo: built {path.name} with {' '.join(spec.extra_cuda_cflags)} via {spec.builder}")
    return spec, path


def kernel_body_present(spec) -> bool:
    """Compiles the installed source to PTX for the spec's first arch and looks for the sum."""
    from minifi.jit import env as jit_env

    arch = re.search(r"compute_(\d+)", spec.extra_cuda_cflags[0]).group(1)
    nvcc = shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"
    with tempfile.TemporaryDirectory() as tmp:
        ptx = os.path.join(tmp, "allreduce.ptx")
        subprocess.run([nvcc, "-ptx", f"-arch=compute_{arch}", f"-I{jit_env.MINIFI_INCLUDE_DIR}",
                        str(spec.sources[0]), "-o", ptx], check=True)
        text = open(ptx).read()
    body = re.search(r"\.entry\s+\S*allreduce_sum_kernel\S*\s*\((.*?)\n}", text, re.S)
    return bool(body) and "add.f32" in body.group(1) and "griddepcontrol.wait" in body.group(1)


def gpu_available() -> bool:
    try:
        import torch
    except ImportError:
        return False
    return torch.cuda.is_available()


def run_on_gpu() -> int:
    import torch

    from minifi import allreduce_sum

    torch.manual_seed(0)
    n = 1 << 20
    a = torch.randn(n, device="cuda")
    b = torch.randn(n, device="cuda")
    out = torch.full_like(a, float("nan"))  # an empty kernel would leave these
    allreduce_sum(a, b, out)
    torch.cuda.synchronize()
    reference = a.cpu() + b.cpu()
    error = (out.cpu() - reference).abs().max().item()
    name = torch.cuda.get_device_name()
    print(f"demo: {name} sm_{''.join(map(str, torch.cuda.get_device_capability()))}: "
          f"{n} elements, max |gpu - cpu| = {error}")
    return EXIT_OK if error == 0.0 else EXIT_WRONG


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--compile-only", action="store_true")
    args = parser.parse_args()
    if not args.compile_only and not gpu_available():
        print("demo: no torch with a CUDA GPU here: compile-only")
        args.compile_only = True
    try:
        spec, _ = build()
    except RuntimeError as e:
        print(f"demo: refused: {e}")
        return EXIT_REFUSED
    if args.compile_only:
        present = kernel_body_present(spec)
        print(f"demo: allreduce_sum_kernel body {'present' if present else 'EMPTY (the CUDA gate excludes this arch)'}")
        return EXIT_OK if present else EXIT_WRONG
    status = run_on_gpu()
    print("demo: result matches the CPU reference" if status == EXIT_OK else "demo: WRONG result")
    return status


if __name__ == "__main__":
    sys.exit(main())
