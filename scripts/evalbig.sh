#!/usr/bin/env bash
# Time castchunk eval on a ~110 MB repository with a history of a few hundred
# commits: the sources of bench/corpus (make corpus: the JDK's java.base, the
# Python standard library, the npm packages; its generated files left out)
# committed once, then COMMITS synthetic commits, each editing 1 to 3
# files (a few lines removed or changed), whose message names identifiers
# of the lines changed. The messages are made up, so the figures measure
# time and memory, not retrieval quality.
#
#   scripts/evalbig.sh [BIN] [DIR]   (defaults: bin/castchunk, /tmp/castchunk-evalbig)
#
# With EMBED=1 it also measures the dense and hybrid retrievers, through
# scripts/fakeembed (a hashed bag of words served on loopback, vectors of
# EMBED_DIM numbers, default 384; no vector cache): time and memory only.
#
# Prints the eval report, then the wall time and peak RSS (/usr/bin/time -v).
set -euo pipefail

cd "$(dirname "$0")/.."
BIN=$(realpath "${1:-bin/castchunk}")
DIR=${2:-/tmp/castchunk-evalbig}
COMMITS=${COMMITS:-260}
FROM_GIT=${FROM_GIT:-200}
JOBS=${JOBS:-2}
[ -x "$BIN" ] || { echo "evalbig: no castchunk at $BIN (make build)" >&2; exit 1; }
[ -d bench/corpus/npm ] || { echo "evalbig: no bench/corpus (make corpus)" >&2; exit 1; }

export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
export GIT_AUTHOR_NAME=evalbig GIT_AUTHOR_EMAIL=evalbig@example.com
export GIT_COMMITTER_NAME=evalbig GIT_COMMITTER_EMAIL=evalbig@example.com
export GIT_AUTHOR_DATE=2025-01-01T00:00:00Z GIT_COMMITTER_DATE=2025-01-01T00:00:00Z

if [ ! -f "$DIR/.evalbig-done-$COMMITS" ]; then
  rm -rf "$DIR"
  mkdir -p "$DIR/repo"
  for d in jdk-src python-stdlib npm; do cp -r "bench/corpus/$d" "$DIR/repo/"; done
  git -C "$DIR/repo" init -q -b main
  git -C "$DIR/repo" add -A
  git -C "$DIR/repo" commit -qm "import the sources of bench/corpus"
  python3 - "$DIR/repo" "$COMMITS" <<'PY'
import os, random, re, subprocess, sys
repo, n = sys.argv[1], int(sys.argv[2])
rng = random.Random(20260101)
files = sorted(subprocess.run(["git", "-C", repo, "ls-files", "-z"], capture_output=True, check=True).stdout.decode().split("\0"))
files = [f for f in files if f.endswith((".py", ".java", ".ts"))]
ident = re.compile(r"[A-Za-z_][A-Za-z0-9_]{3,}")
verbs = ["Simplify", "Fix", "Remove", "Rework", "Tidy", "Correct", "Drop"]
for i in range(n):
    names, touched = [], []
    for f in rng.sample(files, rng.randint(1, 3)):
        p = os.path.join(repo, f)
        with open(p, encoding="utf-8", errors="surrogateescape") as fh:
            lines = fh.readlines()
        if len(lines) < 30:
            continue
        at = rng.randrange(10, len(lines) - 10)
        k = rng.randint(2, 8)
        block = "".join(lines[at:at + k])
        names += [w for w in ident.findall(block) if w not in ("self", "this", "return", "const", "final", "public", "private", "static")][:3]
        if rng.random() < 0.5:
            del lines[at:at + k]
        else:
            lines[at] = lines[at].rstrip("\n") + "  # changed\n" if f.endswith(".py") else lines[at].rstrip("\n") + " // changed\n"
        with open(p, "w", encoding="utf-8", errors="surrogateescape") as fh:
            fh.writelines(lines)
        touched.append(os.path.basename(f))
    if not touched:
        continue
    msg = "%s %s in %s" % (rng.choice(verbs), " and ".join(dict.fromkeys(names)) or "the code", ", ".join(touched))
    subprocess.run(["git", "-C", repo, "commit", "-qam", msg], check=True)
PY
  touch "$DIR/.evalbig-done-$COMMITS"
fi
echo "evalbig: $(git -C "$DIR/repo" rev-list --count HEAD) commits, $(du -sh --exclude=.git "$DIR/repo" | cut -f1) of files" >&2
embed=()
if [ "${EMBED:-0}" = 1 ]; then
  go build -o "$DIR/fakeembed" ./scripts/fakeembed
  "$DIR/fakeembed" -dim "${EMBED_DIM:-384}" >"$DIR/fakeembed.url" &
  fake=$!
  trap 'kill $fake 2>/dev/null || true' EXIT
  for _ in $(seq 50); do [ -s "$DIR/fakeembed.url" ] && break; sleep 0.1; done
  embed=(--embedder "$(cat "$DIR/fakeembed.url")" --embed-model "fake-${EMBED_DIM:-384}" --no-cache)
fi
/usr/bin/time -v "$BIN" eval --from-git "$FROM_GIT" -j "$JOBS" "${embed[@]}" "$DIR/repo" 2>"$DIR/time.txt"
grep -E 'castchunk:|Elapsed|Maximum resident' "$DIR/time.txt"
