#!/usr/bin/env bash
# make slurm-check: a real Slurm job array on a one-node cluster on the loopback
# (scripts/slurm/cluster.sh), running the job scripts of docs/ci.md (On a Slurm cluster),
# scripts/slurm/chunk.sbatch and merge.sbatch, as a user would:
#
#   1. repositories: a generated set of git repositories (identical README.md and
#      LICENSE in several, a repository with nested folders, a list entry naming its
#      repository) chunked with --repos-from by an array of REPO_SHARDS tasks, a cache
#      folder each, then merged by a job depending on the array: the merged output and
#      manifest must equal one local unsharded run byte for byte;
#   2. a large tree (this repository's files at HEAD, git archive) chunked by path by
#      an array of TREE_SHARDS tasks, merged, compared likewise;
#   3. an update: a file of one repository edited, another deleted, the array run
#      again on the same cache folders; the merge job's diff must hold exactly the
#      edited and deleted files' changes, the tasks must have chunked only the edited
#      file again (the other files from their shard's cache), and the merged output
#      must equal a local run again;
#   4. a lost shard: a repository of the list gone, the tasks fail (status 3), the merge
#      job is cancelled (its afterok never met) and the previous output stays.
#
# Usage: scripts/slurm-check.sh [BIN]  (default bin/castchunk). Needs root: cluster.sh
# installs munge and Slurm with apt-get, and the daemons run as root (SlurmUser=root). The cluster and its
# files live in a temporary folder, removed on success and kept (its path printed) on
# failure; SLURM_CHECK_KEEP=1 keeps it always. The daemons are stopped on any exit.
# SLURM_CHECK_TIMEOUT: the seconds an array and its merge may take (default 300).
# SLURM_CHECK_PARTS: the parts to run, of "repos tree update lost" (update and lost need repos),
# and "list", which runs arrays of SLURM_CHECK_TASKS tasks (default 1 2 4) over the repositories
# of the list SLURM_CHECK_LIST and times them (scripts/repos-figures.sh).
set -Eeuo pipefail
# A command that fails outside the checks below still says which.
trap 'echo "slurm-check: FAILED: line $LINENO: $BASH_COMMAND (status $?)" >&2' ERR

cd "$(dirname "$0")/.."
top=$PWD
bin=${1:-bin/castchunk}
case $bin in /*) ;; *) bin=$top/$bin ;; esac
[ -x "$bin" ] || { echo "slurm-check: $bin is missing: make build first (make slurm-check does)" >&2; exit 1; }
case $bin in
  *,*) echo "slurm-check: $bin: a comma in the binary's path cannot pass through sbatch --export" >&2; exit 2 ;;
esac
repo_shards=${REPO_SHARDS:-3}
tree_shards=${TREE_SHARDS:-4}
timeout=${SLURM_CHECK_TIMEOUT:-300}
parts=" ${SLURM_CHECK_PARTS:-repos tree update lost} "

t_start=$EPOCHREALTIME
timings=()
now() { echo "$EPOCHREALTIME"; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }
# phase NAME T0: records and prints how long NAME took since T0.
phase() {
  local s
  s=$(secs "$2" "$EPOCHREALTIME")
  timings+=("$(printf '%-48s %7s s' "$1" "$s")")
  echo "slurm-check: $1: $s s" >&2
}

fail() {
  echo "slurm-check: FAILED: $*" >&2
  exit 1
}

command -v git >/dev/null || fail "git is needed (apt-get install git)"
if ! command -v jq >/dev/null; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo=sudo
  echo "slurm-check: installing jq with apt-get" >&2
  if ! { $sudo apt-get update -q >&2 && $sudo apt-get install -y -q jq >&2; }; then
    fail "could not install jq"
  fi
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/castchunk-slurm-check.XXXXXX")
slurm_state=$work/slurm
readonly top work slurm_state
ok=0
cleanup() {
  local rc=$?
  "$top/scripts/slurm/cluster.sh" stop "$slurm_state" || echo "slurm-check: stopping the cluster failed: see $slurm_state/log" >&2
  if [ "$ok" = 1 ] && [ "${SLURM_CHECK_KEEP:-0}" != 1 ]; then
    rm -rf "$work"
  else
    echo "slurm-check: files kept in $work (job logs in $work/logs, daemon logs in $slurm_state/log)" >&2
  fi
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ---- the cluster
t=$(now)
"$top/scripts/slurm/cluster.sh" start "$slurm_state"
export SLURM_CONF=$slurm_state/etc/slurm.conf
phase "cluster start (with any install)" "$t"

logs=$work/logs
mkdir -p "$logs"

# submit_array NAME N OUT CACHE CHUNK-ARGS...: the array of chunk.sbatch; prints its id.
submit_array() {
  local name=$1 n=$2 out=$3 cache=$4
  shift 4
  sbatch --parsable --job-name="$name" --array="1-$n" --chdir="$work" \
    --output="$logs/%x-%a.out" --export="ALL,CASTCHUNK=$bin" \
    "$top/scripts/slurm/chunk.sbatch" "$out" "$cache" "$@"
}

# submit_merge NAME ARRAY_ID OUT N [DIFF FLAGS...] [-- INDEXER...]: merge.sbatch after the
# array; prints its id. It runs in OUT, outside any git checkout: for the repositories,
# --repos-from has diff's guard ask git in each; for the tree, the guard is its --max-delete
# backstop.
submit_merge() {
  local name=$1 array=$2 out=$3 n=$4
  shift 4
  sbatch --parsable --job-name="$name" --dependency="afterok:$array" --kill-on-invalid-dep=yes \
    --chdir="$out" --output="$logs/%x.out" --export="ALL,CASTCHUNK=$bin" \
    "$top/scripts/slurm/merge.sbatch" "$out" "$n" "$@"
}

# wait_gone ID WHAT: until no task of job ID is pending or running, at most $timeout s.
wait_gone() {
  local id=$1 what=$2 deadline
  deadline=$(($(date +%s) + timeout))
  while [ -n "$(squeue -h -j "$id" -o %i 2>/dev/null)" ]; do
    if [ "$(date +%s)" -ge "$deadline" ]; then
      squeue >&2 || true
      fail "$what (job $id) still queued or running after $timeout s"
    fi
    sleep 0.2
  done
}

# field LINE KEY: the value of KEY=value in a line of scontrol show job -o, or nothing.
field() {
  if [[ " $1 " =~ \ $2=([^ ]*)\  ]]; then
    echo "${BASH_REMATCH[1]}"
  fi
}

# check_done ID WHAT: every task of job ID completed with status 0; else the state and the
# log of each task that did not, and a failure.
check_done() {
  local id=$1 what=$2 line name task jstate code bad=0
  while read -r line; do
    name=$(field "$line" JobName)
    task=$(field "$line" ArrayTaskId)
    jstate=$(field "$line" JobState)
    code=$(field "$line" ExitCode)
    [ "$jstate $code" != "COMPLETED 0:0" ] || continue
    bad=1
    echo "slurm-check: $name${task:+ task $task}: $jstate, exit code $code" >&2
    f=$logs/$name${task:+-$task}.out
    if [ -f "$f" ]; then
      echo "---- the last lines of $f ----" >&2
      tail -n 15 "$f" >&2
      echo "----" >&2
    fi
  done < <(scontrol show job -o "$id")
  [ "$bad" = 0 ] || fail "$what (job $id)"
}

# run_shards NAME N OUT CACHE INDEXED CHUNK-ARGS...: the array, then the merge job
# depending on it (submitted at once, as in docs/ci.md), each waited for and timed; the
# "indexer" copies the changes to INDEXED. With --repos-from, diff gets it too.
run_shards() {
  local name=$1 n=$2 out=$3 cache=$4 indexed=$5 t array merge diff_flags=()
  shift 5
  [ "$1" != --repos-from ] || diff_flags=("$1" "$2")
  mkdir -p "$out"
  t=$(now)
  array=$(submit_array "$name-chunk" "$n" "$out" "$cache" "$@")
  merge=$(submit_merge "$name-merge" "$array" "$out" "$n" "${diff_flags[@]}" -- cp /dev/stdin "$indexed")
  wait_gone "$array" "$name: the array"
  check_done "$array" "$name: the array of $n chunk tasks"
  phase "$name: array of $n tasks (submit to last done)" "$t"
  t=$(now)
  wait_gone "$merge" "$name: the merge job"
  check_done "$merge" "$name: the merge job"
  phase "$name: merge job (after the array)" "$t"
}

# local_run OUTPUT MANIFEST CHUNK-ARGS...: the unsharded run the merge must equal,
# its statuses read as chunk.sbatch reads them.
local_run() {
  local o=$1 m=$2 status=0
  shift 2
  "$bin" chunk -o "$o" --manifest "$m" "$@" 2>"$o.log" || status=$?
  case $status in
    0 | 4) ;;
    1)
      if ! [ -f "$o" ] || ! [ -f "$m" ]; then
        cat "$o.log" >&2
        fail "the local run wrote nothing (status 1)"
      fi
      ;;
    *) cat "$o.log" >&2; fail "the local run exited with status $status" ;;
  esac
}

# same_as_local WHAT OUT OUTPUT MANIFEST: the merge job's output and manifest in OUT are
# the local run's, byte for byte.
same_as_local() {
  same "$1: merged output vs local run" "$2/chunks.jsonl" "$3"
  same "$1: merged manifest vs local manifest" "$2/manifest.jsonl" "$4"
}

# same WHAT A B: byte for byte, else the first difference.
same() {
  if ! cmp "$2" "$3"; then
    diff <(jq -c '[.repo, .path, .index, .id]' "$2") <(jq -c '[.repo, .path, .index, .id]' "$3") | head -20 >&2 || true
    fail "$1: $2 and $3 differ"
  fi
  echo "slurm-check: $1: identical ($(wc -l <"$2") lines)" >&2
}

# ---- the repositories
git_in() {
  local d=$1
  shift
  git -C "$d" -c user.name=slurm-check -c user.email=slurm-check@localhost -c init.defaultBranch=main "$@" >/dev/null
}

shared_readme() {
  cat <<'EOF'
# A service of the example fleet

Every repository of the fleet starts from this README: build with `make`, test with
`make test`, and read docs/guide.md for the conventions.

```sh
make
make test
```

## Layout

- `src/`: the code
- `docs/`: the guide
EOF
}

license_text() {
  cat <<'EOF'
Permission is hereby granted, free of charge, to any person obtaining a copy of this
software and associated documentation files, to deal in the Software without
restriction, including without limitation the rights to use, copy, modify, merge,
publish, distribute, sublicense, and/or sell copies of the Software.

THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND.
EOF
}

# py_module NAME COUNT: COUNT functions, long enough for a few chunks.
py_module() {
  local name=$1 count=$2 i
  printf '"""Helpers of %s."""\n\nimport os\n\n' "$name"
  for i in $(seq 1 "$count"); do
    cat <<EOF

def ${name}_step_$i(values, scale=$i):
    """Scale the values of step $i of $name and drop the negative ones."""
    result = []
    for value in values:
        scaled = value * scale + $i
        if scaled >= 0:
            result.append(scaled)
    return result

EOF
  done
  printf 'class %sRunner:\n    def __init__(self, root):\n        self.root = os.path.abspath(root)\n\n    def run(self):\n        return %s_step_1([1, 2, 3])\n' "${name^}" "$name"
}

go_main() {
  local name=$1 count=$2 i
  printf 'package main\n\nimport "fmt"\n\n'
  for i in $(seq 1 "$count"); do
    cat <<EOF
// ${name}Handler$i answers request $i of $name.
func ${name}Handler$i(in []int) (out []int) {
	for _, v := range in {
		if v%$((i + 1)) == 0 {
			out = append(out, v*$i)
		}
	}
	return out
}

EOF
  done
  printf 'func main() {\n\tfmt.Println(%sHandler1([]int{1, 2, 3}))\n}\n' "$name"
}

java_class() {
  local name=$1 count=$2 i
  printf 'package org.example.%s;\n\nimport java.util.ArrayList;\nimport java.util.List;\n\npublic final class %sService {\n' "$name" "${name^}"
  for i in $(seq 1 "$count"); do
    cat <<EOF
    /** Keeps the even values of batch $i, times $i. */
    public static List<Integer> batch$i(List<Integer> in) {
        List<Integer> out = new ArrayList<>();
        for (int v : in) {
            if (v % 2 == 0) {
                out.add(v * $i);
            }
        }
        return out;
    }

EOF
  done
  printf '}\n'
}

guide() {
  cat <<EOF
# The guide of $1

$1 keeps its handlers small.

\`\`\`python
print("$1")
\`\`\`

## Testing

Run the tests before each push.
EOF
}

# gen_repo NAME SIZE SHARED: a repository; SHARED=1: the fleet's README.md.
gen_repo() {
  local name=$1 size=$2 shared=$3 d=$work/repos/$1
  mkdir -p "$d/src/$name" "$d/cmd/$name" "$d/docs" "$d/java/org/example/$name"
  if [ "$shared" = 1 ]; then shared_readme >"$d/README.md"; else printf '# %s\n\nIts own README.\n' "$name" >"$d/README.md"; fi
  license_text >"$d/LICENSE"
  py_module "$name" "$size" >"$d/src/$name/util.py"
  go_main "$name" "$size" >"$d/cmd/$name/main.go"
  java_class "$name" "$size" >"$d/java/org/example/$name/${name^}Service.java"
  guide "$name" >"$d/docs/guide.md"
  git_in "$d" init -q
  git_in "$d" add -A
  git_in "$d" commit -q -m "$name: first commit"
}

if [[ $parts == *" repos "* ]]; then
  t=$(now)
  # NAME:FUNCTIONS:SHARED README. beta, which the update edits, has several chunks a file.
  for spec in alpha:5:1 beta:24:1 gamma:8:1 delta:12:1 epsilon:16:1 zeta:6:0 eta:20:0 theta:10:0; do
    IFS=: read -r name size shared <<<"$spec"
    gen_repo "$name" "$size" "$shared"
  done
  # A repository with nested folders, and the same helper in two places of it.
  mono=$work/repos/mono
  mkdir -p "$mono/services/api/handlers" "$mono/services/web" "$mono/libs/core/internal"
  shared_readme >"$mono/README.md"
  license_text >"$mono/LICENSE"
  py_module api 6 >"$mono/services/api/handlers/api.py"
  py_module web 5 >"$mono/services/web/web.py"
  cp "$mono/services/web/web.py" "$mono/services/api/web_copy.py"
  go_main core 7 >"$mono/libs/core/internal/core.go"
  guide mono >"$mono/libs/core/README.md"
  git_in "$mono" init -q
  git_in "$mono" add -A
  git_in "$mono" commit -q -m "mono: first commit"
  list=$work/repos.txt
  {
    echo "# the fleet: one repository a line, PATH or PATH<TAB>NAME"
    for name in alpha beta gamma delta epsilon zeta eta; do echo "$work/repos/$name"; done
    echo
    printf '%s\t%s\n' "$work/repos/theta" "theta-renamed"
    echo "$mono"
  } >"$list"
  phase "repos: generate 9 repositories" "$t"

  t=$(now)
  local_run "$work/local-repos.jsonl" "$work/local-repos-manifest.jsonl" --repos-from "$list"
  phase "repos: local unsharded run" "$t"

  run_shards repos "$repo_shards" "$work/out-repos" "$work/cache-repos" "$work/changes-1.jsonl" --repos-from "$list"

  t=$(now)
  same_as_local repos "$work/out-repos" "$work/local-repos.jsonl" "$work/local-repos-manifest.jsonl"
  # The first run's diff (OLD empty) adds every chunk.
  [ "$(jq -r .op "$work/changes-1.jsonl" | sort | uniq -c | awk '{ print $2, $1 }')" = "add $(wc -l <"$work/local-repos.jsonl")" ] ||
    fail "repos: the first diff is not every chunk added"
  phase "repos: compare" "$t"
fi

# ---- a large tree, sharded by path
if [[ $parts == *" tree "* ]]; then
  t=$(now)
  tree=$work/tree
  mkdir -p "$tree"
  git -C "$top" archive --format=tar HEAD | tar -x -C "$tree"
  phase "tree: git archive HEAD ($(find "$tree" -type f | wc -l) files)" "$t"

  t=$(now)
  local_run "$work/local-tree.jsonl" "$work/local-tree-manifest.jsonl" "$tree"
  phase "tree: local unsharded run" "$t"

  run_shards tree "$tree_shards" "$work/out-tree" "$work/cache-tree" "$work/changes-tree.jsonl" "$tree"

  t=$(now)
  same_as_local tree "$work/out-tree" "$work/local-tree.jsonl" "$work/local-tree-manifest.jsonl"
  phase "tree: compare" "$t"
fi

# ---- an update of one repository, the array again on the same caches
if [[ $parts == *" update "* ]]; then
  [[ $parts == *" repos "* ]] || fail "the update part needs the repos part"
  t=$(now)
  beta=$work/repos/beta
  edited=src/beta/util.py
  deleted=cmd/beta/main.go
  cat >>"$beta/$edited" <<'EOF'


def beta_added_later(values):
    """A function added by the update: the one new chunk."""
    return sorted(set(values))
EOF
  git_in "$beta" rm -q "$deleted"
  git_in "$beta" commit -q -am "beta: a function added, main.go deleted"
  local_run "$work/local-repos-2.jsonl" "$work/local-repos-manifest-2.jsonl" --repos-from "$list"
  phase "update: edit, delete, local run" "$t"

  run_shards update "$repo_shards" "$work/out-repos" "$work/cache-repos" "$work/changes-2.jsonl" --repos-from "$list"

  t=$(now)
  same_as_local update "$work/out-repos" "$work/local-repos-2.jsonl" "$work/local-repos-manifest-2.jsonl"
  changes=$work/changes-2.jsonl
  [ -s "$changes" ] || fail "update: the diff is empty"
  # Which files the changes touch: the edited file (deletes and adds) and the deleted
  # one (deletes only), in repository beta, nothing else.
  touched_del=$(jq -r 'select(.op == "delete") | "\(.repo)/\(.path)"' "$changes" | sort -u | tr '\n' ' ')
  touched_add=$(jq -r 'select(.op == "add") | "\(.repo)/\(.path)"' "$changes" | sort -u | tr '\n' ' ')
  [ "$touched_del" = "beta/$deleted beta/$edited " ] ||
    fail "update: the diff deletes chunks of [$touched_del], not of exactly beta/$deleted and beta/$edited"
  [ "$touched_add" = "beta/$edited " ] ||
    fail "update: the diff adds chunks of [$touched_add], not of exactly beta/$edited"
  # Every chunk of the deleted file is deleted; the edited file's unchanged chunks are not.
  old_deleted=$(jq -r --arg p "$deleted" 'select(.repo == "beta" and .path == $p) | .id' "$work/local-repos.jsonl" | sort)
  diff_deleted=$(jq -r --arg p "$deleted" 'select(.op == "delete" and .path == $p) | .id' "$changes" | sort)
  if [ -z "$old_deleted" ] || [ "$old_deleted" != "$diff_deleted" ]; then
    fail "update: the diff does not delete exactly the chunks $deleted had"
  fi
  new_edited=$(jq -r --arg p "$edited" 'select(.repo == "beta" and .path == $p) | .id' "$work/local-repos-2.jsonl" | sort)
  added=$(jq -r 'select(.op == "add") | .id' "$changes" | sort)
  unchanged=$(comm -12 <(echo "$new_edited") <(jq -r --arg p "$edited" 'select(.repo == "beta" and .path == $p) | .id' "$work/local-repos.jsonl" | sort))
  [ -n "$unchanged" ] || fail "update: no chunk of $edited kept its id (appending a function should leave the first ones)"
  [ "$added" = "$(comm -23 <(echo "$new_edited") <(echo "$unchanged"))" ] ||
    fail "update: the chunks added are not the new chunks of $edited"
  echo "slurm-check: update: the diff: $(jq -r .op "$changes" | sort | uniq -c | awk '{ printf "%s %s, ", $1, $2 }')of beta/$edited and beta/$deleted only" >&2
  # The caches: the tasks chunked the edited file alone again (chunk --stats in their logs).
  misses=$(cat "$logs"/update-chunk-*.out | sed -n 's/^cache: [0-9]* hits, \([0-9]*\) misses.*/\1/p' | awk '{ s += $1 } END { print s + 0 }')
  [ "$misses" = 1 ] || fail "update: the tasks' caches missed $misses files, not 1 (the edited file): see $logs/update-chunk-*.out"
  echo "slurm-check: update: the shards' caches missed 1 file, the edited one" >&2
  phase "update: compare" "$t"
fi

# ---- an outside list of repositories (scripts/repos-figures.sh): the array with each of
# SLURM_CHECK_TASKS tasks, cold caches, each merged output equal to one local run
if [[ $parts == *" list "* ]]; then
  ext_list=${SLURM_CHECK_LIST:?the list part needs SLURM_CHECK_LIST, a --repos-from file}
  t=$(now)
  local_run "$work/local-list.jsonl" "$work/local-list-manifest.jsonl" --repos-from "$ext_list" -j "$(nproc)"
  phase "list: local unsharded run, -j $(nproc)" "$t"
  echo "slurm-check: list: $(wc -l <"$work/local-list.jsonl") records, $(grep -c '"status":"chunked"' "$work/local-list-manifest.jsonl") files chunked, $(wc -c <"$work/local-list.jsonl") bytes of JSON Lines" >&2
  for n in ${SLURM_CHECK_TASKS:-1 2 4}; do
    run_shards "list-$n" "$n" "$work/out-list-$n" "$work/cache-list-$n" "$work/changes-list-$n.jsonl" --repos-from "$ext_list"
    t=$(now)
    same_as_local "list-$n" "$work/out-list-$n" "$work/local-list.jsonl" "$work/local-list-manifest.jsonl"
    phase "list-$n: compare" "$t"
    t=$(now)
    "$bin" merge -o "$work/remerged-$n.jsonl" $(seq -f "$work/out-list-$n/chunks-%g.jsonl" 1 "$n")
    phase "list-$n: castchunk merge alone" "$t"
  done
fi

# ---- a lost shard: the merge must not run
if [[ $parts == *" lost "* ]]; then
  [[ $parts == *" repos "* ]] || fail "the lost part needs the repos part"
  t=$(now)
  lost_list=$work/repos-lost.txt
  { cat "$list"; echo "$work/repos/gone"; } >"$lost_list"
  before=$(cksum <"$work/out-repos/chunks.jsonl")
  array=$(submit_array lost-chunk "$repo_shards" "$work/out-repos" "$work/cache-repos" --repos-from "$lost_list")
  merge=$(submit_merge lost-merge "$array" "$work/out-repos" "$repo_shards" --repos-from "$lost_list" -- cp /dev/stdin "$work/changes-lost.jsonl")
  wait_gone "$array" "lost: the array"
  wait_gone "$merge" "lost: the merge job"
  # Every task names the missing repository (each reads the whole list) and exits 3.
  states=$(scontrol show job -o "$array" | while read -r line; do echo "$(field "$line" JobState) $(field "$line" ExitCode)"; done | sort -u)
  [ "$states" = "FAILED 3:0" ] || fail "lost: the array's tasks ended [$states], not FAILED with status 3"
  line=$(scontrol show job -o "$merge")
  [ "$(field "$line" JobState) $(field "$line" Reason)" = "CANCELLED DependencyNeverSatisfied" ] ||
    fail "lost: the merge job was not cancelled for its dependency: $(field "$line" JobState) $(field "$line" Reason)"
  [ ! -e "$work/changes-lost.jsonl" ] || fail "lost: the indexer ran"
  [ "$(cksum <"$work/out-repos/chunks.jsonl")" = "$before" ] || fail "lost: the previous output changed"
  echo "slurm-check: lost: the tasks failed with status 3, the merge job was cancelled, the previous output kept" >&2
  phase "lost: array and cancelled merge" "$t"
fi

t=$(now)
"$top/scripts/slurm/cluster.sh" stop "$slurm_state"
phase "cluster stop" "$t"
ok=1
phase "total" "$t_start"
echo "slurm-check: passed" >&2
printf '  %s\n' "${timings[@]}" >&2
