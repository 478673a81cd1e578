#!/usr/bin/env bash
# scripts/gpu/same_sass.sh -- does a kernel change leave the GPU machine code as it was? Runs HERE
# (nvcc, no GPU): compiles each kernel translation unit of revision REV and of the working tree to
# a cubin with the production flags, then compares the machine code of every kernel (the ELF
# .text.<kernel> sections, which ptxas emits per kernel; the symbol tables and their order may
# differ). Exit 0 = every kernel identical, so results measured on the GPU with REV hold.
#   scripts/gpu/same_sass.sh REV [-DFLAG=...]      e.g. scripts/gpu/same_sass.sh 15c4f32
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
rev=${1:?usage: same_sass.sh REV [nvcc flags]}; shift
export PATH="/usr/local/cuda/bin:$PATH"
F=(-std=c++20 -O3 -arch=sm_90a --expt-relaxed-constexpr -I. -Iinclude -DDSV4_TOPK_BLOCK_THREADS=1024
   -DDSV4_BF16_BLOCK_THREADS=512 -cubin "$@")
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
mkdir -p "$T/rev" && git archive "$rev" | tar -x -C "$T/rev" || exit 2
rc=0
for tu in kernels/topk_v2/topk_v2_launch.cu kernels/topk_bf16_small/topk_bf16_small.cu \
          kernels/block_amax/block_amax.cu kernels/candidate_block_table/candidate_block_table.cu; do
  n=$(basename "$tu" .cu)
  (cd "$T/rev" && nvcc "${F[@]}" "$tu" -o "$T/$n.rev.cubin") || { echo "$tu: build of $rev failed"; rc=2; continue; }
  nvcc "${F[@]}" "$tu" -o "$T/$n.now.cubin" || { echo "$tu: build failed"; rc=2; continue; }
  python3 - "$T/$n.rev.cubin" "$T/$n.now.cubin" "$tu" <<'PY' || rc=1
import struct, sys
def texts(path):  # {.text.<kernel>: bytes} of an ELF64 cubin
    b = open(path, "rb").read()
    shoff = struct.unpack_from("<Q", b, 0x28)[0]
    entsize, num, strndx = struct.unpack_from("<HHH", b, 0x3A)
    hdr = [struct.unpack_from("<IIQQQQIIQQ", b, shoff + i * entsize) for i in range(num)]
    stroff = hdr[strndx][4]
    name = lambda o: b[stroff + o:b.index(b"\0", stroff + o)].decode()
    return {name(h[0]): b[h[4]:h[4] + h[5]] for h in hdr if name(h[0]).startswith(".text.")}
a, c = texts(sys.argv[1]), texts(sys.argv[2])
diff = sorted(k for k in set(a) | set(c) if a.get(k) != c.get(k))
print(f"{sys.argv[3]}: {len(c)} kernels, " + ("machine code identical" if not diff else "DIFFERENT: " + ", ".join(d[6:] for d in diff)))
sys.exit(1 if diff else 0)
PY
done
exit $rc
