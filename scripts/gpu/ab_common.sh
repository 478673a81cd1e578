# scripts/gpu/ab_common.sh -- sourced by the GPU scripts that build with nvcc directly
# (topk_v2_ab.sh, bf16_ab.sh, topk_v2_gpu.sh, topk_v2_profile.sh): the nvcc flags of the production
# instantiation ($ARCH, default sm_90a), the source lists, a parallel build of nvcc command lines,
# and the prebuilt A/B binaries (.ab-bin/<name>.tar.xz, built HERE with --build-only and carried;
# it records its variant list). Sets $OUT (default out/<calling script>) and cds to the repo root.
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 1
export PATH="/usr/local/cuda/bin:$PATH"
AB_FLAGS=(-std=c++20 -O3 -arch="${ARCH:-sm_90a}" -lineinfo --expt-relaxed-constexpr -I. -Iinclude
          -DDSV4_TOPK_BLOCK_THREADS=1024 -DDSV4_BF16_BLOCK_THREADS=512)
AB_PRE="${AB_PRE:-$PWD/.ab-bin}"  # prebuilt binaries (override: another folder, also carried)
AB_COMMON_SRCS=(kernels/common/validate.cu kernels/common/status_host.cu kernels/common/capabilities.cu
                kernels/occupancy_probe/occupancy_probe.cu)
AB_TOPK_SRCS=("${AB_COMMON_SRCS[@]}" kernels/topk_v2/topk_v2_launch.cu kernels/topk_v2/topk_v2_dispatch.cu
              kernels/topk_v2/topk_v2_entry.cu)
AB_TOPK_SMOKE=tests/kernels/topk_v2/gpu/topk_v2_gpu_smoke.cu
OUT="${OUT:-$PWD/out/$(basename "$0" .sh)}"  # the calling script's results
mkdir -p "$OUT"
# ab_names "name=flags ...": the variant names, space separated.
ab_names() { local kv; for kv in $1; do printf '%s ' "${kv%%=*}"; done; }
# ab_flags name=flags: the nvcc flags of one variant (several joined by commas; a leading @REV
# names the revision whose kernel directory the variant is built from, see ab_tree).
ab_flags() { local f=${1#*=}; [ "${f#@}" != "$f" ] && { f=${f#@}; case $f in *,*) f=${f#*,} ;; *) f= ;; esac; }; printf '%s' "${f//,/ }"; }
# ab_rev name=flags: the REV of a variant written name=@REV[,flags] (empty: the working tree).
ab_rev() { local f=${1#*=}; [ "${f#@}" != "$f" ] || return 0; f=${f#@}; printf '%s' "${f%%,*}"; }
# ab_tree NAME REV DIR: a copy of the sources needed to build (kernels include simt tests scripts)
# with DIR replaced by its state at REV (git, HERE); prints the copy's path. Lets one A/B time
# experiments kept on branches: AB_VARIANTS="bal=@next/topk-ballot-select,-DDSV4_TOPK_BALLOT_SELECT=1".
ab_tree() {
  local t=/tmp/ab_tree_$1
  rm -rf "$t" && mkdir -p "$t" && cp -r kernels include simt tests scripts "$t"/ 2>/dev/null
  rm -rf "${t:?}/$3" && git archive "$2" "$3" | tar -x -C "$t" || { echo "ab_tree: no $3 at $2" >&2; return 1; }
  printf '%s' "$t"
}
# ab_variant_cmd NAME=FLAGS KERNEL_DIR OUT_BINARY SRC...: the build command line of one variant
# (in an ab_tree copy when it names a revision); fails when that revision lacks KERNEL_DIR.
ab_variant_cmd() {
  local kv=$1 kdir=$2 bin=$3 rev dir=. f srcs=(); shift 3
  rev=$(ab_rev "$kv")
  [ -n "$rev" ] && { dir=$(ab_tree "$(basename "$bin")" "$rev" "$kdir") || return 1; }
  for f in "$@"; do [ -e "$dir/$f" ] && srcs+=("$f"); done  # an older revision may lack a file
  printf '%s' "cd $dir && nvcc ${AB_FLAGS[*]} $(ab_flags "$kv") ${srcs[*]} -o $bin"
}
# ab_build LOG CMD...: runs the command lines in parallel ($AB_JOBS at a time, default 16).
ab_build() { local log=$1; shift; printf '%s\n' "$@" | xargs -d '\n' -P "${AB_JOBS:-16}" -n 1 bash -c >"$log" 2>&1; }
# ab_pack NAME BIN VARIANTS: records the variants in BIN and packs BIN into .ab-bin/NAME.tar.xz.
ab_pack() { echo "$3" >"$2/variants.txt" && mkdir -p "$AB_PRE" && tar -C "$2" -cJf "$AB_PRE/$1.tar.xz" . && ls -la "$AB_PRE"; }
# ab_unpack NAME BIN VARIANTS: 0 = prebuilt binaries unpacked into BIN, 1 = none prebuilt,
# 2 = prebuilt for another variant list.
ab_unpack() {
  [ -f "$AB_PRE/$1.tar.xz" ] || return 1
  rm -rf "$2" && mkdir -p "$2" && tar -C "$2" -xJf "$AB_PRE/$1.tar.xz" || return 1
  [ "$(cat "$2/variants.txt")" = "$3" ] || return 2
}
# ab_prepare NAME LOG [--build-only]: with --build-only, the caller's build_all into $BIN, packed
# as NAME, then exit; otherwise the log header, then the prebuilt binaries of NAME unpacked into
# $BIN (for $VARIANTS) or, when none were carried, build_all here.
ab_prepare() {
  local name=$1 log=$2
  if [ "${3:-}" = --build-only ]; then build_all && ab_pack "$name" "$BIN" "$VARIANTS"; exit; fi
  { date -u; nvidia-smi -L; } >"$log" 2>&1
  ab_unpack "$name" "$BIN" "$VARIANTS"
  case $? in
    0) echo "prebuilt binaries from $AB_PRE" >>"$log" ;;
    2) echo "the prebuilt binaries were built for other variants than $VARIANTS" | tee -a "$log"; exit 2 ;;
    *) build_all >>"$log" || { cat "$log"; exit 1; } ;;
  esac
}
