#!/usr/bin/env bash
# scripts/gpu/topk_v2_timeline.sh -- where the time of one Top-K v2 launch goes, phase by phase:
# the GPU smoke built with -DDSV4_TOPK_TIMELINE=1 (thread 0 of every CTA stamps %globaltimer at
# each phase boundary of select_row; kernels/topk_v2/topk_v2_keys.cuh, TlPoint) times each
# configuration, then gathers the stamps of $TL_REPS launches (median over CTAs and launches of
# the ns since the CTA's entry, cluster rank 0 apart from the others).
#   HERE (no GPU needed):  TL_VARIANTS="tl= tw=-DDSV4_TOPK_TWICE=1" bash scripts/gpu/topk_v2_timeline.sh --build-only
#                          (binaries in .tl-bin/<name>; carry [".tl-bin"])
#   THERE:                 OUT=/some/dir TL_CONFIGS="B:L:K:path ..." bash scripts/gpu/topk_v2_timeline.sh
# Writes $OUT/timeline_<name>.txt (the full tables) and prints one table: per configuration and
# binary, the rank-0 time of each phase (the difference of consecutive stamps, ns), the launch's
# span (first entry to last stamp) and the back-to-back event time.
set -uo pipefail
source "$(dirname "$0")/ab_common.sh"  # also: cd to the repo root, $OUT (default out/topk_v2_timeline)
TL_BIN="${TL_BIN:-$PWD/.tl-bin}"
SRCS=("${AB_TOPK_SRCS[@]}" "$AB_TOPK_SMOKE")
if [ "${1:-}" = --build-only ]; then
  mkdir -p "$TL_BIN"
  cmds=()
  for kv in ${TL_VARIANTS:-tl=}; do
    cmds+=("$(ab_variant_cmd "$kv" kernels/topk_v2 "$TL_BIN/${kv%%=*}" "${SRCS[@]}") -DDSV4_TOPK_TIMELINE=1")
  done
  ab_build "$OUT/build.txt" "${cmds[@]}"
  tail -5 "$OUT/build.txt"; ls -la "$TL_BIN"
  exit
fi
CONFIGS=${TL_CONFIGS:-"1:24576:512:0 1:131072:2048:0 16:65536:2048:0 64:32768:2048:0 512:4096:512:0 512:16384:2048:0"}
{ date -u; nvidia-smi -L; } >"$OUT/timeline.txt" 2>&1
for bin in "$TL_BIN"/*; do
  [ -x "$bin" ] || continue
  name=$(basename "$bin")
  timeout 300 "$bin" --timeline "${TL_REPS:-20}" "$CONFIGS" >"$OUT/timeline_$name.txt" 2>&1
done
python3 - "$OUT" "$TL_BIN" >>"$OUT/timeline.txt" <<'PY'
import os, re, sys
out, tlbin = sys.argv[1], sys.argv[2]
pts = []  # the phase points in TlPoint order, as the smoke's tlsum lines name them
rows = {}
for name in sorted(os.listdir(tlbin)):
    f = os.path.join(out, f"timeline_{name}.txt")
    if not os.path.exists(f):
        continue
    summ = None
    for line in open(f):
        if line.startswith("tlsum"):
            summ = dict(kv.split("=") for kv in line.split()[1:])
            pts = pts or [k for k in summ if k != "span"]
        m = re.match(r"\| (\d+) \| (\d+) \| (\d+) \| (-?\d+) \| ([-\d.]+) \|$", line.strip())
        if m and summ is not None:
            rows.setdefault(":".join(m.groups()[:4]), []).append((name, summ, m.group(5)))
            summ = None
print("| B:L:K:path | binary | " + " | ".join(pts) + " | span | event us |")
print("|---|---|" + "---:|" * (len(pts) + 2))
for cfg, lst in rows.items():
    for name, s, us in lst:
        prev, cells = 0.0, []
        for p in pts:
            v = float(s.get(p, -1))
            cells.append("-" if v < 0 else f"{v - prev:.0f}")
            if v >= 0:
                prev = v
        print(f"| {cfg} | {name} | " + " | ".join(cells) + f" | {s.get('span')} | {us} |")
PY
cat "$OUT/timeline.txt"
