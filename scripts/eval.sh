#!/usr/bin/env bash
# make eval: how well castchunk's chunks retrieve, on a fixed set of real
# repositories (castchunk eval with its defaults: cast and sliding, at 1000 and
# 2000, with and without --context; BM25; a 4000-character context).
#
#   scripts/eval.sh [BIN] [DIR]    (defaults: bin/castchunk, /tmp/castchunk-eval)
#
# The trees (castchunk's own history, the release histories of zap, echo and
# qs, completion trees of rxjs, Python and Java) are assembled by
# scripts/eval-trees.sh, which says where each comes from; downloads are
# cached in DIR/cache. Each report is kept in DIR/out (--json); the summary
# tables at the end are printed from them, with each report's verdict.
# EVALFLAGS adds flags to every castchunk eval (e.g. "--max-size 500,1000
# --context on --embed-header scope,names --baseline cast:2000:scope").
set -euo pipefail

# shellcheck source=scripts/eval-trees.sh
. "$(dirname "$0")/eval-trees.sh" "$@"
start=$SECONDS
evaluate_trees

python3 - "$out" "${TREES[@]}" <<'PY'
import json, sys
out, names = sys.argv[1], sys.argv[2:]
def f(e):
    return "%.3f [%.3f, %.3f]" % (e["mean"], e["lo"], e["hi"])
def d(e):
    return "%+.3f [%+.3f, %+.3f]" % (e["mean"], e["lo"], e["hi"])
first = None
for source in ("git", "completion"):
    rows = []
    for name in names:
        rep = json.load(open("%s/%s.json" % (out, name)))
        first = first or rep
        for s in rep["sources"]:
            q = s["queries"]
            if source == s["name"]:
                print("%s, %s queries: %d kept of %d%s" % (name, source, q["kept"], q["candidates"],
                      "".join("; %d %s" % (k["count"], k["reason"]) for k in q["skipped"])))
            if s["name"] != source or s["queries"]["kept"] == 0:
                continue
            m = s["metrics"]
            for r in s["rows"]:
                c = r["config"]
                delta = [d(x) for x in r["delta"]] if r["baseline"] else ["(baseline)", ""]
                ctx = ("on:" + c.get("header", "")) if c["context"] else "off"
                rows.append([name, c["method"], str(c["max_size"]), ctx, c.get("retriever", "bm25"), str(r["n"]),
                             f(r["metrics"][0]), f(r["metrics"][1])] + delta)
    if not rows:
        continue
    print()
    head = ["repo", "method", "size", "context", "retriever", "n", m[0], m[1], "Δ" + m[0], "Δ" + m[1]]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for r in rows:
        print("| " + " | ".join(r) + " |")
    print()
for name in names:
    print("%s: verdict: %s" % (name, json.load(open("%s/%s.json" % (out, name)))["verdict"]["text"]))
print()
print("Definitions (castchunk eval prints them with every report):")
for d in first["definitions"]:
    print("- %s: %s" % (d["name"], d["text"]))
PY
note "done in $((SECONDS - start)) s of evaluation; reports in $out"
