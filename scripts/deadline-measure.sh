#!/usr/bin/env bash
# Measures what castchunk's grammar work costs per file, in CPU time, for the
# worker processes' deadline (docs/deadline-measurements.md): cmd/filecpu
# over Go's src, CPython's Lib (its site-packages left out), the JDK's
# java.base and testdata/corpus, warm (REPS repetitions of every
# configuration), and the one-off cost of each language's first file in a
# fresh process; then the summaries (scripts/filecpu-summary.py).
#
#   scripts/deadline-measure.sh OUT [REPS]
#
# GO_SRC, PY_LIB, JAVA_BASE (a folder holding java.base/, unzipped from a
# JDK's lib/src.zip), F and R (the deadline whose margins are tabled) may
# be set in the environment.
set -euo pipefail
out=${1:?usage: scripts/deadline-measure.sh OUT [REPS]}
reps=${2:-3}
GO_SRC=${GO_SRC:-/usr/local/go/src}
PY_LIB=${PY_LIB:-/root/.pyenv/versions/3.11.7/lib/python3.11}
JAVA_BASE=${JAVA_BASE:-/tmp/java-base}
here=$(cd "$(dirname "$0")/.." && pwd)
[ -d "$JAVA_BASE/java.base" ] || { echo "no $JAVA_BASE/java.base: unzip 'java.base/*' from a JDK's lib/src.zip into $JAVA_BASE" >&2; exit 2; }
mkdir -p "$out"
(cd "$here" && CGO_ENABLED=1 go build -o "$out/filecpu" ./cmd/filecpu)
corpora=(-corpus "go=$GO_SRC" -corpus "cpython=$PY_LIB" -exclude site-packages/ -corpus "java-base=$JAVA_BASE" -corpus "corpus=$here/testdata/corpus")
configs=("cast" "function" "declaration" "cast -context" "cast -max-tokens 512")
for rep in $(seq 1 "$reps"); do
  mkdir -p "$out/rep$rep"
  for cfg in "${configs[@]}"; do
    n=$(echo "$cfg" | tr -d ' -')
    # shellcheck disable=SC2086 # cfg is flags
    "$out/filecpu" -method $cfg "${corpora[@]}" -o "$out/rep$rep/warm-$n.tsv"
  done
done
for cfg in "${configs[@]}" "function -context" "declaration -context"; do
  n=$(echo "$cfg" | tr -d ' -')
  # shellcheck disable=SC2086
  "$out/filecpu" -first -method $cfg -corpus "corpus=$here/testdata/corpus" -o "$out/first-$n.tsv"
done
python3 "$here/scripts/filecpu-summary.py" warm "$out"/rep* > "$out/warm.md"
python3 "$here/scripts/filecpu-summary.py" oneoff "$out"/first-*.tsv > "$out/oneoff.md"
echo "summaries: $out/warm.md $out/oneoff.md" >&2
