#!/usr/bin/env bash
# scripts/gpu/unpack_bundle.sh DIR -- unpack tree/ lib/ corpus/ of the bundle DIR (made by
# scripts/gpu/make_bundle.sh) from DIR/bundle.tar.xz with python3's tarfile (no xz binary needed),
# unless this very bundle is already unpacked: a warm machine keeps ignored files between calls,
# so an older bundle's tree is replaced, never reused. Exit 2 when it cannot.
set -u
B="${1:?usage: unpack_bundle.sh BUNDLE_DIR}"
if [ -f "$B/bundle.tar.xz" ] && ! cmp -s "$B/build_info.txt" "$B/tree/.bundle_stamp"; then
  rm -rf "$B/tree" "$B/lib" "$B/corpus"
  python3 -c 'import sys, tarfile
t = tarfile.open(sys.argv[1])
if hasattr(tarfile, "fully_trusted_filter"): t.extractall(sys.argv[2], filter="fully_trusted")
else: t.extractall(sys.argv[2])' "$B/bundle.tar.xz" "$B" || { echo "cannot unpack $B/bundle.tar.xz"; exit 2; }
  cp "$B/build_info.txt" "$B/tree/.bundle_stamp"
fi
[ -d "$B/tree" ] || { echo "no $B/tree (carry .gpu-bundle, made by scripts/gpu/make_bundle.sh)"; exit 2; }
