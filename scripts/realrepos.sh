#!/usr/bin/env bash
# Chunk one real source tree per language (from bench/corpus, see
# scripts/corpus.sh) at budgets 2000 and 300 with both methods, pipe every
# output through `castchunk verify`, and print files, MB, chunks, mean chunk
# size as a share of the budget, and wall time. Usage:
#   make corpus && scripts/realrepos.sh [bin/castchunk] [bench/corpus]
# The seventeen languages added later (Go, JavaScript, Rust, C, C++, Ruby, PHP,
# Bash, Kotlin, Scala, Lua, Markdown, JSON, YAML, TOML, HTML, CSS) are
# measured on public trees by scripts/languages.sh.
set -euo pipefail
bin=${1:-bin/castchunk}
corpus=${2:-bench/corpus}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# language name, tree, include globs
trees=(
  "python|$corpus/python-stdlib|*.py"
  "java|$corpus/jdk-src|*.java"
  "typescript|$corpus/npm|*.ts *.mts *.cts"
  "tsx|$corpus/npm|*.tsx"
  "csharp|$corpus/npm|*.cs"
)
printf '%-11s %-7s %6s %6s %8s %8s %8s %8s %s\n' language method budget files MB chunks "mean/max" "wall s" verify
for t in "${trees[@]}"; do
  IFS='|' read -r name dir globs <<<"$t"
  inc=()
  for g in $globs; do inc+=(--include "$g"); done
  for method in cast sliding; do
    for budget in 2000 300; do
      start=$(date +%s.%N)
      "$bin" chunk --no-progress -m "$method" --max-size "$budget" "${inc[@]}" "$dir" >"$out/chunks.jsonl" 2>"$out/warnings.txt" || echo "exit status $? (see warnings)" >>"$out/warnings.txt"
      end=$(date +%s.%N)
      verdict=$("$bin" verify --max-size "$budget" "$out/chunks.jsonl" | tail -1)
      "$bin" stats --json --max-size "$budget" "$out/chunks.jsonl" >"$out/stats.json"
      python3 - "$out/stats.json" "$name" "$method" "$budget" "$start" "$end" "$verdict" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))["total"]
name, method, budget, start, end, verdict = sys.argv[2:8]
print(f'{name:<11} {method:<7} {budget:>6} {s["files"]:>6} {s["bytes"]/1e6:>6.1f} {s["chunks"]:>8} {100*s["sizes"].get("mean_share",0):>7.1f}% {float(end)-float(start):>8.2f} {verdict}')
PY
      if [ -s "$out/warnings.txt" ]; then sed 's/^/    /' "$out/warnings.txt" | sort | uniq -c | sort -rn | head -3; fi
    done
  done
done
