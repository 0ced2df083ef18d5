package record

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/castchunk/castchunk/internal/chunk"
)

// Type is the JSON type of a field's value.
type Type int

// Field types.
const (
	String  Type = iota
	Int          // a non-negative integer
	Defs         // an array of definitions: {"kind":"class","name":"App","line":3}
	Strings      // an array of strings: ["markdown","rust"]
	Ranges       // an array of [start, end] pairs of integers: [[0,12],[40,52]]
)

func (t Type) String() string {
	return [...]string{"string", "int", "array", "array", "array"}[t]
}

// Field is one field of a record: the table of fields below is the one
// declaration of the record format. The encoder writes the fields of a
// schema in its order, the decoder reads them by name, and --help and the
// field table of docs/record-format.md are generated from it.
type Field struct {
	Name     string
	Type     Type
	Optional bool // written only when a run asks for it; readers accept records without it
	// Flag is the flag of castchunk chunk (without its dashes) that asks
	// for an optional field; its help begins "with `--FLAG`:".
	Flag    string
	PerFile bool // the same in every record of a file: encoded once per file
	// Omit leaves the field out of the records of the files it returns
	// true for; readers accept records without it. Parquet,
	// whose columns are fixed, stores "" then.
	Omit func(f *File) bool
	// Dict: the values are few (a language name): Parquet stores them in
	// a dictionary, as it does PerFile strings.
	Dict bool
	// NeedsExtra: the value comes from what the run adds to each chunk
	// (File.Extras), so a file without Extras cannot have this field.
	NeedsExtra bool
	Help       string // one sentence for the field table

	// Append appends the field's JSON value for chunk c.
	Append func(dst []byte, c *Chunk) ([]byte, error)
	// Raw stores the field's value for chunk c in v, unencoded, as a
	// columnar format stores it: a String's bytes appended to v.Str, an
	// Int in v.Int, a Defs list in v.Defs.
	Raw func(v *Cell, c *Chunk) error
	// Set stores a decoded value in r.
	Set func(r *Record, v Value)
}

// Value is a decoded field value: Str for a String field (the raw JSON
// text for Defs), Int for an Int, Strs for Strings, Pieces for Ranges.
type Value struct {
	Str    string
	Int    int
	Strs   []string
	Pieces []chunk.Piece
}

// Cell is one field's value as Field.Raw gives it.
type Cell struct {
	Str  []byte   // a String field appends its bytes (valid UTF-8, not escaped)
	Int  int      // an Int field's value
	Defs []Def    // a Defs field's list (nil or empty: none)
	Strs []string // a Strings field's list
	// Pieces is a Ranges field's list (nil or empty: none).
	Pieces []chunk.Piece
}

// Chunk is what the encoder knows of one chunk while it writes its record:
// the view every Field.Append reads.
type Chunk struct {
	File      *File
	Index     int
	StartLine int // 1-based, inclusive
	EndLine   int
	StartByte int // 0-based, half-open
	EndByte   int
	// Ranges are the stretches of the file the chunk holds: its pieces,
	// or [StartByte, EndByte) alone (chunk.Span.Ranges).
	Ranges    []chunk.Piece
	Size      int
	Content   []byte   // the chunk's text: its pieces joined by chunk.Joiner
	ID        []byte   // the id in hex
	Extra     *Extra   // what the run adds; nil when nothing
	Language  string   // File.LanguageAt the chunk
	Languages []string // File.LanguagesAt the chunk: Language first
}

// fields is the record format, in the order records carry them.
var fields = []*Field{
	{Name: "id", Type: String, Help: "32 lowercase hex digits: the first 16 bytes of SHA-256(path, NUL, E, NUL, k), E what is embedded (`text` when the record has it, else `content`), k counting the earlier chunks of the file with the same E; in a record with `repo`, SHA-256(repo, NUL, path, NUL, E, NUL, k). Unique in an output; unchanged while repo, path and E are",
		Append: func(dst []byte, c *Chunk) ([]byte, error) { return append(append(append(dst, '"'), c.ID...), '"'), nil },
		Raw:    rawString(func(c *Chunk) []byte { return c.ID }),
		Set:    func(r *Record, v Value) { r.ID = v.Str }},
	{Name: "repo", Type: String, Optional: true, Flag: "repo", PerFile: true, Dict: true, Help: "the repository the file belongs to (`--repo NAME`, `--repos-from`, or several repositories as arguments: each named by its top folder's name); the id then covers it, and `path` is relative to the repository's top. Absent from the records of a run that names no repository",
		Append: perFileString(func(f *File) string { return f.Repo }),
		Raw:    rawPerFile(func(f *File) string { return f.Repo }),
		Set:    func(r *Record, v Value) { r.Repo, r.HasRepo = v.Str, true }},
	{Name: "path", Type: String, PerFile: true, Help: "the file's path relative to the root (`--root`; default: the top of the git repository, outside git the one folder argument), `/`-separated (`src/a.py`, never `./src/a.py`)",
		Append: func(dst []byte, c *Chunk) ([]byte, error) {
			dst, _, bad := appendString(dst, []byte(c.File.Path))
			if bad >= 0 {
				return dst, &InvalidUTF8Error{Path: c.File.Path, Offset: bad, InPath: true}
			}
			return dst, nil
		},
		Raw: rawPerFile(func(f *File) string { return f.Path }),
		Set: func(r *Record, v Value) { r.Path = v.Str }},
	{Name: "language", Type: String, Dict: true, Help: "the language whose grammar parsed the chunk (`castchunk languages`): the file's, or that of the embedded region the chunk lies in (a Markdown fence's `rust`, an HTML page's `javascript`, a notebook's cell); a notebook's chunk over several cells is in the kernel's language when it holds some of a code cell's text, else `markdown`",
		Append: func(dst []byte, c *Chunk) ([]byte, error) {
			dst, _, bad := appendString(dst, []byte(c.Language))
			if bad >= 0 {
				return dst, fmt.Errorf("%s: %q is not valid UTF-8", c.File.Path, c.Language)
			}
			return dst, nil
		},
		Raw: rawString(func(c *Chunk) []byte { return []byte(c.Language) }),
		Set: func(r *Record, v Value) { r.Language = v.Str }},
	{Name: "host_language", Type: String, PerFile: true, Help: "the file's own language, in every record of a file that has embedded regions (code in another language: Markdown fences, HTML `<script>` and `<style>`); absent from the records of other files (Parquet: empty)",
		Omit:   func(f *File) bool { return len(f.Regions) == 0 },
		Append: perFileString(func(f *File) string { return f.Language }),
		Raw: rawPerFile(func(f *File) string {
			if len(f.Regions) == 0 {
				return ""
			}
			return f.Language
		}),
		Set: func(r *Record, v Value) { r.HostLanguage = v.Str }},
	{Name: "cell", Type: Int, Help: "in the records of a Jupyter notebook only: the index, in the notebook's `cells`, of the cell the chunk starts in (the byte and line numbers count in the notebook's text: its code and Markdown cells' sources, in order; Parquet: -1 elsewhere)",
		Omit:   func(f *File) bool { return len(f.Cells) == 0 },
		Append: intField(func(c *Chunk) int { return c.File.cellAt(c.StartByte) }),
		Raw: rawInt(func(c *Chunk) int {
			if len(c.File.Cells) == 0 {
				return -1
			}
			return c.File.cellAt(c.StartByte)
		}),
		Set: func(r *Record, v Value) { r.Cell, r.HasCell = v.Int, true }},
	{Name: "end_cell", Type: Int, Help: "in the records of a Jupyter notebook only: the index of the cell the chunk ends in, `cell` when it lies in one; small cells are merged, so a chunk holds the cells from `cell` to `end_cell` (raw cells between them are not in the text): `select(.cell <= 7 and 7 <= .end_cell)` finds cell 7 (Parquet: -1 elsewhere)",
		Omit:   func(f *File) bool { return len(f.Cells) == 0 },
		Append: intField(func(c *Chunk) int { return c.File.endCellAt(c.StartByte, c.EndByte) }),
		Raw: rawInt(func(c *Chunk) int {
			if len(c.File.Cells) == 0 {
				return -1
			}
			return c.File.endCellAt(c.StartByte, c.EndByte)
		}),
		Set: func(r *Record, v Value) { r.EndCell, r.HasEndCell = v.Int, true }},
	{Name: "method", Type: String, PerFile: true, Help: "the method that made the chunk: `cast`, `sliding`, `function` or `declaration` (`sliding` also for a file a method of the tree could not parse)",
		Append: perFileString(func(f *File) string { return f.Method }),
		Raw:    rawPerFile(func(f *File) string { return f.Method }),
		Set:    func(r *Record, v Value) { r.Method = v.Str }},
	{Name: "index", Type: Int, Help: "the chunk's ordinal in its file, from 0",
		Append: intField(func(c *Chunk) int { return c.Index }),
		Raw:    rawInt(func(c *Chunk) int { return c.Index }),
		Set:    func(r *Record, v Value) { r.Index = v.Int }},
	{Name: "start_line", Type: Int, Help: "the line of the chunk's first byte, 1-based",
		Append: intField(func(c *Chunk) int { return c.StartLine }),
		Raw:    rawInt(func(c *Chunk) int { return c.StartLine }),
		Set:    func(r *Record, v Value) { r.StartLine = v.Int }},
	{Name: "end_line", Type: Int, Help: "the line of its last byte, inclusive (a chunk ending with `\\n` ends on that line)",
		Append: intField(func(c *Chunk) int { return c.EndLine }),
		Raw:    rawInt(func(c *Chunk) int { return c.EndLine }),
		Set:    func(r *Record, v Value) { r.EndLine = v.Int }},
	{Name: "start_byte", Type: Int, Help: "the offset of its first byte in the file as read, 0-based",
		Append: intField(func(c *Chunk) int { return c.StartByte }),
		Raw:    rawInt(func(c *Chunk) int { return c.StartByte }),
		Set:    func(r *Record, v Value) { r.StartByte = v.Int }},
	{Name: "end_byte", Type: Int, Help: "the offset just past its last byte (half-open)",
		Append: intField(func(c *Chunk) int { return c.EndByte }),
		Raw:    rawInt(func(c *Chunk) int { return c.EndByte }),
		Set:    func(r *Record, v Value) { r.EndByte = v.Int }},
	{Name: "ranges", Type: Ranges, Help: "in the records of a method that makes chunks of several pieces only (`declaration`): the stretches of the file the chunk holds, `[start, end]` byte pairs (half-open), in order and apart, from `start_byte` to `end_byte`; `content` is their bytes joined by one `\\n`. A chunk of one stretch has one pair, `[start_byte, end_byte]`. Absent from the records of other methods (Parquet: an empty list)",
		Omit:   func(f *File) bool { return !f.Pieces },
		Append: appendRanges,
		Raw: func(v *Cell, c *Chunk) error {
			if c.File.Pieces {
				v.Pieces = c.Ranges
			}
			return nil
		},
		Set: func(r *Record, v Value) { r.Ranges = v.Pieces }},
	{Name: "size", Type: Int, Help: "non-whitespace characters (Unicode code points) in `content`: the measure `--max-size` bounds",
		Append: intField(func(c *Chunk) int { return c.Size }),
		Raw:    rawInt(func(c *Chunk) int { return c.Size }),
		Set:    func(r *Record, v Value) { r.Size = v.Int }},
	{Name: "languages", Type: Strings, Dict: true, Help: "every language the chunk holds text of: `language` first, then in the order they first come in the chunk the file's own (when a non-whitespace byte lies outside every embedded region) and each region's whose code holds a non-whitespace byte of the chunk; in every record (a plain file's: `[\"python\"]`; a Markdown section with a small Rust fence: `[\"markdown\",\"rust\"]`)",
		Append: func(dst []byte, c *Chunk) ([]byte, error) {
			dst = append(dst, '[')
			for i, l := range c.Languages {
				if i > 0 {
					dst = append(dst, ',')
				}
				var bad int
				if dst, _, bad = appendString(dst, []byte(l)); bad >= 0 {
					return dst, fmt.Errorf("%s: %q is not valid UTF-8", c.File.Path, l)
				}
			}
			return append(dst, ']'), nil
		},
		Raw: func(v *Cell, c *Chunk) error { v.Strs = c.Languages; return nil },
		Set: func(r *Record, v Value) { r.Languages = v.Strs }},
	{Name: "content", Type: String, Help: "the file's exact bytes `[start_byte, end_byte)`; with `ranges`, the bytes of each range, joined by one `\\n`",
		Append: appendContent,
		Raw:    rawString(func(c *Chunk) []byte { return c.Content }),
		Set:    func(r *Record, v Value) { r.Content = v.Str }},
	{Name: "scope", Type: Defs, Optional: true, Flag: "context", NeedsExtra: true, Help: "the definitions that enclose the chunk's first non-whitespace character and start before it, outermost first, each `{\"kind\",\"name\",\"line\"}`; of a chain deeper than 16, the 4 outermost and the 12 innermost, with an entry of kind `elided` between them whose name is the number left out",
		Append: defsField(func(x *Extra) []Def { return x.Scope }),
		Raw:    rawDefs(func(x *Extra) []Def { return x.Scope }),
		Set:    func(r *Record, v Value) { r.Scope = v.Str }},
	{Name: "defines", Type: Defs, Optional: true, Flag: "context", NeedsExtra: true, Help: "the definitions that start inside the chunk, in order, same shape",
		Append: defsField(func(x *Extra) []Def { return x.Defines }),
		Raw:    rawDefs(func(x *Extra) []Def { return x.Defines }),
		Set:    func(r *Record, v Value) { r.Defines = v.Str }},
	{Name: "tokens", Type: Int, Optional: true, Flag: "tokenizer", NeedsExtra: true, Help: "the tokens of `text` when the record has it, else of `content`",
		Append: func(dst []byte, c *Chunk) ([]byte, error) {
			if c.Extra == nil {
				return dst, errNoExtra
			}
			return strconv.AppendInt(dst, int64(c.Extra.Tokens), 10), nil
		},
		Raw: func(v *Cell, c *Chunk) error {
			if c.Extra == nil {
				return errNoExtra
			}
			v.Int = c.Extra.Tokens
			return nil
		},
		Set: func(r *Record, v Value) { r.Tokens = v.Int }},
	{Name: textField, Type: String, Optional: true, Flag: "embed-text", NeedsExtra: true, Help: "the string to embed, a header (the path on one line, then what `--embed-header` adds: by default the scope as `kind name > kind name` on the next when there is one) followed by `content`; `--max-size` and `--max-tokens` bound it",
		Append: appendText,
		Raw: func(v *Cell, c *Chunk) error {
			if c.Extra == nil {
				return errNoExtra
			}
			v.Str = append(append(v.Str, c.Extra.Header...), c.Content...)
			return nil
		},
		Set: func(r *Record, v Value) { r.Text = v.Str }},
}

// PerFileAbsent reports whether the field named name is one that only some
// files' records have (host_language, cell, end_cell, ranges: Field.Omit),
// so that records of one run may differ by it.
func PerFileAbsent(name string) bool {
	for _, f := range fields {
		if f.Name == name {
			return f.Omit != nil
		}
	}
	return false
}

// errNoExtra is a schema asking for a field the run did not compute: a bug.
var errNoExtra = fmt.Errorf("record: an optional field needs what the run adds to each chunk, and the file has none")

// defsField writes a list of definitions as a JSON array.
func defsField(get func(*Extra) []Def) func([]byte, *Chunk) ([]byte, error) {
	return func(dst []byte, c *Chunk) ([]byte, error) {
		if c.Extra == nil {
			return dst, errNoExtra
		}
		dst = append(dst, '[')
		for i, d := range get(c.Extra) {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = append(dst, `{"kind":`...)
			dst, _, _ = appendString(dst, []byte(d.Kind))
			dst = append(dst, `,"name":`...)
			var bad int
			if dst, _, bad = appendString(dst, []byte(d.Name)); bad >= 0 {
				return dst, fmt.Errorf("%s: the name of a definition on line %d is not valid UTF-8", c.File.Path, d.Line)
			}
			dst = append(dst, `,"line":`...)
			dst = append(strconv.AppendInt(dst, int64(d.Line), 10), '}')
		}
		return append(dst, ']'), nil
	}
}

// appendRanges writes the chunk's ranges as a JSON array of pairs.
func appendRanges(dst []byte, c *Chunk) ([]byte, error) {
	dst = append(dst, '[')
	for i, p := range c.Ranges {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = strconv.AppendInt(append(dst, '['), int64(p.Start), 10)
		dst = append(strconv.AppendInt(append(dst, ','), int64(p.End), 10), ']')
	}
	return append(dst, ']'), nil
}

// appendText writes the embedding text: the header, then the content.
func appendText(dst []byte, c *Chunk) ([]byte, error) {
	if c.Extra == nil {
		return dst, errNoExtra
	}
	dst, _, bad := appendEscaped(append(dst, '"'), []byte(c.Extra.Header))
	if bad >= 0 {
		return dst, fmt.Errorf("%s: the header of chunk %d is not valid UTF-8", c.File.Path, c.Index)
	}
	if dst, _, bad = appendEscaped(dst, c.Content); bad >= 0 {
		return dst, &InvalidUTF8Error{Path: c.File.Path, Offset: c.StartByte + bad}
	}
	return append(dst, '"'), nil
}

// rawString, rawPerFile, rawInt and rawDefs make the Raw of a field: the
// value as it is, which Begin checked (valid UTF-8, Extras present).
func rawString(get func(*Chunk) []byte) func(*Cell, *Chunk) error {
	return func(v *Cell, c *Chunk) error { v.Str = append(v.Str, get(c)...); return nil }
}

func rawPerFile(get func(*File) string) func(*Cell, *Chunk) error {
	return func(v *Cell, c *Chunk) error { v.Str = append(v.Str, get(c.File)...); return nil }
}

func rawInt(get func(*Chunk) int) func(*Cell, *Chunk) error {
	return func(v *Cell, c *Chunk) error { v.Int = get(c); return nil }
}

func rawDefs(get func(*Extra) []Def) func(*Cell, *Chunk) error {
	return func(v *Cell, c *Chunk) error {
		if c.Extra == nil {
			return errNoExtra
		}
		v.Defs = get(c.Extra)
		return nil
	}
}

func perFileString(get func(*File) string) func([]byte, *Chunk) ([]byte, error) {
	return func(dst []byte, c *Chunk) ([]byte, error) {
		s := get(c.File)
		dst, _, bad := appendString(dst, []byte(s))
		if bad >= 0 {
			return dst, fmt.Errorf("%s: %q is not valid UTF-8", c.File.Path, s)
		}
		return dst, nil
	}
}

func intField(get func(*Chunk) int) func([]byte, *Chunk) ([]byte, error) {
	return func(dst []byte, c *Chunk) ([]byte, error) { return strconv.AppendInt(dst, int64(get(c)), 10), nil }
}

// appendContent escapes the content. Encoder.Begin checked that it is
// valid UTF-8 and of the size the span claims; a decoded record's content
// is a Go string from valid JSON, so the check here is the last resort.
func appendContent(dst []byte, c *Chunk) ([]byte, error) {
	dst, _, bad := appendString(dst, c.Content)
	if bad >= 0 {
		return dst, &InvalidUTF8Error{Path: c.File.Path, Offset: c.StartByte + bad}
	}
	return dst, nil
}

// appendString appends s as a JSON string; see appendEscaped.
func appendString(dst, s []byte) ([]byte, int, int) {
	dst, size, bad := appendEscaped(append(dst, '"'), s)
	return append(dst, '"'), size, bad
}

// Schema is an ordered set of fields: what an encoder writes and what a
// decoder knows. It is immutable.
type Schema struct {
	fields []*Field
	byName map[string]int
}

// NewSchema makes a schema of the fields, in order; names must be unique.
func NewSchema(fs ...*Field) (*Schema, error) {
	s := &Schema{fields: fs, byName: make(map[string]int, len(fs))}
	for i, f := range fs {
		if _, dup := s.byName[f.Name]; dup {
			return nil, fmt.Errorf("record: field %q declared twice", f.Name)
		}
		if f.Append == nil || f.Raw == nil || f.Set == nil {
			return nil, fmt.Errorf("record: field %q lacks Append, Raw or Set", f.Name)
		}
		s.byName[f.Name] = i
	}
	return s, nil
}

var defaultSchema = mustSelect()

func mustSelect(optional ...string) *Schema {
	s, err := Select(optional...)
	if err != nil {
		panic(err)
	}
	return s
}

// Select returns the schema of every required field plus the named
// optional ones, in table order.
func Select(optional ...string) (*Schema, error) {
	want := map[string]bool{}
	for _, name := range optional {
		want[name] = true
	}
	var fs []*Field
	for _, f := range fields {
		if !f.Optional || want[f.Name] {
			fs = append(fs, f)
			delete(want, f.Name)
		}
	}
	for name := range want {
		return nil, fmt.Errorf("record: no optional field %q", name)
	}
	return NewSchema(fs...)
}

// Default is the schema of the records castchunk writes unless asked for
// optional fields: every required field.
func Default() *Schema { return defaultSchema }

var allSchema = mustSelect(OptionalFor(func(string) bool { return true })...)

// OptionalFor names the optional fields whose flag asked reports as
// given, in table order: how castchunk chunk turns its flags into a
// schema, from the one table.
func OptionalFor(asked func(flag string) bool) []string {
	var names []string
	for _, f := range fields {
		if f.Optional && asked(f.Flag) {
			names = append(names, f.Name)
		}
	}
	return names
}

// help is the field's sentence for the field table, with the flag that
// asks for it.
func (f *Field) help() string {
	if f.Flag != "" {
		return "with `--" + f.Flag + "`: " + f.Help
	}
	return f.Help
}

// All is the schema of every field, optional ones included: what a reader
// that checks them all knows.
func All() *Schema { return allSchema }

// Fields returns the schema's fields in order.
func (s *Schema) Fields() []*Field { return append([]*Field(nil), s.fields...) }

// Names returns the field names in order.
func (s *Schema) Names() []string {
	names := make([]string, len(s.fields))
	for i, f := range s.fields {
		names[i] = f.Name
	}
	return names
}

// field returns the field of that name and its position; -1 when unknown.
func (s *Schema) field(name string) (*Field, int) {
	i, ok := s.byName[name]
	if !ok {
		return nil, -1
	}
	return s.fields[i], i
}

// Help is the field list for --help: one field per line, name, type and
// meaning, wrapped to width columns.
func (s *Schema) Help(width int) string {
	var b strings.Builder
	for _, f := range s.fields {
		head := fmt.Sprintf("  %-11s %-7s", f.Name, f.Type)
		help := strings.ReplaceAll(f.help(), "`", "")
		if f.Optional {
			help = "(optional) " + help
		}
		b.WriteString(wrap(head, help, width))
	}
	return b.String()
}

// wrap writes head then text, wrapped at width, continuation lines indented
// under the text.
func wrap(head, text string, width int) string {
	var b strings.Builder
	indent := strings.Repeat(" ", len(head)+1)
	line := head
	for _, word := range strings.Fields(text) {
		if len(line)+1+len(word) > width && len(line) > len(indent) {
			b.WriteString(strings.TrimRight(line, " ") + "\n")
			line = indent + word
			continue
		}
		line += " " + word
	}
	b.WriteString(line + "\n")
	return b.String()
}

// Markdown is the field table of docs/record-format.md.
func (s *Schema) Markdown() string {
	var b strings.Builder
	b.WriteString("| field | type | meaning |\n| --- | --- | --- |\n")
	for _, f := range s.fields {
		help := f.help()
		if f.Optional {
			help = "optional: " + help
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s |\n", f.Name, f.Type, strings.ReplaceAll(help, "|", "\\|"))
	}
	return b.String()
}
