#!/usr/bin/env bash
# scripts/gpu/phase_counts.sh -- where the instructions of one launch go, phase by phase: Nsight
# Compute counters (warp instructions issued, thread instructions, shared atomics, local-memory
# traffic, issue activity, duration) of the full kernel and of its timing-only phase cuts
# (DSV4_TOPK_ABLATE=n / DSV4_BF16_ABLATE=n), one warm launch each. The binaries are built HERE
# and carried (carry [".ab-bin"]):
#   AB_VARIANTS="a1=-DDSV4_TOPK_ABLATE=1 ... a5=-DDSV4_TOPK_ABLATE=5" bash scripts/gpu/topk_v2_ab.sh --build-only
#   BF16_VARIANTS="a1=-DDSV4_BF16_ABLATE=1 ... a4=-DDSV4_BF16_ABLATE=4" bash scripts/gpu/bf16_ab.sh --build-only
# THERE: OUT=/some/dir [PC_TOPK=0] [PC_BF16="1:512 512:512"] bash scripts/gpu/phase_counts.sh ["B L K" ...]
# (Top-K v2 configurations, none with PC_TOPK=0; the bf16 kernel at L=16384 and each B:k of
# PC_BF16, default 1:512, one launch group of its `bench` selected by DSV4_BENCH_BF16_B / _K).
# Writes $OUT/phase_counts.txt (+ the raw ncu logs). Per-SASS-instruction counts and stall samples
# of one configuration: PROF_BIN=... PROF_WARM=1 scripts/gpu/topk_v2_profile.sh "B L K".
set -uo pipefail
source "$(dirname "$0")/ab_common.sh"  # also: cd to the repo root, $OUT (default out/phase_counts)
M0=smsp__inst_executed.sum,smsp__thread_inst_executed.sum,gpu__time_duration.sum,sm__cycles_active.max
M=$M0,smsp__issue_active.avg.pct_of_peak_sustained_active,smsp__sass_inst_executed_op_shared_atom.sum
M=$M,smsp__sass_inst_executed_op_local_ld.sum,smsp__sass_inst_executed_op_local_st.sum
M=$M,smsp__sass_inst_executed_op_shared_ld.sum,smsp__sass_inst_executed_op_global_ld.sum
# shared-memory atomics: wavefronts (passes of the shared pipe) and bank conflicts among them
M=$M,smsp__inst_issued.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum
M=$M,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom.sum
LOG="$OUT/phase_counts.txt"
{ date -u; nvidia-smi -L; } >"$LOG" 2>&1
T=/tmp/pc_topk B=/tmp/pc_bf16
rm -rf $T $B && mkdir -p $T $B
tar -C $T -xJf "$AB_PRE/ab.tar.xz" && tar -C $B -xJf "$AB_PRE/bf16.tar.xz" || { echo "no carried binaries" | tee -a "$LOG"; exit 2; }
echo "topk variants: $(cat $T/variants.txt); bf16 variants: $(cat $B/variants.txt)" >>"$LOG"
# count LABEL KERNEL-REGEX SKIP CMD...: one profiled launch, the metrics as "name value" lines.
count() {
  local label=$1 re=$2 skip=$3; shift 3
  ncu --clock-control none --metrics "$M" -k regex:"$re" --launch-skip "$skip" --launch-count 1 --csv "$@" \
    >"$OUT/raw_$label.csv" 2>&1
  if grep -q "==ERROR==" "$OUT/raw_$label.csv"; then  # a metric this ncu does not know: the basic set
    ncu --clock-control none --metrics "$M0" -k regex:"$re" --launch-skip "$skip" --launch-count 1 --csv "$@" \
      >"$OUT/raw_$label.csv" 2>&1
  fi
  python3 - "$label" "$OUT/raw_$label.csv" >>"$LOG" <<'EOF'
import csv, sys
label, path = sys.argv[1], sys.argv[2]
rows = [r for r in csv.reader(open(path)) if len(r) > 10]
if len(rows) < 2:
    print(f"{label}: no metrics ({open(path).read()[-300:]!r})"); sys.exit()
h = rows[0]; iname, ival, ikern = h.index("Metric Name"), h.index("Metric Value"), h.index("Kernel Name")
vals = {r[iname]: r[ival] for r in rows[1:]}
short = {k.split("__")[1].replace("sass_inst_executed_op_", "op_"): v for k, v in vals.items()}
print(f"{label:24s} " + "  ".join(f"{k}={v}" for k, v in sorted(short.items())) + f"  [{rows[1][ikern][:60]}]")
EOF
}
CONFIGS=("$@")
[ ${#CONFIGS[@]} -gt 0 ] || CONFIGS=("1 16384 512" "512 16384 512" "1 4096 512")
[ "${PC_TOPK:-1}" = 0 ] && CONFIGS=()  # PC_TOPK=0: the bf16 counts only
for c in "${CONFIGS[@]}"; do
  set -- $c
  echo "== Top-K v2 B=$1 L=$2 K=$3 (smoke --one, launch 7)" >>"$LOG"
  for v in $(cat $T/variants.txt | tr ' ' '\n' | sed 's/=.*//') new; do
    [ -x $T/ab_$v ] || continue
    count "topk_${v}_B$1_L$2_K$3" 'topk_(main|cluster)' 6 $T/ab_$v --one "$1" "$2" "$3" 8
  done
done
# PC_BF16="B:k ..." (default 1:512): one launch group each, the 4th launch (the bench's
# DSV4_BENCH_BF16_B / _K select it; the first launch is the checked one)
for bk in ${PC_BF16:-1:512}; do
  echo "== bf16 small top-k B=${bk%%:*} L=16384 k=${bk##*:} (bench, launch 4)" >>"$LOG"
  for v in $(cat $B/variants.txt | tr ' ' '\n' | sed 's/=.*//'); do
    [ -x $B/bf16_$v ] && DSV4_BENCH_BF16_B=${bk%%:*} DSV4_BENCH_BF16_K=${bk##*:} \
      count "bf16_${v}_B${bk%%:*}_k${bk##*:}" 'topk_bf16' 3 $B/bf16_$v bench
  done
done
cat "$LOG"
