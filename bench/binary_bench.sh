#!/usr/bin/env bash
# Binary-scan throughput on a site-packages-shaped tree of several GB.
#
#   bench/binary_bench.sh [BUILD_DIR] [TREE_DIR] [GB]
#
# Builds the tree once (nvcc-built shared objects, some grown by a large .rodata section so that
# the fatbin is a small part of a big file, plus big real ELF files of this machine with no
# fatbin), linked into place so it costs little disk. Then times archpatch's scan over it,
# against a peer that reads the same files' ELF section headers: `cuobjdump --list-elf` when
# installed, else `readelf -S -W`. Each is run twice and the second (warm cache) run is
# reported, so both read from the page cache and the figure is the tool's own cost.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-binary}
tree=${2:-/tmp/archpatch-binary-bench}
target_gb=${3:-4}
scanner=$build/archpatch-binscan
nvcc=/usr/local/cuda/bin/nvcc
[ -x "$scanner" ] || { echo "binary_bench: build $scanner first (cmake --build $build --target archpatch-binscan)"; exit 2; }

make_tree() {
  local work=$tree.src
  rm -rf "$tree" "$work"; mkdir -p "$tree" "$work"
  printf '__global__ void k(float* x) { x[threadIdx.x] *= 2.0f; }\nvoid run(float* x) { k<<<1, 32>>>(x); }\n' > "$work/k.cu"
  if [ -x "$nvcc" ]; then
    "$nvcc" -shared -Xcompiler -fPIC -o "$work/plain.so" "$work/k.cu" \
      -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=[sm_90,compute_90] &
    "$nvcc" -shared -Xcompiler -fPIC -o "$work/hopper.so" "$work/k.cu" \
      -gencode arch=compute_90a,code=sm_90a -gencode arch=compute_100a,code=sm_100a &
    "$nvcc" -shared -Xcompiler -fPIC -Xfatbin=-compress-all -o "$work/many.so" "$work/k.cu" \
      $(for a in 75 80 86 89 90 100 103 110 120 121; do printf -- '-gencode arch=compute_%s,code=sm_%s ' $a $a; done) &
    wait
    # A 32 MB read-only section: the file grows, the fatbin stays where it is.
    head -c $((32 << 20)) /dev/urandom > "$work/pad.bin"
    objcopy --add-section .rodata.pad="$work/pad.bin" --set-section-flags .rodata.pad=alloc,readonly \
      "$work/many.so" "$work/big_many.so"
    rm "$work/pad.bin"
  fi
  # Big ELF files without fatbins, as most of a real site-packages is.
  local others=()
  for f in /usr/lib/x86_64-linux-gnu/libLLVM.so.19.1 /usr/lib/x86_64-linux-gnu/libclang-cpp.so.19.1 \
           /usr/lib/llvm-19/lib/libclang-19.so.1 /usr/lib/x86_64-linux-gnu/libz3.so.4; do
    [ -f "$f" ] && others+=("$(readlink -f "$f")")
  done
  local total=0 i=0 limit=$((target_gb << 30))
  while [ "$total" -lt "$limit" ]; do
    local pkg=$tree/pkg$i/lib
    mkdir -p "$pkg"
    for f in "$work"/*.so; do
      [ -f "$f" ] || continue
      cp "$f" "$pkg/$(basename "$f" .so)_$i.so"
      total=$((total + $(stat -c %s "$f")))
    done
    local other=${others[$((i % ${#others[@]}))]}
    ln "$other" "$pkg/libother_$i.so" 2>/dev/null || ln -s "$other" "$pkg/libother_$i.so"
    total=$((total + $(stat -L -c %s "$other")))
    i=$((i + 1))
  done
  rm -rf "$work"
}

[ -d "$tree" ] || make_tree
files=$(find -L "$tree" -type f -name '*.so' | wc -l)
bytes=$(find -L "$tree" -type f -name '*.so' -printf '%s\n' | awk '{s += $1} END {print s}')
echo "tree: $tree: $files files, $(awk -v b="$bytes" 'BEGIN {printf "%.2f GB", b / 1e9}')"

now() { date +%s.%N; }
time_it() {  # runs "$@" twice, prints the seconds of the second run
  "$@" > /dev/null 2>&1 || true
  local t0; t0=$(now); "$@" > /dev/null 2>&1 || true; local t1; t1=$(now)
  awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.3f", b - a}'
}
report() {  # name seconds
  awk -v n="$1" -v s="$2" -v f="$files" -v b="$bytes" \
    'BEGIN {printf "%-26s %8.3f s  %9.1f files/s  %9.1f MB/s\n", n, s, f / s, b / 1e6 / s}'
}

ours=$(time_it "$scanner" --arch sm_120 --json "$tree")
read_gb=$("$scanner" --arch sm_120 --json "$tree" | python3 -c \
  'import json,sys; e=json.load(sys.stdin)["binaries"]["examined"]; print("{:.3f} GB read of {:.2f} GB, {} files opened".format(e["bytes_read"]/1e9, e["bytes"]/1e9, e["files"]))' || true)
report "archpatch (binscan)" "$ours"
echo "  $read_gb"
list_files() { find -L "$tree" -type f -name '*.so' -print0; }
if command -v cuobjdump > /dev/null; then
  peer_name="cuobjdump --list-elf"
  peer=$(time_it bash -c "find -L '$tree' -type f -name '*.so' -print0 | xargs -0 -n1 cuobjdump --list-elf")
else
  peer_name="readelf -S -W"
  peer=$(time_it bash -c "find -L '$tree' -type f -name '*.so' -print0 | xargs -0 -n 64 readelf -S -W")
fi
report "$peer_name" "$peer"
awk -v a="$ours" -v p="$peer" -v n="$peer_name" 'BEGIN {printf "ratio: archpatch takes %.2fx the time of %s\n", a / p, n}'
