#!/bin/sh
# Prints the version `make build` and `make dist` stamp into castchunk: the
# tag at HEAD in a clean tree; else a Go pseudo-version of the commit and
# its date (v0.0.0-YYYYMMDDhhmmss-abcdef123456), with +dirty when the tree
# has changes; "devel" outside a git checkout.
set -e
cd "$(dirname "$0")/.."
if ! git rev-parse --verify -q HEAD >/dev/null 2>&1; then
  echo devel
  exit 0
fi
dirty=""
git diff --quiet HEAD -- 2>/dev/null || dirty="+dirty"
if [ -z "$dirty" ] && tag=$(git describe --tags --exact-match 2>/dev/null); then
  echo "$tag"
  exit 0
fi
when=$(TZ=UTC git log -1 --format=%cd --date=format-local:%Y%m%d%H%M%S)
echo "v0.0.0-$when-$(git rev-parse --short=12 HEAD)$dirty"
