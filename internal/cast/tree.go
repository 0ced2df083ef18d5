package cast

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
// the cursor, and returns how many parent has: one cgo call per node split,
// instead of several per child.
static uint32_t list_kids(TSTreeCursor *c, TSNode parent, kid *out, uint32_t cap) {
	ts_tree_cursor_reset(c, parent);
	if (!ts_tree_cursor_goto_first_child(c)) return 0;
	uint32_t n = 0;
	do {
		if (n < cap) {
			TSNode k = ts_tree_cursor_current_node(c);
			out[n].node = k;
			out[n].start = ts_node_start_byte(k);
			out[n].end = ts_node_end_byte(k);
			out[n].extra = ts_node_is_extra(k);
			out[n].named = ts_node_is_named(k);
			out[n].has_kids = ts_node_child_count(k) > 0;
		}
		n++;
	} while (ts_tree_cursor_goto_next_sibling(c));
	return n;
}
*/
import "C"

import (
	"unsafe"

	sitter "github.com/tree-sitter/go-tree-sitter"
)

// treeNode is a syntax node as tree-sitter's C API passes it.
type treeNode = C.TSNode

// treeReader lists children in bulk through tree-sitter's C API. The
// binding's per-node methods cost several cgo calls per child, which shows
// on flat nodes with a million children (a generated list literal).
//
// The children are written to a buffer in C memory: a Go buffer of structs
// that hold (C) pointers would be scanned whole by cgo's pointer check on
// every call, which costs as much as the largest node seen so far.
type treeReader struct {
	cursor  C.TSTreeCursor
	open    bool
	kids    *C.kid // C memory, room for capKids
	capKids int
}

// rootOf returns the C node of a binding node: go-tree-sitter's Node is a
// struct holding only the C.TSNode (v0.25.0, pinned in go.mod; the tests
// compare against the binding's own answers).
func rootOf(n *sitter.Node) treeNode {
	return *(*treeNode)(unsafe.Pointer(n))
}

// nodeInfo returns a node's byte range and whether it has children.
func nodeInfo(n treeNode) (start, end int, hasKids bool) {
	return int(C.ts_node_start_byte(n)), int(C.ts_node_end_byte(n)), C.ts_node_child_count(n) > 0
}

// children lists the children of n; the slice is valid until the next call.
func (r *treeReader) children(n treeNode) []C.kid {
	if !r.open {
		r.cursor = C.ts_tree_cursor_new(n)
		r.open = true
	}
	count := int(C.ts_node_child_count(n))
	if count == 0 {
		return nil
	}
	if r.capKids < count {
		grown := max(count, 2*r.capKids, 256)
		kids := (*C.kid)(C.realloc(unsafe.Pointer(r.kids), C.size_t(grown)*C.size_t(unsafe.Sizeof(C.kid{}))))
		if kids == nil {
			panic("cast: out of memory listing the children of a node")
		}
		r.kids, r.capKids = kids, grown
	}
	C.list_kids(&r.cursor, n, r.kids, C.uint32_t(count))
	return unsafe.Slice(r.kids, count)
}

// release lets go of the tree the cursor points into. The buffer stays for
// the next file, unless a node with very many children grew it: one
// generated file should not pin that memory for the rest of the run.
func (r *treeReader) release() {
	if r.open {
		C.ts_tree_cursor_delete(&r.cursor)
		r.open = false
	}
	if r.capKids > keptKids {
		C.free(unsafe.Pointer(r.kids))
		r.kids, r.capKids = nil, 0
	}
}

// keptKids is the most children the buffer keeps room for between files.
const keptKids = 1 << 16

// close frees all the C memory of the reader.
func (r *treeReader) close() {
	r.release()
	C.free(unsafe.Pointer(r.kids))
	r.kids, r.capKids = nil, 0
}
