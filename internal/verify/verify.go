// Package verify checks chunk records against the files they name: the
// proof, for a CI step, that an index was built from exact chunks. It holds
// one file at a time, so memory is bounded by the largest file however many
// records stream through, and it reads only what it should: regular files
// (never a device or a pipe), up to a size limit, under the root unless
// told otherwise. Records may come from anywhere, so a record must not be a
// way to read /etc/shadow, to hang on a FIFO or to fill memory from
// /dev/zero.
package verify

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"unsafe"

	"github.com/castchunk/castchunk/internal/bytesize"
	"github.com/castchunk/castchunk/internal/chunk"
	"github.com/castchunk/castchunk/internal/enrich"
	"github.com/castchunk/castchunk/internal/lang"
	"github.com/castchunk/castchunk/internal/method"
	"github.com/castchunk/castchunk/internal/notebook"
	"github.com/castchunk/castchunk/internal/outline"
	"github.com/castchunk/castchunk/internal/record"
	"github.com/castchunk/castchunk/internal/regular"
	"github.com/castchunk/castchunk/internal/tokens"
	"github.com/castchunk/castchunk/internal/walk"
)

// Problem is one thing wrong with one record (Index -1: with the file).
type Problem struct {
	Repo    string // the record's repository; "" for none
	Path    string
	Index   int
	Message string
	Missing bool // the file the records name does not exist under the root
}

func (p Problem) String() string {
	name := p.Path
	if p.Repo != "" {
		name = p.Repo + ":" + p.Path
	}
	if p.Index < 0 {
		return fmt.Sprintf("%s: %s", name, p.Message)
	}
	return fmt.Sprintf("%s: chunk %d: %s", name, p.Index, p.Message)
}

// Verifier checks a stream of records, one at a time, in output order.
type Verifier struct {
	// Root is the directory the record paths are relative to ("": the
	// current directory). Only files under it are read, unless
	// AllowOutsideRoot: an absolute path is read when it lies under Root,
	// and a path that leaves Root (by "..", or through a symbolic link that
	// leads out or is absolute) is a problem of its file, never opened.
	Root             string
	AllowOutsideRoot bool
	// Roots, when not nil, are the folders the paths of each repository's
	// records are relative to, by name (verify --repos-from): a record of
	// a repository not in it is a problem of its file. nil: every record
	// is read under Root.
	Roots map[string]string
	// Repo, when set, is the one repository whose records are checked
	// (verify --repo); the others are counted in Skipped.
	Repo string
	// MaxFileSize > 0: a file larger than this is a problem, not read
	// (and no more than this is read of a file that grows meanwhile).
	MaxFileSize int64
	// Lang, when set, is the language every record must name: the records
	// were made with chunk --lang. Otherwise a record's language must be
	// one castchunk has and, when its path's extension names a language,
	// that one.
	Lang   string
	Budget int // > 0: every size (of text, when a record has one) must be at most this
	// Tokens, when set, recounts each record's tokens (of text when it has
	// one, else of content): a tokens field must equal the count, and with
	// MaxTokens > 0 the count must be at most MaxTokens.
	Tokens    *tokens.Counter
	MaxTokens int
	// Header is the format of the embedding texts' headers (chunk
	// --embed-header; "": enrich.ScopeHeader).
	Header enrich.HeaderFormat
	// Methods finds the method a record names; nil: the registry
	// (method.ByName). Tests give methods castchunk does not register.
	Methods func(name string) *chunk.Method
	Report  func(Problem)

	Records, Files, Problems int
	Skipped                  int // records of other repositories than Repo
	// Explained counts, by format, the records whose header Header does
	// not explain and that format does: the records were likely made
	// with chunk --embed-header FORMAT (the first such, in
	// enrich.HeaderFormats' order).
	Explained map[enrich.HeaderFormat]int

	seen  map[string]bool // files whose records are done
	cur   *file
	lines enrich.Lines // the current file's defining lines
}

// file is the state of the file whose records are streaming.
type file struct {
	repo       string // its repository; "" for none
	root       string // the folder its path is relative to
	path       string
	data       []byte
	unreadable bool
	records    int                // records of this file checked so far
	method     *chunk.Method      // the method of its first record
	language   string             // the language of its first record (its host_language, when it has one)
	hosts      bool               // its first record has host_language
	notebook   *notebook.Notebook // a Jupyter notebook: data is its text
	next       int                // index expected next
	prevStart  int
	covered    int // end of the text covered so far
	line       int // line number at lineAt
	lineAt     int
	repeats    map[[sha256.Size]byte]int // content hash -> chunks so far with it
	// The file's embedded regions as chunk found them (checkLanguages),
	// found once, at its first record that needs them.
	regions     []record.Region
	regionsDone bool
	regionsOK   bool
	// The bodies of its functions (checkBodies), found once, at its first
	// record of a method of pieces.
	bodies     chunk.Bodies
	bodiesDone bool
}

// Add checks one record.
func (v *Verifier) Add(r *record.Record) {
	if v.Repo != "" && r.Repo != v.Repo {
		v.Skipped++
		return
	}
	v.Records++
	if v.cur == nil || v.cur.path != r.Path || v.cur.repo != r.Repo {
		v.Finish()
		// A notebook's record whose host_language was lost still has its
		// cell: checkLanguage names the missing field, and the records
		// are checked against the notebook's text, not its JSON.
		v.open(r.Repo, r.Path, r.HostLanguage == notebook.Language || r.HasCell && notebook.Is(r.Path))
	}
	f := v.cur
	if f.unreadable {
		return
	}
	if err := r.Check(); err != nil {
		v.problem(r, err.Error())
	}
	v.checkMethod(f, r)
	v.checkLanguage(f, r)
	if r.EndByte <= r.StartByte {
		return // no range to check the file against; Check said so
	}
	if r.Index != f.next {
		v.problem(r, fmt.Sprintf("index is %d, expected %d: a chunk is missing, repeated or out of order", r.Index, f.next))
	}
	f.next = r.Index + 1
	if r.EndByte > len(f.data) {
		v.problem(r, fmt.Sprintf("byte range [%d,%d) runs past the end of the file (%d bytes)", r.StartByte, r.EndByte, len(f.data)))
		return
	}
	ranges := v.checkContent(f, r)
	v.checkCell(f, r)
	v.checkLanguages(f, r, ranges)
	v.checkLines(f, r)
	if v.Budget > 0 && r.Size > v.Budget {
		v.problem(r, fmt.Sprintf("size %d is over the budget of %d", r.Size, v.Budget))
	}
	v.checkText(r)
	v.checkTokens(r)
	v.checkID(f, r)
	v.checkTiling(f, r)
}

// checkContent checks the record's content against the file: its bytes
// [start_byte, end_byte), or, for a record of several ranges, the bytes of
// each range joined by a line feed (docs/design.md, "Chunks of several
// pieces"). It returns the stretches the chunk holds, nil when its ranges
// are not a chunk's pieces (Record.Check said how), so that no later check
// reads the file by them. The size, recounted by Check over the content,
// is then the pieces' sum.
func (v *Verifier) checkContent(f *file, r *record.Record) []chunk.Piece {
	s := r.Span()
	if s.Whole() {
		if string(f.data[r.StartByte:r.EndByte]) != r.Content {
			v.problem(r, fmt.Sprintf("content differs from the file's bytes [%d,%d)", r.StartByte, r.EndByte))
		}
		v.checkBodies(f, r, s.Ranges())
		return s.Ranges()
	}
	if chunk.CheckPieces(s) != nil {
		return nil // within [start_byte, end_byte) only when they are pieces
	}
	if !joinedEqual(f.data, s.Pieces, r.Content) {
		v.problem(r, fmt.Sprintf("content differs from the file's bytes of its %d ranges joined by a line feed", len(s.Pieces)))
	}
	v.checkBodies(f, r, s.Pieces)
	return s.Pieces
}

// joinedEqual reports whether content is the bytes of pieces of data
// joined by chunk.Joiner, comparing in place.
func joinedEqual(data []byte, pieces []chunk.Piece, content string) bool {
	at := 0
	for i, p := range pieces {
		if i > 0 {
			if !strings.HasPrefix(content[at:], chunk.Joiner) {
				return false
			}
			at += len(chunk.Joiner)
		}
		n := p.End - p.Start
		if len(content)-at < n || content[at:at+n] != string(data[p.Start:p.End]) {
			return false
		}
		at += n
	}
	return at == len(content)
}

// checkLines checks start_line against the file, and, for a record of
// several ranges, end_line: the line of its last byte, which the gaps
// between its pieces decide (Record.Check counts a whole chunk's in its
// content).
func (v *Verifier) checkLines(f *file, r *record.Record) {
	want := f.lineOf(r.StartByte)
	if r.StartLine != want {
		v.problem(r, fmt.Sprintf("start_line is %d, byte %d is on line %d", r.StartLine, r.StartByte, want))
	}
	if len(r.Ranges) < 2 {
		return
	}
	if end := want + bytes.Count(f.data[r.StartByte:r.EndByte-1], []byte{'\n'}); r.EndLine != end {
		v.problem(r, fmt.Sprintf("end_line is %d, its last byte (%d) is on line %d", r.EndLine, r.EndByte-1, end))
	}
}

// checkText checks the embedding text, when the record has one: a header,
// then the content; its size within the budget, which covers it. The
// header is the one enrich writes in the format Header names (the path on
// its first line, a line break in it written as a space), so verify
// expects what chunk writes: when the record carries its scope, exactly
// the header of its path, scope and first line (defining lines read from
// the file); without, one of the shape the format allows
// (enrich.HeaderFormat.CheckShape).
func (v *Verifier) checkText(r *record.Record) {
	if r.Text == "" {
		return
	}
	header, ok := strings.CutSuffix(r.Text, r.Content)
	if !ok || !strings.HasPrefix(header, enrich.Header(r.Path, nil)) {
		v.problem(r, "text is not a header (the path, then the scope) followed by the content")
		return
	}
	if r.Scope != "" {
		scope, err := scopeOf(r.Scope)
		if err != nil {
			v.problem(r, fmt.Sprintf("scope is not a list of definitions, so the text's header cannot be checked: %v", err))
			return
		}
		if want := v.Header.Build(r.Path, scope, &v.lines, r.StartLine); header != want {
			v.problem(r, fmt.Sprintf("text's header is %q, its path and scope give %q", header, want))
			v.explain(func(f enrich.HeaderFormat) bool { return f.Build(r.Path, scope, &v.lines, r.StartLine) == header })
			return
		}
	} else if err := v.Header.CheckShape(header, r.Path); err != nil {
		v.problem(r, fmt.Sprintf("text's %v", err))
		v.explain(func(f enrich.HeaderFormat) bool { return f.CheckShape(header, r.Path) == nil })
		return
	}
	if size := chunk.Size([]byte(r.Text)); v.Budget > 0 && size > v.Budget {
		v.problem(r, fmt.Sprintf("text has size %d, over the budget of %d", size, v.Budget))
	}
}

// explain counts, in Explained, the first format other than Header that
// gives a header the check fits, for a hint that names the flag.
func (v *Verifier) explain(fits func(enrich.HeaderFormat) bool) {
	own, _ := enrich.ParseHeader(string(v.Header))
	for _, c := range enrich.HeaderFormats() {
		if c.Name != own && fits(c.Name) {
			if v.Explained == nil {
				v.Explained = map[enrich.HeaderFormat]int{}
			}
			v.Explained[c.Name]++
			return
		}
	}
}

// scopeOf reads a record's scope (its JSON text) as definitions, for the
// header: their kinds, names and lines. A line that is not an integer is
// read as 0, no line of the file: only the formats that show defining
// lines read it, and their header then names none.
func scopeOf(text string) ([]outline.Def, error) {
	var defs []struct {
		Kind, Name string
		Line       json.RawMessage
	}
	if err := json.Unmarshal(bytesOf(text), &defs); err != nil {
		return nil, err
	}
	scope := make([]outline.Def, len(defs))
	for i, d := range defs {
		line, _ := strconv.Atoi(string(d.Line))
		scope[i] = outline.Def{Kind: d.Kind, Name: d.Name, Line: line}
	}
	return scope, nil
}

// checkTokens recounts the tokens of the text, or of the content.
func (v *Verifier) checkTokens(r *record.Record) {
	if v.Tokens == nil {
		return
	}
	what, s := "content", r.Content
	if r.Text != "" {
		what, s = "text", r.Text
	}
	n := v.Tokens.Count([]byte(s))
	if r.Tokens != 0 && r.Tokens != n {
		v.problem(r, fmt.Sprintf("tokens is %d, the %s has %d", r.Tokens, what, n))
	}
	if v.MaxTokens > 0 && n > v.MaxTokens {
		v.problem(r, fmt.Sprintf("%s has %d tokens, over the limit of %d", what, n, v.MaxTokens))
	}
}

// checkTiling checks that the chunks cover the file in order: no gap ever,
// and no overlap except between sliding windows that are meant to share
// lines. A method whose chunks cover part of the file (chunk.Method.Partial:
// function) may leave gaps, before its first chunk too, and never overlaps.
func (v *Verifier) checkTiling(f *file, r *record.Record) {
	first := f.records == 0
	f.records++
	partial := partial(f.method)
	switch {
	case partial && r.StartByte < f.covered:
		v.problem(r, fmt.Sprintf("overlaps the previous chunk by %d bytes", f.covered-r.StartByte))
	case partial:
	case first && r.StartByte != 0:
		v.problem(r, fmt.Sprintf("the file's first chunk starts at byte %d, not 0", r.StartByte))
	case !first && r.StartByte > f.covered:
		v.problem(r, fmt.Sprintf("bytes [%d,%d) are in no chunk", f.covered, r.StartByte))
	case !first && r.StartByte < f.covered && (!mayOverlap(f.method) || !mayOverlap(v.method(r.Method)) || r.StartByte <= f.prevStart):
		v.problem(r, fmt.Sprintf("overlaps the previous chunk by %d bytes", f.covered-r.StartByte))
	}
	f.prevStart = r.StartByte
	f.covered = max(f.covered, r.EndByte)
}

// partial reports whether m's chunks cover part of the file (nil: an
// unknown method, which must tile it).
func partial(m *chunk.Method) bool { return m != nil && m.Partial }

// mayOverlap reports whether m's chunks may overlap (nil: an unknown method).
func mayOverlap(m *chunk.Method) bool { return m != nil && m.MayOverlap() }

// checkMethod checks that the record names a method castchunk has, and
// the method of the file's other records: the tiling rule is the method's,
// so a relabelled record must not slip an overlap through (checkTiling
// allows an overlap only when the file's method and the record's allow it).
func (v *Verifier) checkMethod(f *file, r *record.Record) {
	m := v.method(r.Method)
	v.checkRanges(m, r)
	switch {
	case m == nil && r.Method != "":
		v.problem(r, fmt.Sprintf("method %q is not one of %v", r.Method, method.Names()))
	case f.records == 0:
		f.method = m
	case m != f.method:
		name := "none"
		if f.method != nil {
			name = f.method.Name
		}
		v.problem(r, fmt.Sprintf("method %q differs from the file's first chunk (%s)", r.Method, name))
	}
}

// checkRanges checks that the record has ranges exactly when its method
// m (nil: unknown, said elsewhere) makes chunks of several pieces: every
// record of such a method carries them, no record of another.
func (v *Verifier) checkRanges(m *chunk.Method, r *record.Record) {
	switch {
	case m == nil:
	case m.Pieces && r.Ranges == nil:
		v.problem(r, fmt.Sprintf("no ranges: the records of method %s, whose chunks may be of several pieces, carry them", m.Name))
	case !m.Pieces && r.Ranges != nil:
		v.problem(r, fmt.Sprintf("ranges is set, but method %s makes chunks of one stretch (its records have no ranges)", m.Name))
	}
}

// method returns the method named name: Methods', else the registry's;
// nil when there is none.
func (v *Verifier) method(name string) *chunk.Method {
	if v.Methods != nil {
		return v.Methods(name)
	}
	return method.ByName(name)
}

// checkLanguage checks the record's language: one castchunk has, the one
// --lang names when given, else the one the path's name gives (lang.ForPath:
// its extension; a path whose name gives no language was chunked with
// --lang: any language castchunk has is accepted), and the same for all
// records of the file. A file with embedded regions (host_language) is
// checked by that, the file's own language; each of its chunks is in it or
// in another language castchunk has (a fence's, a script's).
// A wrong language of the file is one problem, at its first record.
func (v *Verifier) checkLanguage(f *file, r *record.Record) {
	if r.Language == "" {
		return // Check reports it
	}
	own := r.Language
	switch {
	case r.HostLanguage != "":
		own = r.HostLanguage
	case f.notebook != nil:
		own = notebook.Language // host_language is missing: said once, at the first record
	}
	if r.Language != own && lang.ByName(r.Language) == nil {
		v.problem(r, fmt.Sprintf("language %q of an embedded region is not one of %v", r.Language, lang.Names()))
	}
	if f.language != "" {
		switch {
		case own != f.language:
			v.problem(r, fmt.Sprintf("language %q differs from the file's first chunk (%s)", own, f.language))
		case (r.HostLanguage != "") != f.hosts:
			v.problem(r, "host_language is in some records of the file and not in others")
		}
		return
	}
	f.language, f.hosts = own, r.HostLanguage != ""
	if f.notebook != nil {
		switch {
		case !f.hosts:
			v.problem(r, fmt.Sprintf("no host_language: a notebook's records have host_language %q", notebook.Language))
		case own != notebook.Language:
			v.problem(r, fmt.Sprintf("host_language is %q, a notebook's is %q", own, notebook.Language))
		}
		return
	}
	l := lang.ByName(own)
	byExt := lang.ForPath(r.Path)
	switch {
	case l == nil && byExt == nil && v.Lang == "":
		// Text no grammar parses (chunk --all-text names it as GitHub does):
		// any name, but never made by a method that reads a syntax tree.
		if m := v.method(r.Method); m != nil && m.NeedsTree {
			v.problem(r, fmt.Sprintf("language %q has no grammar, so method %s cannot have made this chunk", own, r.Method))
		}
	case l == nil:
		v.problem(r, fmt.Sprintf("language %q is not one of %v", own, lang.Names()))
	case v.Lang != "" && own != v.Lang:
		v.problem(r, fmt.Sprintf("language is %q, not %q as --lang says", own, v.Lang))
	case v.Lang == "" && byExt != nil && byExt != l && !v.attributesSay(r.Path, l):
		v.problem(r, fmt.Sprintf("language is %q, but %s is %s by its name (if the records were made with chunk --lang %s, verify with --lang %s)",
			own, path.Base(r.Path), byExt.Name, own, own))
	}
}

// checkCell checks a notebook's record names the cells its chunk starts
// and ends in (a chunk of merged cells spans several; a record without
// end_cell, as castchunk wrote them before chunks spanned cells, must lie
// in its cell); a record of another file has neither.
func (v *Verifier) checkCell(f *file, r *record.Record) {
	if f.notebook == nil {
		if r.HasCell || r.HasEndCell {
			v.problem(r, "cell is set, but the file is no notebook (.ipynb)")
		}
		return
	}
	index := func(i int) int {
		if i < 0 {
			return -1
		}
		return f.notebook.Cells[i].Index
	}
	first, last := index(f.notebook.CellAt(r.StartByte)), index(f.notebook.CellAt(max(r.StartByte, r.EndByte-1)))
	switch {
	case !r.HasCell:
		v.problem(r, "no cell: a notebook's records say which cell they are in")
	case first != r.Cell:
		v.problem(r, fmt.Sprintf("cell is %d, byte %d of the notebook's text is in cell %d", r.Cell, r.StartByte, first))
	case !r.HasEndCell && last != first:
		v.problem(r, fmt.Sprintf("the chunk runs from cell %d into cell %d, and has no end_cell", r.Cell, last))
	case r.HasEndCell && r.EndCell != last:
		v.problem(r, fmt.Sprintf("end_cell is %d, the chunk's last byte (%d) is in cell %d", r.EndCell, r.EndByte-1, last))
	}
}

// attributesSay reports whether the file's git attributes give it language
// l (`*.h linguist-language=C++`), as chunk reads them. It is asked only
// when the record's language is not the one the name gives, which is rare,
// so the walk it costs is rare too.
func (v *Verifier) attributesSay(p string, l *lang.Language) bool {
	name := filepath.FromSlash(p)
	if !filepath.IsAbs(name) {
		name = filepath.Join(v.cur.root, name)
	}
	files, _, err := walk.List([]string{name}, walk.Options{})
	return err == nil && len(files) == 1 && files[0].Attrs.Language != "" && lang.ForLinguist(files[0].Attrs.Language) == l
}

// checkID recomputes the id from the README's recipe, over what is embedded
// (the text when the record has it, else the content); ids that follow it
// are unique, since (path, embedded text, repeat count) is.
func (v *Verifier) checkID(f *file, r *record.Record) {
	embedded := bytesOf(r.Content)
	if r.Text != "" { // the record has text (never empty): the id covers it
		embedded = bytesOf(r.Text)
	}
	h := sha256.Sum256(embedded)
	k := f.repeats[h]
	f.repeats[h] = k + 1
	if want := record.ID(r.Repo, r.Path, embedded, k); r.ID != want {
		v.problem(r, fmt.Sprintf("id is %s, the recipe gives %s (duplicated or altered record?)", r.ID, want))
	}
}

// Finish completes the checks of the file under way: no chunk may be
// missing at its end, unless its method covers part of the file. Call it after the last record.
func (v *Verifier) Finish() {
	f := v.cur
	if f == nil {
		return
	}
	v.cur = nil
	if !f.unreadable && !partial(f.method) && f.covered != len(f.data) {
		v.fileProblem(f, fmt.Sprintf("chunks end at byte %d, the file has %d bytes: chunks are missing at the end", f.covered, len(f.data)))
	}
}

// open starts on the file at path; a notebook (its first record says so:
// chunk read it as one, not as --lang or an attribute said) is read as its
// text.
func (v *Verifier) open(repo, path string, isNotebook bool) {
	if v.seen == nil {
		v.seen = map[string]bool{}
	}
	f := &file{repo: repo, path: path, line: 1, repeats: map[[sha256.Size]byte]int{}}
	key := repo + "\x00" + path
	if v.seen[key] {
		v.fileProblem(f, "its records are not together: the file appeared earlier in the stream")
	}
	v.seen[key] = true
	v.Files++
	v.cur = f
	var data []byte
	root, err := v.rootOf(repo)
	if err == nil {
		f.root = root
		data, err = v.read(root, path)
	}
	if err != nil {
		f.unreadable = true
		v.Problems++
		if v.Report != nil {
			v.Report(Problem{Repo: repo, Path: path, Index: -1, Message: err.Error(), Missing: errors.Is(err, fs.ErrNotExist)})
		}
		return
	}
	f.data = data
	if isNotebook {
		nb, err := notebook.Parse(data)
		if err != nil {
			f.unreadable = true
			v.fileProblem(f, err.Error())
			return
		}
		f.notebook, f.data = nb, nb.Text // records cut the notebook's text
	}
	v.lines.Reset(f.data)
}

// rootOf is the folder the paths of repository repo's records are
// relative to: Roots' entry when there are Roots, else Root.
func (v *Verifier) rootOf(repo string) (string, error) {
	if v.Roots == nil {
		return v.Root, nil
	}
	root, ok := v.Roots[repo]
	if !ok {
		if repo == "" {
			return "", errors.New("the record names no repository, and the list names each record's")
		}
		return "", fmt.Errorf("repository %q is not in --repos-from's list", repo)
	}
	return root, nil
}

// Why a file is not read.
var (
	errOutside = errors.New("path is outside --root; pass --allow-outside-root to read it")
	errLinkOut = errors.New("path leads outside --root through a symbolic link (or an absolute one); pass --allow-outside-root to read it")
)

// read reads the file a record names: a regular file, under the root
// unless AllowOutsideRoot, of at most MaxFileSize bytes. It is opened
// without blocking (a FIFO does not wait for a writer) and checked
// through the open descriptor, so what is read is what was checked.
func (v *Verifier) read(root, p string) ([]byte, error) {
	if p == "" {
		return nil, errors.New("cannot read the file: empty path")
	}
	fh, err := v.openFile(root, filepath.FromSlash(p))
	if err != nil {
		return nil, err
	}
	info, err := regular.Check(fh)
	if err != nil {
		var nr *regular.NotRegularError
		if errors.As(err, &nr) {
			return nil, fmt.Errorf("%v: only regular files are read", err)
		}
		return nil, fmt.Errorf("cannot read the file: %w", err)
	}
	defer fh.Close()
	limit := v.MaxFileSize
	if limit > 0 && info.Size() > limit {
		size, most := bytesize.Format(info.Size()), bytesize.Format(limit)
		if size == most { // 10.01 MiB and 10 MiB both print as 10 MiB
			size, most = fmt.Sprintf("%d bytes", info.Size()), fmt.Sprintf("%d bytes", limit)
		}
		return nil, fmt.Errorf("file too large (%s > %s limit); a larger --max-file-size reads it", size, most)
	}
	return readBounded(fh, info.Size(), limit)
}

// readBounded reads r to its end, expecting about size bytes, and refuses
// to read more than one byte past limit (0: no limit): a file may grow
// while it is read.
func readBounded(r io.Reader, size, limit int64) ([]byte, error) {
	if limit > 0 {
		r = io.LimitReader(r, limit+1)
		size = min(size, limit)
	}
	data := make([]byte, 0, size+1)
	for {
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)]
		}
		n, err := r.Read(data[len(data):cap(data)])
		data = data[:len(data)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("cannot read the file: %w", err)
		}
	}
	if limit > 0 && int64(len(data)) > limit {
		return nil, fmt.Errorf("file too large (it grew past the %s limit as it was read)", bytesize.Format(limit))
	}
	return data, nil
}

// openFile opens name (a record's path, in the system's form) for reading,
// without blocking.
func (v *Verifier) openFile(root, name string) (*os.File, error) {
	if root == "" {
		root = "."
	}
	const flags = regular.Flags
	if v.AllowOutsideRoot {
		if !filepath.IsAbs(name) {
			name = filepath.Join(root, name)
		}
		fh, err := os.OpenFile(name, flags, 0)
		if err != nil {
			return nil, fmt.Errorf("cannot read the file: %w", err)
		}
		return fh, nil
	}
	rel, ok := within(root, name)
	if !ok {
		return nil, errOutside
	}
	// os.Root resolves the path inside root, symbolic links included, and
	// refuses any step out of it: no window between a check and the open.
	dir, err := os.OpenRoot(root)
	if err != nil {
		return nil, fmt.Errorf("cannot read the file: %w", err)
	}
	defer dir.Close()
	fh, err := dir.OpenFile(rel, flags, 0)
	if err != nil {
		if escapes(err) {
			return nil, errLinkOut
		}
		return nil, fmt.Errorf("cannot read the file: %w", err)
	}
	return fh, nil
}

// within returns name relative to root and whether it lies under root,
// by its spelling: a relative name must not climb out with "..", an
// absolute one must be under root's absolute path.
func within(root, name string) (string, bool) {
	if !filepath.IsAbs(name) {
		return name, filepath.IsLocal(name)
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return "", false
	}
	rel, err := filepath.Rel(abs, name)
	if err != nil || !filepath.IsLocal(rel) {
		return "", false
	}
	return rel, true
}

// escapes reports whether err is os.Root refusing a path that leaves it
// (os does not export that error; a test pins its text).
func escapes(err error) bool {
	var pe *fs.PathError
	return errors.As(err, &pe) && pe.Err.Error() == "path escapes from parent"
}

// bytesOf returns the bytes of s without a copy, for reading only (a
// content may be hundreds of MB).
func bytesOf(s string) []byte { return unsafe.Slice(unsafe.StringData(s), len(s)) }

// lineOf returns the line of byte at, counting forward from the last query
// (records come in order) or from the start when asked about an earlier byte.
func (f *file) lineOf(at int) int {
	if at < f.lineAt {
		f.line, f.lineAt = 1, 0
	}
	f.line += bytes.Count(f.data[f.lineAt:at], []byte{'\n'})
	f.lineAt = at
	return f.line
}

func (v *Verifier) problem(r *record.Record, msg string) {
	v.Problems++
	if v.Report != nil {
		v.Report(Problem{Repo: r.Repo, Path: r.Path, Index: r.Index, Message: msg})
	}
}

func (v *Verifier) fileProblem(f *file, msg string) {
	v.Problems++
	if v.Report != nil {
		v.Report(Problem{Repo: f.repo, Path: f.path, Index: -1, Message: msg})
	}
}
