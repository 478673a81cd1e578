#!/usr/bin/env bash
# README command (1): the time-boxed fuzz campaign over every fuzz target.
#   scripts/fuzz_campaign.sh [--minutes N] [--jobs J] [--targets a,b] [--preset fuzz|asan-fuzz]
# Installs what is missing (scripts/install_deps.sh), configures + builds the `fuzz` CMake preset
# (clang + libFuzzer), then runs `dsv4-harness fuzz`, which shares the time among the targets on the
# default backend (CPU/simt without a GPU; CUDA with one, one process per GPU) and prints a summary
# table (execs, exec/s, cov, ft, corpus, failures, failure files + repro commands).
# Exit status: 0 = no failure found, 1 = failures found, 2 = setup error.
set -euo pipefail
cd "$(dirname "$0")/.."
minutes=10
jobs=1
preset=fuzz
targets=""
while [ $# -gt 0 ]; do
  case "$1" in
    --minutes) minutes="$2"; shift 2 ;;
    --jobs) jobs="$2"; shift 2 ;;
    --targets) targets="$2"; shift 2 ;;
    --preset) preset="$2"; shift 2 ;;
    -h|--help) sed -n '2,9p' "$0"; exit 0 ;;
    *) echo "fuzz_campaign.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
if [ -x scripts/install_deps.sh ] || [ -f scripts/install_deps.sh ]; then
  bash scripts/install_deps.sh
else
  echo "fuzz_campaign.sh: scripts/install_deps.sh not found; assuming dependencies are installed" >&2
fi
build="build/$preset"
echo "== configure (preset $preset)"
cmake --preset "$preset" >"build-configure-$preset.log" 2>&1 || { tail -n 40 "build-configure-$preset.log"; exit 2; }
# Only what the campaign needs: the fuzz targets and the CLI.
tlist=$(cmake --build "$build" --target help 2>/dev/null | sed -n 's/^\(fuzz_[a-z0-9_]*\):.*/\1/p' | grep -v '_test$' | sort -u | tr '\n' ' ')
echo "== build: dsv4-harness $tlist"
# shellcheck disable=SC2086
cmake --build "$build" -j "$(nproc 2>/dev/null || echo 2)" --target dsv4-harness $tlist 2>&1 | tail -n 20
seconds=$(( minutes * 60 ))
args=(fuzz --build-dir "$build" --total-seconds "$seconds" --jobs "$jobs" --corpus-root corpus)
[ -n "$targets" ] && args+=(--targets "$targets")
echo "== campaign: $minutes min, $jobs job(s)"
cli=$(find "$build" -name dsv4-harness -type f -perm -u+x | head -n 1)
[ -n "$cli" ] || { echo "fuzz_campaign.sh: dsv4-harness was not built in $build" >&2; exit 2; }
exec nice -n 5 "$cli" "${args[@]}"
