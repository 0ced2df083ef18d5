#!/usr/bin/env python3
"""Summaries of cmd/filecpu's measurements (docs/deadline-measurements.md).

  filecpu-summary.py warm REPDIR...   each REPDIR holds one repetition's warm TSVs, one per
                                      configuration, named alike in every REPDIR; a file's cost is
                                      the most it took in any repetition (process CPU, or thread CPU
                                      when more; AGG=median: the median repetition). F=... R=... (s, s/MiB) in the environment: the
                                      deadline whose margins are tabled (default 0.25 and 6).
  filecpu-summary.py oneoff TSV...    filecpu -first outputs: the one-off cost per language
"""
import collections
import csv
import math
import os
import statistics
import sys

KiB, MiB = 1024, 1 << 20
# AGG=median in the environment: a file's cost is its median over the repetitions, not its most.
AGG = os.environ.get('AGG', 'max')
ORDER = ['cast', 'function', 'declaration', 'cast+context', 'cast+tok512']


def short(path):
    for pre in ('/usr/local/go/src/', '/lib/python3.11/', '/java.base/', 'testdata/corpus/'):
        i = path.find(pre)
        if i >= 0:
            return path[i + len(pre):]
    return path


def human(n):
    return f"{n / MiB:.2f} MiB" if n >= MiB else f"{n / KiB:.1f} KiB"


def pct(xs, q):
    xs = sorted(xs)
    k = (len(xs) - 1) * q
    lo, hi = math.floor(k), math.ceil(k)
    return xs[lo] + (xs[hi] - xs[lo]) * (k - lo)


def read(path):
    with open(path) as f:
        return list(csv.DictReader(f, delimiter='\t'))


def warm(reps):
    names = sorted(n for n in os.listdir(reps[0]) if n.endswith('.tsv'))
    rows = []  # one per configuration and file: the most over the repetitions
    agree = []
    for n in names:
        per = collections.OrderedDict()
        for d in reps:
            for r in read(os.path.join(d, n)):
                t, p = float(r['cpu_seconds']), float(r['process_cpu_seconds'])
                e = per.setdefault(r['path'], {'method': r['method'], 'corpus': r['corpus'], 'path': short(r['path']),
                                               'bytes': int(r['bytes']), 'cpu': 0.0, 'pcpu': 0.0, 'all': []})
                e['cpu'], e['pcpu'] = max(e['cpu'], t), max(e['pcpu'], p)
                e['all'].append(max(t, p))
        for e in per.values():
            e['cost'] = max(e['cpu'], e['pcpu'])
            if AGG == 'median':  # the median repetition, thread and process alike
                e['cost'] = statistics.median(e['all'])
                e['cpu'] = e['pcpu'] = e['cost']
            rows.append(e)
        big = [e['all'] for e in per.values() if e['bytes'] > 64 * KiB and len(e['all']) > 1]
        if big:
            ratios = sorted(max(a) / min(a) for a in big)
            agree.append((next(iter(per.values()))['method'], len(reps), statistics.median(ratios), pct(ratios, .99), ratios[-1]))
    by = collections.defaultdict(list)
    for r in rows:
        by[r['method']].append(r)
    order = [m for m in ORDER if m in by] + sorted(set(by) - set(ORDER))

    print("### Per configuration\n")
    if AGG == 'median':
        print("Cost: a file's warm CPU time, its median over the repetitions (the greater of process and thread CPU).\n")
    else:
        print("Cost: a file's warm CPU time, the most over the repetitions (process CPU; thread CPU in brackets for the max).\n")
    print("| configuration | files | MB | total CPU s | max s (thread) | max s/MiB, files > 16 KiB | p99.9 s | p99 s | median ms |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for m in order:
        rs = by[m]
        mx = max(rs, key=lambda r: r['cost'])
        rate = max((r for r in rs if r['bytes'] > 16 * KiB), key=lambda r: r['cost'] / r['bytes'])
        costs = [r['cost'] for r in rs]
        print(f"| {m} | {len(rs)} | {sum(r['bytes'] for r in rs) / 1e6:.1f} | {sum(costs):.1f} | {mx['cost']:.3f} ({mx['cpu']:.3f}) "
              f"| {rate['cost'] / rate['bytes'] * MiB:.3f} ({rate['corpus']}: {rate['path']}, {human(rate['bytes'])}) "
              f"| {pct(costs, .999):.3f} | {pct(costs, .99):.4f} | {1e3 * pct(costs, .5):.2f} |")
    print()
    corpora = sorted({r['corpus'] for r in rows})
    print("### Worst s/MiB over files > 16 KiB, by corpus\n")
    print("| configuration | " + " | ".join(corpora) + " |")
    print("|---|" + "---:|" * len(corpora))
    for m in order:
        cells = []
        for c in corpora:
            big = [r['cost'] / r['bytes'] * MiB for r in by[m] if r['corpus'] == c and r['bytes'] > 16 * KiB]
            cells.append(f"{max(big):.3f}" if big else "-")
        print(f"| {m} | " + " | ".join(cells) + " |")
    print()
    print("### Agreement of the repetitions (files > 64 KiB: a file's most over its least)\n")
    print("| configuration | repetitions | median | p99 | worst |")
    print("|---|---:|---:|---:|---:|")
    for m, n, med, p99, worst in agree:
        print(f"| {m} | {n} | {med:.2f} | {p99:.2f} | {worst:.2f} |")
    print()
    for m in order:
        print(f"### {m}: the 10 costliest files\n")
        print("| corpus | path | size | CPU s (process) | thread s | s/MiB |")
        print("|---|---|---:|---:|---:|---:|")
        for r in sorted(by[m], key=lambda r: -r['cost'])[:10]:
            print(f"| {r['corpus']} | {r['path']} | {human(r['bytes'])} | {r['pcpu']:.3f} | {r['cpu']:.3f} | {r['cost'] / r['bytes'] * MiB:.3f} |")
        print()

    print("### F + R·size ≥ 10 × every file's cost, every configuration\n")
    print("| F (s) | least R (s/MiB) | binding file | deadline at 4 KiB | 16 KiB | 64 KiB | 1 MiB | 10 MiB |")
    print("|---:|---:|---|---:|---:|---:|---:|---:|")
    for F in (0.1, 0.15, 0.2, 0.25, 0.3, 0.5):
        R, r = max((((10 * r['cost'] - F) / (r['bytes'] / MiB), r) for r in rows), key=lambda x: x[0])
        R = max(R, 0.0)
        d = lambda s: F + R * s / MiB
        print(f"| {F} | {R:.2f} | {r['method']} {r['corpus']}: {r['path']} ({human(r['bytes'])}, {r['cost']:.3f} s) "
              f"| {d(4 * KiB):.3f} | {d(16 * KiB):.3f} | {d(64 * KiB):.3f} | {d(MiB):.2f} | {d(10 * MiB):.1f} |")
    print()
    F, R = float(os.environ.get('F', '0.25')), float(os.environ.get('R', '6'))
    dl = lambda r: F + R * r['bytes'] / MiB
    print(f"### Margins of F = {F} s, R = {R} s/MiB (deadline over cost)\n")
    print("| configuration | worst margin | file | size | cost s | deadline s | files under 20× | margin of the costliest file |")
    print("|---|---:|---|---:|---:|---:|---:|---:|")
    for m in order:
        rs = by[m]
        w = min(rs, key=lambda r: dl(r) / max(r['cost'], 1e-9))
        mx = max(rs, key=lambda r: r['cost'])
        under = sum(1 for r in rs if dl(r) < 20 * r['cost'])
        print(f"| {m} | {dl(w) / w['cost']:.1f}× | {w['corpus']}: {w['path']} | {human(w['bytes'])} | {w['cost']:.3f} | {dl(w):.3f} "
              f"| {under} | {dl(mx) / mx['cost']:.1f}× ({mx['path']}) |")
    print()


def oneoff(paths):
    rows = []
    for p in paths:
        rows += read(p)
    for r in rows:
        for k in ('first_cpu', 'warm_cpu', 'oneoff_cpu', 'first_process_cpu', 'warm_process_cpu', 'oneoff_process_cpu'):
            r[k] = float(r[k])
    methods = []
    for r in rows:
        if r['method'] not in methods:
            methods.append(r['method'])
    cell, arg = {}, {}
    for r in rows:
        k = (r['language'], r['method'])
        v = max(r['oneoff_process_cpu'], r['oneoff_cpu'])
        if v >= cell.get(k, -1):
            cell[k], arg[k] = v, r
    queries = [m for m in methods if 'tok' not in m]  # a tokenizer's table is built on the first file, whatever its language
    langs = sorted({r['language'] for r in rows}, key=lambda l: (-max(cell[(l, m)] for m in queries), l))
    print("One-off cost (s): first call in a fresh process less the least of the warm calls after it, the most over the language's files.\n")
    print("| language | max without a tokenizer | " + " | ".join(methods) + " |")
    print("|---|---:|" + "---:|" * len(methods))
    for l in langs:
        m = max(queries, key=lambda m: cell[(l, m)])
        print(f"| {l} | **{cell[(l, m)]:.3f}** ({m}, {short(arg[(l, m)]['path'])}) | " + " | ".join(f"{cell[(l, mm)]:.3f}" for mm in methods) + " |")
    print()
    print("| configuration | least one-off (any first file) | most first-call CPU s |")
    print("|---|---:|---:|")
    for m in methods:
        rs = [r for r in rows if r['method'] == m]
        lo = min(rs, key=lambda r: r['oneoff_process_cpu'])
        print(f"| {m} | {lo['oneoff_process_cpu'] * 1e3:.1f} ms ({lo['language']}) | {max(r['first_process_cpu'] for r in rs):.3f} |")
    print()


if __name__ == '__main__':
    if len(sys.argv) < 3 or sys.argv[1] not in ('warm', 'oneoff'):
        sys.exit(__doc__)
    (warm if sys.argv[1] == 'warm' else oneoff)(sys.argv[2:])
