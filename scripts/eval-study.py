"""The tables of make eval-study (scripts/eval-study.sh), from its reports.

    python3 scripts/eval-study.py STUDY METHODS TREES BUDGET...

STUDY holds budget-B/TREE.json (castchunk eval --json) and TREE.seconds for
every BUDGET; METHODS is the --method list, TREES the trees, space-separated.
Every tree weighs alike: a mean over trees is the mean of each tree's mean
over its queries. Points are hundredths of a metric (0.012 is 1.2 pts).
"""

import json
import os
import sys

# The metrics ranked, each with its source (the report's query kind).
METRICS = [("git", 0, "LineRecall"), ("git", 1, "FileHit"), ("completion", 0, "AnsLine"), ("completion", 1, "IdRecall")]
FUNCTION = "function"


def load(study, trees, budgets):
    """reports[budget][tree]: the report; seconds[budget][tree]: its time."""
    reports, seconds = {}, {}
    for b in budgets:
        reports[b], seconds[b] = {}, {}
        for t in trees:
            path = os.path.join(study, "budget-%s" % b, t)
            with open(path + ".json", encoding="utf-8") as f:
                reports[b][t] = json.load(f)
            try:
                with open(path + ".seconds", encoding="utf-8") as f:
                    seconds[b][t] = int(f.read().strip())
            except (OSError, ValueError):
                seconds[b][t] = None
    return reports, seconds


def rows(report, source):
    """{(method, size): row} of the report's source, none when no query was kept."""
    for s in report["sources"]:
        if s["name"] == source and s["queries"]["kept"] > 0:
            return {(r["config"]["method"], r["config"]["max_size"]): r for r in s["rows"]}
    return {}


def per_tree(reports, b, size, methods, source, k):
    """{tree: {method: mean}} for one budget, size and metric."""
    out = {}
    for tree, rep in reports[b].items():
        rs = rows(rep, source)
        vals = {m: rs[(m, size)]["metrics"][k]["mean"] for m in methods if (m, size) in rs}
        if vals:
            out[tree] = vals
    return out


def average(by_tree, methods):
    """{method: mean over trees}, only for methods every tree measured."""
    return {m: sum(v[m] for v in by_tree.values()) / len(by_tree) for m in methods
            if by_tree and all(m in v for v in by_tree.values())}


def order(means):
    """The methods best first ('a > b > c')."""
    return " > ".join(m for m, _ in sorted(means.items(), key=lambda kv: -kv[1]))


def function_last(means):
    """'yes', 'no (ranked i of n)' or '-' without function."""
    if FUNCTION not in means or len(means) < 2:
        return "-"
    ranked = [m for m, _ in sorted(means.items(), key=lambda kv: -kv[1])]
    i = ranked.index(FUNCTION) + 1
    return "yes" if i == len(ranked) else "no (%d of %d)" % (i, len(ranked))


def gaps(means):
    """(function minus the worst other method, the others' spread), in points."""
    others = [v for m, v in means.items() if m != FUNCTION]
    if FUNCTION not in means or not others:
        return "-", "-"
    return "%+.1f" % (100 * (means[FUNCTION] - min(others))), "%.1f" % (100 * (max(others) - min(others)))


def table(head, body):
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for r in body:
        print("| " + " | ".join(r) + " |")
    print()


def settings(budgets, sizes):
    return [(b, s) for b in budgets for s in sizes]


def means_table(reports, budgets, sizes, methods, trees_of):
    print("Means over the trees (git: %s; completion: %s):" % (", ".join(trees_of["git"]), ", ".join(trees_of["completion"])))
    print()
    body = []
    for b, s in settings(budgets, sizes):
        avgs = [average(per_tree(reports, b, s, methods, src, k), methods) for src, k, _ in METRICS]
        for m in methods:
            body.append([b, str(s), m] + ["%.3f" % a[m] if m in a else "-" for a in avgs])
    table(["budget", "size", "method"] + ["%s %s" % (src, name) for src, _, name in METRICS], body)


def ranking_table(reports, budgets, sizes, methods):
    print("The methods ranked by each metric's mean over the trees, best first; Function last?;")
    print("for completion AnsLine, Function minus the worst other method and the others' spread, in points:")
    print()
    body, last = [], {name: 0 for _, _, name in METRICS}
    for b, s in settings(budgets, sizes):
        row = [b, str(s)]
        for src, k, name in METRICS:
            avg = average(per_tree(reports, b, s, methods, src, k), methods)
            fl = function_last(avg)
            last[name] += fl == "yes"
            row += [order(avg), fl]
            if name == "AnsLine":
                row += list(gaps(avg))
        body.append(row)
    head = ["budget", "size"]
    for _, _, name in METRICS:
        head += [name + " order", "last?"]
        if name == "AnsLine":
            head += ["Function − worst other", "others' spread"]
    table(head, body)
    n = len(settings(budgets, sizes))
    print("Function last: " + "; ".join("%s %d of %d settings" % (name, last[name], n) for _, _, name in METRICS))
    print()


def tree_table(reports, budgets, sizes, methods, trees_of):
    """Per tree and primary metric: means over the settings, and how often Function is last."""
    print("Per tree, the mean over the %d settings (budget × size) of LineRecall (history trees) and AnsLine (all);" % len(settings(budgets, sizes)))
    print("Function last: in how many settings; below sliding: settings whose Δ with sliding has its 95% interval under 0:")
    print()
    body = []
    for src, k, name in [METRICS[0], METRICS[2]]:
        for tree in trees_of[src]:
            per, last, below, n = {m: [] for m in methods}, 0, 0, 0
            for b, s in settings(budgets, sizes):
                vals = per_tree(reports, b, s, methods, src, k).get(tree, {})
                for m, v in vals.items():
                    per[m].append(v)
                last += function_last(vals) == "yes"
                r = rows(reports[b][tree], src).get((FUNCTION, s))
                below += bool(r and r["baseline"] and r["baseline"]["method"] == "sliding" and r["delta"][k]["hi"] < 0)
                n += 1
            avg = {m: sum(v) / len(v) for m, v in per.items() if v}
            body.append([tree, name] + ["%.3f" % avg[m] if m in avg else "-" for m in methods] +
                        [order(avg), "%d of %d" % (last, n), "%d of %d" % (below, n) if FUNCTION in avg else "-"])
    table(["tree", "metric"] + methods + ["order", "Function last", "Function below sliding"], body)


def main():
    study, methods, trees, budgets = sys.argv[1], sys.argv[2].split(","), sys.argv[3].split(), sys.argv[4:]
    reports, seconds = load(study, trees, budgets)
    first = reports[budgets[0]][trees[0]]
    sizes = sorted({r["config"]["max_size"] for s in first["sources"] for r in s["rows"]})
    trees_of = {src: [t for t in trees if rows(reports[budgets[0]][t], src)] for src in ("git", "completion")}
    print("castchunk eval --method %s --max-size %s --context off --budget B (B: %s); BM25, seed %d, %d resamples"
          % (",".join(methods), ",".join(map(str, sizes)), ", ".join(budgets), first["seed"], first["resamples"]))
    print()
    means_table(reports, budgets, sizes, methods, trees_of)
    ranking_table(reports, budgets, sizes, methods)
    tree_table(reports, budgets, sizes, methods, trees_of)
    print("Verdicts (each report's, against %s):" % first["baseline"])
    for b in budgets:
        for t in trees:
            print("- budget %s, %s: %s" % (b, t, reports[b][t]["verdict"]["text"]))
    print()
    print("Seconds per run (castchunk eval, -j as JOBS):")
    print()
    body = [[t] + [str(seconds[b][t]) for b in budgets] + [str(sum(seconds[b][t] or 0 for b in budgets))] for t in trees]
    body.append(["all"] + [str(sum(seconds[b][t] or 0 for t in trees)) for b in budgets] +
                [str(sum(seconds[b][t] or 0 for b in budgets for t in trees))])
    table(["tree"] + ["budget " + b for b in budgets] + ["total"], body)


if __name__ == "__main__":
    main()
