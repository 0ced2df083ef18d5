#!/usr/bin/env python3
"""Check the `scope` of Python chunk records against Python's own parser.

castchunk's scope is found by tree-sitter queries (internal/outline); this is
an independent check with `ast`. For each Python record (JSON Lines on stdin
or in FILE; the record needs `path`, `start_line`, `content` and `scope`, a
list of {kind, name, line}), it finds the chunk's first non-blank line L and
the chain of FunctionDef/AsyncFunctionDef/ClassDef nodes enclosing it, those
with lineno < L <= end_lineno (lineno is the `def`/`class` line, after any
decorators, as castchunk's Def.Start is), outermost first, and compares the
chain of names with the record's scope names.

It prints the share of chunks that agree and each disagreement with a reason.
Records of other languages, and files that `ast` cannot parse (Python 2
sources in test data, deliberate syntax errors), are counted and skipped.

    castchunk chunk --scope src | scripts/scopecheck.py --root src
    scripts/scopecheck.py --root /usr/lib/python3.11 --min-agreement 0.995 recs.jsonl

Exit status: 0, or 1 when --min-agreement is given and not reached.
"""

import argparse
import ast
import json
import os
import sys
import warnings
from collections import Counter, defaultdict

DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


class Outline:
    """The def/class nodes of one file, as (lineno, end_lineno, name)."""

    def __init__(self, source):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = ast.parse(source)
        self.defs = [
            (n.lineno, n.end_lineno, n.name) for n in ast.walk(tree) if isinstance(n, DEFS)
        ]
        # Module-level variables: an assignment whose (first) target is a name.
        for n in tree.body:
            target = n.targets[0] if isinstance(n, ast.Assign) else getattr(n, "target", None)
            if isinstance(n, (ast.Assign, ast.AnnAssign)) and isinstance(target, ast.Name):
                self.defs.append((n.lineno, n.end_lineno, target.id))
        # Outer definitions start earlier, or on the same line and end later.
        self.defs.sort(key=lambda d: (d[0], -d[1]))
        # Lines as castchunk counts them: only "\n" ends a line.
        self.lines = source.decode("utf-8", "replace").split("\n")

    def scope(self, line):
        """Names of the definitions enclosing `line`, outermost first."""
        return [name for lo, hi, name in self.defs if lo < line <= hi]


def anchor_line(record):
    """The 1-based line of the chunk's first non-whitespace character."""
    for i, text in enumerate(record["content"].split("\n")):
        if text.strip():
            return record["start_line"] + i
    return record["start_line"]


def reason(outline, line, want, got):
    """The class of a disagreement, and its details."""
    text = outline.lines[line - 1].strip() if line <= len(outline.lines) else ""
    if len(got) > len(want) and got[: len(want)] == want:
        extra = got[len(want)]
        ends = [hi for lo, hi, name in outline.defs if name == extra and lo < line]
        if text.startswith("#"):
            why = "comment line after a body, indented as the body: tree-sitter keeps it in the block, ast ends the block at its last statement"
        elif ends and max(ends) < line:
            why = "castchunk ends a definition later than ast"
        else:
            why = "castchunk has an extra enclosing definition"
        return why, f"extra {got[len(want):]}"
    if set(got) < set(want):
        return (
            "castchunk lacks definitions ast has (tree-sitter's error recovery on a construct it misparses)",
            f"missing {[n for n in want if n not in got]}",
        )
    return "different names", ""


def load(path, root, cache):
    """The Outline of a file, or None when ast cannot parse it."""
    if path not in cache:
        try:
            with open(os.path.join(root, path), "rb") as f:
                cache[path] = Outline(f.read())
        except (SyntaxError, ValueError, UnicodeDecodeError, OSError):
            cache[path] = None
    return cache[path]


def records(files):
    if not files:
        yield from (json.loads(line) for line in sys.stdin if line.strip())
        return
    for name in files:
        with open(name, encoding="utf-8") as f:
            yield from (json.loads(line) for line in f if line.strip())


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("files", nargs="*", help="JSON Lines record files (default: stdin)")
    ap.add_argument("--root", required=True, help="folder the records' paths are relative to")
    ap.add_argument("--min-agreement", type=float, help="fail below this share (0..1)")
    ap.add_argument("--show", type=int, default=50, help="disagreements to print (default 50)")
    args = ap.parse_args()

    cache, counts, reasons, files, shown = {}, Counter(), Counter(), defaultdict(set), 0
    for rec in records(args.files):
        if not rec["path"].endswith((".py", ".pyi")) and rec.get("language") not in (None, "python"):
            counts["other language"] += 1
            continue
        outline = load(rec["path"], args.root, cache)
        if outline is None:
            counts["file ast cannot parse"] += 1
            continue
        line = anchor_line(rec)
        want = outline.scope(line)
        got = [s["name"] for s in rec.get("scope") or []]
        counts["checked"] += 1
        if want == got:
            counts["agree"] += 1
            continue
        why, detail = reason(outline, line, want, got)
        reasons[why] += 1
        files[why].add(rec["path"])
        if shown < args.show:
            shown += 1
            print(f"{rec['path']}:{line}: ast {want} castchunk {got}: {detail}: {why}")

    checked = counts["checked"]
    share = counts["agree"] / checked if checked else 1.0
    print(f"agreement: {counts['agree']}/{checked} chunks = {share:.4%}")
    for k in ("other language", "file ast cannot parse"):
        if counts[k]:
            print(f"skipped ({k}): {counts[k]}")
    for why, n in reasons.most_common():
        print(f"disagreement: {n} chunks in {len(files[why])} files: {why}")
    if args.min_agreement is not None and share < args.min_agreement:
        print(f"below --min-agreement {args.min_agreement}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
