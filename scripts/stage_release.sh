#!/bin/sh
# Lay a FlashInfer source release out as its wheel installs it, for dry-running rules on real
# releases (docs/rules.md, "Checking a rule on real releases"): flashinfer/ as it is, the source
# tree's csrc/ and include/ under flashinfer/data/, and a dist-info naming the release.
#   scripts/stage_release.sh SRC_TREE VERSION OUT_SITE_PACKAGES
set -eu
src=$1 version=$2 out=$3
rm -rf "$out"
mkdir -p "$out/flashinfer/data" "$out/flashinfer_python-$version.dist-info"
cp -r "$src/flashinfer/." "$out/flashinfer/"
for d in csrc include; do
  [ -d "$src/$d" ] && cp -r "$src/$d" "$out/flashinfer/data/$d"
done
printf 'Metadata-Version: 2.1\nName: flashinfer-python\nVersion: %s\n' "$version" \
  > "$out/flashinfer_python-$version.dist-info/METADATA"
printf 'pip\n' > "$out/flashinfer_python-$version.dist-info/INSTALLER"
