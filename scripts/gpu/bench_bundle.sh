#!/usr/bin/env bash
# scripts/gpu/bench_bundle.sh -- one device call: the benchmarks from the bundle (no build there):
# Top-K v2 and bf16 small top-k of our CUDA plugin vs torch.topk and the launch + one-read floor,
# Run THERE from the repo root with .gpu-bundle carried.
set -u
B="$PWD/.gpu-bundle"; R=/tmp/bench_all; rm -rf "$R"; mkdir -p "$R" "$OUT"
bash scripts/gpu/unpack_bundle.sh "$B" || exit 2
export LD_LIBRARY_PATH="$B/lib:${LD_LIBRARY_PATH:-}"
P="$B/tree/kernels/libdsv4_ours_cuda.so"
{ date -u '+%F %T UTC'; nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv; } >"$R/device.txt" 2>&1
timeout "${TOPK_S:-240}" "$B/tree/bench/topk_v2_bench" --plugin "$P" --csv "$R/topk_v2.csv" >"$R/topk_v2.md" 2>&1
timeout 90 "$B/tree/bench/bf16_bench" --plugin "$P" --csv "$R/bf16.csv" >"$R/bf16.md" 2>&1
# TORCH_CSV=<file>: reuse torch.topk timings of an earlier run on the same card (they do not depend
# on our kernels) instead of timing torch again.
if [ -n "${TORCH_CSV:-}" ] && [ -f "$TORCH_CSV" ]; then
  cp "$TORCH_CSV" "$R/torch.csv"; echo "torch.csv reused from $TORCH_CSV" >"$R/torch.log"
else
  timeout 150 python3 bench/torch_topk.py --csv "$R/torch.csv" >"$R/torch.log" 2>&1
fi
anchors=""; [ -f "$B/anchors.md" ] && anchors="--anchors $B/anchors.md"
python3 bench/merge.py --ours "$R/topk_v2.csv" --bf16 "$R/bf16.csv" --torch "$R/torch.csv" $anchors --out "$R/summary.md" >"$R/merge.log" 2>&1
tar czf "$OUT/bench_results.tgz" -C "$R" .
cp "$R/summary.md" "$R/device.txt" "$OUT"/ 2>/dev/null
tail -n 60 "$R/summary.md" 2>/dev/null || tail -n 40 "$R/topk_v2.md"
