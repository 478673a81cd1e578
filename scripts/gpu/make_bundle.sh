#!/usr/bin/env bash
# scripts/gpu/make_bundle.sh -- runs HERE (the build machine, no GPU): builds everything for the GPU
# lane and packs it into .gpu-bundle/ at the repo root, for scripts/gpu/run_bundle.sh THERE (the
# GPU machine has nvcc, cmake, ninja, python3+torch, CUDA 13.0 in /usr/local/cuda/lib64, but no
# Eigen / RapidCheck / GoogleTest / Boost, and nothing can be installed).
#
#   scripts/gpu/make_bundle.sh [--no-build] [--jobs N] [--build-dir DIR]
#
# Build: Release, g++, CUDA on (sm_90a, -lineinfo from cmake/Dsv4Options.cmake), gtest /
# rapidcheck / boost_context static, fuzz targets as replay binaries (g++ = no libFuzzer), bench
# and examples on; `ninja -k 0` so a broken target of someone else's is reported, not fatal.
# Bundle layout (.gpu-bundle/; tree/, lib/ and corpus/ travel packed in bundle.tar.xz and are
# unpacked there by run_bundle.sh / sanitize.sh; the unpacked copy is kept in build/bundle-unpacked):
#   tree/<path in the build dir>   every ELF executable and .so of the build (CTest tests, the CLI,
#                                  fuzz replay binaries, benches, plugins), debug info stripped
#                                  (CUDA lineinfo lives in the fatbin and is kept)
#   lib/libcudart.so.13            the CUDA runtime the binaries were linked against
#   corpus/                        copy of the repo's corpus/
#   manifest.tsv                   one CTest test per line (see below), paths as @BUNDLE@ / @REPO@
#   manifest.json                  the raw `ctest --show-only=json-v1` output
#   build_info.txt                 date, toolchain, build dir, targets that failed to build
#   copied.txt                     the files under tree/
# manifest.tsv columns: name, labels (comma separated), will_fail (0/1), skip_rc, timeout (s, 0 =
# none), workdir, env (shell words), command (shell words; "-" = its target was not built).
# Prints the bundle size and fails if it exceeds 50 MiB.
set -uo pipefail
SELF="$(realpath "$0")"
cd "$(dirname "$SELF")/../.." || exit 1
REPO="$PWD"
BUILD="$REPO/build/bundle"
JOBS=2
DO_BUILD=1
while [ $# -gt 0 ]; do
  case "$1" in
    --no-build) DO_BUILD=0; shift ;;
    --jobs) JOBS="$2"; shift 2 ;;
    --build-dir) BUILD="$(realpath -m "$2")"; shift 2 ;;
    -h|--help) awk 'NR > 1 && /^#/ {print; next} NR > 1 {exit}' "$SELF"; exit 0 ;;
    *) echo "make_bundle: unknown option $1" >&2; exit 2 ;;
  esac
done
BUNDLE="$REPO/.gpu-bundle"
LIMIT_MIB=50
log() { echo "== make_bundle: $*"; }

if [ "$DO_BUILD" = 1 ]; then
  mkdir -p "$REPO/build"  # a fresh clone has no build/ for the configure log
  # CMake 3.25 does not know nvcc's C++20 flag (the top-level CMakeLists.txt asks for CUDA 20):
  # tell it, harmless on newer CMake.
  log "configure $BUILD"
  cmake -S "$REPO" -B "$BUILD" -G Ninja \
    -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER=g++ -DCMAKE_C_COMPILER=gcc \
    -DDSV4_ENABLE_CUDA=ON -DDSV4_CUDA_ARCH=90a -DDSV4_ENABLE_FUZZ=ON \
    -DDSV4_ENABLE_BENCH=ON -DDSV4_ENABLE_EXAMPLES=ON \
    -DBoost_USE_STATIC_LIBS=ON \
    -DCMAKE_CUDA20_STANDARD_COMPILE_OPTION=-std=c++20 \
    -DCMAKE_CUDA20_EXTENSION_COMPILE_OPTION=-std=c++20 \
    >"$REPO/build/bundle-configure.log" 2>&1 ||
    { tail -n 40 "$REPO/build/bundle-configure.log"; log "configure FAILED"; exit 1; }
  grep -q "CUDA kernels ON" "$REPO/build/bundle-configure.log" ||
    { log "CUDA is OFF in $BUILD (nvcc not found?): no GPU bundle possible"; exit 1; }
  log "build (ninja -k 0 -j $JOBS; log: build/bundle-build.log)"
  nice ninja -C "$BUILD" -k 0 -j "$JOBS" >"$REPO/build/bundle-build.log" 2>&1
  build_rc=$?
  if [ $build_rc -ne 0 ]; then
    log "some targets FAILED to build (bundling what was built):"
    grep -E "^FAILED: " "$REPO/build/bundle-build.log" | sed 's/^/   /' | head -n 40
  fi
fi
[ -f "$BUILD/CTestTestfile.cmake" ] || { log "no CTest files in $BUILD: build first"; exit 1; }

rm -rf "$BUNDLE"
mkdir -p "$BUNDLE/tree" "$BUNDLE/lib"
(cd "$BUILD" && ctest --show-only=json-v1) >"$BUNDLE/manifest.json" 2>"$BUNDLE/ctest_stderr.txt" ||
  { cat "$BUNDLE/ctest_stderr.txt"; log "ctest --show-only failed"; exit 1; }

# Copy every ELF executable / shared object of the build tree (CMakeFiles excluded), keeping the
# relative layout, then write the manifest. python3 does the JSON and the path rewriting.
python3 - "$BUILD" "$REPO" "$BUNDLE" <<'PY' || { log "manifest/copy step failed"; exit 1; }
import json, os, shlex, shutil, sys
build, repo, bundle = sys.argv[1:4]
tree = os.path.join(bundle, "tree")

def is_elf(p):
    try:
        with open(p, "rb") as f:
            return f.read(4) == b"\x7fELF"
    except OSError:
        return False

copied = []
for root, dirs, files in os.walk(build):
    dirs[:] = [d for d in dirs if d not in ("CMakeFiles", "Testing", "_deps")]
    for fn in files:
        p = os.path.join(root, fn)
        if os.path.islink(p) or fn.endswith((".o", ".a")):
            continue
        if not (os.access(p, os.X_OK) or ".so" in fn) or not is_elf(p):
            continue
        rel = os.path.relpath(p, build)
        dst = os.path.join(tree, rel)
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        shutil.copy2(p, dst)
        copied.append(rel)

def rewrite(s):
    s = s.replace(build, "@BUNDLE@/tree")
    return s.replace(repo, "@REPO@")

data = json.load(open(os.path.join(bundle, "manifest.json")))
nodes, files = data["backtraceGraph"]["nodes"], data["backtraceGraph"]["files"]

def default_workdir(bt):
    # CTest runs a test in the binary dir of the CMakeLists.txt that registered it.
    while bt is not None:
        f = files[nodes[bt]["file"]]
        if f.endswith("CMakeLists.txt") and f.startswith(repo):
            return os.path.join(build, os.path.relpath(os.path.dirname(f), repo))
        bt = nodes[bt].get("parent")
    return build

lines, missing = [], []
for t in data["tests"]:
    cmd = t.get("command") or []
    props = {p["name"]: p["value"] for p in t.get("properties", [])}
    if not cmd or (cmd[0].startswith(build) and not os.path.exists(cmd[0])):
        # Kept in the manifest with command "-": run_bundle.sh reports it as "missing".
        missing.append(t["name"] + " (target not built)")
        cmd = ["-"]
    labels = props.get("LABELS", [])
    labels = labels if isinstance(labels, list) else [labels]
    env = props.get("ENVIRONMENT", [])
    env = env if isinstance(env, list) else [env]
    workdir = props.get("WORKING_DIRECTORY") or default_workdir(t.get("backtrace"))
    fields = [t["name"], ",".join(labels) or "-", "1" if props.get("WILL_FAIL") else "0",
              str(props.get("SKIP_RETURN_CODE", "")) or "-", str(int(float(props.get("TIMEOUT", 0)))),
              rewrite(workdir), rewrite(" ".join(shlex.quote(e) for e in env)) or "-",
              rewrite(" ".join(shlex.quote(c) for c in cmd))]
    assert all("\t" not in f and "\n" not in f for f in fields), fields
    lines.append("\t".join(fields))
open(os.path.join(bundle, "manifest.tsv"), "w").write("\n".join(lines) + "\n")
open(os.path.join(bundle, "copied.txt"), "w").write("\n".join(sorted(copied)) + "\n")
print(f"   {len(lines)} tests in the manifest, {len(copied)} ELF files copied")
for m in missing:
    print("   not bundled:", m)
PY

# Strip host debug info and unneeded symbols (dynamic symbols stay; CUDA -lineinfo is inside the
# .nv_fatbin section, which strip keeps).
while IFS= read -r rel; do
  strip --strip-unneeded "$BUNDLE/tree/$rel" 2>/dev/null || log "could not strip $rel"
done <"$BUNDLE/copied.txt"

cudart=$(ldd "$BUNDLE"/tree/kernels/libdsv4_ours_cuda.so 2>/dev/null | awk '/libcudart/ {print $3}')
[ -z "$cudart" ] && cudart=$(ls /usr/local/cuda/lib64/libcudart.so.1* 2>/dev/null | head -n 1)
if [ -n "$cudart" ] && [ -f "$cudart" ]; then
  cp -L "$cudart" "$BUNDLE/lib/"
else
  log "libcudart.so not found: run_bundle.sh will rely on /usr/local/cuda/lib64 there"
fi
# Shared Boost.Context (a build configured without Boost_USE_STATIC_LIBS, e.g. --no-build on a dev tree).
while IFS= read -r rel; do
  ldd "$BUNDLE/tree/$rel" 2>/dev/null | awk '/libboost_/ {print $3}'
done <"$BUNDLE/copied.txt" | sort -u | while IFS= read -r so; do
  [ -f "$so" ] && cp -L "$so" "$BUNDLE/lib/" && log "bundled $(basename "$so")"
done
[ -d "$REPO/corpus" ] && cp -r "$REPO/corpus" "$BUNDLE/corpus"

for want in kernels/libdsv4_ours_cuda.so kernels/libdsv4_ours_simt.so; do
  [ -f "$BUNDLE/tree/$want" ] || log "MISSING from the bundle: $want (target not built?)"
done
for name in dsv4-harness topk_v2_bench bf16_bench; do
  grep -q "/$name\$\|^$name\$" "$BUNDLE/copied.txt" || log "not in the bundle: $name (target not built or not defined yet)"
done
echo "fuzz replay binaries: $(grep -c '^fuzz/' "$BUNDLE/copied.txt")"
echo "example plugins: $(grep -c '^examples/.*\.so' "$BUNDLE/copied.txt")"

{
  echo "date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
  echo "build dir: $BUILD (source $REPO)"
  echo "g++: $(g++ --version | head -n 1)"
  echo "nvcc: $(/usr/local/cuda/bin/nvcc --version | tail -n 1)"
  echo "cmake: $(cmake --version | head -n 1)"
  echo "failed targets:"
  grep -E "^FAILED: " "$REPO/build/bundle-build.log" 2>/dev/null | sed 's/^/  /' || true
} >"$BUNDLE/build_info.txt"

# What travels: one xz archive of tree/ lib/ corpus/ (binaries compress ~8x) plus the small
# text files; scripts/gpu/unpack_bundle.sh unpacks it there (python3 tarfile, no xz binary needed).
# The unpacked copy stays here for inspection.
unpacked_kib=$(du -sk "$BUNDLE" | cut -f1)
du -sk "$BUNDLE"/tree/* "$BUNDLE"/lib 2>/dev/null | sort -rn | head -n 8 | sed 's/^/   unpacked KiB /'
STAGE="$REPO/build/bundle-unpacked"
rm -rf "$STAGE"; mkdir -p "$STAGE"
tar -C "$BUNDLE" -cJf "$BUNDLE/bundle.tar.xz" tree lib $( [ -d "$BUNDLE/corpus" ] && echo corpus ) ||
  { log "tar failed"; exit 1; }
mv "$BUNDLE/tree" "$BUNDLE/lib" "$STAGE/"; [ -d "$BUNDLE/corpus" ] && mv "$BUNDLE/corpus" "$STAGE/"
size_kib=$(du -sk "$BUNDLE" | cut -f1)
size_mib=$(( (size_kib + 1023) / 1024 ))
log "bundle: $BUNDLE, $(wc -l <"$BUNDLE/manifest.tsv") tests, ${size_mib} MiB to carry (${size_kib} KiB; unpacked $(( unpacked_kib / 1024 )) MiB, kept in $STAGE)"
if [ "$size_mib" -gt "$LIMIT_MIB" ]; then
  log "bundle exceeds ${LIMIT_MIB} MiB: too large to carry"
  exit 1
fi
log "carry it with the run: carry [\".gpu-bundle\"], command: bash scripts/gpu/run_bundle.sh"
