#!/usr/bin/env bash
# scripts/dist-check.sh STATIC DYNAMIC: the static binary, alone in an empty
# root (chroot: no Go toolchain, no shared library, no /proc, no /dev),
# chunks testdata/corpus into the same records as the dynamic build outside
# it. Needs root (chroot); says so and fails without.
set -euo pipefail
cd "$(dirname "$0")/.."
static=$(realpath "$1") dynamic=$(realpath "$2")
if [ "$(id -u)" -ne 0 ]; then
  echo "dist-check: chroot needs root; run make dist as root to check the static binary" >&2
  exit 1
fi
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
cp "$static" "$root/castchunk"
mkdir -p "$root/t"
cp -r testdata/corpus "$root/t/corpus"
if ldd "$root/castchunk" >/dev/null 2>&1; then
  echo "dist-check: $static is dynamically linked" >&2
  exit 1
fi
(cd "$root/t" && "$dynamic" chunk -j 2 --root . corpus > "$root/dynamic.jsonl")
chroot "$root" /castchunk chunk -j 2 --root /t /t/corpus > "$root/static.jsonl" 2> "$root/static.err" || {
  echo "dist-check: the static binary failed in the empty root:" >&2; cat "$root/static.err" >&2; exit 1; }
if [ -s "$root/static.err" ]; then
  echo "dist-check: the static binary said, in the empty root:" >&2; cat "$root/static.err" >&2; exit 1
fi
if ! cmp -s "$root/dynamic.jsonl" "$root/static.jsonl"; then
  echo "dist-check: the static binary's records differ from the dynamic build's" >&2
  diff <(head -c 2000 "$root/dynamic.jsonl") <(head -c 2000 "$root/static.jsonl") >&2 || true
  exit 1
fi
echo "dist-check: the static binary chunked $(wc -l < "$root/static.jsonl") records of testdata/corpus in an empty root, byte for byte as the dynamic build" >&2
