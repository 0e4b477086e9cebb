#!/usr/bin/env bash
# The example's whole story in one scripted run, with a transcript:
#   1. without archpatch, minifi's JIT build refuses (the Python gate);
#   2. widening only the Python gate (by hand, in a scratch copy) builds an EMPTY kernel;
#   3. `archpatch apply` with the example rule: the JIT compiles with nvcc through minifi's own
#      path (torch.utils.cpp_extension when torch is there) and the kernel is right;
#   4. applying again changes nothing;
#   5. `archpatch revert`: every file has its original sha256 and the refusal is back.
# On a GPU machine (torch + CUDA) step 3 runs the kernel and compares it with a CPU reference.
# With --compile-only (CI: nvcc but no GPU) the kernel is built for MINIFI_CUDA_ARCH_LIST
# (default 12.0) and its body is checked in the PTX instead.
#
#   tests/gpu/run_minipkg.sh [--compile-only] [--tarball FILE]
#                                                   transcript: $OUT/transcript.txt (or ./)
# --tarball FILE: archpatch from scripts/package.sh's relocatable tarball (.tar.gz, or the same
# recompressed as .tar.xz), unpacked into a fresh folder and run from there with no ARCHPATCH_*
# variable, as a serving image would; otherwise $ARCHPATCH or build/archpatch.
# Exit: 0 every step as expected; 1 a step went wrong; 77 skipped (no nvcc).
set -euo pipefail

repo=$(cd "$(dirname "$0")/../.." && pwd)
mode=gpu
tarball=""
while (($#)); do
  case $1 in
    --compile-only) mode=compile-only ;;
    --tarball) tarball=$(realpath "${2:?--tarball needs a file}"); shift ;;
    *) echo "run_minipkg: unknown argument '$1'" >&2; exit 1 ;;
  esac
  shift
done

work=$(mktemp -d "${TMPDIR:-/tmp}/archpatch-minipkg.XXXXXX")
trap 'rm -rf "$work"' EXIT
ARCHPATCH=${ARCHPATCH:-}
if [[ -n $tarball ]]; then
  mkdir "$work/install"
  # tar where it can read the compression, else Python's tarfile (gzip and xz alike).
  tar -xf "$tarball" -C "$work/install" 2>/dev/null || python3 -m tarfile -e "$tarball" "$work/install"
  ARCHPATCH=$(ls -d "$work"/install/archpatch-*/bin/archpatch)
  while IFS= read -r name; do unset "$name"; done < <(compgen -e | grep '^ARCHPATCH_' || true)
elif [[ -z "$ARCHPATCH" ]]; then
  for candidate in "$repo"/build/archpatch "$repo"/build-*/archpatch; do
    if [[ -x "$candidate" ]]; then ARCHPATCH=$candidate; break; fi
  done
fi
[[ -x "${ARCHPATCH:-}" ]] || { echo "run_minipkg: no archpatch binary (set ARCHPATCH)" >&2; exit 1; }
if ! command -v nvcc >/dev/null && [[ -x /usr/local/cuda/bin/nvcc ]]; then
  export PATH="/usr/local/cuda/bin:$PATH"
fi
if ! command -v nvcc >/dev/null; then
  echo "run_minipkg: SKIPPED: nvcc not found (install the CUDA toolkit to run this test)"
  exit 77
fi

site="$work/site-packages"
cp -R "$repo/examples/minipkg/site-packages" "$site"
rule="$repo/examples/minipkg/rules/minifi-allreduce.yaml"
transcript="${OUT:-.}/transcript.txt"
: >"$transcript"

export PYTHONPATH="$site" MINIFI_WORKSPACE_BASE="$work/home" PYTHONDONTWRITEBYTECODE=1
if [[ $mode == compile-only ]]; then
  export MINIFI_CUDA_ARCH_LIST=${MINIFI_CUDA_ARCH_LIST:-12.0}
  demo=(python3 "$repo/examples/minipkg/demo.py" --compile-only)
  arch="sm_${MINIFI_CUDA_ARCH_LIST/./}"
else
  arch=$(python3 -c 'import torch; print("sm_%d%d" % torch.cuda.get_device_capability())')
  demo=(python3 "$repo/examples/minipkg/demo.py")
fi

failures=0
say() { printf '%s\n' "$*" | tee -a "$transcript"; }
# run EXPECTED_RC CMD...: runs CMD, shows it and its output, checks its exit code.
run() {
  local want=$1 rc=0
  shift
  say "$(printf "\$ %s" "$*" | sed "s|$work|\$WORK|g; s|$repo/||g")"
  "$@" >"$work/out" 2>&1 || rc=$?
  sed "s|$work|\$WORK|g; s|$repo/||g" "$work/out" | tee -a "$transcript"
  if ((rc == want)); then say "[exit $rc, as expected]"; else say "[exit $rc, EXPECTED $want]"; failures=$((failures + 1)); fi
}
tree_sums() { (cd "$site" && find . -path ./.archpatch -prune -o -type f -print0 | sort -z | xargs -0 sha256sum); }

say "== archpatch minipkg run ($mode, $arch) on $(uname -n), $(date -u +%FT%TZ)"
say "== nvcc: $(nvcc --version | tail -1)"
say "== $(ldd --version | head -1); $(. /etc/os-release 2>/dev/null && echo "$PRETTY_NAME")"
say "$("$ARCHPATCH" --version | sed "s|$work|\$WORK|g")"
[[ $mode == gpu ]] && say "== $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null || true)"
tree_sums >"$work/sums.before"

say "== 1. unpatched: the JIT refuses"
run 1 "$ARCHPATCH" audit --arch "$arch" "$site"
run 4 "${demo[@]}"

say "== 2. only the Python gate widened (scratch copy, by hand): the kernel body is empty"
cp -R "$site" "$work/python-only"
sed -i 's/supported_major_versions=\[10\]/supported_major_versions=[9, 10, 12]/' "$work/python-only/minifi/jit/comm.py"
PYTHONPATH="$work/python-only" MINIFI_WORKSPACE_BASE="$work/home-python-only" run 1 "${demo[@]}"

say "== 3. archpatch apply: both gates, cache cleared; the JIT builds and the kernel is right"
run 0 "$ARCHPATCH" apply --rule "$rule" --site-packages "$site"
run 0 "${demo[@]}"

say "== 4. apply again: nothing to do"
run 1 "$ARCHPATCH" apply --rule "$rule" --site-packages "$site"

say "== 5. archpatch revert: original bytes, and the refusal is back"
run 0 "$ARCHPATCH" revert --rule minifi-allreduce --site-packages "$site"
tree_sums >"$work/sums.after"
if diff "$work/sums.before" "$work/sums.after" >/dev/null; then
  say "sha256 of all $(wc -l <"$work/sums.before") files: identical to before apply"
else
  say "sha256 DIFFER after revert:"; diff "$work/sums.before" "$work/sums.after" | tee -a "$transcript" || true
  failures=$((failures + 1))
fi
run 4 "${demo[@]}"

say "== $([[ $failures == 0 ]] && echo PASS || echo "FAIL ($failures steps)")"
((failures == 0))
