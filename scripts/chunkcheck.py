#!/usr/bin/env python3
"""An independent check of castchunk's output, written without its code.

    chunkcheck.py --root DIR --budget N --bin CASTCHUNK --stderr ERR.txt CHUNKS.jsonl

CHUNKS.jsonl is what `castchunk chunk` wrote when run inside DIR (paths
relative to DIR, no --overlap-lines, no --window-lines), ERR.txt what it wrote
on stderr. Checks, reading every file again:

  content   each record's content is the file's bytes at [start_byte, end_byte)
  lines     start_line and end_line count the newlines before those bytes
  size      size is the number of code points that are not white space as Go's
            unicode.IsSpace defines it (not Python's str.isspace: that one
            also counts U+001C..U+001F), and no size exceeds the budget
  tiling    a file's chunks, in order, start at 0, follow one another without
            gap or overlap, and end at the file's end; index counts from 0;
            one file language (host_language, else language) and one method
            per file
  notebooks a .ipynb file's records cut its text, rebuilt here with Python's
            json from the cells (code and Markdown sources in order, each
            ending with a line break), name the cell they start in, and no
            chunk spans two cells; a chunk's language is its cell's (the
            kernel's for code, markdown for Markdown)
  embedded  a chunk whose language is not its file's lies in a construct
            of that language: a Markdown fence (``` or ~~~ with an info
            string), front matter (yaml/toml) or HTML block (a line
            starting with '<' to the next blank line), an HTML <script> or
            <style> element (found here with regular expressions)
  coverage  every file with an extension or a file name `castchunk languages`
            lists, outside hidden folders and not ignored (git's own rules:
            `git ls-files --others --exclude-standard`, also for a folder that
            is no repository), and no symbolic link, is chunked, is empty, or
            is named on stderr. With --all-included (the run had
            --include-generated --include-vendored) no file may be left over;
            otherwise each file left over must look vendored (a folder such
            as node_modules/, vendor/, third_party/ in its path, as the README
            lists them) or generated (a .min.js/.min.css or lock file name, a
            "generated"/"DO NOT EDIT" mark in its first 2 KB, a sourceMappingURL
            comment in its last 1 KB (GitHub's rule), or minified:
            lines over 110 bytes on average), and there may be no more of
            each than the "skipped N generated/vendored files" lines count
            (those counts also take in files of no supported language, so
            they are an upper bound)

Prints one line per problem (at most 20 of each kind), then a summary line as
JSON; exits 1 when a problem was found.
"""
import argparse
import collections
import json
import os
import re
import subprocess
import sys
import tempfile

# Go's unicode.IsSpace: the Latin-1 spaces, then the Unicode White_Space
# property.
GO_SPACE = [chr(c) for c in (0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x20, 0x85, 0xA0, 0x1680,
                             *range(0x2000, 0x200B), 0x2028, 0x2029, 0x202F, 0x205F, 0x3000)]


def go_size(s):
    return len(s) - sum(s.count(c) for c in GO_SPACE)


def notebook_text(data):
    """A notebook's text and its cells as (start, end, index, language)."""
    nb = json.loads(data)
    meta = nb.get('metadata') or {}
    kernel = ((meta.get('kernelspec') or {}).get('language') or (meta.get('language_info') or {}).get('name')
              or 'python').lower()
    parts, cells, pos = [], [], 0
    for i, c in enumerate(nb['cells']):
        if c.get('cell_type') not in ('code', 'markdown'):
            continue
        src = c.get('source') or ''
        if isinstance(src, list):
            src = ''.join(src)
        b = src.encode('utf-8', 'surrogatepass')
        if b and not b.endswith(b'\n'):
            b += b'\n'
        if b:
            lang = 'markdown' if c['cell_type'] == 'markdown' else kernel
            cells.append((pos, pos + len(b), i, lang))
            parts.append(b)
            pos += len(b)
    return b''.join(parts), cells


FENCE = re.compile(rb'^(?:[ ]{0,3}|(?:[ ]{0,3}> ?)+)(`{3,}|~{3,})[ \t]*([^\s`]*)')
HTML_CODE = re.compile(rb'<(script|style)\b[^>]*>.*?</\1\s*>', re.S | re.I)


def constructs(path, data):
    """Byte ranges of the constructs where code of another language may lie."""
    out = []
    if path.endswith(('.md', '.markdown')):
        opener, at = None, 0
        for line in data.splitlines(keepends=True):
            m = FENCE.match(line)
            if opener is None and m and m.group(2):
                opener = (at, m.group(1))
            elif opener is not None and m and m.group(1)[:1] == opener[1][:1] and len(m.group(1)) >= len(opener[1]):
                out.append((opener[0], at + len(line)))
                opener = None
            at += len(line)
        if opener is not None:
            out.append((opener[0], len(data)))
        for mark in (b'---', b'+++'):
            if data.startswith(mark + b'\n'):
                end = data.find(b'\n' + mark, 4)
                if end >= 0:
                    out.append((0, end + 4))
        at = 0  # HTML blocks: from a line that starts with '<' to the next blank line
        block = None
        for line in data.splitlines(keepends=True):
            if block is None and line.lstrip(b' ').startswith(b'<'):
                block = at
            elif block is not None and not line.strip():
                out.append((block, at))
                block = None
            at += len(line)
        if block is not None:
            out.append((block, len(data)))
    elif path.endswith(('.html', '.htm', '.svelte', '.vue')):
        out = [(m.start(), m.end()) for m in HTML_CODE.finditer(data)]
    return out


def supported(binary):
    """Extensions and exact file names from `castchunk languages`."""
    exts, names = {}, {}
    out = subprocess.run([binary, 'languages'], capture_output=True, text=True, check=True).stdout
    for line in out.splitlines()[1:]:
        f = line.split()
        lang, i = f[0], 1
        while '/' not in f[i]:
            exts[f[i]] = lang
            i += 1
        for n in f[i + 2:]:
            if n != '-':
                names[n] = lang
    return exts, names


def language_of(path, exts, names):
    base = path.rsplit('/', 1)[-1]
    if base in names:
        return names[base]
    dot = base.rfind('.')
    return exts.get(base[dot:]) if dot >= 0 else None


VENDORED = re.compile(r'(^|/)([Vv]endors?|node_modules|bower_components|jspm_packages|web_modules|'
                      r'(3rd|[Tt]hird)[-_]?[Pp]arty|[Ee]xternals?|Godeps/_workspace|Carthage/(Checkouts|Build)|'
                      r'Pods|site-packages|venv)/')
GENERATED_NAME = re.compile(r'(^|/)([^/]*[.-]min\.(js|mjs|cjs|css)|[^/]*\.lock|go\.sum|Package\.resolved|'
                            r'packages\.lock\.json|[^/]*\.pb\.(go|cc|h)|[^/]*_pb2(_grpc)?\.pyi?|[^/]*_pb\.js)$')


def looks_skipped(root, p):
    """Why a file was plausibly left out: vendored, generated, or unexplained."""
    if VENDORED.search(p):
        return 'vendored'
    if GENERATED_NAME.search(p):
        return 'generated'
    with open(os.path.join(root, p), 'rb') as f:
        data = f.read()
    head = data[:2048].lower()
    if b'generated' in head or b'do not edit' in head or b'sourcemappingurl=' in data[-1024:].lower():
        return 'generated'
    if len(data) / (data.count(b'\n') + 1) > 110:
        return 'generated'
    return 'unexplained'


def empty_notebook(root, p):
    """A notebook whose text is empty (no cell has a source)."""
    if not p.endswith('.ipynb'):
        return False
    try:
        with open(os.path.join(root, p), 'rb') as f:
            return notebook_text(f.read())[0] == b''
    except (ValueError, KeyError, TypeError):
        return False


def candidates(root):
    """Files git would list in root: tracked ones plus untracked, not ignored."""
    if subprocess.run(['git', '-C', root, 'rev-parse', '--show-toplevel'], capture_output=True,
                      text=True).stdout.strip() == os.path.realpath(root):
        cmd = ['git', '-C', root, 'ls-files', '-z', '--cached', '--others', '--exclude-standard']
        return sorted(set(subprocess.run(cmd, capture_output=True, check=True).stdout.decode(
            'utf-8', 'surrogateescape').split('\0')) - {''}), 'git'
    with tempfile.TemporaryDirectory() as gd:
        subprocess.run(['git', 'init', '-q', gd], check=True)
        cmd = ['git', '--git-dir', gd + '/.git', '--work-tree', os.path.abspath(root), 'ls-files', '-z', '--others',
               '--exclude-standard']
        out = subprocess.run(cmd, capture_output=True, check=True, cwd=root).stdout
    return sorted(set(out.decode('utf-8', 'surrogateescape').split('\0')) - {''}), 'plain'


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--root', required=True)
    ap.add_argument('--budget', type=int, required=True)
    ap.add_argument('--bin', required=True)
    ap.add_argument('--stderr', required=True)
    ap.add_argument('--include-lang', action='append', default=[],
                    help='coverage: only files of these languages (the run had --include globs for them)')
    ap.add_argument('--all-included', action='store_true',
                    help='the run had --include-generated --include-vendored: every file must be accounted for')
    ap.add_argument('chunks')
    a = ap.parse_args()

    problems = collections.defaultdict(list)

    def problem(kind, msg):
        problems[kind].append(msg)

    files = collections.OrderedDict()  # path -> [records' fields]
    chunks = 0
    with open(a.chunks, 'rb') as f:
        for n, line in enumerate(f, 1):
            try:
                r = json.loads(line)
            except ValueError as e:
                problem('json', f'line {n}: {e}')
                continue
            chunks += 1
            files.setdefault(r['path'], []).append(r)

    bytes_total = 0
    by_language = collections.defaultdict(lambda: [0, 0, 0])  # files, chunks, bytes
    for path, recs in files.items():
        host = recs[0].get('host_language', recs[0]['language'])
        by_language[host][0] += 1
        by_language[host][1] += len(recs)
        try:
            with open(os.path.join(a.root, path), 'rb') as f:
                data = f.read()
        except OSError as e:
            problem('read', f'{path}: {e}')
            continue
        bytes_total += len(data)
        by_language[host][2] += len(data)
        cells = None
        if path.endswith('.ipynb'):
            try:
                data, cells = notebook_text(data)
            except (ValueError, KeyError, TypeError) as e:
                problem('notebook', f'{path}: {e}')
                continue
        places = constructs(path, data)
        pos, line = 0, 1  # the tiling position and the line it is on
        for i, r in enumerate(recs):
            s, e = r['start_byte'], r['end_byte']
            where = f'{path}: chunk {i}'
            if r['index'] != i:
                problem('index', f'{where}: index {r["index"]}')
            if r.get('host_language', r['language']) != host or r['method'] != recs[0]['method']:
                problem('mixed', f'{where}: language/method differ within the file')
            if s != pos:
                problem('tiling', f'{where}: starts at {s}, previous chunk ended at {pos}')
                line = data.count(b'\n', 0, s) + 1
            if not 0 <= s < e <= len(data):
                problem('range', f'{where}: range [{s},{e}) in a file of {len(data)} bytes')
                pos = e
                continue
            raw = r['content'].encode('utf-8', 'surrogatepass')
            if raw != data[s:e]:
                problem('content', f'{where}: content differs from the bytes at [{s},{e})')
            text = data[s:e]
            first, last = s + len(text) - len(text.lstrip()), s + len(text.rstrip())
            if cells is not None:
                cell = [c for c in cells if c[0] <= s < c[1]]
                if not cell or r.get('cell') != cell[0][2] or e > cell[0][1]:
                    problem('notebook', f'{where}: cell {r.get("cell")}, the chunk [{s},{e}) is not in it alone')
                elif r['language'] != cell[0][3]:
                    problem('embedded', f'{where}: language {r["language"]}, its cell is {cell[0][3]}')
            elif r['language'] != host and not any(f <= first and last <= t for f, t in places):
                problem('embedded', f'{where}: language {r["language"]}, but the chunk lies in no construct of another language')
            if r['start_line'] != line:
                problem('lines', f'{where}: start_line {r["start_line"]}, counted {line}')
            end_line = line + data.count(b'\n', s, e - 1)
            if r['end_line'] != end_line:
                problem('lines', f'{where}: end_line {r["end_line"]}, counted {end_line}')
            size = go_size(data[s:e].decode('utf-8', 'surrogateescape'))
            if r['size'] != size:
                problem('size', f'{where}: size {r["size"]}, counted {size}')
            if size > a.budget:
                problem('budget', f'{where}: size {size} over the budget {a.budget}')
            pos, line = e, line + data.count(b'\n', s, e)
        if pos != len(data):
            problem('tiling', f'{path}: chunks end at {pos}, the file at {len(data)}')

    # Coverage.
    exts, names = supported(a.bin)
    exts['.ipynb'] = 'jupyter-notebook'
    listed, listed_by = candidates(a.root)
    named = set()
    skipped = collections.Counter()
    with open(a.stderr, encoding='utf-8', errors='surrogateescape') as f:
        for l in f:
            m = re.match(r'castchunk: skipped (\d+) (generated|vendored) files? ', l)
            if m:
                skipped[m.group(2)] += int(m.group(1))
                continue
            if l.startswith('castchunk: '):
                rest = l[len('castchunk: '):]
                if rest.startswith('"'):
                    try:
                        p, _ = json.JSONDecoder().raw_decode(rest)
                        named.add(p)
                        continue
                    except ValueError:
                        pass
                named.add(rest.split(': ', 1)[0])
    expected, hidden, links = [], 0, 0
    for p in listed:
        lang = language_of(p, exts, names)
        if lang is None or (a.include_lang and lang not in a.include_lang):
            continue
        if any(part.startswith('.') for part in p.split('/')):
            hidden += 1
            continue
        if os.path.islink(os.path.join(a.root, p)):
            links += 1
            continue
        expected.append(p)
    chunked = [p for p in expected if p in files]
    rest = [p for p in expected if p not in files]
    empty = [p for p in rest if os.path.getsize(os.path.join(a.root, p)) == 0 or empty_notebook(a.root, p)]
    on_stderr = [p for p in rest if p in named]
    empty_set = set(empty)
    left = [p for p in rest if p not in named and p not in empty_set]
    looks = collections.Counter()
    for p in left:
        how = looks_skipped(a.root, p)
        looks[how] += 1
        if how == 'unexplained' or a.all_included:
            problem('coverage', f'{p}: neither chunked, empty nor named on stderr ({how})')
    for how in ('vendored', 'generated'):
        if looks[how] > skipped[how]:
            problem('coverage', f'{looks[how]} files look {how}, stderr counts {skipped[how]}')
    expected_set = set(expected)
    extra = [p for p in files if p not in expected_set]

    for kind, msgs in problems.items():
        for m in msgs[:20]:
            print(f'{kind}: {m}')
        if len(msgs) > 20:
            print(f'{kind}: ... {len(msgs) - 20} more')
    summary = dict(ok=not problems, files=len(files), chunks=chunks, bytes=bytes_total,
                   by_language=dict(sorted(by_language.items())),
                   listed_by=listed_by, expected=len(expected), chunked=len(chunked), empty=len(empty),
                   named_on_stderr=len(on_stderr), skipped_counted=dict(skipped),
                   left=dict(looks), hidden_not_expected=hidden,
                   symlinks=links, chunked_not_listed=len(extra),
                   problems={k: len(v) for k, v in problems.items()})
    print(json.dumps(summary))
    sys.exit(0 if not problems else 1)


if __name__ == '__main__':
    main()
