// Package match runs a tree-sitter query only at the nodes where its
// patterns can start, all in one cgo call per tree.
//
// A query cursor executed on a whole tree does work at every node (its field,
// supertypes and siblings, for every pattern state), even when the query's
// patterns can only start at a handful of node types: for the definition
// queries of package outline that work cost about 40% of the parse. Here a
// plain tree cursor walks the tree in C, and the query cursor runs only on
// each node whose type (symbol) the caller names, limited to patterns rooted
// at that node (max start depth 0). For a query whose patterns are all
// rooted, at nodes of the named types, the matches are those of the whole
// tree's query, by construction; the caller is the one to know the root
// types (package outline reads them from the query's text).
//
// Unlike its parent tsc, which the chunkers use and which therefore asks a
// node nothing about its type (docs/design.md, guarantee 5), this package
// asks node symbols: it serves package outline, whose language knowledge
// lives in the query files. No chunker may import it (the tests check).
// As in tsc, cgo types do not leave the package, and the casts on the
// private layout of go-tree-sitter v0.25.0 are checked by the tests.
package match

/*
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

// Declarations matching tree_sitter/api.h of the tree-sitter core that
// go-tree-sitter v0.25.0 vendors and links into the binary.
typedef struct TSQuery TSQuery;
typedef struct TSQueryCursor TSQueryCursor;
typedef uint16_t TSSymbol;
typedef struct { uint32_t row; uint32_t column; } TSPoint;
typedef struct { uint32_t context[4]; const void *id; const void *tree; } TSNode;
typedef struct { const void *tree; const void *id; uint32_t context[3]; } TSTreeCursor;
typedef struct { TSNode node; uint32_t index; } TSQueryCapture;
typedef struct {
	uint32_t id;
	uint16_t pattern_index;
	uint16_t capture_count;
	const TSQueryCapture *captures;
} TSQueryMatch;

TSQueryCursor *ts_query_cursor_new(void);
void ts_query_cursor_delete(TSQueryCursor *self);
void ts_query_cursor_exec(TSQueryCursor *self, const TSQuery *query, TSNode node);
bool ts_query_cursor_next_match(TSQueryCursor *self, TSQueryMatch *match);
void ts_query_cursor_set_max_start_depth(TSQueryCursor *self, uint32_t max_start_depth);
TSTreeCursor ts_tree_cursor_new(TSNode node);
void ts_tree_cursor_delete(TSTreeCursor *self);
bool ts_tree_cursor_goto_first_child(TSTreeCursor *self);
bool ts_tree_cursor_goto_next_sibling(TSTreeCursor *self);
bool ts_tree_cursor_goto_parent(TSTreeCursor *self);
TSNode ts_tree_cursor_current_node(const TSTreeCursor *self);
TSSymbol ts_node_symbol(TSNode self);
uint32_t ts_node_start_byte(TSNode self);
uint32_t ts_node_end_byte(TSNode self);
TSPoint ts_node_start_point(TSNode self);

// hit is one match: its pattern and its captures, out.caps[first,
// first+count).
typedef struct { uint32_t pattern, first, count; } hit;

// span is what the caller reads of a captured node, read here so that it
// costs no cgo call per capture.
typedef struct { uint32_t start, end, row; } span;

// out holds the matches of one run: hits, and the captures of all hits
// with their spans (parallel arrays).
typedef struct {
	hit *hits;
	uint32_t nhits, cap_hits;
	TSQueryCapture *caps;
	span *spans;
	uint32_t ncaps, cap_caps;
} out;

static int grow_hits(out *o) {
	uint32_t n = o->cap_hits ? 2 * o->cap_hits : 256;
	hit *h = realloc(o->hits, (size_t)n * sizeof(hit));
	if (!h) return -1;
	o->hits = h;
	o->cap_hits = n;
	return 0;
}

static int grow_caps(out *o, uint32_t need) {
	uint32_t n = o->cap_caps ? 2 * o->cap_caps : 512;
	while (n < need) n *= 2;
	TSQueryCapture *c = realloc(o->caps, (size_t)n * sizeof(TSQueryCapture));
	if (!c) return -1;
	o->caps = c;
	span *s = realloc(o->spans, (size_t)n * sizeof(span));
	if (!s) return -1;
	o->spans = s;
	o->cap_caps = n;
	return 0;
}

static int push(out *o, const TSQueryMatch *m) {
	if (o->nhits == o->cap_hits && grow_hits(o)) return -1;
	uint32_t need = o->ncaps + m->capture_count;
	if (need > o->cap_caps && grow_caps(o, need)) return -1;
	hit *h = &o->hits[o->nhits++];
	h->pattern = m->pattern_index;
	h->first = o->ncaps;
	h->count = m->capture_count;
	for (uint32_t i = 0; i < m->capture_count; i++) {
		TSNode n = m->captures[i].node;
		o->caps[o->ncaps] = m->captures[i];
		o->spans[o->ncaps].start = ts_node_start_byte(n);
		o->spans[o->ncaps].end = ts_node_end_byte(n);
		o->spans[o->ncaps].row = ts_node_start_point(n).row;
		o->ncaps++;
	}
	return 0;
}

// run walks the tree under root in pre-order and, at each node whose symbol
// s has roots[s] set (s < nroots), runs the query cursor qc (max start depth
// 0) on the node, appending its matches to o. It returns -1 when out of
// memory, 0 otherwise.
static int run(TSQueryCursor *qc, const TSQuery *q, TSNode root, const uint8_t *roots, uint32_t nroots, out *o) {
	o->nhits = 0;
	o->ncaps = 0;
	int err = 0;
	TSTreeCursor c = ts_tree_cursor_new(root);
	for (;;) {
		TSNode n = ts_tree_cursor_current_node(&c);
		TSSymbol s = ts_node_symbol(n);
		if (s < nroots && roots[s]) {
			ts_query_cursor_exec(qc, q, n);
			TSQueryMatch m;
			while (ts_query_cursor_next_match(qc, &m)) {
				if (push(o, &m)) {
					err = -1;
					goto done;
				}
			}
		}
		if (ts_tree_cursor_goto_first_child(&c)) continue;
		while (!ts_tree_cursor_goto_next_sibling(&c)) {
			if (!ts_tree_cursor_goto_parent(&c)) goto done;
		}
	}
done:
	ts_tree_cursor_delete(&c);
	return err;
}

static TSQueryCursor *new_cursor(void) {
	TSQueryCursor *qc = ts_query_cursor_new();
	ts_query_cursor_set_max_start_depth(qc, 0);
	return qc;
}

static void free_out(out *o) {
	free(o->hits);
	free(o->caps);
	free(o->spans);
	*o = (out){0};
}
*/
import "C"

import (
	"unsafe"

	sitter "github.com/tree-sitter/go-tree-sitter"
)

// The casts on the binding's layout. go-tree-sitter v0.25.0 declares `type
// Query struct{ _inner *C.TSQuery; … }` and `type Node struct{ _inner
// C.TSNode }`, and its QueryCapture has the layout of C's TSQueryCapture
// (the binding itself casts one to the other).

// rawQuery returns the C query of a binding query.
func rawQuery(q *sitter.Query) *C.TSQuery {
	return *(**C.TSQuery)(unsafe.Pointer(q))
}

// rawNode returns the C node of a binding node.
func rawNode(n *sitter.Node) C.TSNode {
	return *(*C.TSNode)(unsafe.Pointer(n))
}

// Runner runs queries at chosen nodes. It keeps a query cursor and the
// buffers of the last run's matches, in C memory; it is not safe for
// concurrent use. Close frees it.
type Runner struct {
	cursor *C.TSQueryCursor
	out    *C.out
}

// NewRunner returns a Runner.
func NewRunner() *Runner {
	o := (*C.out)(C.calloc(1, C.size_t(unsafe.Sizeof(C.out{}))))
	if o == nil {
		panic("match: out of memory")
	}
	return &Runner{cursor: C.new_cursor(), out: o}
}

// Close frees the Runner's C memory. It must not be used after.
func (r *Runner) Close() {
	if r.out != nil {
		C.free_out(r.out)
		C.free(unsafe.Pointer(r.out))
		r.out = nil
	}
	if r.cursor != nil {
		C.ts_query_cursor_delete(r.cursor)
		r.cursor = nil
	}
}

// keptCaptures is the most captures the buffers keep room for between runs.
const keptCaptures = 1 << 16

// Run walks the tree under root and, at every node whose symbol s has
// roots[s] != 0, runs q's patterns rooted at that node. It returns the
// matches in the order found: nodes in pre-order, each node's matches in
// the query cursor's order. Text predicates are not evaluated (the binding
// evaluates them in Go: QueryMatch.SatisfiesTextPredicate). The matches are
// valid until the next Run or Close, and while root's tree is.
func (r *Runner) Run(q *sitter.Query, root *sitter.Node, roots []byte) Matches {
	if r.out.cap_caps > keptCaptures {
		C.free_out(r.out)
	}
	var rp *C.uint8_t
	if len(roots) > 0 {
		rp = (*C.uint8_t)(unsafe.Pointer(&roots[0]))
	}
	if C.run(r.cursor, rawQuery(q), rawNode(root), rp, C.uint32_t(len(roots)), r.out) != 0 {
		panic("match: out of memory collecting matches")
	}
	o := r.out
	var m Matches
	if o.nhits > 0 {
		m.hits = unsafe.Slice((*hit)(unsafe.Pointer(o.hits)), o.nhits)
	}
	if o.ncaps > 0 {
		m.caps = unsafe.Slice((*sitter.QueryCapture)(unsafe.Pointer(o.caps)), o.ncaps)
		m.spans = unsafe.Slice((*Span)(unsafe.Pointer(o.spans)), o.ncaps)
	}
	return m
}

// hit is C's hit.
type hit struct{ pattern, first, count uint32 }

// Span is what a capture's node spans: its byte range and its first row.
type Span struct{ Start, End, Row uint32 }

// Matches are the matches of one Run.
type Matches struct {
	hits  []hit
	caps  []sitter.QueryCapture
	spans []Span
}

// Len is the number of matches.
func (m Matches) Len() int { return len(m.hits) }

// Pattern is the index of the pattern of match i.
func (m Matches) Pattern(i int) uint { return uint(m.hits[i].pattern) }

// Captures are the captures of match i, in the query cursor's order.
func (m Matches) Captures(i int) []sitter.QueryCapture {
	h := m.hits[i]
	return m.caps[h.first : h.first+h.count : h.first+h.count]
}

// Spans are the spans of the nodes of Captures(i), index for index.
func (m Matches) Spans(i int) []Span {
	h := m.hits[i]
	return m.spans[h.first : h.first+h.count : h.first+h.count]
}

// cLayout returns the sizes of C's structs that Go mirrors or casts, and
// the offset of TSQueryCapture's index, for the tests.
func cLayout() (node, capture, captureIndex, hitSize, spanSize uintptr) {
	var c C.TSQueryCapture
	return unsafe.Sizeof(C.TSNode{}), unsafe.Sizeof(c), unsafe.Offsetof(c.index), unsafe.Sizeof(C.hit{}), unsafe.Sizeof(C.span{})
}

// capacity is the number of captures the buffers have room for.
func (r *Runner) capacity() int { return int(r.out.cap_caps) }
