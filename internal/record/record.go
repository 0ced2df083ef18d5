// Package record owns castchunk's output (docs/design.md, "A record"): the
// table of fields (schema.go), the one declaration of what a record holds;
// the output formats (format.go): Parquet (parquet.go: a typed column per
// field) and, the default, JSON Lines: one JSON object per line, the fields
// in table order, no whitespace:
//
//	{"id":"…","path":"…","language":"…","method":"…","index":0,"start_line":1,"end_line":3,"start_byte":0,"end_byte":42,"size":30,"languages":["…"],"content":"…"}
//
// The Encoder writes it (the hot path: no reflection, no per-record
// allocation; the fields that are the same for a whole file are escaped
// once per file) and the Decoder reads it back for `verify` and `stats`,
// leniently by default and byte for byte with Strict.
//
// # Strings
//
// Strings are written as their UTF-8 bytes. Only what JSON requires or what
// breaks JavaScript consumers is escaped: `"` and `\`, control characters
// below U+0020 (\n \r \t \b \f in short form, the others as \u00XX) and
// U+2028 / U+2029 as \u2028 / \u2029. `<`, `>`, `&`, DEL and a BOM (U+FEFF,
// kept in the first chunk's content) are written as is. A string that is not
// valid UTF-8 cannot be written exactly, so the encoder refuses it with an
// *InvalidUTF8Error rather than replace characters (the pipeline skips such
// files earlier; this is the safety net).
//
// # Line numbers
//
// start_line and end_line are 1-based and inclusive: the lines of the first
// and of the last byte of content. A line ends at '\n' and the '\n' belongs
// to the line it ends, so a chunk that ends right after a '\n' has the line of
// that '\n' as its end_line. A lone '\r' is not a line break (CRLF files count
// like LF files; old Mac CR-only files count as one line), matching git, grep
// and most editors' line numbers for text that has '\n' in it.
//
// # The id
//
// id is 32 lowercase hex characters: the first 16 bytes of
//
//	SHA-256(path + "\x00" + embedded + "\x00" + decimal(k))
//
// where path is the record's path (preceded by the repository's name and a
// NUL, "repo\x00path", in a record with a repo field); embedded is what an embedding model is
// given: the record's text (header and content) when the record has a
// text field (--embed-text), else its content's exact bytes; and k the
// number of earlier chunks (lower index) of the same file whose embedded
// text is byte-for-byte identical (0 for the first occurrence), written
// in decimal ASCII without leading zeros. The id therefore stays the same
// while what is embedded stays the same, even when text above the chunk
// changed, so downstream indexes can skip re-embedding it, and changes
// whenever it changes (a renamed enclosing class changes the header of
// every chunk inside it; turning --embed-text on or off changes every
// id); k makes it unique within an output even when sliding windows
// repeat content. ID computes it.
package record

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/castchunk/castchunk/internal/chunk"
)

// IDLen is the length of an id in hex characters (16 bytes of SHA-256).
const IDLen = 32

// Record is one decoded output line.
type Record struct {
	ID       string
	Repo     string // the repository's name; "" when the record has no repo
	HasRepo  bool   // the record has a repo field
	Path     string
	Language string
	// Languages are the languages the chunk holds text of, Language
	// first; nil when the record has no languages (an older castchunk's).
	Languages []string
	// HostLanguage is the file's language when the file has embedded
	// regions (Language is then the chunk's, maybe a region's); "" when
	// the record has no host_language.
	HostLanguage string
	// Cell is the notebook cell of the chunk, when HasCell (a notebook's
	// records).
	Cell    int
	HasCell bool
	// EndCell is the notebook cell of the chunk's last byte, when
	// HasEndCell (a notebook's records since chunks span cells).
	EndCell    int
	HasEndCell bool
	Method     string
	Index      int
	StartLine  int
	EndLine    int
	StartByte  int
	EndByte    int
	// Ranges are the stretches of the file the chunk holds, when the
	// record has ranges (a method that makes chunks of several pieces);
	// nil otherwise. Content is then their bytes joined by chunk.Joiner.
	Ranges  []chunk.Piece
	Size    int
	Content string
	// The optional fields: empty (0) when the record has none of them.
	Scope   string // scope's JSON text, as written
	Defines string // defines' JSON text
	Tokens  int
	Text    string
}

// Span returns the chunk the record describes: [StartByte, EndByte) and,
// when its ranges are several, its pieces (a single range is a whole
// chunk).
func (r *Record) Span() chunk.Span {
	s := chunk.Span{Start: r.StartByte, End: r.EndByte, Size: r.Size}
	if len(r.Ranges) > 1 {
		s.Pieces = r.Ranges
	}
	return s
}

// ID returns the id of a chunk of path (in repository repo, "" for none) whose embedded text (its text
// field, else its content) is embedded, the occurrence-th earlier repeat of
// that text in its file (0 for the first); see the package documentation
// for the recipe.
func ID(repo, path string, embedded []byte, occurrence int) string {
	h := sha256.New()
	h.Write(idPrefix(nil, repo, path))
	h.Write(embedded)
	h.Write(strconv.AppendInt([]byte{0}, int64(occurrence), 10))
	return hex.EncodeToString(h.Sum(nil)[:IDLen/2])
}

// CheckRepo reports why name cannot name a repository: empty, not valid
// UTF-8, holding a control character (a NUL would make ids ambiguous, a
// line break would break headers and lists), or starting or ending with
// white space (invisible in a list, and trimmed by most tools).
func CheckRepo(name string) error {
	switch {
	case name == "":
		return errors.New("a repository's name is empty")
	case !utf8.ValidString(name):
		return fmt.Errorf("repository name %q is not valid UTF-8", name)
	case strings.TrimSpace(name) != name:
		return fmt.Errorf("repository name %q starts or ends with white space", name)
	}
	for _, c := range name {
		if c < 0x20 || c == 0x7f {
			return fmt.Errorf("repository name %q holds a control character", name)
		}
	}
	return nil
}

// idPrefix appends what the id hash starts with: the path and a NUL,
// after the repository's name and a NUL when the file has one. A name holds
// no NUL (CheckRepo), so the two forms cannot be confused within a name.
func idPrefix(dst []byte, repo, path string) []byte {
	if repo != "" {
		dst = append(append(dst, repo...), 0)
	}
	return append(append(dst, path...), 0)
}

// validID reports whether s has the form of an id: 32 lowercase hex digits.
func validID(s string) bool {
	if len(s) != IDLen {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}
