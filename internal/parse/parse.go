// Package parse owns the tree-sitter parser: one Parser per worker, reused
// for every file, with a per-file timeout and cancellation.
//
// It calls tree-sitter's C API directly for the parse itself. The binding's
// Parse (go-tree-sitter v0.25.0) copies the rest of the file into a fresh C
// string on every read callback and frees those copies only when the parse
// ends, which costs time and, for files tree-sitter re-reads often, memory
// quadratic in the file size. Here the source is pinned once and tree-sitter
// reads it in place; the deadline and cancel checks run in C, so a parse
// makes no Go callbacks at all. The C allocator is set back to libc's once
// (DESIGN.md, "Facts about the parts").
package parse

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
*/
import "C"

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	sitter "github.com/tree-sitter/go-tree-sitter"

	"github.com/castchunk/castchunk/internal/lang"
)

// ErrTimeout is returned when a parse runs past its timeout.
var ErrTimeout = errors.New("parse timed out")

// ErrCancelled is returned when Cancel stopped a parse.
var ErrCancelled = errors.New("parse cancelled")

var allocatorOnce sync.Once

// Parser parses files one at a time. It is owned by one goroutine; only
// Cancel may be called from another.
type Parser struct {
	parser  *sitter.Parser
	current *lang.Language
	src     *C.source // C memory: tree-sitter keeps a pointer to it while parsing
	timeout time.Duration
	stopped atomic.Bool
	mu      sync.Mutex // orders Cancel against Close, which frees src
}

// New returns a parser whose parses give up after timeout (0: never).
func New(timeout time.Duration) *Parser {
	allocatorOnce.Do(func() { C.use_libc_allocator() })
	src := (*C.source)(C.calloc(1, C.size_t(unsafe.Sizeof(C.source{}))))
	return &Parser{parser: sitter.NewParser(), src: src, timeout: timeout}
}

// Close frees the parser's C memory.
func (p *Parser) Close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.parser.Close()
	C.free(unsafe.Pointer(p.src))
	p.src = nil
}

// Cancel stops the parse under way, and every later one, with ErrCancelled.
// It may be called from any goroutine, even after Close.
func (p *Parser) Cancel() {
	p.stopped.Store(true)
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.src != nil {
		p.src.cancel = 1
	}
}

// Parse parses src as language l. The caller must Close the tree.
func (p *Parser) Parse(src []byte, l *lang.Language) (*sitter.Tree, error) {
	if p.stopped.Load() {
		return nil, ErrCancelled
	}
	if len(src) > math.MaxUint32 {
		return nil, fmt.Errorf("file of %d bytes is too large to parse", len(src))
	}
	if p.current != l {
		if err := p.parser.SetLanguage(l.Grammar()); err != nil {
			return nil, fmt.Errorf("load %s grammar: %w", l.Name, err)
		}
		p.current = l
	}
	var pin runtime.Pinner
	defer pin.Unpin()
	p.src.text, p.src.length = nil, C.uint32_t(len(src))
	if len(src) > 0 {
		pin.Pin(&src[0])
		p.src.text = (*C.char)(unsafe.Pointer(&src[0]))
	}
	C.set_deadline(p.src, C.int64_t(p.timeout))
	tree := C.parse_source(rawParser(p.parser), p.src)
	p.src.text = nil
	if tree == nil {
		// tree-sitter keeps the state of an abandoned parse to resume it;
		// we never resume, so drop it before the next file.
		C.ts_parser_reset(rawParser(p.parser))
		if p.stopped.Load() {
			return nil, ErrCancelled
		}
		return nil, ErrTimeout
	}
	return wrapTree(tree), nil
}

// ReleaseMemory hands memory that freed trees left in the C heap back to
// the operating system. A big file's tree takes tens of bytes per byte of
// source; without this, glibc keeps that memory after the tree is freed and
// the next big file, parsed on another thread's arena, takes as much again.
func ReleaseMemory() { C.give_back_memory() }

// rawParser and wrapTree bridge to the binding, whose Parser and Tree are
// structs holding only the C pointer (go-tree-sitter v0.25.0, pinned in
// go.mod; TestBridgeMatchesBinding fails if that ever changes).
func rawParser(p *sitter.Parser) *C.TSParser {
	return *(**C.TSParser)(unsafe.Pointer(p))
}

func wrapTree(t *C.TSTree) *sitter.Tree {
	tree := new(sitter.Tree)
	*(**C.TSTree)(unsafe.Pointer(tree)) = t
	return tree
}
