#!/usr/bin/env bash
# Measure castchunk on real public trees of the languages it gained after the
# first five (issue 9): Go, JavaScript, Rust, C, C++, Ruby, PHP, Bash, Kotlin,
# Scala, Lua, Markdown, JSON, YAML, TOML, HTML and CSS.
#
#   scripts/languages.sh [BIN] [DIR]     (defaults: bin/castchunk, /tmp/castchunk-langs)
#
# Needs: go, python3, git, apt-get (Debian's packages are downloaded, never
# installed: run `apt-get update` once first), npm. Downloads are cached in
# DIR/cache; the trees are assembled in DIR/trees (not inside this repository:
# a plain tree there would be under this repository's own .gitignore).
#
# Sources, pinned (nothing from this repository):
#   Debian 12 packages (apt-get download, dpkg-deb -x): the Linux 6.1 source
#     (its kernel/ mm/ lib/ scripts/ tools/testing/selftests/ tools/perf/pmu-events/
#     Documentation/devicetree/bindings/ Documentation/netlink/), linux-libc-dev,
#     Rust crates (librust-*-dev), googletest, nlohmann-json, Boost 1.74 (asio,
#     beast, hana, spirit), Ruby gems, PHP (Twig, Symfony components), Lua
#     (Neovim's runtime, Penlight, LuaRocks, busted, LDoc, awesome), devscripts,
#     bash-completion, git-doc
#   npm: lodash, express, eslint, js-yaml, marked, npm (with its bundled
#     node_modules), bootstrap, bulma, animate.css, and three React Native
#     packages that ship Kotlin (expo-modules-core, react-native-screens,
#     react-native-gesture-handler)
#   Go modules: golang.org/x/tools, golang.org/x/sys, github.com/spf13/cobra, and
#     tree-sitter-scala's examples/ (five files of the Scala compiler: the only
#     public Scala these registries serve)
#
# Trees marked git below are made git repositories (git init, a .gitignore,
# one commit, one ignored file force-added, some files left untracked), so the
# git path of the walk is measured too; the others are plain folders.
#
# For each language and tree: `castchunk chunk --stats` at budgets 2000 and
# 300 with --method cast and sliding (-j $JOBS, --include globs of the
# language), then `castchunk verify --max-size N --root TREE`, then
# scripts/chunkcheck.py (an independent check: content, lines, sizes by Go's
# definition of white space, budget, tiling, and that every file with a
# supported extension is chunked, empty or named on stderr), and
# scripts/defspan (definitions kept whole, cast against sliding). Then each
# tree once more with every language, at budget 2000: as is, and with
# --include-generated --include-vendored (where every supported file must be
# accounted for). Results: DIR/out/results.md (also printed) and DIR/out/runs.tsv;
# each run's records, stderr, verify and check output are kept in DIR/out.
# About 220 MB of downloads, 450 MB of trees, and 12 minutes on 2 idle cores.
set -euo pipefail

cd "$(dirname "$0")/.."
repo=$PWD
BIN=$(realpath "${1:-bin/castchunk}")
L=${2:-/tmp/castchunk-langs}
GO=${GO:-go}
JOBS=${JOBS:-2}
REPS=${REPS:-3}
mkdir -p "$L"
L=$(realpath "$L")
cache=$L/cache
T=$L/trees
out=$L/out
mkdir -p "$cache/deb" "$cache/npm" "$cache/x" "$out"
die() {
  echo "languages.sh: $*" >&2
  exit 1
}
[ -x "$BIN" ] || die "no castchunk at $BIN (make build)"

# Bump when the trees below change, so they are assembled again.
RECIPE=2

DEBS=(
  linux-source-6.1=6.1.192-3 linux-libc-dev=6.1.192-3
  librust-chrono-dev=0.4.23-2 librust-clap-dev=4.0.32-1 librust-hyper-dev=0.14.19-1
  librust-itertools-dev=0.10.3-1 librust-libc-dev=0.2.139-1 librust-nom-dev=7.1.1-1
  librust-proc-macro2-dev=1.0.47-1 librust-quote-dev=1.0.21-1 librust-rand-dev=0.8.5-1
  librust-regex-dev=1.7.1-1 librust-regex-syntax-dev=0.6.27-1 librust-serde-dev=1.0.152-2
  librust-serde-json-dev=1.0.87-1 librust-syn-dev=1.0.107-1 librust-tokio-dev=1.24.2-1
  librust-toml-dev=0.5.11-1
  googletest=1.12.1-0.2 nlohmann-json3-dev=3.11.2-2 libboost1.74-dev=1.74.0+ds1-21
  ruby-rack=2.2.22-0+deb12u2 ruby-activesupport=2:6.1.7.10+dfsg-1~deb12u4 ruby-faker=2.21.0-1
  php-twig=3.5.1-1+deb12u3
  php-symfony-cache=5.4.53+dfsg-0+deb12u1 php-symfony-console=5.4.53+dfsg-0+deb12u1
  php-symfony-dependency-injection=5.4.53+dfsg-0+deb12u1 php-symfony-form=5.4.53+dfsg-0+deb12u1
  php-symfony-http-foundation=5.4.53+dfsg-0+deb12u1 php-symfony-http-kernel=5.4.53+dfsg-0+deb12u1
  php-symfony-routing=5.4.53+dfsg-0+deb12u1 php-symfony-serializer=5.4.53+dfsg-0+deb12u1
  php-symfony-string=5.4.53+dfsg-0+deb12u1 php-symfony-translation=5.4.53+dfsg-0+deb12u1
  php-symfony-validator=5.4.53+dfsg-0+deb12u1 php-symfony-yaml=5.4.53+dfsg-0+deb12u1
  neovim-runtime=0.7.2-7 lua-penlight=1.13.1-3 luarocks=3.8.0+dfsg1-1 lua-busted=2.1.1-1
  lua-ldoc=1.4.6-2 awesome=4.3-7
  devscripts=2.23.4+deb12u2 bash-completion=1:2.11-6 git-doc=1:2.39.5-0+deb12u3
)
NPMS=(
  lodash@4.17.21 express@4.21.2 eslint@8.57.0 js-yaml@4.1.0 marked@12.0.2 npm@10.8.2
  bootstrap@5.3.3 bulma@0.9.4 animate.css@4.1.1
  expo-modules-core@1.12.26 react-native-screens@4.30.1 react-native-gesture-handler@2.20.2
  @mdn/browser-compat-data@5.6.0
)
GOMODS=(golang.org/x/tools@v0.26.0 golang.org/x/sys@v0.50.0 github.com/spf13/cobra@v1.10.2
  github.com/tree-sitter/tree-sitter-scala@v0.24.0)

# deb PKG: the folder PKG's Debian package is extracted in (downloaded once,
# the pinned version, else the current one when the archive dropped it).
deb() {
  local spec=$1 s pkg=$1
  for s in "${DEBS[@]}"; do [ "${s%%=*}" != "$1" ] || spec=$s; done
  if [ ! -d "$cache/x/$pkg" ]; then
    if ! ls "$cache/deb/${pkg}_"*.deb >/dev/null 2>&1; then
      (cd "$cache/deb" && { apt-get download -q "$spec" >/dev/null 2>&1 || apt-get download -q "$pkg" >/dev/null; }) ||
        die "apt-get download $pkg failed (apt-get update first?)"
    fi
    mkdir -p "$cache/x/$pkg.tmp"
    dpkg-deb -x "$cache/deb/${pkg}_"*.deb "$cache/x/$pkg.tmp"
    mv "$cache/x/$pkg.tmp" "$cache/x/$pkg"
  fi
  echo "$cache/x/$pkg"
}

# npmpkg NAME: the folder NAME's pinned npm tarball is unpacked in.
npmpkg() {
  local spec=$1 s dir
  for s in "${NPMS[@]}"; do [ "${s%@*}" != "$1" ] || spec=$s; done
  dir=$cache/x/npm-$(echo "${1#@}" | tr / -)
  if [ ! -d "$dir" ]; then
    local tgz=$cache/npm/$(echo "${1#@}" | tr / -)-${spec##*@}.tgz # @a/b@1 packs as a-b-1.tgz
    [ -f "$tgz" ] || (cd "$cache/npm" && npm pack --silent "$spec" >/dev/null) || die "npm pack $spec failed"
    mkdir -p "$dir.tmp"
    tar -xzf "$tgz" -C "$dir.tmp" --strip-components=1
    mv "$dir.tmp" "$dir"
  fi
  echo "$dir"
}

# gomod PATH: the module cache folder of the pinned module PATH.
gomod() {
  local spec=$1 s
  for s in "${GOMODS[@]}"; do [ "${s%@*}" != "$1" ] || spec=$s; done
  (cd "$cache" && GOFLAGS=-mod=mod "$GO" mod download -json "$spec") |
    python3 -c 'import json, sys; print(json.load(sys.stdin)["Dir"])'
}

# put SRC DEST: copy the folder SRC to $T/DEST, writable.
put() {
  mkdir -p "$(dirname "$T/$2")"
  cp -a "$1" "$T/$2"
  chmod -R u+w "$T/$2"
}

# gitify TREE IGNORE FORCE UNTRACKED: make $T/TREE a git repository whose
# .gitignore says IGNORE, with FORCE (ignored) added anyway and UNTRACKED left
# out of the commit (but not ignored).
gitify() {
  (
    cd "$T/$1"
    git init -q
    printf '%s\n' "$2" >.gitignore
    git add -A
    [ -z "$3" ] || git add -f -- "$3"
    [ -z "$4" ] || git rm -r -q --cached -- "$4"
    git -c user.name=languages.sh -c user.email=languages.sh@localhost commit -q -m snapshot
  )
}

assemble() {
  rm -rf "$T"
  mkdir -p "$T"
  local p d
  # go (git): three modules; x/sys's windows/ is ignored but one file of it tracked.
  put "$(gomod golang.org/x/tools)" go/tools
  put "$(gomod golang.org/x/sys)" go/sys
  put "$(gomod github.com/spf13/cobra)" go/cobra
  gitify go $'/sys/windows/\n' sys/windows/syscall_windows.go cobra
  # npm (plain): JavaScript, Markdown, JSON, HTML; npm's node_modules are vendored.
  for p in lodash express eslint js-yaml marked npm; do put "$(npmpkg $p)" npm/$p; done
  # css (plain)
  for p in bootstrap bulma animate.css; do put "$(npmpkg $p)" css/$p; done
  # kernel (plain): C, Bash, JSON, YAML (and Python, Perl, ...)
  d=$(deb linux-source-6.1)
  mkdir -p "$T/kernel/linux"
  tar -xJf "$d/usr/src/linux-source-6.1.tar.xz" -C "$T/kernel/linux" --strip-components=1 \
    linux-source-6.1/kernel linux-source-6.1/mm linux-source-6.1/lib linux-source-6.1/scripts \
    linux-source-6.1/tools/testing/selftests linux-source-6.1/tools/perf/pmu-events \
    linux-source-6.1/Documentation/devicetree/bindings linux-source-6.1/Documentation/netlink
  put "$(deb linux-libc-dev)/usr/include" kernel/usr-include
  # rust (git): crates as Debian ships them; benches/ ignored, one kept; tokio untracked.
  mkdir -p "$T/rust"
  for p in "${DEBS[@]}"; do
    p=${p%%=*}
    case $p in librust-*) cp -a "$(deb "$p")"/usr/share/cargo/registry/. "$T/rust/" ;; esac
  done
  chmod -R u+w "$T/rust"
  gitify rust $'benches/\n' "$(cd "$T/rust" && find . -path '*/benches/*.rs' | sort | head -1)" \
    "$(cd "$T/rust" && ls -d tokio-1*)"
  # cpp (git): googletest's sources, nlohmann-json, four Boost libraries; hana ignored.
  put "$(deb googletest)/usr/src/googletest" cpp/googletest
  put "$(deb nlohmann-json3-dev)/usr/include/nlohmann" cpp/nlohmann
  for p in asio beast hana spirit; do put "$(deb libboost1.74-dev)/usr/include/boost/$p" cpp/boost/$p; done
  gitify cpp $'/boost/hana/\n' boost/hana/fold.hpp ""
  # ruby (plain)
  for p in ruby-rack ruby-activesupport ruby-faker; do put "$(deb $p)/usr" ruby/$p; done
  # php (git): the package roots; Twig untracked.
  for p in "${DEBS[@]}"; do
    p=${p%%=*}
    case $p in php-*) put "$(deb "$p")/usr/share/php" "php/$p" ;; esac
  done
  gitify php $'*Interface.php\n' php-symfony-console/Symfony/Component/Console/Output/OutputInterface.php php-twig
  # lua (git)
  put "$(deb neovim-runtime)/usr/share/nvim/runtime" lua/nvim-runtime
  for p in lua-penlight luarocks lua-busted lua-ldoc; do put "$(deb $p)/usr/share" lua/$p; done
  put "$(deb awesome)/usr/share/awesome" lua/awesome
  gitify lua $'/awesome/themes/\n' "" luarocks
  # kotlin (git): three React Native packages; gesture-handler ignored, one file kept.
  for p in expo-modules-core react-native-screens react-native-gesture-handler; do put "$(npmpkg $p)" kotlin/$p; done
  gitify kotlin $'/react-native-gesture-handler/\n' \
    "$(cd "$T/kotlin" && find react-native-gesture-handler -name '*.kt' | sort | head -1)" ""
  # mdn (plain): one 15 MB JSON file, over the default --max-file-size
  put "$(npmpkg @mdn/browser-compat-data)" mdn/browser-compat-data
  # pyref (plain): the installed Python's standard library, the language of make bench, for reference
  put "$(python3 -c 'import sysconfig; print(sysconfig.get_paths()["stdlib"])')" pyref/stdlib
  rm -rf "$T/pyref/stdlib/site-packages"
  find "$T/pyref" -name __pycache__ -prune -exec rm -rf {} +
  # scala (plain)
  put "$(gomod github.com/tree-sitter/tree-sitter-scala)/examples" scala/scala-compiler-examples
  # shebang (plain): scripts without extension, found by their #! line
  put "$(deb devscripts)/usr/bin" shebang/devscripts-bin
  put "$(deb bash-completion)/usr/share/bash-completion" shebang/bash-completion
  # docs (plain): git's HTML manual
  put "$(deb git-doc)/usr/share/doc/git-doc" docs/git-doc
  echo "$RECIPE" >"$L/.trees-recipe"
}

if [ "$(cat "$L/.trees-recipe" 2>/dev/null)" != "$RECIPE" ] || [ ! -d "$T" ]; then
  echo "assembling the trees in $T" >&2
  assemble
fi

"$GO" build -o "$out/defspan" ./scripts/defspan

# language:tree[,tree...]: the --include globs come from `castchunk languages`.
RUNS=(
  go:go javascript:npm css:css html:npm,docs markdown:npm,rust json:kernel,npm yaml:kernel,ruby
  toml:rust rust:rust c:kernel cpp:cpp ruby:ruby php:php bash:kernel lua:lua kotlin:kotlin scala:scala
  json:mdn python:pyref
)

globs() { # globs LANG: --include flags for LANG's extensions and file names
  "$BIN" languages | awk -v l="$1" '$1 == l {
    for (i = 2; i <= NF && $i !~ /\//; i++) printf "--include\n*%s\n", $i
    for (j = i + 2; j <= NF; j++) if ($j != "-") printf "--include\n%s\n", $j }'
}

secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }

# run NAME TREE METHOD BUDGET [castchunk flags...]: one chunk run, verified
# and checked; appends a line to runs.tsv.
run() {
  local name=$1 tree=$2 method=$3 budget=$4
  shift 4
  local label=${LABEL:-$tree}
  local o=$out/$name.$label.$method.$budget rc=0 vrc=0 crc=0 start end wall best= cpu bestcpu=
  local timer=()
  [ ! -x /usr/bin/time ] || timer=(/usr/bin/time -f '%U %S' -o "$o.time")
  local reps=1
  [ "$method.$budget" != cast.2000 ] || reps=$REPS # MB/s: the fastest of REPS runs
  for ((i = 0; i < reps; i++)); do
    start=$(date +%s.%N)
    (cd "$T/$tree" && "${timer[@]}" "$BIN" chunk --no-progress --stats -j "$JOBS" -m "$method" --max-size "$budget" "$@" . \
      >"$o.jsonl" 2>"$o.err") || rc=$?
    end=$(date +%s.%N)
    wall=$(secs "$start" "$end")
    best=$(awk -v a="$wall" -v b="${best:-$wall}" 'BEGIN { print (a < b ? a : b) }')
    cpu=$(tail -1 "$o.time" 2>/dev/null | awk '{ print $1 + $2 }'); cpu=${cpu:-0}
    bestcpu=$(awk -v a="$cpu" -v b="${bestcpu:-$cpu}" 'BEGIN { print (a < b ? a : b) }')
  done
  "$BIN" verify --max-size "$budget" --root "$T/$tree" ${VERIFYFLAGS:-} "$o.jsonl" >"$o.verify" 2>&1 || vrc=$?
  local checkflags=()
  case $name in all | all+) ;; *) checkflags+=(--include-lang "$name") ;; esac
  [ "$name" != all+ ] || checkflags+=(--all-included)
  python3 scripts/chunkcheck.py --root "$T/$tree" --budget "$budget" --bin "$BIN" --stderr "$o.err" \
    "${checkflags[@]}" "$o.jsonl" >"$o.check" || crc=$?
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$label" "$method" "$budget" \
    "$best" "$rc" "$vrc" "$crc" "$o" "$bestcpu" >>"$out/runs.tsv"
  printf '  %-10s %-7s %-7s %4s  exit %s  verify %s  check %s  %s\n' "$name" "$label" "$method" "$budget" \
    "$rc" "$(tail -1 "$o.verify")" "$(tail -1 "$o.check" | python3 -c 'import json,sys; print("ok" if json.load(sys.stdin)["ok"] else "FAILED")' 2>/dev/null || echo FAILED)" \
    "${best}s" >&2
}

rm -f "$out/runs.tsv" "$out"/*.defs
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
for r in "${RUNS[@]}"; do
  lang=${r%%:*}
  mapfile -t inc < <(globs "$lang")
  IFS=, read -r -a trees <<<"${r#*:}"
  for tree in "${trees[@]}"; do
    for budget in 2000 300; do
      for method in cast sliding; do run "$lang" "$tree" "$method" "$budget" "${inc[@]}"; done
      "$out/defspan" -root "$T/$tree" -budget "$budget" "$out/$lang.$tree.cast.$budget.jsonl" \
        "$out/$lang.$tree.sliding.$budget.jsonl" >"$out/$lang.$tree.$budget.defs"
    done
  done
done
# The 15 MB file too: --max-file-size 0, for chunk and verify alike.
mapfile -t inc < <(globs json)
for budget in 2000 300; do
  for method in cast sliding; do
    LABEL=mdn-nolimit VERIFYFLAGS="--max-file-size 0" run json mdn "$method" "$budget" --max-file-size 0 "${inc[@]}"
  done
done
for tree in go npm css kernel rust cpp ruby php lua kotlin scala shebang docs mdn; do
  run all "$tree" cast 2000
  run all+ "$tree" cast 2000 --include-generated --include-vendored
done
load_after=$(cut -d' ' -f1-3 /proc/loadavg)
python3 - "$out" "$("$BIN" version | head -1), binary sha256 $(sha256sum "$BIN" | cut -c1-12)" \
  "$load_before" "$load_after" "$JOBS" "$REPS" <<'PY' | tee "$out/results.md"
import collections, json, sys
out, rev, load_before, load_after, jobs, reps = sys.argv[1:7]
runs = [l.rstrip('\n').split('\t') for l in open(f'{out}/runs.tsv')]
def check(o):
    return json.loads(open(o + '.check').read().splitlines()[-1])
def verdict(rc, vrc, crc):
    return 'ok' if (rc, vrc, crc) == ('0', '0', '0') else f'exit {rc}, verify {vrc}, check {crc}'
by = collections.OrderedDict()
for name, tree, method, budget, wall, rc, vrc, crc, o, cpu in runs:
    by.setdefault((name, tree), {})[(method, budget)] = (float(wall), rc, vrc, crc, o, float(cpu or 0))
print(f'{rev}; -j {jobs}; load average {load_before} before, {load_after} after.')
print(f'Chunks: cast/sliding. MB/s: cast at budget 2000, the fastest of {reps} runs (wall time of castchunk chunk);')
print('MB/CPU-s: the same per second of user+system CPU time (less sensitive to other load on the machine).')
print('Kept whole: named definitions that fit the budget and lie in one chunk, cast/sliding.\n')
print('| language | tree | files | MB | chunks @2000 | chunks @300 | MB/s | MB/CPU-s | verify + check | skipped (named on stderr; generated, vendored) | kept whole @2000 | kept whole @300 |')
print('|---|---|---:|---:|---:|---:|---:|---:|---|---|---|---|')
for (name, tree), r in by.items():
    if name.startswith('all'):
        continue
    c = {k: check(v[4]) for k, v in r.items()}
    verd = sorted({verdict(*v[1:4]) for v in r.values()})
    base = c[('cast', '2000')]
    # An --include glob also takes the whole of a folder it matches (animate.css/), so a
    # run may hold a few files of other languages: the figures are the language's own.
    lang = {k: v['by_language'].get(name, [0, 0, 0]) for k, v in c.items()}
    mbs = base['bytes'] / 1e6 / r[('cast', '2000')][0]
    cpu = r[('cast', '2000')][5]
    mbcpu = f"{base['bytes'] / 1e6 / cpu:.1f}" if cpu else 'n/a'
    def kept(b):
        try:
            rows = [json.loads(l) for l in open(f'{out}/{name}.{tree}.{b}.defs')]
        except OSError:
            return 'n/a'
        rows = [x for x in rows if x['language'] == name]
        if not rows or not rows[0]['fit']:
            return 'not measured'
        x = rows[0]
        return f"{100*x['whole_fit'][0]/x['fit']:.1f}% / {100*x['whole_fit'][1]/x['fit']:.1f}% of {x['fit']} ({x['defs']} defs)"
    skipped = f"{base['named_on_stderr']}; {base['left'].get('generated', 0)}, {base['left'].get('vendored', 0)}"
    print(f"| {name} | {tree} | {lang[('cast', '2000')][0]} | {lang[('cast', '2000')][2]/1e6:.2f} | "
          f"{lang[('cast','2000')][1]}/{lang[('sliding','2000')][1]} | {lang[('cast','300')][1]}/{lang[('sliding','300')][1]} | "
          f"{mbs:.1f} | {mbcpu} | {', '.join(verd)} | {skipped} | {kept('2000')} | {kept('300')} |")
print('\nEvery language of each tree at budget 2000 (cast), as is and with --include-generated --include-vendored:\n')
print('| tree | files | MB | chunks | MB/s | verify + check | as is: named on stderr; generated, vendored left out | all included: files, named on stderr |')
print('|---|---:|---:|---:|---:|---|---|---|')
trees = [t for (n, t) in by if n == 'all']
for t in trees:
    a, b = by[('all', t)][('cast', '2000')], by[('all+', t)][('cast', '2000')]
    ca, cb = check(a[4]), check(b[4])
    print(f"| {t} | {ca['files']} | {ca['bytes']/1e6:.2f} | {ca['chunks']} | {ca['bytes']/1e6/a[0]:.1f} | "
          f"{verdict(*a[1:4])}; {verdict(*b[1:4])} | {ca['named_on_stderr']}; {ca['left'].get('generated', 0)}, {ca['left'].get('vendored', 0)} | "
          f"{cb['files']}, {cb['named_on_stderr']} |")
PY
