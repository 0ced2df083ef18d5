#!/usr/bin/env bash
# make dist: static, reproducible Linux binaries of castchunk in dist/, a
# tarball per platform and a checksums file, then a check that the amd64
# binary chunks testdata/ in an empty root (no Go toolchain, no shared
# library, no /proc) as the dynamic build does.
#
#   amd64: musl (Debian's musl-tools: musl-gcc), linked statically
#   arm64: Debian's cross toolchain (gcc-aarch64-linux-gnu,
#          libc6-dev-arm64-cross), glibc linked statically
#
# Reproducible: -trimpath, no VCS stamp, empty Go build id, the C compiler's
# paths mapped to fixed names, tarballs with sorted names, the commit's time
# and no owner; two runs give the same bytes (the checksums say so).
set -euo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
VERSION=${VERSION:-$(scripts/version.sh)}
out=dist
need=()
command -v musl-gcc >/dev/null || need+=(musl-tools)
command -v aarch64-linux-gnu-gcc >/dev/null || need+=(gcc-aarch64-linux-gnu libc6-dev-arm64-cross)
if [ ${#need[@]} -gt 0 ]; then
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "dist: installing ${need[*]}" >&2
  $sudo apt-get update -q >&2
  $sudo apt-get install -y -q "${need[@]}" >&2
fi
epoch=$(git log -1 --format=%ct 2>/dev/null || echo 0)
modcache=$($GO env GOMODCACHE)
cflags="-O2 -w -ffile-prefix-map=$modcache=/gomod -ffile-prefix-map=$PWD=/castchunk"
tags=netgo,osusergo,sqlite_omit_load_extension
ldflags="-s -w -buildid= -X github.com/castchunk/castchunk/internal/cli.stamped=$VERSION -linkmode external -extldflags -static"
rm -rf "$out" && mkdir -p "$out"

build() { # GOARCH CC
  local arch=$1 cc=$2 name="castchunk_${VERSION}_linux_$1"
  echo "dist: building $name with $cc (a cold build compiles every grammar's C code for $arch: minutes)" >&2
  mkdir -p "$out/$name/man" "$out/$name/completions"
  CGO_ENABLED=1 GOOS=linux GOARCH=$arch CC=$cc CGO_CFLAGS="$cflags" \
    $GO build -v -trimpath -buildvcs=false -tags "$tags" -ldflags "$ldflags" -o "$out/$name/castchunk" ./cmd/castchunk
  cp README.md LICENSE "$out/$name/"
  cp docs/man/*.1 "$out/$name/man/"
}
build amd64 musl-gcc
build arm64 aarch64-linux-gnu-gcc

# Completions from the amd64 binary (the same text on every platform).
host="$out/castchunk_${VERSION}_linux_amd64/castchunk"
for arch in amd64 arm64; do
  d="$out/castchunk_${VERSION}_linux_$arch/completions"
  "$host" completion bash > "$d/castchunk.bash"
  "$host" completion zsh > "$d/_castchunk"
  "$host" completion fish > "$d/castchunk.fish"
done
for arch in amd64 arm64; do
  name="castchunk_${VERSION}_linux_$arch"
  find "$out/$name" -exec touch -h -d "@$epoch" {} +
  tar -C "$out" --sort=name --mtime="@$epoch" --owner=0 --group=0 --numeric-owner -cf - "$name" | gzip -n -9 > "$out/$name.tar.gz"
done
(cd "$out" && sha256sum -- *.tar.gz > "castchunk_${VERSION}_checksums.txt")
for arch in amd64 arm64; do
  file "$out/castchunk_${VERSION}_linux_$arch/castchunk" | sed 's/, BuildID[^,]*//' >&2
done
bash scripts/dist-check.sh "$host" bin/castchunk
cat "$out/castchunk_${VERSION}_checksums.txt"
