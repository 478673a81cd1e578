#!/usr/bin/env bash
# scripts/gpu/lane_all.sh -- one device call: the GPU lane (every gpu-labelled CTest of the bundle,
# i.e. the property suites and regression tests on the cuda backend) and compute-sanitizer.
# Run THERE from the repo root with .gpu-bundle carried. Results: $OUT/lane_results.tgz plus the
# two summaries at the top of $OUT.
set -u
R=/tmp/lane_all; rm -rf "$R"; mkdir -p "$R" "$OUT"
OUT="$R/lane" timeout "${LANE_S:-300}" bash scripts/gpu/run_bundle.sh --budget "${LANE_BUDGET:-270}"
OUT="$R/san" timeout "${SAN_S:-200}" bash scripts/gpu/sanitize.sh --budget "${SAN_BUDGET:-170}"
tar czf "$OUT/lane_results.tgz" -C "$R" .
cp "$R"/lane/gpu_lane_summary.txt "$R"/san/sanitize_summary.txt "$OUT"/ 2>/dev/null
ls -la "$OUT"
