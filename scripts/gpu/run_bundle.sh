#!/usr/bin/env bash
# scripts/gpu/run_bundle.sh -- runs THERE (the GPU machine), from the repo root, with .gpu-bundle/
# carried (made here by scripts/gpu/make_bundle.sh). Runs the bundled CTest tests without CMake:
# every test labelled gpu, and every property / regression test with DSV4_BACKEND=cuda (the
# default implementation on a GPU machine is our CUDA plugin). Never stops at a failure.
#
#   OUT=/dir bash scripts/gpu/run_bundle.sh [--only-gpu] [--all] [--filter REGEX] [--exclude REGEX]
#                                           [--timeout S] [--budget S] [--list]
#     --only-gpu       only tests labelled gpu
#     --all            every test of the manifest (cpu ones too), not only gpu + property/regression
#     --filter REGEX   only tests whose name matches (grep -E); --exclude REGEX drops matches
#     --timeout S      per-test limit (default 300; a test's own CTest TIMEOUT, if smaller, wins)
#     --budget S       stop starting tests after S seconds in all (default 520: a device command
#                      may run 600 s); the rest are reported "notrun"
#     --list           print the selection and exit
# Writes to $OUT (default ./out/gpu-lane), 3 or 4 files:
#   gpu_lane_log.txt      nvidia-smi -L, environment, then each test's command, output (last
#                         256 KiB of it) and verdict
#   gpu_lane_summary.txt  one line per test: verdict, seconds, name; then the totals
#   gpu_lane_junit.xml    JUnit-style XML of the same
#   gpu_lane_failures.tgz the property suites' failure files (repro cases), when there are any
# Verdicts: pass, fail, skip (exit 77), timeout, missing (target not built), notrun (budget).
# Exit status: 0 when nothing failed or timed out, 1 otherwise.
set -uo pipefail
SELF="$(realpath "$0")"
cd "$(dirname "$SELF")/../.." || exit 1
REPO="$PWD"
BUNDLE="$REPO/.gpu-bundle"
OUT="${OUT:-$REPO/out/gpu-lane}"
ONLY_GPU=0 ALL=0 FILTER="" EXCLUDE="" TIMEOUT=300 BUDGET=520 LIST=0
while [ $# -gt 0 ]; do
  case "$1" in
    --only-gpu) ONLY_GPU=1; shift ;;
    --all) ALL=1; shift ;;
    --filter) FILTER="$2"; shift 2 ;;
    --exclude) EXCLUDE="$2"; shift 2 ;;
    --timeout) TIMEOUT="$2"; shift 2 ;;
    --budget) BUDGET="$2"; shift 2 ;;
    --list) LIST=1; shift ;;
    -h|--help) awk 'NR > 1 && /^#/ {print; next} NR > 1 {exit}' "$SELF"; exit 0 ;;
    *) echo "run_bundle: unknown option $1" >&2; exit 2 ;;
  esac
done
[ -f "$BUNDLE/manifest.tsv" ] || { echo "run_bundle: no $BUNDLE/manifest.tsv (carry .gpu-bundle, made by scripts/gpu/make_bundle.sh)"; exit 2; }
bash "$(dirname "$SELF")/unpack_bundle.sh" "$BUNDLE" || exit 2
mkdir -p "$OUT"
LOG="$OUT/gpu_lane_log.txt" SUMMARY="$OUT/gpu_lane_summary.txt" RESULTS="$OUT/.results.tsv"
: >"$LOG"; : >"$RESULTS"

# Selection: label gpu (this includes the properties' *_gpu twins, which set DSV4_BACKEND=cuda);
# plus property / regression tests without such a twin (registered under properties/, or named
# *prop*/*regress*), run with DSV4_BACKEND=cuda. Unit tests linked to the simt build only
# (tests/kernels, oracle, simt) are left out unless --all.
ALL_NAMES=" $(cut -f1 "$BUNDLE/manifest.tsv" | tr '\n' ' ') "
select_test() {  # name labels workdir
  local name="$1" labels="$2" wd="$3"
  if [ -n "$FILTER" ] && ! grep -Eq -- "$FILTER" <<<"$name"; then return 1; fi
  if [ -n "$EXCLUDE" ] && grep -Eq -- "$EXCLUDE" <<<"$name"; then return 1; fi
  [ "$ALL" = 1 ] && return 0
  [[ ",$labels," == *",gpu,"* ]] && return 0
  [ "$ONLY_GPU" = 1 ] && return 1
  [[ "$ALL_NAMES" == *" ${name}_gpu "* ]] && return 1
  [[ "$wd" == */tree/properties* ]] && return 0
  [[ "$name" =~ prop|regress ]] && return 0
  return 1
}

if [ "$LIST" = 1 ]; then
  while IFS=$'\t' read -r name labels _ _ _ wd _ _; do
    select_test "$name" "$labels" "$wd" && echo "$name [$labels]"
  done <"$BUNDLE/manifest.tsv"
  exit 0
fi

# The binaries have the build dir's absolute path baked in (RUNPATH, default plugin path). If that
# path does not exist here, point it at the bundle for the duration of the run.
BUILD_DIR=$(sed -n 's/^build dir: \(.*\) (source .*/\1/p' "$BUNDLE/build_info.txt" 2>/dev/null)
MADE_LINK=""
if [ -n "$BUILD_DIR" ] && [ ! -e "$BUILD_DIR" ] && mkdir -p "$(dirname "$BUILD_DIR")" 2>/dev/null &&
   ln -s "$BUNDLE/tree" "$BUILD_DIR" 2>/dev/null; then
  MADE_LINK="$BUILD_DIR"
fi
cleanup() { [ -n "$MADE_LINK" ] && [ -L "$MADE_LINK" ] && rm -f "$MADE_LINK"; rm -f "$RESULTS"; }
trap cleanup EXIT

libdirs=$(find "$BUNDLE/tree" -name '*.so*' -printf '%h\n' 2>/dev/null | sort -u | tr '\n' ':')
export LD_LIBRARY_PATH="$BUNDLE/lib:${libdirs}/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export DSV4_BACKEND=cuda
# Our CUDA plugin is the default implementation through its baked path (now valid, see above);
# only if that path is still missing, name the bundled plugin explicitly (a caller's DSV4_IMPL wins).
if [ -z "${DSV4_IMPL:-}" ] && [ ! -f "$BUILD_DIR/kernels/libdsv4_ours_cuda.so" ] &&
   [ -f "$BUNDLE/tree/kernels/libdsv4_ours_cuda.so" ]; then
  export DSV4_IMPL="$BUNDLE/tree/kernels/libdsv4_ours_cuda.so"
fi
export PATH="/usr/local/cuda/bin:$PATH"

{
  echo "== run_bundle $(date -u '+%Y-%m-%d %H:%M:%S UTC') on $(hostname)"
  nvidia-smi -L 2>&1 || echo "nvidia-smi failed"
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1
  echo "bundle: $(head -n 1 "$BUNDLE/build_info.txt" 2>/dev/null)"
  echo "DSV4_IMPL=${DSV4_IMPL:-<unset>} DSV4_BACKEND=$DSV4_BACKEND"
  echo "LD_LIBRARY_PATH=$LD_LIBRARY_PATH"
  [ -n "$MADE_LINK" ] && echo "linked $MADE_LINK -> $BUNDLE/tree"
  # Built on another image: show unresolved libraries / symbol versions early.
  for f in "$BUNDLE"/tree/kernels/libdsv4_ours_cuda.so "$BUNDLE"/tree/tests/gpu/test_gpu_occupancy_probe; do
    [ -f "$f" ] || continue
    miss=$(ldd "$f" 2>&1 | grep -E "not found|version .* not found")
    echo "ldd $(basename "$f"): ${miss:-all libraries resolved}"
  done
  echo "options: only_gpu=$ONLY_GPU all=$ALL filter='$FILTER' exclude='$EXCLUDE' timeout=$TIMEOUT budget=$BUDGET"
} 2>&1 | tee -a "$LOG"

sub() { local s="${1//@BUNDLE@/$BUNDLE}"; printf '%s' "${s//@REPO@/$REPO}"; }
start=$(date +%s)
n_sel=0
while IFS=$'\t' read -r name labels will_fail skip_rc ttimeout wd env cmd; do
  select_test "$name" "$labels" "$wd" || continue
  n_sel=$((n_sel + 1))
  elapsed=$(( $(date +%s) - start ))
  if [ "$elapsed" -ge "$BUDGET" ]; then
    printf '%s\t%s\t%s\t%s\n' "$name" notrun 0 "budget of ${BUDGET}s spent" >>"$RESULTS"
    continue
  fi
  if [ "$cmd" = "-" ]; then
    printf '%s\t%s\t%s\t%s\n' "$name" missing 0 "target not built into the bundle" >>"$RESULTS"
    echo "---- $name: missing (target not built into the bundle)" | tee -a "$LOG"
    continue
  fi
  limit=$TIMEOUT
  [ "$ttimeout" -gt 0 ] 2>/dev/null && [ "$ttimeout" -lt "$limit" ] && limit=$ttimeout
  left=$(( BUDGET - elapsed + 30 ))
  [ "$left" -lt "$limit" ] && limit=$left
  cmd=$(sub "$cmd"); wd=$(sub "$wd"); env=$(sub "$env")
  [ "$env" = "-" ] && env=""
  [ -d "$wd" ] || wd="$REPO"
  echo "" >>"$LOG"
  echo "==== $name [$labels] (limit ${limit}s)" >>"$LOG"
  echo "cmd: (cd $wd && env $env $cmd)" >>"$LOG"
  t0=$(date +%s)
  out=$( cd "$wd" && eval "env $env timeout -k 10 $limit $cmd" 2>&1 </dev/null ); rc=$?
  secs=$(( $(date +%s) - t0 ))
  printf '%s\n' "$out" | tail -c 262144 >>"$LOG"
  if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then verdict=timeout
  elif [ "$skip_rc" != "-" ] && [ "$rc" = "$skip_rc" ]; then verdict=skip
  elif [ "$will_fail" = 1 ]; then { [ $rc -ne 0 ] && verdict=pass; } || verdict=fail
  elif [ $rc -eq 0 ]; then verdict=pass
  else verdict=fail
  fi
  reason=$(printf '%s\n' "$out" | grep -m1 -E "no CUDA device|FAILED|Failure|error" | cut -c1-200 | tr '\t' ' ')
  printf '%s\t%s\t%s\t%s\n' "$name" "$verdict" "$secs" "rc=$rc ${reason}" >>"$RESULTS"
  echo "---- $name: $verdict (rc=$rc, ${secs}s)" | tee -a "$LOG"
done <"$BUNDLE/manifest.tsv"

# Failure files of the property suites (DSV4_FAILURE_DIR points into the bundle): one archive.
if [ -d "$BUNDLE/tree/failures" ] && [ -n "$(ls -A "$BUNDLE/tree/failures" 2>/dev/null)" ]; then
  tar -czf "$OUT/gpu_lane_failures.tgz" -C "$BUNDLE/tree" failures && echo "failure files: $OUT/gpu_lane_failures.tgz" | tee -a "$LOG"
fi

python3 - "$RESULTS" "$SUMMARY" "$OUT/gpu_lane_junit.xml" "$n_sel" <<'PY'
import sys
from xml.sax.saxutils import escape, quoteattr
res, summary, junit, nsel = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
rows = [l.rstrip("\n").split("\t", 3) for l in open(res) if l.strip()]
count = {}
with open(summary, "w") as f:
    for name, verdict, secs, info in rows:
        count[verdict] = count.get(verdict, 0) + 1
        f.write(f"{verdict:8s} {int(secs):5d}s  {name}  {info if verdict != 'pass' else ''}\n")
    f.write("totals: " + ", ".join(f"{k} {v}" for k, v in sorted(count.items())) + f" (selected {nsel})\n")
with open(junit, "w") as f:
    f.write('<?xml version="1.0" encoding="UTF-8"?>\n')
    f.write(f'<testsuite name="dsv4-gpu-lane" tests="{len(rows)}" failures="{count.get("fail", 0) + count.get("timeout", 0)}" '
            f'skipped="{count.get("skip", 0) + count.get("notrun", 0) + count.get("missing", 0)}">\n')
    for name, verdict, secs, info in rows:
        f.write(f'  <testcase name={quoteattr(name)} time="{secs}">')
        if verdict in ("fail", "timeout"):
            f.write(f'<failure message={quoteattr(verdict + ": " + info)}/>')
        elif verdict in ("skip", "notrun", "missing"):
            f.write(f'<skipped message={quoteattr(info)}/>')
        f.write("</testcase>\n")
    f.write("</testsuite>\n")
print(open(summary).read(), end="")
PY
grep -q -E "^(fail|timeout) " "$SUMMARY" && exit 1
exit 0
