// Package tsc is castchunk's bridge to tree-sitter's C API. It and its
// subpackage match own every declaration of that API in castchunk and every
// unsafe cast on the private struct layout of the Go binding, go-tree-sitter:
// no other package declares tree-sitter's C functions or looks inside the
// binding's structs, and cgo types never leave these packages (their Go APIs
// wrap them). match runs package outline's definition queries and asks nodes
// their type, which tsc never does (see below); no chunker imports it.
//
// Two packages go around the binding, for speed and memory:
//
//   - parse runs the parse itself through Source.Parse. The binding's Parse
//     (v0.25.0) copies the rest of the file into a fresh C string on every
//     read callback and frees those copies only when the parse ends, which
//     costs time and, for files tree-sitter re-reads often, memory quadratic
//     in the file size. Here the source is pinned once and tree-sitter reads
//     it in place; the deadline and cancel checks run in C, so a parse makes
//     no Go callbacks at all.
//   - cast lists children through Lister, one cgo call per node it splits:
//     the binding's per-node methods cost several cgo calls per child, which
//     shows on flat nodes with a million children (a generated list literal).
//
// The casts assume the layout of go-tree-sitter v0.25.0, pinned in go.mod:
// Parser and Tree are structs holding only the C pointer, Node a struct
// holding only the C TSNode. The package's tests compare every cast with
// the binding's own answers and check the sizes, so an upgrade that changes
// the layout fails them. The C code here asks a node only its byte range,
// children, and whether it is named or extra, never its type (docs/design.md,
// guarantee 5), as the conformance tests check.
package tsc

/*
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

// Declarations matching tree_sitter/api.h of the tree-sitter core that
// go-tree-sitter v0.25.0 vendors and links into the binary.
typedef struct TSParser TSParser;
typedef struct TSTree TSTree;
typedef struct { uint32_t row; uint32_t column; } TSPoint;
typedef struct { uint32_t context[4]; const void *id; const void *tree; } TSNode;
typedef struct { const void *tree; const void *id; uint32_t context[3]; } TSTreeCursor;
typedef uint32_t (*DecodeFunction)(const uint8_t *string, uint32_t length, int32_t *code_point);
typedef struct {
	void *payload;
	const char *(*read)(void *payload, uint32_t byte_index, TSPoint position, uint32_t *bytes_read);
	int encoding; // TSInputEncodingUTF8 == 0
	DecodeFunction decode;
} TSInput;
typedef struct { void *payload; uint32_t current_byte_offset; bool has_error; } TSParseState;
typedef struct { void *payload; bool (*progress_callback)(TSParseState *state); } TSParseOptions;

TSTree *ts_parser_parse_with_options(TSParser *self, const TSTree *old_tree, TSInput input, TSParseOptions options);
void ts_parser_reset(TSParser *self);
void ts_set_allocator(void *(*)(size_t), void *(*)(size_t, size_t), void *(*)(void *, size_t), void (*)(void *));
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

// source is what one parse reads: the text, a deadline and a cancel flag.
typedef struct {
	const char *text;
	uint32_t length;
	int has_deadline;
	struct timespec deadline;
	volatile int cancel;
} source;

static const char *read_source(void *payload, uint32_t byte_index, TSPoint position, uint32_t *bytes_read) {
	source *s = payload;
	if (byte_index >= s->length) {
		*bytes_read = 0;
		return "";
	}
	*bytes_read = s->length - byte_index;
	return s->text + byte_index;
}

// stop_parse returns true, which makes tree-sitter give up, once the parse
// is cancelled or past its deadline.
static bool stop_parse(TSParseState *state) {
	source *s = state->payload;
	if (s->cancel) return true;
	if (!s->has_deadline) return false;
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return now.tv_sec > s->deadline.tv_sec ||
		(now.tv_sec == s->deadline.tv_sec && now.tv_nsec > s->deadline.tv_nsec);
}

static void set_deadline(source *s, int64_t nanos) {
	s->has_deadline = nanos > 0;
	if (!s->has_deadline) return;
	clock_gettime(CLOCK_MONOTONIC, &s->deadline);
	int64_t ns = s->deadline.tv_nsec + nanos % 1000000000;
	s->deadline.tv_sec += nanos / 1000000000 + ns / 1000000000;
	s->deadline.tv_nsec = ns % 1000000000;
}

static TSTree *parse_source(TSParser *parser, source *s) {
	TSInput input = { s, read_source, 0, NULL };
	TSParseOptions options = { s, stop_parse };
	return ts_parser_parse_with_options(parser, NULL, input, options);
}

static void use_libc_allocator(void) { ts_set_allocator(NULL, NULL, NULL, NULL); }

#ifdef __GLIBC__
#include <malloc.h>
static void give_back_memory(void) { malloc_trim(0); }
#else
static void give_back_memory(void) {}
#endif

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
	"fmt"
	"math"
	"runtime"
	"time"
	"unsafe"

	sitter "github.com/tree-sitter/go-tree-sitter"
)

// The casts on the binding's layout. go-tree-sitter v0.25.0 declares
// `type Parser struct{ _inner *C.TSParser }`, `type Tree struct{ _inner
// *C.TSTree }` and `type Node struct{ _inner C.TSNode }`; the tests check
// each function below against the binding's own answers.

// rawParser returns the C parser of a binding parser.
func rawParser(p *sitter.Parser) *C.TSParser {
	return *(**C.TSParser)(unsafe.Pointer(p))
}

// rawTree returns the C tree of a binding tree.
func rawTree(t *sitter.Tree) *C.TSTree {
	return *(**C.TSTree)(unsafe.Pointer(t))
}

// wrapTree returns a binding tree that owns the C tree t: closing it frees t.
func wrapTree(t *C.TSTree) *sitter.Tree {
	tree := new(sitter.Tree)
	*(**C.TSTree)(unsafe.Pointer(tree)) = t
	return tree
}

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

// Kid is one child as Lister.Children lists it: the node and what the
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

// Lister lists the children of nodes in bulk, one cgo call per node. It
// keeps a tree cursor and a buffer between calls; it is not safe for
// concurrent use. The zero Lister is ready to use.
//
// The children are written to a buffer in C memory: a Go buffer of structs
// that hold (C) pointers would be scanned whole by cgo's pointer check on
// every call, which costs as much as the largest node seen so far.
type Lister struct {
	cursor  C.TSTreeCursor
	open    bool
	kids    *C.kid // C memory, room for capKids
	capKids int
}

// Children lists the children of n; the slice is valid until the next
// Children or Release.
func (l *Lister) Children(n Node) []Kid {
	if !l.open {
		l.cursor = C.ts_tree_cursor_new(n.c)
		l.open = true
	}
	count := int(C.ts_node_child_count(n.c))
	if count == 0 {
		return nil
	}
	if l.capKids < count {
		grown := max(count, 2*l.capKids, 256)
		kids := (*C.kid)(C.realloc(unsafe.Pointer(l.kids), C.size_t(grown)*C.size_t(unsafe.Sizeof(C.kid{}))))
		if kids == nil {
			panic("tsc: out of memory listing the children of a node")
		}
		l.kids, l.capKids = kids, grown
	}
	C.list_kids(&l.cursor, n.c, l.kids, C.uint32_t(count))
	return unsafe.Slice((*Kid)(unsafe.Pointer(l.kids)), count)
}

// Release lets go of the tree the cursor points into; call it before the
// tree is freed. The buffer stays for the next file, unless a node with
// very many children grew it: one generated file should not pin that memory
// for the rest of the run.
func (l *Lister) Release() {
	if l.open {
		C.ts_tree_cursor_delete(&l.cursor)
		l.open = false
	}
	if l.capKids > keptKids {
		C.free(unsafe.Pointer(l.kids))
		l.kids, l.capKids = nil, 0
	}
}

// keptKids is the most children the buffer keeps room for between files.
const keptKids = 1 << 16

// Close frees all the C memory of the lister.
func (l *Lister) Close() {
	l.Release()
	C.free(unsafe.Pointer(l.kids))
	l.kids, l.capKids = nil, 0
}

// Source is what one parse reads: the text, a deadline and a cancel flag.
// It lives in C memory, since tree-sitter keeps a pointer to it while
// parsing; Free it when done.
type Source struct{ c *C.source }

// NewSource allocates a Source.
func NewSource() *Source {
	s := (*C.source)(C.calloc(1, C.size_t(unsafe.Sizeof(C.source{}))))
	if s == nil {
		panic("tsc: out of memory allocating a parse source")
	}
	return &Source{c: s}
}

// Free frees the Source's C memory. The Source must not be used after.
func (s *Source) Free() {
	C.free(unsafe.Pointer(s.c))
	s.c = nil
}

// Cancel makes the parse under way, and every later one, give up. It may
// be called from another goroutine while Parse runs, but not concurrently
// with Free.
func (s *Source) Cancel() { s.c.cancel = 1 }

// Parse parses text with the binding parser p, whose language is set, and
// returns the tree, which the caller must Close; nil when the parse gave up,
// past timeout (0: none) or cancelled. After nil, ResetParser drops the
// abandoned parse's state. text must be shorter than 4 GiB.
func (s *Source) Parse(p *sitter.Parser, text []byte, timeout time.Duration) *sitter.Tree {
	if len(text) > math.MaxUint32 {
		panic(fmt.Sprintf("tsc: text of %d bytes is too large to parse", len(text)))
	}
	var pin runtime.Pinner
	defer pin.Unpin()
	s.c.text, s.c.length = nil, C.uint32_t(len(text))
	if len(text) > 0 {
		pin.Pin(&text[0])
		s.c.text = (*C.char)(unsafe.Pointer(&text[0]))
	}
	C.set_deadline(s.c, C.int64_t(timeout))
	tree := C.parse_source(rawParser(p), s.c)
	s.c.text = nil
	if tree == nil {
		return nil
	}
	return wrapTree(tree)
}

// ResetParser drops the state tree-sitter keeps of an abandoned parse to
// resume it, so that the next parse starts afresh.
func ResetParser(p *sitter.Parser) { C.ts_parser_reset(rawParser(p)) }

// UseLibcAllocator sets tree-sitter's allocator back to libc's. The binding
// routes every C allocation through Go callbacks, which slows parsing
// (docs/design.md, "Facts about the parts").
func UseLibcAllocator() { C.use_libc_allocator() }

// ReleaseMemory hands memory that freed trees left in the C heap back to
// the operating system (glibc's malloc_trim; nothing elsewhere).
func ReleaseMemory() { C.give_back_memory() }
