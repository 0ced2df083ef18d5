// Package plan decides each listed file's fate, the one policy that
// `castchunk chunk` and `castchunk eval` share: the grammar a file is parsed
// with (--lang, its git attributes, its name, its shebang), the text name of
// a file no grammar parses (--all-text), or the reason it is left out
// (vendored, generated, unsupported, binary, not UTF-8, too large,
// unreadable). Its findings are values, never prints: the caller warns,
// counts or lists them.
//
// A file's fate is settled in two steps: ByName, from what the listing knows
// (no byte read), then ByContent, once its bytes are read. Between the two,
// HeadDecides says when only the file's first bytes (its shebang) can give
// it a grammar, so a reader can stop after them.
package plan

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"strings"
	"unicode/utf8"

	"github.com/castchunk/castchunk/internal/chunk"
	"github.com/castchunk/castchunk/internal/detect"
	"github.com/castchunk/castchunk/internal/lang"
	"github.com/castchunk/castchunk/internal/notebook"
	"github.com/castchunk/castchunk/internal/regular"
	"github.com/castchunk/castchunk/internal/walk"
)

// Fate is what becomes of a file: chunked, or the reason it is left out.
type Fate int

// Fates. Every one but Chunked leaves the file out of the output.
const (
	Chunked     Fate = iota
	Binary           // a NUL byte near the start
	Encoding         // not UTF-8, or a name that is not
	TooLarge         // over the size limit
	Unreadable       // could not be opened or read
	Unsupported      // no grammar for it, and not asked to chunk text
	Generated        // generated (lock file, minified, "DO NOT EDIT"), not asked for
	Vendored         // third-party code (vendor/, node_modules/), not asked for
	Failed           // a chunker broke a guarantee: a bug, reported, never written
)

// String is the fate as --stats counts it: "binary", "too large", ….
func (f Fate) String() string {
	return [...]string{"chunked", "binary", "encoding", "too large", "unreadable", "unsupported", "generated", "vendored", "failed"}[f]
}

// Policy is what the flags of a run say about choosing files. The zero
// value is castchunk's default: grammars by attributes, name and shebang;
// generated and vendored files left out; no size limit.
type Policy struct {
	Lang          *lang.Language // --lang: every file is parsed with it
	Text          bool           // --all-text: text no grammar parses is chunked too
	KeepGenerated bool           // --include-generated
	KeepVendored  bool           // --include-vendored
	MaxFileSize   int64          // > 0: bigger files are TooLarge (--max-file-size)
}

// File is what the listing knows of a file before it is read.
type File struct {
	Path string // display path, written into records
	// Rel is the path the generated and vendored rules see: the path below
	// the folder the user named, so that naming node_modules/x chunks it;
	// "" means Path.
	Rel   string
	Attrs walk.Attrs // its git attributes; the zero value says nothing
	Named bool       // named as an argument: never left out as vendored or generated
}

func (f File) rel() string {
	if f.Rel == "" {
		return f.Path
	}
	return f.Rel
}

// Decision is a file's fate as far as its name tells.
type Decision struct {
	Fate    Fate           // Chunked: read it; otherwise left out unread
	Message string         // why, for people, when a warning is due; "" otherwise
	Lang    *lang.Language // the grammar; nil: its shebang or --all-text decides once read
	// Notebook: a Jupyter notebook by its name (and no --lang or
	// attribute said otherwise): its cells are chunked (package notebook).
	Notebook bool
}

// ByName decides what can be decided before reading the file: its grammar
// by --lang, its linguist-language attribute or its name; vendored files
// (counted as vendored only when they would have been chunked, so a file no
// grammar parses stays unsupported and the counts add up); a name that is
// not UTF-8, which no record could hold exactly.
func (p Policy) ByName(f File) Decision {
	d := Decision{Lang: p.Lang}
	if d.Lang == nil && f.Attrs.Language != "" {
		d.Lang = lang.ForLinguist(f.Attrs.Language)
	}
	if d.Lang == nil {
		d.Lang = lang.ForPath(f.Path)
		d.Notebook = d.Lang == nil && notebook.Is(f.Path)
	}
	switch {
	case !f.Named && !p.KeepVendored && detect.Vendored(f.rel(), triBool(f.Attrs.Vendored)):
		d.Fate = Vendored
		if d.Lang == nil && !d.Notebook && !p.Text {
			d.Fate = Unsupported // unread: no shebang looked for
		}
	case !utf8.ValidString(f.Path):
		d.Fate, d.Message = Encoding, "file name is not valid UTF-8; skipped"
	}
	return d
}

// HeadDecides reports whether only the file's first HeadSize bytes (a
// shebang) can give it a grammar: a reader may stop after them when
// Shebang finds none.
func (p Policy) HeadDecides(d Decision) bool {
	return d.Fate == Chunked && d.Lang == nil && !d.Notebook && !p.Text
}

// HeadSize is how much of a file is read to find its shebang.
const HeadSize = 512

// Shebang returns the grammar of the interpreter head's shebang names; nil
// when it names none castchunk parses.
func Shebang(head []byte) *lang.Language {
	return lang.ForInterpreter(detect.Interpreter(head[:min(len(head), HeadSize)]))
}

// ByHead decides, from its first bytes, a file HeadDecides is true of:
// ok is false, and the file Unsupported, when they name no interpreter
// castchunk parses; the rest of the file need not be read.
func (p Policy) ByHead(f File, head []byte) (c Content, ok bool) {
	l := Shebang(head)
	if l == nil {
		return p.unsupported(f), false
	}
	return Content{Lang: l}, true // the grammar, for ByContent's Decision
}

// unsupported is the fate of a file no grammar parses. A file named as an
// argument gets a message: the user asked for it.
func (p Policy) unsupported(f File) Content {
	c := Content{Fate: Unsupported}
	if f.Named {
		c.Message = "no grammar for this file; name a language with --lang (" + strings.Join(lang.Names(), ", ") + "), or chunk it as text with --all-text"
	}
	return c
}

// Content is a file's fate once its bytes are read.
type Content struct {
	Fate     Fate
	Message  string         // why, for people, when a warning is due; "" otherwise
	Lang     *lang.Language // the grammar; nil for text, and when left out before it was known
	Language string         // the name written into records: the grammar's, or a text name
	Notebook bool           // a Jupyter notebook: its cells are chunked, not its bytes
}

// ByContent settles the fate of a file ByName let through, from its bytes:
// too large, its encoding (docs/design.md, "Encodings": UTF-8 only, with or
// without a BOM, never transcoded), a shebang when the name gave no grammar,
// a text name with --all-text, generated files.
func (p Policy) ByContent(f File, d Decision, src []byte) Content {
	if p.MaxFileSize > 0 && int64(len(src)) > p.MaxFileSize {
		err := regular.TooLargeError{Size: int64(len(src)), Limit: p.MaxFileSize}
		return Content{Fate: TooLarge, Message: err.Error()}
	}
	if fate, msg := checkText(src); fate != Chunked {
		return Content{Fate: fate, Message: msg}
	}
	c := Content{Lang: d.Lang, Notebook: d.Notebook}
	if c.Lang == nil && !c.Notebook {
		c.Lang = Shebang(src)
	}
	switch {
	case c.Notebook:
		c.Language = notebook.Language
	case c.Lang != nil:
		c.Language = c.Lang.Name
	case p.Text:
		c.Language = detect.TextName(f.Path, src)
	default:
		return p.unsupported(f)
	}
	if !p.KeepGenerated && !f.Named && detect.Generated(f.rel(), src, triBool(f.Attrs.Generated)) {
		c.Fate = Generated // its language is still worth knowing
	}
	return c
}

// binaryProbe is how much of a file is searched for a NUL byte, as git does.
const binaryProbe = 8000

// checkText says why src cannot be chunked as text (Chunked when it can).
func checkText(src []byte) (Fate, string) {
	if bytes.HasPrefix(src, []byte{0xff, 0xfe}) || bytes.HasPrefix(src, []byte{0xfe, 0xff}) {
		return Encoding, "UTF-16 text is not supported, only UTF-8; skipped"
	}
	if bytes.IndexByte(src[:min(len(src), binaryProbe)], 0) >= 0 {
		return Binary, "binary file (NUL byte); skipped"
	}
	body := bytes.TrimPrefix(src, []byte("\xef\xbb\xbf"))
	if !utf8.Valid(body) {
		return Encoding, fmt.Sprintf("not valid UTF-8 (bad byte at offset %d); skipped", len(src)-len(body)+chunk.FirstInvalid(body))
	}
	return Chunked, ""
}

// ReadFailure turns an error from opening or reading a file into its fate
// and a message for people.
func ReadFailure(err error) Content {
	var large regular.TooLargeError
	if errors.As(err, &large) {
		return Content{Fate: TooLarge, Message: large.Error()}
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	msg := err.Error()
	switch {
	case errors.Is(err, fs.ErrNotExist):
		msg = "no such file or directory (did it vanish while castchunk ran?)"
	case errors.Is(err, fs.ErrPermission):
		msg = "permission denied"
	}
	return Content{Fate: Unreadable, Message: msg}
}

// RelativeTo returns p below the deepest of roots it lies under
// ("lib/x.js" for "vendor/lib/x.js" under the root "vendor"), so that a
// folder the user named is never vendored or generated as a whole; p when
// it lies under none.
func RelativeTo(p string, roots []string) string {
	best := ""
	for _, r := range roots {
		r = path.Clean(strings.ReplaceAll(r, string(os.PathSeparator), "/"))
		if r != "." && strings.HasPrefix(p, r+"/") && len(r) > len(best) {
			best = r
		}
	}
	if best == "" {
		return p
	}
	return p[len(best)+1:]
}

// triBool turns a linguist attribute into what package detect takes: nil
// when the attributes do not say.
func triBool(t walk.Tri) *bool {
	if t == walk.Unspecified {
		return nil
	}
	b := t == walk.Yes
	return &b
}
