#!/usr/bin/env python3
"""Writes a tree of Python files shaped like FlashInfer/SGLang/vLLM JIT and model code, for timing
archpatch's Python scanner (`archpatch audit` on *.py files).

    bench/gen_python_tree.py OUT_DIR [MEGABYTES]    (default 50 MB)
    bench/gen_python_tree.py OUT_FILE --single --checks N   (one module, N gated functions and
        N predicates with a call each)

Every file mixes what real packages hold: long docstrings, comments, f-strings, nested calls,
dict/list tables, and a few arch gates of every shape the scanner knows (keyword carriers, capability
comparisons, predicates, compute-capability decorators, nvcc flags). Deterministic (fixed seed), so
runs compare. Prints the number of files, bytes and gates written (one gate = one expected finding).
"""
import os
import random
import sys

GATES = [
    "    nvcc_flags = ctx.get_nvcc_flags_list(supported_major_versions=[9, 10])\n",
    "    major, minor = torch.cuda.get_device_capability()\n    if major >= 10:\n        pass\n",
    "    if current_platform.has_device_capability(90):\n        pass\n",
    "    cap = torch.cuda.get_device_capability(device)\n    if cap in [(9, 0), (10, 0)]:\n        pass\n",
    "    flags = [\"-gencode=arch=compute_90a,code=sm_90a\", \"-O3\"]\n",
    "    return is_arch_supported(10, 0)\n",
]

FILLER = [
    '    """{doc}\n\n    Parameters\n    ----------\n    x : torch.Tensor\n        The input, shape ``(batch, {n})``.\n    """\n',
    "    # {doc}\n",
    '    name = f"{{prefix}}_{n}_{{dtype}}" + "_{doc}"\n',
    "    table = {{'block_m': {n}, 'block_n': {m}, 'stages': 3, 'warps': [4, 8], 'note': '{doc}'}}\n",
    "    out = torch.empty((x.shape[0], {n}), dtype=x.dtype, device=x.device)\n",
    "    for i in range({n}):\n        acc = acc + x[i] * {m} if i % 2 else acc - x[i]\n",
    "    result = helper(x, y=(1, 2, 3), z=[a for a in range({m})], w=lambda v: v + {n})\n",
]

WORDS = ("kernel tile warp block shared memory fused moe allreduce gemm attention decode prefill "
         "page cache rope norm quant scale group expert token layout stride").split()


def sentence(rng):
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(6, 14)))


def function(rng, index, with_gate):
    body = [f"def gen_module_{index}(x, y=None, z=None):\n"]
    for _ in range(rng.randint(3, 8)):
        body.append(rng.choice(FILLER).format(doc=sentence(rng), n=rng.randint(1, 512), m=rng.randint(1, 64)))
    gates = 0
    if with_gate:
        body.append(rng.choice(GATES))
        gates = 1
    body.append("    return x\n\n\n")
    return "".join(body), gates


def module(rng, target_bytes):
    parts = ['"""' + sentence(rng) + '.\n\n' + sentence(rng) + '\n"""\n', "import torch\n\n\n"]
    size, index, gates = 0, 0, 0
    while size < target_bytes:
        text, g = function(rng, index, rng.random() < 0.08)
        parts.append(text)
        size += len(text)
        gates += g
        index += 1
    return "".join(parts), gates


# What the package model resolves (src/python/package.h): a predicate, a call of it and a bound
# condition, so its work doubles with the file in bench/scaling_bench.py.
PACKAGE_FORMS = """def _is_sm100_{i}(device):
    major, minor = torch.cuda.get_device_capability(device)
    return major == 10 and minor == 0


def use_{i}(x):
    is_sm90 = torch.cuda.get_device_capability()[0] == 9
    if not _is_sm100_{i}(x.device) and not is_sm90:
        raise RuntimeError("use_{i} needs SM100 or SM90")
    return x


"""


def single(path, checks):
    """One module with `checks` functions, each holding one gate, and as many predicates with a
    call each (bench/scaling_bench.py)."""
    rng = random.Random(121)
    parts = ['"""' + sentence(rng) + '.\n"""\n', "import torch\n\n\n"]
    for index in range(checks):
        parts.append(function(rng, index, True)[0])
        parts.append(PACKAGE_FORMS.format(i=index))
    with open(path, "w", encoding="utf-8") as f:
        f.write("".join(parts))


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    if len(sys.argv) == 5 and sys.argv[2] == "--single" and sys.argv[3] == "--checks":
        return single(sys.argv[1], int(sys.argv[4]))
    out = sys.argv[1]
    megabytes = float(sys.argv[2]) if len(sys.argv) > 2 else 50.0
    rng = random.Random(120)
    total, files, gates = 0, 0, 0
    while total < megabytes * 1e6:
        folder = os.path.join(out, f"pkg{files // 50}", "jit")
        os.makedirs(folder, exist_ok=True)
        text, g = module(rng, rng.randint(4000, 40000))
        with open(os.path.join(folder, f"mod_{files}.py"), "w", encoding="utf-8") as f:
            f.write(text)
        total += len(text.encode("utf-8"))
        files += 1
        gates += g
    print(f"gen_python_tree: {files} files, {total / 1e6:.1f} MB, {gates} gates in {out}")


if __name__ == "__main__":
    main()
