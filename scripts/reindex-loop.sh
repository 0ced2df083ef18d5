#!/usr/bin/env bash
# reindex-loop.sh: run castchunk's re-index loop over the last N commits of
# a git repository, as an unattended CI job would, and check it.
#
# For each commit, oldest first, in a clone of its own (the repository
# given is only read): chunk the commit (with -s K: K shards, merged back),
# diff the previous commit's output against it with the mass-delete guard
# on, apply the changes to a store (JSON Lines keyed by id: deleted ids
# dropped, added records added or replaced), and check the invariant: the
# store's (id, language, host_language) set equals a fresh chunk's. One line
# a commit. diff runs in the checkout, as a CI step runs it: git tells its
# guard which files were deleted. Then two release jumps, from the last
# commit to the one before it that the last two tags of the window (else
# the oldest commit with records) name and back, each applied and checked
# like a commit, without --allow-mass-delete. Then the guard is shown
# stopping the wrong paths, each diffed against the last output, each of
# which must exit 5 and print nothing whatever share it deletes: an empty
# folder chunked; a sparse checkout of one folder; a run narrowed to one
# folder in the full tree.
#
# Needs git, jq, coreutils and castchunk. Exit status: 0 every commit OK;
# 1 a mismatch, or the guard did not stop a wrong path; 2 usage;
# 5 diff refused a commit's changes or a jump; other: a command failed.
set -euo pipefail

usage() {
  cat <<'EOF'
usage: scripts/reindex-loop.sh [-n N] [-s SHARDS] [--bin PATH] [--max-delete PERCENT] REPO

  -n N                  the last N commits of REPO's HEAD (first parents; default 10)
  -s SHARDS             chunk each commit as SHARDS shards and merge them (default 1)
  --bin PATH            the castchunk binary (default: castchunk on PATH)
  --max-delete PERCENT  passed to castchunk diff (default: diff's own, 50%)
EOF
}

n=10 shards=1 bin=castchunk maxdel=()
while [ $# -gt 0 ]; do
  case $1 in
    -n) n=${2:?-n needs a number}; shift 2 ;;
    -s) shards=${2:?-s needs a number}; shift 2 ;;
    --bin) bin=${2:?--bin needs a path}; shift 2 ;;
    --max-delete) maxdel=(--max-delete "${2:?--max-delete needs a percentage}"); shift 2 ;;
    -h|--help) usage; exit 0 ;;
    -*) echo "reindex-loop: unknown option $1" >&2; usage >&2; exit 2 ;;
    *) break ;;
  esac
done
if [ $# -ne 1 ]; then usage >&2; exit 2; fi
case $n$shards in *[!0-9]*|'') echo "reindex-loop: -n and -s take whole numbers" >&2; exit 2 ;; esac
if [ "$n" -lt 1 ] || [ "$shards" -lt 1 ]; then echo "reindex-loop: -n and -s must be at least 1" >&2; exit 2; fi
for tool in git jq; do
  command -v "$tool" >/dev/null || { echo "reindex-loop: $tool is needed" >&2; exit 2; }
done
bin=$(command -v "$bin") || { echo "reindex-loop: no castchunk binary (give --bin PATH)" >&2; exit 2; }
# Absolute, but not resolved: a link's name may be what the binary goes by.
case $bin in /*) ;; *) bin=$PWD/$bin ;; esac
repo=$(git -C "$1" rev-parse --show-toplevel) || { echo "reindex-loop: $1 is not in a git repository" >&2; exit 2; }

work=$(mktemp -d "${TMPDIR:-/tmp}/reindex-loop.XXXXXX")
trap 'rm -rf "$work"' EXIT
tree=$work/tree
git clone -q --shared --no-checkout "$repo" "$tree"
# Nothing chunked is an error in castchunk versions that have --allow-empty;
# a commit with no source file is a fine step of the loop.
allow_empty=()
if "$bin" chunk --help | grep -q -- '--allow-empty'; then allow_empty=(--allow-empty); fi

# cc runs castchunk in the work tree; its stderr is shown when it fails.
# Status 4 (a file fell back to sliding windows) still wrote every record.
cc() {
  local rc=0
  (cd "$tree" && "$bin" "$@") 2>"$work/log" || rc=$?
  if [ "$rc" -ne 0 ] && [ "$rc" -ne 4 ]; then
    echo "reindex-loop: castchunk $* exited $rc:" >&2
    cat "$work/log" >&2
    return "$rc"
  fi
}

# chunk_commit writes the checked-out commit's records to $1, in shards when asked.
chunk_commit() {
  if [ "$shards" -eq 1 ]; then
    cc chunk "${allow_empty[@]}" -o "$1" .
    return
  fi
  local k parts=()
  for k in $(seq 1 "$shards"); do
    cc chunk "${allow_empty[@]}" --shard "$k/$shards" -o "$work/shard-$k.jsonl" .
    parts+=("$work/shard-$k.jsonl")
  done
  cc merge -o "$1" "${parts[@]}"
}

# apply_changes applies diff's changes ($1) to the store ($2), keyed by id.
apply_changes() {
  jq -c -n --slurpfile ch "$1" --slurpfile st "$2" '
    ($ch | map(select(.op == "delete") | {key: .id, value: true}) | from_entries) as $del
    | ($ch | map(select(.op == "add") | del(.op, .reason))) as $add
    | ($add | map({key: .id, value: true}) | from_entries) as $new
    | ($st[] | select(($del[.id] or $new[.id]) | not)), $add[]' >"$2.next"
  mv "$2.next" "$2"
}

# labels prints the sorted (id, language, host_language) triples of $1.
labels() { jq -r '[.id, .language, (.host_language // "")] | @tsv' "$1" | LC_ALL=C sort; }

mapfile -t commits < <(git -C "$repo" rev-list --first-parent --reverse -n "$n" HEAD)
: >"$work/old.jsonl"
: >"$work/store.jsonl"
printf '%-12s %7s %7s %7s  %s\n' commit added deleted store check
mismatches=0
# step checks out $1, chunks it, diffs the last output against it in the
# checkout (as CI runs it), applies the changes and checks the store. $2
# labels the line (the commit, or a jump). A refused diff ends the loop.
step() {
  local c=$1 label=$2 rc=0
  git -C "$tree" checkout -q --detach "$c"
  chunk_commit "$work/new.jsonl"
  (cd "$tree" && "$bin" diff "${maxdel[@]}" -o "$work/changes.jsonl" "$work/old.jsonl" "$work/new.jsonl") 2>"$work/log" || rc=$?
  if [ "$rc" -ne 0 ]; then
    printf '%-12s %7s %7s %7s  %s\n' "$label" - - "$(wc -l <"$work/store.jsonl")" "REFUSED (diff status $rc)"
    cat "$work/log" >&2
    exit "$rc"
  fi
  added=$(grep -c '^{"op":"add"' "$work/changes.jsonl" || true)
  deleted=$(grep -c '^{"op":"delete"' "$work/changes.jsonl" || true)
  apply_changes "$work/changes.jsonl" "$work/store.jsonl"
  cc chunk "${allow_empty[@]}" -o "$work/fresh.jsonl" .
  check=OK
  if ! cmp -s <(labels "$work/store.jsonl") <(labels "$work/fresh.jsonl"); then
    stale=$(LC_ALL=C comm -23 <(labels "$work/store.jsonl") <(labels "$work/fresh.jsonl") | wc -l)
    missing=$(LC_ALL=C comm -13 <(labels "$work/store.jsonl") <(labels "$work/fresh.jsonl") | wc -l)
    check="MISMATCH ($stale stale, $missing missing)"
    mismatches=$((mismatches + 1))
  fi
  printf '%-12s %7d %7d %7d  %s\n' "$label" "$added" "$deleted" "$(wc -l <"$work/store.jsonl")" "$check"
  mv "$work/new.jsonl" "$work/old.jsonl"
}
first_with_records=
for c in "${commits[@]}"; do
  step "$c" "${c:0:12}"
  if [ -z "$first_with_records" ] && [ -s "$work/old.jsonl" ]; then first_with_records=$c; fi
done
last=${commits[${#commits[@]}-1]}

# Release jumps, both ways: to the older of the last two tags in the
# window (else the oldest commit with records) and back to the last
# commit. Whatever share they replace, git confirms the deletions.
mapfile -t tags < <(for c in "${commits[@]}"; do git -C "$repo" tag --points-at "$c"; done)
from=$first_with_records
if [ "${#tags[@]}" -ge 2 ]; then
  from=$(git -C "$repo" rev-parse "${tags[${#tags[@]}-2]}^{commit}")
  echo "release jumps: ${tags[${#tags[@]}-1]} -> ${tags[${#tags[@]}-2]} -> back"
fi
if [ -n "$from" ] && [ "$from" != "$last" ]; then
  step "$from" "jump ${from:0:7}"
  step "$last" "back ${last:0:7}"
fi

# wrong_path NAME NEW: NEW (a wrong path's output) diffed against the last
# output in the full checkout must be refused, status 5, nothing printed.
wrong_path() {
  local name=$1 new=$2 diff_rc=0 share
  (cd "$tree" && "$bin" diff "${maxdel[@]}" "$work/old.jsonl" "$new") >"$work/wrong-changes.jsonl" 2>"$work/log" || diff_rc=$?
  share=$(jq -s --slurpfile o "$work/old.jsonl" '($o | map(.id)) - map(.id) | length' "$new")
  echo "wrong path: $name: $(wc -l <"$new") records, $share of the last output's $(wc -l <"$work/old.jsonl") chunks deleted; diff against the last output: status $diff_rc, $(wc -l <"$work/wrong-changes.jsonl") changes printed"
  sed 's/^/  /' "$work/log"
  if [ ! -s "$work/old.jsonl" ]; then
    echo "  (the last output was empty: nothing to guard)"
  elif [ "$diff_rc" -ne 5 ] || [ -s "$work/wrong-changes.jsonl" ]; then
    echo "reindex-loop: the mass-delete guard did not stop the wrong path ($name)" >&2
    exit 1
  fi
}

# An empty folder chunked.
mkdir "$work/empty"
chunk_rc=0
(cd "$work/empty" && "$bin" chunk -o "$work/wrong.jsonl" .) 2>/dev/null || chunk_rc=$?
echo "wrong path: chunk of an empty folder: status $chunk_rc"
wrong_path "an empty folder" "$work/wrong.jsonl"

# One folder of the last commit: the one holding most of its chunks, so
# that the others are the smallest share; none when every file is at the
# top.
folder=$(jq -r 'select(.path | contains("/")) | .path | split("/")[0]' "$work/old.jsonl" | sort | uniq -c | sort -rn | awk 'NR == 1 { print $2 }')
outside=$(jq -r --arg f "$folder/" 'select(.path | startswith($f) | not) | .path' "$work/old.jsonl" | awk 'NR == 1')
if [ -n "$folder" ] && [ -n "$outside" ]; then
  # A sparse checkout of that folder, diffed there (as CI would).
  git -C "$tree" sparse-checkout set "$folder"
  cc chunk "${allow_empty[@]}" -o "$work/sparse.jsonl" .
  wrong_path "a sparse checkout of $folder/" "$work/sparse.jsonl"
  git -C "$tree" sparse-checkout disable
  # A run narrowed to that folder in the full checkout.
  cc chunk "${allow_empty[@]}" -o "$work/narrow.jsonl" "$folder"
  wrong_path "chunk $folder in the full checkout" "$work/narrow.jsonl"
else
  echo "wrong path: no folder with files outside it: no sparse or narrowed run to try"
fi

if [ "$mismatches" -gt 0 ]; then
  echo "reindex-loop: $mismatches of the ${#commits[@]} commits and the jumps: the store is not a fresh chunk" >&2
  exit 1
fi
echo "all ${#commits[@]} commits and the jumps OK"
