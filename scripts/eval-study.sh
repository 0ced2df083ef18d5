#!/usr/bin/env bash
# make eval-study: the chunking study's comparison (Wu et al. 2026: Function,
# Declaration, Sliding Window and cAST at chunk sizes 1000, 2000 and 3000
# non-whitespace characters and three context lengths) on castchunk's public
# evaluation trees (scripts/eval-trees.sh, the trees make eval measures):
# castchunk eval --method $METHODS --max-size $SIZES --context off with each
# --budget of BUDGETS, one run per tree and budget (the context's budget is
# one number per run); BM25, seed SEED.
#
#   scripts/eval-study.sh [BIN] [DIR]   (defaults: bin/castchunk, /tmp/castchunk-eval)
#
# METHODS (default cast,sliding,function,declaration), SIZES (default
# 1000,2000,3000) and BUDGETS (default "2000 4000 8000") choose what is
# measured; COMPLETION (default 300) the completion queries per tree, JOBS
# (default 2) eval's -j. The reports are kept in DIR/study/budget-B/TREE.json,
# with the seconds each took; the tables at the end are printed from them:
# per budget and size each method's metrics averaged over the trees, the
# methods ranked, and whether Function is last; then per tree, and the
# verdicts. The wall time of the whole study is the last line.
set -euo pipefail

METHODS=${METHODS:-cast,sliding,function,declaration}
SIZES=${SIZES:-1000,2000,3000}
BUDGETS=${BUDGETS:-2000 4000 8000}
# shellcheck source=scripts/eval-trees.sh
. "$(dirname "$0")/eval-trees.sh" "$@"
study=$W/study
start=$SECONDS
for budget in $BUDGETS; do
  out=$study/budget-$budget
  evaluate_trees --method "$METHODS" --max-size "$SIZES" --context off --budget "$budget"
done
# shellcheck disable=SC2086 # BUDGETS: a list, split at spaces
python3 "$SRC/scripts/eval-study.py" "$study" "$METHODS" "${TREES[*]}" $BUDGETS
note "done: the study took $((SECONDS - start)) s of evaluation ($(date -u -d "@$((SECONDS - start))" +%Hh%Mm%Ss)); reports in $study"
