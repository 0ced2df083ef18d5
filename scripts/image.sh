#!/usr/bin/env bash
# make image: the container image castchunk:VERSION from Containerfile and
# dist/'s static amd64 binary, with podman, then the
# image run on a mounted tree (testdata/corpus, read-only), whose records
# must equal the binary's own. Installs podman from Debian's packages when
# it is missing.
set -euo pipefail
cd "$(dirname "$0")/.."
VERSION=${VERSION:-$(scripts/version.sh)}
tag="castchunk:$VERSION"
bin="dist/castchunk_${VERSION}_linux_amd64/castchunk"
[ -x "$bin" ] || { echo "image: $bin is missing: run make dist" >&2; exit 1; }
if ! command -v podman >/dev/null || ! command -v runc >/dev/null; then
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -q >&2
  $sudo apt-get install -y -q podman runc >&2
fi
ctx=$(mktemp -d)
trap 'rm -rf "$ctx"' EXIT
cp -r "dist/castchunk_${VERSION}_linux_amd64" "$ctx/"
printf 'root:x:0:0:root:/:/nonexistent\ncastchunk:x:65532:65532:castchunk:/src:/nonexistent\n' > "$ctx/passwd"
# /bin/sh: Debian's static busybox (busybox-static), which runs as sh by its name.
[ -x /bin/busybox ] || { sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"; $sudo apt-get install -y -q busybox-static >&2; }
cp /bin/busybox "$ctx/sh"
# The image's bytes do not depend on when it is built.
podman build --quiet --timestamp "$(git log -1 --format=%ct 2>/dev/null || echo 0)" \
  --build-arg "VERSION=$VERSION" -t "$tag" -f Containerfile "$ctx" >&2
echo "image: built $tag ($(podman image inspect --format '{{.Size}}' "$tag") bytes)" >&2

# Run it on a mounted tree and compare with the binary. A container in a
# container (this machine, a CI runner) may not set its own limits or
# cgroups: runc and the limits it already has.
run=(podman run --rm --network none)
if ! "${run[@]}" "$tag" version >/dev/null 2>&1; then
  run+=(--runtime runc --ulimit "nofile=$(ulimit -Sn):$(ulimit -Hn)" --ulimit "nproc=4096:4096")
fi
tree=$(mktemp -d)
trap 'rm -rf "$ctx" "$tree"' EXIT
cp -r testdata/corpus "$tree/corpus"
chmod -R a+rX "$tree"
(cd "$tree" && "$OLDPWD/$bin" chunk --root . corpus) > "$ctx/binary.jsonl"
"${run[@]}" -v "$tree:/src:ro" "$tag" chunk --root . corpus > "$ctx/image.jsonl"
if ! cmp -s "$ctx/binary.jsonl" "$ctx/image.jsonl"; then
  echo "image: the container's records differ from the binary's" >&2
  exit 1
fi
echo "image: $tag chunked the mounted testdata/corpus into $(wc -l < "$ctx/image.jsonl") records, byte for byte as the binary" >&2
