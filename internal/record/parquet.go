package record

import (
	"fmt"
	"io"
	"reflect"
	"strconv"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress"
	"github.com/parquet-go/parquet-go/compress/zstd"

	"github.com/castchunk/castchunk/internal/chunk"
)

// The Parquet format: one file, one row per record, one column per field of
// the run's schema, named and ordered as the schema's fields, all required
// (never null):
//
//	String  BYTE_ARRAY, logical type STRING (UTF-8)
//	Int     INT64, logical type INT(64, signed)
//	Defs    LIST of STRUCT{kind STRING, name STRING, line INT64}: the
//	        standard three-level list (`group (LIST) { repeated group list
//	        { required group element {...} } }`), an empty list for none
//	Strings LIST of STRING, the same three-level list, the strings
//	        dictionary-encoded
//	Ranges  LIST of STRUCT{start INT64, end INT64}, the same list, an
//	        empty list for a record without ranges
//
// Columns are zstd-compressed (level 3: about a fifth of the JSON Lines'
// size, where snappy gives a quarter), in version 1 data pages and only the
// encodings every reader knows: the per-file strings (path, language,
// method) and the definitions' kinds and names are dictionary-encoded, the
// other columns PLAIN (parquet-go's default for strings,
// DELTA_LENGTH_BYTE_ARRAY, is no smaller once compressed and older Spark
// readers lack it). Statistics (min and max) are written for every column except the
// per-chunk strings (id, content, text), whose bounds would only bloat the
// footer. Rows are gathered in row groups of about rowGroupBytes of values,
// so memory stays bounded by one row group however large the output; the
// footer is written by Close.

const (
	// rowGroupBytes is the size of the values (string bytes, 8 bytes per
	// integer) after which a row group is closed. The writer holds the
	// current row group, compressed, until then.
	rowGroupBytes = 64 << 20
	// batchRows and batchBytes bound the rows gathered before they are
	// handed to the Parquet writer, which copies them into its columns.
	batchRows  = 512
	batchBytes = 1 << 20
	// dictBytes bounds a column's dictionary in a row group; past it the
	// column's pages fall back to PLAIN.
	dictBytes = 8 << 20
)

// parquetDef is a definition as the Parquet schema declares it.
type parquetDef struct {
	Kind string `parquet:"kind,dict"`
	Name string `parquet:"name,dict"`
	Line int64  `parquet:"line"`
}

// parquetRange is a range (chunk.Piece) as the Parquet schema declares it.
type parquetRange struct {
	Start int64 `parquet:"start"`
	End   int64 `parquet:"end"`
}

// parquetSchema returns the Parquet schema of the records of s: the message
// "castchunk", one field per record field, in order.
func parquetSchema(s *Schema) (*parquet.Schema, error) {
	if s == nil {
		return nil, fmt.Errorf("record: no schema")
	}
	sf := make([]reflect.StructField, len(s.fields))
	for i, f := range s.fields {
		for _, r := range f.Name {
			if !('a' <= r && r <= 'z' || '0' <= r && r <= '9' || r == '_') {
				return nil, fmt.Errorf("record: field %q: a Parquet column name must be lowercase letters, digits and _", f.Name)
			}
		}
		tag, elem := f.Name, ""
		var t reflect.Type
		switch f.Type {
		case String:
			t = reflect.TypeFor[string]()
			if f.PerFile || f.Dict {
				tag += ",dict"
			}
		case Int:
			t = reflect.TypeFor[int64]()
		case Defs:
			t, tag = reflect.TypeFor[[]parquetDef](), tag+",list"
		case Strings:
			t, tag, elem = reflect.TypeFor[[]string](), tag+",list", ` parquet-element:",dict"`
		case Ranges:
			t, tag = reflect.TypeFor[[]parquetRange](), tag+",list"
		default:
			return nil, fmt.Errorf("record: field %q: no Parquet type for %v", f.Name, f.Type)
		}
		sf[i] = reflect.StructField{Name: "F" + strconv.Itoa(i), Type: t, Tag: reflect.StructTag(`parquet:"` + tag + `"` + elem)}
	}
	model := reflect.New(reflect.StructOf(sf)).Interface()
	return parquet.NewSchema("castchunk", parquet.SchemaOf(model)), nil
}

// pq writes one Parquet file.
type pq struct {
	w      *parquet.Writer
	fields []*Field
	col    []int // the first leaf column of each field
	enc    Encoder

	cell  Cell
	rows  []parquet.Row // the batch; rows[:n] are filled
	n     int
	arena []byte // the batch's string bytes, which its values point into
	group int    // bytes of values in the current row group, batch included

	groupBytes int // close a row group at this many bytes of values
}

// pqConfig is how a Parquet file is written: the format uses defaultPQ,
// tests vary it.
type pqConfig struct {
	codec      compress.Codec
	groupBytes int // rowGroupBytes
}

var defaultPQ = pqConfig{codec: &zstd.Codec{Level: zstd.SpeedDefault}, groupBytes: rowGroupBytes}

func newParquet(w io.Writer, s *Schema) (Writer, error) { return newParquetWith(w, s, defaultPQ) }

func newParquetWith(w io.Writer, s *Schema, cfg pqConfig) (*pq, error) {
	ps, err := parquetSchema(s)
	if err != nil {
		return nil, err
	}
	opts := []parquet.WriterOption{
		ps,
		parquet.Compression(cfg.codec),
		parquet.DataPageVersion(1),
		parquet.DefaultEncodingFor(parquet.ByteArray, &parquet.Plain),
		parquet.DictionaryMaxBytes(dictBytes),
	}
	p := &pq{fields: s.fields, col: make([]int, len(s.fields)), enc: Encoder{Schema: s}, groupBytes: cfg.groupBytes}
	col := 0
	for i, f := range s.fields {
		p.col[i] = col
		switch f.Type {
		case Defs:
			col += 3
			continue
		case Ranges:
			col += 2
			continue
		}
		if f.Type == String && !f.PerFile && !f.Dict {
			opts = append(opts, parquet.SkipPageStatistics(f.Name), parquet.SkipPageBounds(f.Name))
		}
		col++
	}
	p.w = parquet.NewWriter(w, opts...)
	return p, nil
}

// WriteFile checks the file's spans (Encoder.Begin), then adds its records
// to the batch. Begin checked everything a record's values need, so a file
// is refused whole or written whole.
func (p *pq) WriteFile(f File, spans []chunk.Span) error {
	if err := p.enc.Begin(f, spans); err != nil {
		return &EncodeError{err}
	}
	defer p.enc.End()
	// Begin leaves no field's Raw an error to return; should a field's
	// still fail, the file's rows still in the batch are dropped.
	start, startArena := p.n, len(p.arena)
	for c := p.enc.nextChunk(); c != nil; c = p.enc.nextChunk() {
		if p.n == len(p.rows) {
			p.rows = append(p.rows, nil)
		}
		before := len(p.arena)
		row, err := p.appendRow(p.rows[p.n][:0], c)
		p.rows[p.n] = row
		if err != nil {
			if start >= 0 {
				p.n, p.arena = start, p.arena[:startArena]
			}
			return &EncodeError{err}
		}
		p.n++
		p.group += len(p.arena) - before + 8*len(row)
		if p.n >= batchRows || len(p.arena) >= batchBytes || p.group >= p.groupBytes {
			if err := p.flushBatch(); err != nil {
				return err
			}
			start = -1
		}
	}
	return nil
}

// appendRow appends the values of chunk c's record to row, column by
// column; string values point into the arena.
func (p *pq) appendRow(row parquet.Row, c *Chunk) (parquet.Row, error) {
	for i, f := range p.fields {
		col := p.col[i]
		from := len(p.arena)
		p.cell = Cell{Str: p.arena}
		err := f.Raw(&p.cell, c)
		p.arena = p.cell.Str
		if err != nil {
			return row, err
		}
		switch f.Type {
		case String:
			row = append(row, parquet.ByteArrayValue(p.arena[from:len(p.arena):len(p.arena)]).Level(0, 0, col))
		case Int:
			row = append(row, parquet.Int64Value(int64(p.cell.Int)).Level(0, 0, col))
		case Defs:
			row = p.appendDefs(row, p.cell.Defs, col)
		case Strings:
			row = p.appendStrings(row, p.cell.Strs, col)
		case Ranges:
			row = appendPQRanges(row, p.cell.Pieces, col)
		}
	}
	p.cell = Cell{}
	return row, nil
}

// appendDefs appends a list of definitions: its three leaf columns (kind,
// name, line) one after the other, each with one value per definition, at
// repetition level 0 for the first and 1 for the next, definition level 1;
// an empty list is one null per column at levels 0.
func (p *pq) appendDefs(row parquet.Row, defs []Def, col int) parquet.Row {
	if len(defs) == 0 {
		for k := range 3 {
			row = append(row, parquet.NullValue().Level(0, 0, col+k))
		}
		return row
	}
	for k := range 3 {
		for i, d := range defs {
			rep := min(i, 1)
			var v parquet.Value
			switch k {
			case 0, 1:
				s := d.Kind
				if k == 1 {
					s = d.Name
				}
				from := len(p.arena)
				p.arena = append(p.arena, s...)
				v = parquet.ByteArrayValue(p.arena[from:len(p.arena):len(p.arena)])
			case 2:
				v = parquet.Int64Value(int64(d.Line))
			}
			row = append(row, v.Level(rep, 1, col+k))
		}
	}
	return row
}

// appendPQRanges appends a list of ranges, as appendDefs does a list of
// definitions with two leaf columns (start, end).
func appendPQRanges(row parquet.Row, ranges []chunk.Piece, col int) parquet.Row {
	if len(ranges) == 0 {
		return append(row, parquet.NullValue().Level(0, 0, col), parquet.NullValue().Level(0, 0, col+1))
	}
	for k := range 2 {
		for i, r := range ranges {
			v := r.Start
			if k == 1 {
				v = r.End
			}
			row = append(row, parquet.Int64Value(int64(v)).Level(min(i, 1), 1, col+k))
		}
	}
	return row
}

// appendStrings appends a list of strings, as appendDefs does a list of
// definitions with one leaf column.
func (p *pq) appendStrings(row parquet.Row, strs []string, col int) parquet.Row {
	if len(strs) == 0 {
		return append(row, parquet.NullValue().Level(0, 0, col))
	}
	for i, s := range strs {
		from := len(p.arena)
		p.arena = append(p.arena, s...)
		row = append(row, parquet.ByteArrayValue(p.arena[from:len(p.arena):len(p.arena)]).Level(min(i, 1), 1, col))
	}
	return row
}

// flushBatch hands the batch to the Parquet writer, and closes the row
// group when it is big enough.
func (p *pq) flushBatch() error {
	if p.n > 0 {
		if _, err := p.w.WriteRows(p.rows[:p.n]); err != nil {
			return err
		}
	}
	p.n, p.arena = 0, p.arena[:0]
	if cap(p.arena) > 4*batchBytes {
		p.arena = nil // one huge record should not stay pinned
	}
	if p.group >= p.groupBytes {
		p.group = 0
		return p.w.Flush()
	}
	return nil
}

// Close writes the last rows, the last row group and the footer.
func (p *pq) Close() error {
	if err := p.flushBatch(); err != nil {
		return err
	}
	return p.w.Close()
}
