#!/usr/bin/env bash
# Kernel-source rules (simt/portable.h): kernels use the portable spellings only, so the same
# source compiles with nvcc and with a host compiler through simt/. Fails listing every violation.
#   scripts/lint_kernels.sh [DIR...]   (default: kernels)
set -u
cd "$(dirname "$0")/.."
dirs=("$@"); [ ${#dirs[@]} -eq 0 ] && dirs=(kernels)
bad=0
check() {  # pattern, why
  local hits
  hits=$(grep -rnE --include='*.cu' --include='*.cuh' --include='*.hpp' --include='*.h' "$1" "${dirs[@]}" | grep -vE '^\S+:[0-9]+:\s*//' || true)
  if [ -n "$hits" ]; then echo "lint: $2"; echo "$hits" | sed 's/^/  /'; bad=1; fi
}
check '(^|[^_A-Za-z])__shared__' 'raw __shared__ (use SIMT_SHARED / SIMT_DYN_SHARED)'
check '(^|[^_A-Za-z])asm[[:space:]]*(volatile)?[[:space:]]*\(' 'inline asm (not portable to simt/)'
check '__CUDA_ARCH__' '__CUDA_ARCH__ branch (the host build would take another path)'
check '__ldg[[:space:]]*\(' '__ldg (use plain loads)'
check '(^|[^_A-Za-z])__global__' 'raw __global__ (use SIMT_KERNEL)'
check '<<<' 'triple-chevron launch (use simt::rt::launch)'
if [ $bad -eq 0 ]; then echo "lint: kernels clean (${dirs[*]})"; fi
exit $bad
