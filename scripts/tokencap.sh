#!/usr/bin/env bash
# Measure the hard token cap of issue 10 on real trees in every language:
# for each language and tree, castchunk chunk at --max-size 2000, once plain
# and once with --max-tokens 512 --tokenizer cl100k_base --context
# --embed-text (the budget then covers the text, header included); verify
# the capped run (--max-size, --max-tokens, recounted tokens); report the
# largest token count seen and the named definitions kept whole (defspan)
# by the plain and the capped run.
#
#   scripts/tokencap.sh [BIN] [LANGS_DIR] [CORPUS_DIR]
#     defaults: bin/castchunk, /tmp/castchunk-langs (make languages builds
#     it), bench/corpus (make corpus builds it: Python, Java, TypeScript,
#     TSX, C#)
#
# Results: LANGS_DIR/tokencap/results.md (also printed).
set -euo pipefail

cd "$(dirname "$0")/.."
BIN=$(realpath "${1:-bin/castchunk}")
L=$(realpath "${2:-/tmp/castchunk-langs}")
C=$(realpath "${3:-bench/corpus}")
GO=${GO:-go}
JOBS=${JOBS:-2}
T=$L/trees
out=$L/tokencap
mkdir -p "$out"
"$GO" build -o "$out/defspan" ./scripts/defspan

# language:tree[,tree...], trees under $T; "corpus" is $C.
RUNS=(
  python:corpus java:corpus typescript:corpus tsx:corpus csharp:corpus
  go:go javascript:npm css:css html:npm,docs markdown:npm,rust json:kernel,npm yaml:kernel,ruby
  toml:rust rust:rust c:kernel cpp:cpp ruby:ruby php:php bash:kernel lua:lua kotlin:kotlin scala:scala
)
CAP=(--tokenizer cl100k_base --max-tokens 512 --context --embed-text)

globs() { # globs LANG: --include flags for LANG's extensions and file names
  "$BIN" languages | awk -v l="$1" '$1 == l {
    for (i = 2; i <= NF && $i !~ /\//; i++) printf "--include\n*%s\n", $i
    for (j = i + 2; j <= NF; j++) if ($j != "-") printf "--include\n%s\n", $j }'
}

: >"$out/runs.tsv"
for r in "${RUNS[@]}"; do
  lang=${r%%:*}
  mapfile -t inc < <(globs "$lang")
  IFS=, read -r -a trees <<<"${r#*:}"
  for tree in "${trees[@]}"; do
    dir=$T/$tree
    [ "$tree" != corpus ] || dir=$C
    o=$out/$lang.$tree
    (cd "$dir" && "$BIN" chunk --no-progress -j "$JOBS" --max-size 2000 "${inc[@]}" . >"$o.plain.jsonl" 2>"$o.plain.err") || true
    rc=0
    (cd "$dir" && "$BIN" chunk --no-progress -j "$JOBS" --max-size 2000 "${CAP[@]}" "${inc[@]}" . >"$o.cap.jsonl" 2>"$o.cap.err") || rc=$?
    vrc=0
    "$BIN" verify --root "$dir" --max-size 2000 --tokenizer cl100k_base --max-tokens 512 "$o.cap.jsonl" >"$o.verify" 2>&1 || vrc=$?
    "$out/defspan" -root "$dir" -budget 2000 "$o.plain.jsonl" "$o.cap.jsonl" | grep "\"language\":\"$lang\"" >"$o.defs" || true
    printf '%s\t%s\t%s\t%s\t%s\n' "$lang" "$tree" "$rc" "$vrc" "$o" >>"$out/runs.tsv"
    printf '  %-10s %-7s exit %s  %s\n' "$lang" "$tree" "$rc" "$(tail -1 "$o.verify")" >&2
  done
done

python3 - "$out" <<'PY' | tee "$out/results.md"
import json, sys
out = sys.argv[1]
print('Budget 2000 non-whitespace characters; capped: --max-tokens 512 --tokenizer cl100k_base --context --embed-text.')
print('Kept whole: named definitions within the budget that lie in one chunk (scripts/defspan), plain run, then capped.\n')
print('| language | tree | files | chunks plain | chunks capped | tokens p50 / p90 / max (capped, of text) | over 512 | verify | kept whole plain | kept whole capped | drop |')
print('|---|---|---:|---:|---:|---|---:|---|---:|---:|---:|')
tot = [0, 0, 0]
for line in open(f'{out}/runs.tsv'):
    lang, tree, rc, vrc, o = line.rstrip('\n').split('\t')
    def load(p):
        return [json.loads(l) for l in open(p)]
    plain, cap = load(o + '.plain.jsonl'), load(o + '.cap.jsonl')
    toks = sorted(r['tokens'] for r in cap)
    q = lambda f: toks[min(len(toks) - 1, int(f * len(toks)))] if toks else 0
    over = sum(t > 512 for t in toks)
    files = len({r['path'] for r in cap})
    verify = open(o + '.verify').read().strip().splitlines()[-1]
    d = json.loads(open(o + '.defs').read() or '{"fit":0,"whole_fit":[0,0]}')
    fit, (w0, w1) = d['fit'], d['whole_fit']
    tot[0] += fit; tot[1] += w0; tot[2] += w1
    pct = lambda w: f'{100 * w / fit:.2f}%' if fit else '-'
    drop = f'{100 * (w0 - w1) / fit:.2f} pt' if fit else '-'
    print(f'| {lang} | {tree} | {files} | {len(plain)} | {len(cap)} | {q(.5)} / {q(.9)} / {toks[-1] if toks else 0} | {over} | exit {rc}; {verify} | {pct(w0)} | {pct(w1)} | {drop} |')
fit, w0, w1 = tot
print(f'\nAll: {fit} definitions within the budget; kept whole {100*w0/fit:.2f}% plain, {100*w1/fit:.2f}% capped (drop {100*(w0-w1)/fit:.2f} points).')
PY
