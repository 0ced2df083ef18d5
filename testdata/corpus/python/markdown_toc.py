#!/usr/bin/env python3
# -*- coding: utf-8 -*-
#
# Copyright (c) 2023 The mdtools authors.
# Licensed under the MIT license; see LICENSE for details.
"""Generate and update a table of contents in Markdown files.

The tool looks for a pair of marker comments::

    <!-- toc -->
    <!-- tocstop -->

and replaces whatever lies between them with a nested bullet list of the
document's headings. Headings inside fenced code blocks are ignored.
"""

import argparse
import re
import sys
import unicodedata
from collections import Counter
from pathlib import Path
from typing import Iterable, List, NamedTuple, Optional, Sequence, Tuple

TOC_START = "<!-- toc -->"
TOC_END = "<!-- tocstop -->"

_HEADING = re.compile(r"^(?P<hashes>#{1,6})\s+(?P<text>.+?)\s*#*\s*$")
_FENCE = re.compile(r"^(?P<fence>`{3,}|~{3,})")
_LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")
_EMPHASIS = re.compile(r"(\*\*|__|\*|_|`)")


class Heading(NamedTuple):
    level: int
    text: str
    anchor: str
    line: int


class TocError(Exception):
    pass


def slugify(text: str, seen: Optional[Counter] = None) -> str:
    """Return the anchor GitHub generates for a heading.

    >>> slugify("Hello, World!")
    'hello-world'
    >>> c = Counter(); slugify("A", c), slugify("A", c)
    ('a', 'a-1')
    """
    text = _LINK.sub(r"\1", text)
    text = _EMPHASIS.sub("", text)
    text = unicodedata.normalize("NFKC", text).lower()
    slug = "".join(ch for ch in text if ch.isalnum() or ch in " -_")
    slug = slug.strip().replace(" ", "-")
    if seen is not None:
        count = seen[slug]
        seen[slug] += 1
        if count:
            slug = f"{slug}-{count}"
    return slug


def iter_headings(lines: Sequence[str], *, min_level: int = 1,
                  max_level: int = 6) -> Iterable[Heading]:
    """Yield the ATX headings of a document, skipping fenced code."""
    seen: Counter = Counter()
    fence: Optional[str] = None
    for number, line in enumerate(lines, start=1):
        m = _FENCE.match(line)
        if m:
            marker = m.group("fence")
            if fence is None:
                fence = marker[0] * len(marker)
            elif marker.startswith(fence):
                fence = None
            continue
        if fence is not None:
            continue
        m = _HEADING.match(line)
        if not m:
            continue
        level = len(m.group("hashes"))
        text = m.group("text")
        anchor = slugify(text, seen)
        if min_level <= level <= max_level:
            yield Heading(level, text, anchor, number)


def render_toc(headings: Sequence[Heading], *, bullet: str = "-", indent: int = 2) -> List[str]:
    """Render headings as a nested Markdown list.

    Levels are made relative to the shallowest heading, so a document that
    starts at ``##`` does not get an indented list.
    """
    if not headings:
        return []
    base = min(h.level for h in headings)
    out = []
    for h in headings:
        depth = h.level - base
        label = _LINK.sub(r"\1", h.text)
        out.append(f"{' ' * (indent * depth)}{bullet} [{label}](#{h.anchor})")
    return out


def find_markers(lines: Sequence[str]) -> Tuple[int, int]:
    start = end = -1
    for i, line in enumerate(lines):
        stripped = line.strip()
        if stripped == TOC_START:
            if start >= 0:
                raise TocError(f"line {i + 1}: second {TOC_START} marker")
            start = i
        elif stripped == TOC_END:
            if start < 0:
                raise TocError(f"line {i + 1}: {TOC_END} before {TOC_START}")
            end = i
            break
    if start < 0:
        raise TocError(f"no {TOC_START} marker")
    if end < 0:
        raise TocError(f"{TOC_START} on line {start + 1} is never closed")
    return start, end


def update_document(text: str, **render_options) -> str:
    """Return ``text`` with its table of contents regenerated."""
    lines = text.splitlines()
    start, end = find_markers(lines)
    # Headings above the marker (usually the title) are not listed.
    body = lines[end + 1:]
    headings = list(iter_headings(body))
    toc = render_toc(headings, **render_options)
    new_lines = lines[: start + 1] + [""] + toc + [""] + lines[end:]
    result = "\n".join(new_lines)
    if text.endswith("\n"):
        result += "\n"
    return result


class Runner:
    """Command-line front end: check or rewrite a set of files."""

    def __init__(self, paths: Sequence[Path], check: bool, quiet: bool = False):
        self.paths = list(paths)
        self.check = check
        self.quiet = quiet
        self.changed: List[Path] = []
        self.errors: List[str] = []

    def _say(self, msg: str) -> None:
        if not self.quiet:
            print(msg, file=sys.stderr)

    def process(self, path: Path) -> None:
        try:
            original = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            self.errors.append(f"{path}: {exc}")
            return
        try:
            updated = update_document(original)
        except TocError as exc:
            self.errors.append(f"{path}: {exc}")
            return
        if updated == original:
            return
        self.changed.append(path)
        if self.check:
            self._say(f"{path}: table of contents is out of date")
        else:
            path.write_text(updated, encoding="utf-8")
            self._say(f"{path}: updated")

    def run(self) -> int:
        for path in self.paths:
            if path.is_dir():
                for child in sorted(path.rglob("*.md")):
                    self.process(child)
            else:
                self.process(path)
        for err in self.errors:
            print(f"error: {err}", file=sys.stderr)
        if self.errors:
            return 2
        if self.check and self.changed:
            return 1
        return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="mdtoc", description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="+", type=Path, help="files or folders to process")
    parser.add_argument("--check", action="store_true",
                        help="exit with status 1 instead of rewriting out-of-date files")
    parser.add_argument("-q", "--quiet", action="store_true", help="print errors only")
    return parser


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = build_parser().parse_args(argv)
    return Runner(args.paths, check=args.check, quiet=args.quiet).run()


if __name__ == "__main__":
    sys.exit(main())
