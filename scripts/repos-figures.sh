#!/usr/bin/env bash
# The figures of "many repositories, one index" (README, Figures): the public trees this
# machine has, split as a set of repositories, chunked by Slurm job arrays of 1, 2 and 4
# tasks (scripts/slurm-check.sh's list part, on the one-node cluster of
# scripts/slurm/cluster.sh), each merged output compared with one local run byte for byte.
#
#   Go's standard library   $(go env GOROOT)/src: each top folder a repository (go/net, ...)
#   Python's                /usr/lib/python3.*: each top folder (python/email, ...)
#   the JDK's sources       a JDK's lib/src.zip, unzipped: each module (jdk/java.base, ...)
#   npm packages' sources   bench/corpus/npm (make corpus): each package (npm/rxjs@7.8.2, ...)
#
# Usage: scripts/repos-figures.sh [BIN] (default bin/castchunk). FIGURES_DIR (default
# /tmp/castchunk-figures) holds the unzipped JDK and the list; SLURM_CHECK_TASKS the array
# sizes. A tree that is not on the machine is left out, and said.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-bin/castchunk}
dir=${FIGURES_DIR:-/tmp/castchunk-figures}
mkdir -p "$dir"
list=$dir/repos.txt
: >"$list"

# add PREFIX FOLDER...: each folder a repository named PREFIX/its name.
add() {
  local prefix=$1 d
  shift
  for d in "$@"; do
    # Absolute: the array's tasks run in another folder (a list's relative paths are
    # relative to the folder castchunk runs in, as --files-from's).
    if [ -d "$d" ]; then
      printf '%s\t%s/%s\n' "$(realpath "$d")" "$prefix" "$(basename "$d")" >>"$list"
    fi
  done
}

goroot=$(go env GOROOT 2>/dev/null || true)
if [ -d "$goroot/src" ]; then add go "$goroot"/src/*/; else echo "repos-figures: no Go source tree" >&2; fi
py=""
while read -r d; do [ -f "$d/os.py" ] && py=$d; done < <(printf '%s\n' /usr/lib/python3.[0-9]* | sort -V)
if [ -n "$py" ]; then add python "$py"/*/; else echo "repos-figures: no Python standard library" >&2; fi
zip=""
for z in /usr/lib/jvm/*/lib/src.zip; do [ -f "$(readlink -f "$z")" ] && zip=$z; done
if [ -n "$zip" ]; then
  if ! [ -d "$dir/jdk" ]; then # unzipped aside, then moved: an interrupted unzip is not reused
    rm -rf "$dir/jdk.part" && unzip -q "$zip" -d "$dir/jdk.part" && mv "$dir/jdk.part" "$dir/jdk"
  fi
  add jdk "$dir"/jdk/*/
else
  echo "repos-figures: no JDK src.zip" >&2
fi
if [ -d bench/corpus/npm ]; then add npm bench/corpus/npm/*/; else echo "repos-figures: no bench/corpus/npm (make corpus)" >&2; fi

echo "repos-figures: $(wc -l <"$list") repositories in $list ($(cut -f1 "$list" | tr '\n' '\0' | xargs -0 du -scm 2>/dev/null | tail -1 | cut -f1) MB on disk)" >&2
SLURM_CHECK_PARTS=list SLURM_CHECK_LIST=$list SLURM_CHECK_TIMEOUT=${SLURM_CHECK_TIMEOUT:-3600} \
  exec scripts/slurm-check.sh "$bin"
