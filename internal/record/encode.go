package record

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"slices"
	"sort"
	"strconv"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/castchunk/castchunk/internal/chunk"
)

// File is what the encoder needs to know about one source file.
type File struct {
	// Repo names the repository the file belongs to ("" when the run
	// names none): the id covers it, and the repo field writes it.
	Repo     string
	Path     string // '/'-separated, as reached from the path argument
	Language string
	Method   string // the method's name
	// Pieces: the method makes chunks of several pieces
	// (chunk.Method.Pieces), so every record of the file carries ranges,
	// and only such a file's spans may have pieces.
	Pieces bool
	Src    []byte // the file's bytes as read
	// Extras holds what the run adds to each chunk (scope, tokens, the
	// embedding text), one per span; nil when it adds nothing. The
	// optional fields that read them need them.
	Extras []Extra
	// Regions are the file's embedded regions (code in another language,
	// a Markdown fence's Rust), sorted and apart: a chunk that lies inside
	// one has its language, and the file's records say the file's own
	// language in host_language.
	Regions []Region
	// Cells, for a notebook (Src is then its text, package notebook), are
	// its cells in order: a record says the ones its chunk starts and
	// ends in (CellRange).
	Cells []NotebookCell
}

// NotebookCell is a notebook cell: bytes [Start, End) of the notebook's
// text, the cell Index of the notebook's cells array, its language (the
// kernel's for a code cell, markdown) and whether it is a code cell.
type NotebookCell struct {
	Start, End, Index int
	Language          string
	Code              bool
}

// CellRange returns the positions in f.Cells of the cells that the chunk
// src[start:end) starts and ends in (first == last for a chunk inside one
// cell); -1, -1 when f has no cells. A chunk over several cells holds
// every cell between them: its languages are theirs.
func (f *File) CellRange(start, end int) (first, last int) {
	at := func(b int) int {
		i := sort.Search(len(f.Cells), func(i int) bool { return f.Cells[i].End > b })
		return min(i, len(f.Cells)-1)
	}
	if len(f.Cells) == 0 {
		return -1, -1
	}
	return at(start), at(max(start, end-1))
}

// cellAt returns the notebook cell index of the chunk starting at start.
func (f *File) cellAt(start int) int {
	i, _ := f.CellRange(start, start+1)
	if i < 0 {
		return -1
	}
	return f.Cells[i].Index
}

// endCellAt returns the notebook cell index of the chunk ending at end.
func (f *File) endCellAt(start, end int) int {
	_, i := f.CellRange(start, end)
	if i < 0 {
		return -1
	}
	return f.Cells[i].Index
}

// notebookLanguage returns the language of a notebook's chunk over the
// cells f.Cells[first..last], several: its code cells' (the kernel's) when
// one of them holds some of its non-whitespace text, else its first
// cell's (markdown). A chunk of Markdown and code is found by a select on
// the notebook's language, which is what the code is in.
func (f *File) notebookLanguage(start, end, first, last int) string {
	for _, c := range f.Cells[first : last+1] {
		if !c.Code {
			continue
		}
		for p := max(start, c.Start); p < min(end, c.End); p++ {
			if !isSpaceByte(f.Src[p]) {
				return c.Language
			}
		}
	}
	return f.Cells[first].Language
}

// Region is an embedded region: bytes [Start, End) of the file are code
// in Language, and [From, To) the construct around it that is too (a
// Markdown fence with its ``` lines, a <script> element with its tags).
type Region struct {
	Start, End int
	From, To   int
	Language   string
}

// LanguageAt returns the language of the chunk src[start:end): that of the
// embedded region whose construct holds its text (its first and last
// non-whitespace bytes) when some of that text is the region's code, else
// the file's. A chunk of a fence's closing ``` alone, or of the tags
// around a script, is the host's.
func (f *File) LanguageAt(start, end int) string {
	if len(f.Regions) == 0 {
		return f.Language
	}
	if first, last := f.CellRange(start, end); first != last {
		return f.notebookLanguage(start, end, first, last)
	}
	first, last := start, end
	for first < end && isSpaceByte(f.Src[first]) {
		first++
	}
	for last > first && isSpaceByte(f.Src[last-1]) {
		last--
	}
	if first == last {
		// White space alone: the language of the region it starts in (a
		// notebook's empty-looking cell is still its cell's), else the file's.
		i := sort.Search(len(f.Regions), func(i int) bool { return f.Regions[i].To > start })
		if i < len(f.Regions) && f.Regions[i].From <= start && end <= f.Regions[i].To {
			return f.Regions[i].Language
		}
		return f.Language
	}
	i := sort.Search(len(f.Regions), func(i int) bool { return f.Regions[i].To > first })
	if i == len(f.Regions) {
		return f.Language
	}
	g := f.Regions[i]
	if g.From > first || last > g.To {
		return f.Language
	}
	for p := max(first, g.Start); p < min(last, g.End); p++ {
		if !isSpaceByte(f.Src[p]) {
			return g.Language
		}
	}
	return f.Language
}

// LanguagesAt returns, appended to dst[:0], the languages the chunk
// src[start:end) holds text of: language (LanguageAt's) first, then, in
// the order their first non-whitespace byte comes in the chunk, the
// file's own when a non-whitespace byte lies outside every region's
// construct, and each region's whose code [Start, End) holds one. The
// marks of a construct outside its code (a fence's ``` lines) count for
// neither. It reads each byte of the chunk at most once and only the
// regions the chunk meets, so files of thousands of fences stay linear.
func (f *File) LanguagesAt(dst []string, start, end int, language string) []string {
	return f.addLanguages(append(dst[:0], language), start, end)
}

// LanguagesOf is LanguagesAt for the chunk that holds the stretches
// ranges (chunk.Span.Ranges): the text of a chunk of several pieces is
// theirs, not the gaps', so each stretch adds its languages in turn.
func (f *File) LanguagesOf(dst []string, ranges []chunk.Piece, language string) []string {
	dst = append(dst[:0], language)
	for _, p := range ranges {
		dst = f.addLanguages(dst, p.Start, p.End)
	}
	return dst
}

// addLanguages appends to dst, in order, the languages src[start:end)
// holds text of that dst lacks (see LanguagesAt).
func (f *File) addLanguages(dst []string, start, end int) []string {
	if len(f.Regions) == 0 {
		return dst
	}
	add := func(l string) {
		if !slices.Contains(dst, l) {
			dst = append(dst, l)
		}
	}
	i := sort.Search(len(f.Regions), func(i int) bool { return f.Regions[i].To > start })
	host := false
	for p := start; p < end; i++ {
		next := end // where the host's text before region i ends
		if i < len(f.Regions) {
			next = min(max(f.Regions[i].From, p), end)
		}
		if !host && hasText(f.Src[p:next]) {
			host = true
			add(f.Language)
		}
		if next == end {
			break
		}
		g := f.Regions[i]
		if a, b := max(g.Start, start), min(g.End, end); a < b && hasText(f.Src[a:b]) {
			add(g.Language)
		}
		p = g.To
	}
	return dst
}

// hasText reports whether b holds a byte that is not white space, as
// isSpaceByte counts it.
func hasText(b []byte) bool {
	for _, c := range b {
		if !isSpaceByte(c) {
			return true
		}
	}
	return false
}

// isSpaceByte reports whether c is ASCII white space, which is all that
// LanguageAt trims from a chunk's ends (other white space is rare enough
// around embedded code to count as text).
func isSpaceByte(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

// Extra is what a run adds to one chunk beyond its bytes: the values of the
// optional fields scope, defines, tokens and text.
type Extra struct {
	Scope   []Def  // the definitions enclosing the chunk's start, outermost first
	Defines []Def  // the definitions starting inside it
	Tokens  int    // tokens of its content, or of its text when it has one
	Header  string // its text is Header followed by its content
}

// Def is one definition as a record holds it.
type Def struct {
	Kind string
	Name string
	Line int // 1-based
}

// InvalidUTF8Error reports text that cannot be written to JSON exactly.
// Offset is a byte offset into the file (or into the path, when InPath).
type InvalidUTF8Error struct {
	Path   string
	Offset int
	InPath bool
}

func (e *InvalidUTF8Error) Error() string {
	if e.InPath {
		return fmt.Sprintf("%q: path is not valid UTF-8 (byte %d of the path)", e.Path, e.Offset)
	}
	return fmt.Sprintf("%s: not valid UTF-8 at byte %d", e.Path, e.Offset)
}

// Encoder turns spans into records of its schema. It keeps scratch state
// between files so that, once warmed up, encoding allocates nothing. The
// zero value writes the Default schema; an Encoder must not be used by two
// goroutines at once (use one per worker, or the package-level AppendFile).
type Encoder struct {
	Schema *Schema // nil: Default()

	h      hash.Hash
	sum    [sha256.Size]byte
	num    []byte // "\x00" + decimal occurrence, fed to the id hash
	prefix []byte // [repo + "\x00"] path + "\x00", fed to the id hash (idPrefix)
	hdr    []byte // the current chunk's header, fed to the id hash
	// idHeader: the schema has the text field, so ids cover the text
	// (header and content), what is embedded (see the package doc).
	idHeader bool
	id       []byte   // the current chunk's id in hex
	plan     []step   // how to write one record of the current file
	lits     []byte   // the literal text the plan's steps point into
	file     File     // the current file
	chunk    Chunk    // the current chunk: kept here, so passing it to fields costs no allocation
	langs    []string // the current chunk's languages, kept for the next
	text     []byte   // the current chunk's text when it is of pieces
	whole    [1]chunk.Piece
	spans    []chunk.Span
	next     int // index of the next span to write
	curPos   int // line cursor: byte curPos is on line curLine
	curLine  int
	sizer    chunk.Sizer // checks the spans' sizes in Begin

	// seen counts earlier chunks per embedded text in the current file,
	// keyed by SHA-256(path, 0, embedded): path is fixed within a file, so
	// this is a collision-free key of the text, and it is the id hash's own
	// state just before the occurrence number is added, so it costs no
	// extra pass.
	seen map[[sha256.Size]byte]int
}

// step is one part of a record: literal text (field names and the values
// that are the same for the whole file), or a field computed per chunk.
type step struct {
	lit   [2]int // lits[lit[0]:lit[1]] when field is nil
	field *Field
}

// maxKeptSeen bounds the occurrence map kept between files: clearing a map
// costs time in proportion to its capacity, so after an unusually large file
// a fresh map is cheaper than clearing the big one for every later file.
const maxKeptSeen = 4096

// AppendFile appends the records of all spans of f to dst, in order, index
// 0 first, and returns the extended buffer: Begin, then Next until done.
// On error nothing of f is appended: dst is returned at its original
// length, so the caller can skip the file.
func (e *Encoder) AppendFile(dst []byte, f File, spans []chunk.Span) ([]byte, error) {
	orig := len(dst)
	if err := e.Begin(f, spans); err != nil {
		return dst, err
	}
	defer e.End()
	for {
		var ok bool
		var err error
		if dst, ok, err = e.Next(dst); err != nil {
			return dst[:orig], err
		}
		if !ok {
			return dst, nil
		}
	}
}

// Begin checks f and its spans and prepares to write their records one at
// a time with Next, so a writer can stream a file's records without
// holding them all: memory stays bounded by one record, however many
// windows overlap.
//
// spans must be sorted by Start (overlapping windows are fine), non-empty
// and within f.Src, cut at character boundaries of valid UTF-8, of pieces
// only when f.Pieces (and then as chunk.Span.Pieces says), and each Size
// must be the chunk.Size of its text (the sum of its pieces'); f.Extras, when the schema has a
// field that needs them, must hold one Extra per span, its strings valid
// UTF-8. Begin checks all of this before anything is written, because a
// record that lies would break guarantees downstream; after it succeeds,
// neither Next nor a field's Raw fails for the fields of this package, so
// a format can stream a file's records and still write all of them or
// none. Call End when done.
func (e *Encoder) Begin(f File, spans []chunk.Span) error {
	if e.h == nil {
		e.h = sha256.New()
	}
	if e.seen == nil || len(e.seen) > maxKeptSeen {
		e.seen = make(map[[sha256.Size]byte]int)
	} else {
		clear(e.seen)
	}
	e.prefix = idPrefix(e.prefix[:0], f.Repo, f.Path)
	_, text := e.schema().field(textField)
	e.idHeader = text >= 0
	e.file, e.spans, e.next = f, spans, 0
	e.curPos, e.curLine = 0, 1
	if err := e.check(); err != nil {
		e.End()
		return err
	}
	if err := e.planFile(); err != nil {
		e.End()
		return err
	}
	e.chunk = Chunk{File: &e.file}
	return nil
}

// check validates the spans of the current file against its bytes.
func (e *Encoder) check() error {
	src, path := e.file.Src, e.file.Path
	prev, end := 0, 0
	for i, s := range e.spans {
		if s.Start < prev || s.End <= s.Start || s.End > len(src) {
			return spanError(path, i, s, prev, len(src))
		}
		if err := e.checkPieces(i, s); err != nil {
			return err
		}
		prev, end = s.Start, max(end, s.End)
	}
	if e.file.Extras != nil && len(e.file.Extras) != len(e.spans) {
		return fmt.Errorf("%s: %d extras for %d chunks", path, len(e.file.Extras), len(e.spans))
	}
	for i := range e.file.Extras {
		if err := checkExtra(path, i, &e.file.Extras[i]); err != nil {
			return err
		}
	}
	if len(e.spans) == 0 {
		return nil
	}
	if e.file.Extras == nil {
		for _, fd := range e.schema().fields {
			if fd.NeedsExtra {
				return fmt.Errorf("%s: field %s: %w", path, fd.Name, errNoExtra)
			}
		}
	}
	if err := e.checkUTF8(end); err != nil {
		return err
	}
	return e.checkSizes()
}

// checkPieces checks span i's pieces (chunk.Span.Pieces): only in a file
// whose records carry ranges, and as chunk.CheckPieces describes them.
func (e *Encoder) checkPieces(i int, s chunk.Span) error {
	if s.Pieces == nil {
		return nil
	}
	if !e.file.Pieces {
		return fmt.Errorf("%s: chunk %d is made of %d pieces, but method %s makes chunks of one stretch (its records carry no ranges)", e.file.Path, i, len(s.Pieces), e.file.Method)
	}
	if err := chunk.CheckPieces(s); err != nil {
		return fmt.Errorf("%s: chunk %d: %w", e.file.Path, i, err)
	}
	return nil
}

// checkUTF8 checks that the bytes from the first span's start to end (the
// furthest end) are valid UTF-8, gaps between pieces included, and that
// every stretch a span holds starts and ends on a character boundary: then
// every content is valid UTF-8.
func (e *Encoder) checkUTF8(end int) error {
	src, path := e.file.Src, e.file.Path
	first := e.spans[0].Start
	if !utf8.Valid(src[first:end]) {
		bad := chunk.FirstInvalid(src[first:end])
		return &InvalidUTF8Error{Path: path, Offset: first + bad}
	}
	for _, s := range e.spans {
		for _, p := range s.Ranges() {
			if !utf8.RuneStart(src[p.Start]) {
				return &InvalidUTF8Error{Path: path, Offset: p.Start}
			}
			if p.End < len(src) && !utf8.RuneStart(src[p.End]) { // the last character is cut
				return &InvalidUTF8Error{Path: path, Offset: p.Start + chunk.FirstInvalid(src[p.Start:p.End])}
			}
		}
	}
	return nil
}

// checkSizes checks that each span's Size is that of its text: the sum of
// its pieces' sizes (the line feeds that join them are whitespace).
// Spans that tile are counted once each; overlapping windows share a
// prefix sum, so each byte is still decoded once.
func (e *Encoder) checkSizes() error {
	src := e.file.Src
	size := func(a, b int) int { return countSize(src[a:b]) }
	if overlapping(e.spans) {
		e.sizer.Reset(src)
		defer e.sizer.Release()
		size = e.sizer.Size
	}
	for i, s := range e.spans {
		got := 0
		for _, p := range s.Ranges() {
			got += size(p.Start, p.End)
		}
		if got != s.Size {
			return fmt.Errorf("%s: chunk %d [%d,%d) has size %d, span says %d", e.file.Path, i, s.Start, s.End, got, s.Size)
		}
	}
	return nil
}

// checkExtra checks that the strings a run adds to chunk i are valid
// UTF-8, so that no record of the file fails after Begin and a format that
// streams a file's records never writes part of it.
func checkExtra(path string, i int, x *Extra) error {
	if !utf8.ValidString(x.Header) {
		return fmt.Errorf("%s: the header of chunk %d is not valid UTF-8", path, i)
	}
	for _, defs := range [2][]Def{x.Scope, x.Defines} {
		for _, d := range defs {
			if !utf8.ValidString(d.Kind) || !utf8.ValidString(d.Name) {
				return fmt.Errorf("%s: the name of a definition on line %d is not valid UTF-8", path, d.Line)
			}
		}
	}
	return nil
}

// overlapping reports whether some span starts before the previous ended.
func overlapping(spans []chunk.Span) bool {
	for i := 1; i < len(spans); i++ {
		if spans[i].Start < spans[i-1].End {
			return true
		}
	}
	return false
}

// countSize is chunk.Size with the escaper's table for ASCII: the same
// count, at the speed of a table lookup for most bytes.
func countSize(b []byte) int {
	n := 0
	for i := 0; i < len(b); {
		if c := b[i]; c < utf8.RuneSelf {
			n += int(asciiClass[c] & clsNonSpace)
			i++
			continue
		}
		r, w := utf8.DecodeRune(b[i:])
		if !unicode.IsSpace(r) {
			n++
		}
		i += w
	}
	return n
}

// Next appends the record of the next span to dst; ok is false when every
// span was written.
func (e *Encoder) Next(dst []byte) (out []byte, ok bool, err error) {
	c := e.nextChunk()
	if c == nil {
		return dst, false, nil
	}
	orig := len(dst)
	if dst, err = e.appendChunk(dst, c); err != nil {
		return dst[:orig], false, err
	}
	return dst, true, nil
}

// nextChunk moves on to the next span and returns its chunk (the encoder's
// own, valid until the next call): the values a record holds, for formats
// that store them unencoded (Field.Raw). nil when every span was read.
func (e *Encoder) nextChunk() *Chunk {
	if e.next >= len(e.spans) {
		return nil
	}
	src, s := e.file.Src, e.spans[e.next]
	// Line cursor: curLine is the line of byte curPos. Starts never
	// decrease, so it only moves forward (linear in the file); end lines
	// are counted inside each chunk, linear in the output.
	e.curLine += bytes.Count(src[e.curPos:s.Start], newline)
	e.curPos = s.Start
	c := &e.chunk
	c.Index, c.StartByte, c.EndByte, c.Size = e.next, s.Start, s.End, s.Size
	c.StartLine = e.curLine
	c.EndLine = e.curLine + bytes.Count(src[s.Start:s.End-1], newline)
	c.Ranges, c.Content = s.Pieces, src[s.Start:s.End]
	if s.Pieces == nil {
		e.whole[0] = chunk.Piece{Start: s.Start, End: s.End}
		c.Ranges = e.whole[:]
	} else {
		e.text = s.AppendText(e.text[:0], src)
		c.Content = e.text
	}
	c.Language = e.file.LanguageAt(s.Start, s.End)
	e.langs = e.file.LanguagesOf(e.langs, c.Ranges, c.Language)
	c.Languages = e.langs
	if e.file.Extras != nil {
		c.Extra = &e.file.Extras[e.next]
	}
	header := ""
	if e.idHeader {
		header = c.Extra.Header
	}
	e.id = e.appendID(e.id[:0], header, c.Content)
	c.ID = e.id
	e.next++
	return c
}

// End lets go of the current file, so the encoder does not pin its bytes.
func (e *Encoder) End() {
	e.file, e.chunk, e.spans = File{}, Chunk{}, nil
	if cap(e.text) > maxKeptText {
		e.text = nil
	}
}

// maxKeptText is the largest buffer for a chunk of pieces' text kept for
// the next file.
const maxKeptText = 1 << 20

// schema is the encoder's schema: Default() when it has none.
func (e *Encoder) schema() *Schema {
	if e.Schema == nil {
		return Default()
	}
	return e.Schema
}

// planFile lays out the records of the current file: the per-file fields
// are escaped once here, not once per record.
func (e *Encoder) planFile() error {
	schema := e.schema()
	e.plan, e.lits = e.plan[:0], e.lits[:0]
	from := 0
	e.chunk = Chunk{File: &e.file}
	for _, fd := range schema.fields {
		if fd.Omit != nil && fd.Omit(&e.file) {
			continue // not in this file's records
		}
		if len(e.lits) == 0 {
			e.lits = append(e.lits, '{')
		} else {
			e.lits = append(e.lits, ',')
		}
		e.lits = append(strconv.AppendQuote(e.lits, fd.Name), ':')
		if !fd.PerFile {
			e.plan = append(e.plan, step{lit: [2]int{from, len(e.lits)}}, step{field: fd})
			from = len(e.lits)
			continue
		}
		var err error
		if e.lits, err = fd.Append(e.lits, &e.chunk); err != nil {
			return err
		}
	}
	e.lits = append(e.lits, '}', '\n')
	e.plan = append(e.plan, step{lit: [2]int{from, len(e.lits)}})
	return nil
}

// appendChunk writes one record by the plan.
func (e *Encoder) appendChunk(dst []byte, c *Chunk) ([]byte, error) {
	for _, s := range e.plan {
		if s.field == nil {
			dst = append(dst, e.lits[s.lit[0]:s.lit[1]]...)
			continue
		}
		var err error
		if dst, err = s.field.Append(dst, c); err != nil {
			return dst, err
		}
	}
	return dst, nil
}

var newline = []byte{'\n'}

// textField is the field that holds what is embedded, when a schema has it.
const textField = "text"

// appendID appends the hex id of the next chunk of the current file, whose
// embedded text is header followed by content, and counts its occurrence.
func (e *Encoder) appendID(dst []byte, header string, content []byte) []byte {
	e.h.Reset()
	e.h.Write(e.prefix)
	e.hdr = append(e.hdr[:0], header...)
	e.h.Write(e.hdr)
	e.h.Write(content)
	key := [sha256.Size]byte(e.h.Sum(e.sum[:0])) // Sum leaves the state as is
	k := e.seen[key]
	e.seen[key] = k + 1
	e.num = strconv.AppendInt(append(e.num[:0], 0), int64(k), 10)
	e.h.Write(e.num)
	return hex.AppendEncode(dst, e.h.Sum(e.sum[:0])[:IDLen/2])
}

func spanError(path string, i int, s chunk.Span, prevStart, n int) error {
	switch {
	case s.End <= s.Start:
		return fmt.Errorf("%s: chunk %d is empty or reversed [%d,%d)", path, i, s.Start, s.End)
	case s.Start < 0 || s.End > n:
		return fmt.Errorf("%s: chunk %d [%d,%d) lies outside the file's %d bytes", path, i, s.Start, s.End, n)
	default:
		return fmt.Errorf("%s: chunk %d starts at byte %d, before chunk %d (at %d): spans must be sorted by start",
			path, i, s.Start, i-1, prevStart)
	}
}

var encoders = sync.Pool{New: func() any { return new(Encoder) }}

// AppendFile is Encoder.AppendFile with an encoder from a pool, for callers
// that do not keep one per worker.
func AppendFile(dst []byte, f File, spans []chunk.Span) ([]byte, error) {
	e := encoders.Get().(*Encoder)
	dst, err := e.AppendFile(dst, f, spans)
	encoders.Put(e)
	return dst, err
}

// AppendRecord appends r as the encoder writes it: the same plan as
// AppendFile, fed from a decoded record instead of spans (the numbers, the
// id and the size are written as they are, not recomputed). Tools that
// pass records through use it, and tests compare it with AppendFile.
func (e *Encoder) AppendRecord(dst []byte, r *Record) ([]byte, error) {
	e.file = File{Repo: r.Repo, Path: r.Path, Language: r.Language, Method: r.Method, Pieces: r.Ranges != nil}
	if r.HostLanguage != "" {
		// The record's own language is that of a region holding it.
		e.file.Language = r.HostLanguage
		e.file.Src = []byte(r.Content)
		e.file.Regions = []Region{{Start: 0, End: len(r.Content), To: len(r.Content), Language: r.Language}}
	}
	if r.HasCell {
		e.file.Src = []byte(r.Content)
		e.file.Cells = []NotebookCell{{Start: r.StartByte, End: r.EndByte, Index: r.Cell}}
		if r.HasEndCell && r.EndCell != r.Cell && r.EndByte > r.StartByte {
			// Two cells: the chunk's last byte is in the other.
			e.file.Cells = []NotebookCell{{Start: r.StartByte, End: r.EndByte - 1, Index: r.Cell}, {Start: r.EndByte - 1, End: r.EndByte, Index: r.EndCell}}
		}
	}
	defer e.End()
	if err := e.planFile(); err != nil {
		return dst, err
	}
	e.chunk = Chunk{
		File: &e.file, Index: r.Index, StartLine: r.StartLine, EndLine: r.EndLine,
		StartByte: r.StartByte, EndByte: r.EndByte, Ranges: r.Ranges, Size: r.Size,
		Content: []byte(r.Content), ID: []byte(r.ID), Language: r.Language, Languages: r.Languages,
	}
	if r.Languages == nil { // a record of an older castchunk: what it says of itself
		e.chunk.Languages = []string{r.Language}
	}
	orig := len(dst)
	dst, err := e.appendChunk(dst, &e.chunk)
	if err != nil {
		return dst[:orig], err
	}
	return dst, nil
}
