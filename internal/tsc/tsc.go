// Package tsc is castchunk's bridge to tree-sitter's C API. It and its
// subpackages own every declaration of that API in castchunk and every
// unsafe cast on the private struct layout of the Go binding, go-tree-sitter:
// no other package declares tree-sitter's C functions or looks inside the
// binding's structs, and cgo types never leave these packages (their Go APIs
// wrap them). Each goes around the binding for speed, memory or safety:
//
//   - tsc itself: cast lists children through Lister, one cgo call per node
//     it splits: the binding's per-node methods cost several cgo calls per
//     child, which shows on flat nodes with a million children (a
//     generated list literal).
//   - source runs the parse for package parse, reading the file in place,
//     and guards the grammars' external scanners (see its doc).
//   - match runs package outline's definition queries and asks nodes their
//     type, which tsc never does; no chunker imports it, nor source.
//
// The casts assume the layout of go-tree-sitter v0.25.0, pinned in go.mod: a
// Node is a struct holding only the C TSNode. The package's tests compare
// every cast with the binding's own answers and check the sizes, so an
// upgrade that changes the layout fails them. The C code here asks a node
// only its byte range, children, and whether it is named or extra, never its
// type (docs/design.md, guarantee 5), as the conformance tests check.
package tsc

/*
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

// Declarations matching tree_sitter/api.h of the tree-sitter core that
// go-tree-sitter v0.25.0 vendors and links into the binary.
typedef struct { uint32_t context[4]; const void *id; const void *tree; } TSNode;
typedef struct { const void *tree; const void *id; uint32_t context[3]; } TSTreeCursor;
TSTreeCursor ts_tree_cursor_new(TSNode node);
void ts_tree_cursor_delete(TSTreeCursor *self);
void ts_tree_cursor_reset(TSTreeCursor *self, TSNode node);
bool ts_tree_cursor_goto_first_child(TSTreeCursor *self);
bool ts_tree_cursor_goto_next_sibling(TSTreeCursor *self);
TSNode ts_tree_cursor_current_node(const TSTreeCursor *self);
uint32_t ts_node_start_byte(TSNode self);
uint32_t ts_node_end_byte(TSNode self);
bool ts_node_is_extra(TSNode self);
bool ts_node_is_named(TSNode self);
uint32_t ts_node_child_count(TSNode self);

// kid is what the chunker asks of a child node.
typedef struct {
	TSNode node;
	uint32_t start, end;
	uint8_t extra, named, has_kids;
} kid;

// list_kids writes up to cap children of parent into out, walking them with
// the cursor: from the first child when first is set, else from the one
// after the cursor's; the cursor is left on the last child written. It
// returns how many it wrote: 0 once every child was listed. One cgo call
// lists a batch, instead of several calls per child.
static uint32_t list_kids(TSTreeCursor *c, TSNode parent, kid *out, uint32_t cap, bool first) {
	if (first) {
		ts_tree_cursor_reset(c, parent);
		if (!ts_tree_cursor_goto_first_child(c)) return 0;
	} else if (!ts_tree_cursor_goto_next_sibling(c)) {
		return 0;
	}
	uint32_t n = 0;
	for (;;) {
		TSNode k = ts_tree_cursor_current_node(c);
		out[n].node = k;
		out[n].start = ts_node_start_byte(k);
		out[n].end = ts_node_end_byte(k);
		out[n].extra = ts_node_is_extra(k);
		out[n].named = ts_node_is_named(k);
		out[n].has_kids = ts_node_child_count(k) > 0;
		n++;
		if (n == cap || !ts_tree_cursor_goto_next_sibling(c)) return n;
	}
}
*/
import "C"

import (
	"unsafe"

	sitter "github.com/tree-sitter/go-tree-sitter"
)

// The casts on the binding's layout. go-tree-sitter v0.25.0 declares
// `type Node struct{ _inner C.TSNode }`; the tests check each function
// below against the binding's own answers.

// NodeOf returns the node the binding node n holds.
func NodeOf(n *sitter.Node) Node {
	return Node{c: *(*C.TSNode)(unsafe.Pointer(n))}
}

// bindingNode returns a binding node holding n, the inverse of NodeOf.
func bindingNode(n Node) *sitter.Node {
	b := new(sitter.Node)
	*(*C.TSNode)(unsafe.Pointer(b)) = n.c
	return b
}

// Node is a syntax node as tree-sitter's C API passes it, by value. It is
// valid while its tree is.
type Node struct{ c C.TSNode }

// StartByte is the offset of the node's first byte.
func (n Node) StartByte() uint32 { return uint32(C.ts_node_start_byte(n.c)) }

// EndByte is the offset just past the node's last byte.
func (n Node) EndByte() uint32 { return uint32(C.ts_node_end_byte(n.c)) }

// ChildCount is the number of the node's children, named or not.
func (n Node) ChildCount() uint32 { return uint32(C.ts_node_child_count(n.c)) }

// IsExtra reports whether the node is an extra (a comment, say), which the
// grammar allows anywhere.
func (n Node) IsExtra() bool { return bool(C.ts_node_is_extra(n.c)) }

// IsNamed reports whether the node is named, not a keyword or punctuation.
func (n Node) IsNamed() bool { return bool(C.ts_node_is_named(n.c)) }

// Kid is one child as Lister.Each lists it: the node and what the
// chunker asks of it, read in the same cgo call.
type Kid struct{ c C.kid }

// Node is the child node.
func (k Kid) Node() Node { return Node{c: k.c.node} }

// Start is the offset of the child's first byte.
func (k Kid) Start() uint32 { return uint32(k.c.start) }

// End is the offset just past the child's last byte.
func (k Kid) End() uint32 { return uint32(k.c.end) }

// Extra reports whether the child is an extra node.
func (k Kid) Extra() bool { return k.c.extra != 0 }

// Named reports whether the child is a named node.
func (k Kid) Named() bool { return k.c.named != 0 }

// HasKids reports whether the child has children of its own.
func (k Kid) HasKids() bool { return k.c.has_kids != 0 }

// Lister lists the children of nodes in bulk, one cgo call per batch of
// children. It keeps a tree cursor and a buffer between calls; it is not
// safe for concurrent use. The zero Lister is ready to use.
//
// The children are written to a buffer in C memory: a Go buffer of structs
// that hold (C) pointers would be scanned whole by cgo's pointer check on
// every call, which costs as much as the largest node seen so far. The
// buffer holds one batch, so a node with millions of children (a generated
// list literal) costs no more C memory than a small one.
type Lister struct {
	cursor  C.TSTreeCursor
	open    bool
	kids    *C.kid // C memory, room for capKids
	capKids int
}

// batchKids is the most children listed in one call.
const batchKids = 1 << 16

// Each calls fn with the children of n, in order, a batch of at most
// batchKids at a time; a batch is valid during its call only, and fn must
// not use the Lister.
func (l *Lister) Each(n Node, fn func([]Kid)) {
	if !l.open {
		l.cursor = C.ts_tree_cursor_new(n.c)
		l.open = true
	}
	count := int(C.ts_node_child_count(n.c))
	if count == 0 {
		return
	}
	if need := min(count, batchKids); l.capKids < need {
		grown := max(need, min(2*l.capKids, batchKids), 256)
		kids := (*C.kid)(C.realloc(unsafe.Pointer(l.kids), C.size_t(grown)*C.size_t(unsafe.Sizeof(C.kid{}))))
		if kids == nil {
			panic("tsc: out of memory listing the children of a node")
		}
		l.kids, l.capKids = kids, grown
	}
	for first := true; ; first = false {
		m := int(C.list_kids(&l.cursor, n.c, l.kids, C.uint32_t(l.capKids), C.bool(first)))
		if m == 0 {
			return
		}
		fn(unsafe.Slice((*Kid)(unsafe.Pointer(l.kids)), m))
	}
}

// Release lets go of the tree the cursor points into; call it before the
// tree is freed. The buffer (one batch at most) stays for the next file.
func (l *Lister) Release() {
	if l.open {
		C.ts_tree_cursor_delete(&l.cursor)
		l.open = false
	}
}

// Close frees all the C memory of the lister.
func (l *Lister) Close() {
	l.Release()
	C.free(unsafe.Pointer(l.kids))
	l.kids, l.capKids = nil, 0
}
