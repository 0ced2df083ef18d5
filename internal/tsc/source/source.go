// Package source runs tree-sitter's parse for package parse, through the C
// API: the source is pinned once and tree-sitter reads it in place, and the
// deadline and cancel checks run in C, so a parse makes no Go callbacks.
// (The binding's Parse, v0.25.0, copies the rest of the file into a fresh C
// string on every read callback and frees those copies only when the parse
// ends, which costs time and, for files tree-sitter re-reads often, memory
// quadratic in the file size.)
//
// It also guards every grammar's external scanner (SetLanguage): tree-sitter
// gives a scanner 1,024 bytes for its state, and scanners that write more
// on deep nesting overran the parser's memory, after which tree-sitter's
// assert aborted the process. The parser is given a copy of the grammar's
// tables whose scanner writes into a buffer of the Source's own, and a
// state too big for tree-sitter makes the parse give no tree (Overflowed).
//
// Like package tsc, of which it is part, it declares the C API it calls and
// casts the binding's Parser and Tree (structs holding only the C pointer,
// in go-tree-sitter v0.25.0, pinned in go.mod; the tests check the layout).
// It is not imported by the chunkers: it reads grammars' tables, which a
// chunker never may (docs/design.md, guarantee 5).
package source

/*
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

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
typedef struct TSLanguage TSLanguage;
bool ts_parser_set_language(TSParser *self, const TSLanguage *language);
uint32_t ts_language_abi_version(const TSLanguage *self);
void ts_tree_delete(TSTree *self);

// language is the layout of struct TSLanguage in tree_sitter/parser.h of
// the core go-tree-sitter v0.25.0 vendors: ABI 15; ABI 14 grammars end
// after primary_state_ids, ABI 13 ones after external_scanner.
typedef struct {
	uint32_t abi_version, symbol_count, alias_count, token_count, external_token_count,
		state_count, large_state_count, production_id_count, field_count;
	uint16_t max_alias_sequence_length;
	const void *parse_table, *small_parse_table, *small_parse_table_map, *parse_actions,
		*symbol_names, *field_names, *field_map_slices, *field_map_entries, *symbol_metadata,
		*public_symbol_map, *alias_map, *alias_sequences, *lex_modes;
	void *lex_fn, *keyword_lex_fn;
	uint16_t keyword_capture_token;
	struct {
		const void *states, *symbol_map;
		void *(*create)(void);
		void (*destroy)(void *);
		void *scan;
		unsigned (*serialize)(void *, char *);
		void (*deserialize)(void *, const char *, unsigned);
	} external_scanner;
	const void *primary_state_ids;
	const char *name;
	const void *reserved_words;
	uint16_t max_reserved_word_set_size;
	uint32_t supertype_count;
	const void *supertype_symbols, *supertype_map_slices, *supertype_map_entries;
	struct { uint8_t major, minor, patch; } metadata;
} language;

// SERIAL_LIMIT is TREE_SITTER_SERIALIZATION_BUFFER_SIZE: the room
// tree-sitter gives an external scanner for its state. A scanner that
// writes more overruns the parser's own memory, and tree-sitter then
// asserts (SIGABRT): one file would end the whole run.
#define SERIAL_LIMIT 1024
void ts_parser_reset(TSParser *self);
void ts_set_allocator(void *(*)(size_t), void *(*)(size_t, size_t), void *(*)(void *, size_t), void (*)(void *));

// source is what one parse reads: the text, a deadline and a cancel flag;
// and, for a grammar with an external scanner, the guard of its state.
typedef struct {
	const char *text;
	uint32_t length;
	uint32_t seen; // bytes of text the parse reads (its included ranges); 0: all
	int has_deadline;
	struct timespec deadline;
	volatile int cancel;
	unsigned (*serialize)(void *, char *); // the scanner's own; NULL: none
	void (*deserialize)(void *, const char *, unsigned); // the scanner's own
	int count_at;    // where its state holds a uint16 count of what deserialize rebuilds; -1: nowhere
	char *state;     // the scanner writes its state here: mmap'ed, a guard page after it
	size_t capacity; // bytes before the guard page
	int overflow;    // 1: the scanner wrote more than SERIAL_LIMIT bytes; 2: no memory for its state
	uint64_t checks;    // progress checks made: one per 100 parser operations
	uint64_t reads;     // pieces of the text handed to the lexer
	uint64_t max_reads; // past this, the parse gives up as overworked
	uint64_t scanned;     // the scanner's work on its state: bytes written and read, entries rebuilt
	uint64_t max_scanned; // past this too
	int overworked;
} source;

// READ_PIECE is the most text one read hands the lexer: each time the lexer
// goes back to text it left (a scanner looking far ahead, then again from
// an earlier place), it reads again, so the reads count the text lexed.
#define READ_PIECE 4096

// MAX_LEXED is how many times its own length a file may be lexed before
// the parse gives up (plus 4 MiB for small files). The Python and Go
// standard libraries and the test corpus lex each file at most about 330
// times over (a Scala file); a Markdown line of 20,000 stars around a
// letter, 120,000 times; 20,000 nested Scala parentheses, 6,000 times: a
// bound on the parser's own work, the same on every machine and run.
#define MAX_LEXED 1024

// MAX_SCANNED is how many times its own length an external scanner may
// work on its state (bytes saved and restored, entries rebuilt) before the
// parse gives up (plus 4 MiB). Real files take at most 13 times their
// length (HTML manuals under /usr/share/doc; Python and YAML files 4
// times); tree-sitter-html rebuilds every open tag on every token, so
// 1,000 nested <section> take 416 times, and 50,000 nested <div> 9,650
// times: 40 s of quadratic work, now about one.
#define MAX_SCANNED 256

// The bound a parse that gave up passed (source.overworked).
enum { OVER_LEXED = 1, OVER_SCANNED = 2 };

// parsing is the source of the parse running on this thread: the guarded
// serialize finds the scanner's own function through it.
static __thread source *parsing;

// guarded_serialize lets the scanner write its state into the source's
// big buffer, and hands tree-sitter at most SERIAL_LIMIT bytes of it. A
// state that does not fit is recorded and replaced by the empty state: the
// parse goes on, deterministic, and its tree is thrown away.
static unsigned guarded_serialize(void *payload, char *buffer) {
	source *s = parsing;
	if (s == NULL || s->serialize == NULL || s->state == NULL) return 0;
	unsigned n = s->serialize(payload, s->state);
	s->scanned += n;
	if (n > SERIAL_LIMIT) {
		s->overflow = 1;
		return 0;
	}
	memcpy(buffer, s->state, n);
	return n;
}

// guarded_deserialize counts the work of the scanner's deserialize, then
// calls it: the bytes it reads, and for a scanner that rebuilds a stack
// from a count its state holds (tree-sitter-html's open tags: all of them,
// however few it saved), that count. Tree-sitter calls it only while
// parsing (the lexer restores the state before each external scan).
static void guarded_deserialize(void *payload, const char *buffer, unsigned length) {
	source *s = parsing;
	if (s == NULL || s->deserialize == NULL) return;
	s->scanned += length;
	if (s->count_at >= 0 && length >= (unsigned)s->count_at + 2) {
		uint16_t n;
		memcpy(&n, buffer + s->count_at, sizeof n);
		s->scanned += n;
	}
	s->deserialize(payload, buffer, length);
}

// The guarded copies of the grammars, made once per grammar and kept for
// the life of the process (trees point into them, as into the grammars'
// static tables).
#define MAX_GUARDED 256
static struct { const language *grammar; language *copy; } guarded[MAX_GUARDED];
static int guarded_count;
static pthread_mutex_t guarded_lock = PTHREAD_MUTEX_INITIALIZER;

// guard_language returns grammar's guarded copy: the same tables with
// guarded_serialize as its scanner's serialize. A grammar without an
// external scanner, or when the table is full, is returned as it is.
static const TSLanguage *guard_language(const TSLanguage *g) {
	const language *grammar = (const language *)g;
	if (grammar->external_scanner.serialize == NULL) return g;
	pthread_mutex_lock(&guarded_lock);
	language *copy = NULL;
	for (int i = 0; i < guarded_count; i++) {
		if (guarded[i].grammar == grammar) copy = guarded[i].copy;
	}
	if (copy == NULL && guarded_count < MAX_GUARDED) {
		uint32_t abi = ts_language_abi_version(g);
		size_t size = abi >= 15 ? sizeof(language)
			: abi == 14 ? offsetof(language, name)
			: offsetof(language, primary_state_ids);
		copy = calloc(1, sizeof(language));
		if (copy != NULL) {
			memcpy(copy, grammar, size);
			copy->external_scanner.serialize = guarded_serialize;
			copy->external_scanner.deserialize = guarded_deserialize;
			guarded[guarded_count].grammar = grammar;
			guarded[guarded_count].copy = copy;
			guarded_count++;
		}
	}
	pthread_mutex_unlock(&guarded_lock);
	return copy != NULL ? (const TSLanguage *)copy : g;
}

// set_language gives the parser grammar's guarded copy, and the source the
// scanner's own serialize.
static bool set_language(TSParser *parser, source *s, const TSLanguage *grammar, int count_at) {
	const TSLanguage *l = guard_language(grammar);
	if (!ts_parser_set_language(parser, l)) return false;
	const language *g = (const language *)grammar;
	s->serialize = l != grammar ? g->external_scanner.serialize : NULL;
	s->deserialize = l != grammar ? g->external_scanner.deserialize : NULL;
	s->count_at = count_at;
	return true;
}

// grow_state makes room for a state of up to need bytes, with a guard page
// after it: a scanner that writes even more faults there rather than in
// other memory. The pages are reserved, not touched: only what a scanner
// writes is ever resident. 0 when mmap fails.
static int grow_state(source *s, size_t need) {
	if (s->state != NULL && s->capacity >= need) return 1;
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t cap = (need + page - 1) / page * page;
	if (s->state != NULL) munmap(s->state, s->capacity + page);
	s->state = NULL;
	s->capacity = 0;
	char *m = mmap(NULL, cap + page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (m == MAP_FAILED) return 0;
	mprotect(m + cap, page, PROT_NONE);
	s->state = m;
	s->capacity = cap;
	return 1;
}

static void free_state(source *s) {
	if (s->state != NULL) munmap(s->state, s->capacity + (size_t)sysconf(_SC_PAGESIZE));
	s->state = NULL;
	s->capacity = 0;
}

static const char *read_source(void *payload, uint32_t byte_index, TSPoint position, uint32_t *bytes_read) {
	source *s = payload;
	if (byte_index >= s->length) {
		*bytes_read = 0;
		return "";
	}
	uint32_t n = s->length - byte_index;
	if (n > READ_PIECE) {
		n = READ_PIECE;
		// End the piece on a character boundary: never in a UTF-8 sequence.
		while (n > 1 && ((unsigned char)s->text[byte_index + n] & 0xC0) == 0x80) n--;
	}
	s->reads++;
	*bytes_read = n;
	return s->text + byte_index;
}

// stop_parse returns true, which makes tree-sitter give up, once the parse
// is cancelled or past its deadline.
static bool stop_parse(TSParseState *state) {
	source *s = state->payload;
	s->checks++;
	if (s->cancel || s->overflow) return true;
	if (s->reads > s->max_reads) {
		s->overworked = OVER_LEXED;
		return true;
	}
	if (s->scanned > s->max_scanned) {
		s->overworked = OVER_SCANNED;
		return true;
	}
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

// parse_source parses the source with the parser's language. With a
// guarded grammar, the scanner's state may take 8 bytes per byte of text
// (a scanner keeps at most a few bytes per level of nesting, and a level
// takes a byte of text) and 64 KiB besides; a state that would not fit is
// refused as an overflow before parsing (0: no tree).
static TSTree *parse_source(TSParser *parser, source *s) {
	s->overflow = 0;
	s->overworked = 0;
	s->checks = 0;
	s->reads = 0;
	uint64_t seen = s->seen > 0 && s->seen < s->length ? s->seen : s->length;
	s->max_reads = ((uint64_t)MAX_LEXED * seen + (4u << 20)) / READ_PIECE;
	s->scanned = 0;
	s->max_scanned = (uint64_t)MAX_SCANNED * seen + (4u << 20);
	if (s->serialize != NULL && !grow_state(s, 8 * (size_t)s->length + 65536)) {
		s->overflow = 2; // no memory for the state buffer: not the grammar's nesting
		return NULL;
	}
	TSInput input = { s, read_source, 0, NULL };
	TSParseOptions options = { s, stop_parse };
	parsing = s;
	TSTree *tree = ts_parser_parse_with_options(parser, NULL, input, options);
	parsing = NULL;
	return tree;
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
	"fmt"
	"math"
	"runtime"
	"time"
	"unsafe"

	sitter "github.com/tree-sitter/go-tree-sitter"
)

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
	C.free_state(s.c)
	C.free(unsafe.Pointer(s.c))
	s.c = nil
}

// SetLanguage gives the binding parser p the grammar (a *TSLanguage, as
// the grammar modules return it) for parses of this Source. A grammar with
// an external scanner is given as its guarded copy: the scanner writes its
// state into a buffer of the Source, and a state larger than tree-sitter's
// 1,024 bytes (deep nesting in Markdown or YAML, say) makes the parse give
// no tree (Overflowed) instead of overrunning the parser's memory and
// aborting the process. Like the binding's SetLanguage, it refuses a
// grammar of an ABI version the core does not read.
//
// stackCountAt is where the scanner's state holds a uint16 count of the
// entries its deserialize rebuilds, whatever the state saved of them
// (tree-sitter-html's open tags: HTMLTagCount); -1 when it holds none. The
// parse gives up (Overworked) once the scanner's work on its state passes
// 256 times the text's length (plus 4 MiB): deep nesting makes such a
// scanner quadratic.
func (s *Source) SetLanguage(p *sitter.Parser, l *sitter.Language, stackCountAt int) error {
	if v := l.AbiVersion(); v < sitter.MIN_COMPATIBLE_LANGUAGE_VERSION || v > sitter.LANGUAGE_VERSION {
		return fmt.Errorf("grammar ABI version %d: this tree-sitter reads %d to %d", v, sitter.MIN_COMPATIBLE_LANGUAGE_VERSION, sitter.LANGUAGE_VERSION)
	}
	if !C.set_language(rawParser(p), s.c, (*C.TSLanguage)(unsafe.Pointer(l.Inner)), C.int(stackCountAt)) {
		return fmt.Errorf("tree-sitter refused the grammar")
	}
	return nil
}

// Overflowed reports whether the last parse's external scanner kept a
// state larger than tree-sitter allows; Parse then returned nil.
func (s *Source) Overflowed() bool { return s.c.overflow != 0 }

// OutOfMemory reports whether the last parse could not start for want of
// memory for the scanner's state buffer (Overflowed then holds too).
func (s *Source) OutOfMemory() bool { return s.c.overflow == 2 }

// HTMLTagCount is where tree-sitter-html's scanner state holds the count of
// open tags (after the count of those it saved), for SetLanguage.
// tree-sitter-svelte's scanner is the same.
const HTMLTagCount = 2

// XMLTagCount is where tree-sitter-xml's scanner state holds the count of
// open tags: a uint32 after the uint32 count of those it saved, at most
// 65,535, so its low half, read as a uint16 where the machine is
// little-endian, is the count (on a big-endian machine it reads 0: the
// bound on bytes still holds).
const XMLTagCount = 4

// Overworked reports whether the last parse gave up because it lexed the
// text more than 1,024 times over, or its scanner worked on its state more
// than 256 times over (quadratic cases of the grammar); Parse then returned
// nil. The bounds depend on the text alone, never on time.
func (s *Source) Overworked() bool { return s.c.overworked != 0 }

// OverScanned reports whether the bound the last parse passed, when
// Overworked, was its scanner's work on its state.
func (s *Source) OverScanned() bool { return s.c.overworked == C.OVER_SCANNED }

// SetSeen says how many bytes of the text the next parses read, when the
// parser has included ranges (an embedded region): the work bounds are
// sized by them, not by the whole file, so that a file's many regions
// cost no more than their own lengths allow. 0: the whole text.
func (s *Source) SetSeen(n int) { s.c.seen = C.uint32_t(min(max(n, 0), math.MaxUint32)) }

// Scanned is the last parse's external scanner's work on its state: the
// bytes it wrote and read, and the entries it rebuilt (see SetLanguage).
func (s *Source) Scanned() uint64 { return uint64(s.c.scanned) }

// Checks is how many progress checks the last parse made: tree-sitter
// makes one every 100 parser operations, so it measures the parse's work,
// the same on every machine and run.
func (s *Source) Checks() uint64 { return uint64(s.c.checks) }

// Cancel makes the parse under way, and every later one, give up. It may
// be called from another goroutine while Parse runs, but not concurrently
// with Free.
func (s *Source) Cancel() { s.c.cancel = 1 }

// Parse parses text with the binding parser p, whose language is set, and
// returns the tree, which the caller must Close; nil when the parse gave up,
// past timeout (0: none), cancelled or overworked (Overworked), or when the
// grammar's scanner state overflowed (Overflowed). After nil, ResetParser drops the
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
	if s.c.overflow != 0 {
		C.ts_tree_delete(tree)
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
