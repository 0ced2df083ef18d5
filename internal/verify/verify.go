// Package verify checks chunk records against the files they name: the
// proof, for a CI step, that an index was built from exact chunks. It holds
// one file at a time, so memory is bounded by the largest file however many
// records stream through.
package verify

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"

	"github.com/castchunk/castchunk/internal/chunk"
	"github.com/castchunk/castchunk/internal/method"
	"github.com/castchunk/castchunk/internal/record"
)

// Problem is one thing wrong with one record (Index -1: with the file).
type Problem struct {
	Path    string
	Index   int
	Message string
}

func (p Problem) String() string {
	if p.Index < 0 {
		return fmt.Sprintf("%s: %s", p.Path, p.Message)
	}
	return fmt.Sprintf("%s: chunk %d: %s", p.Path, p.Index, p.Message)
}

// Verifier checks a stream of records, one at a time, in output order.
type Verifier struct {
	Root   string // directory the record paths are relative to
	Budget int    // > 0: every size must be at most this
	Report func(Problem)

	Records, Files, Problems int

	seen map[string]bool // files whose records are done
	cur  *file
}

// file is the state of the file whose records are streaming.
type file struct {
	path       string
	data       []byte
	unreadable bool
	records    int           // records of this file checked so far
	method     *chunk.Method // the method of its first record
	next       int           // index expected next
	prevStart  int
	covered    int // end of the text covered so far
	line       int // line number at lineAt
	lineAt     int
	repeats    map[[sha256.Size]byte]int // content hash -> chunks so far with it
}

// Add checks one record.
func (v *Verifier) Add(r *record.Record) {
	v.Records++
	if v.cur == nil || v.cur.path != r.Path {
		v.Finish()
		v.open(r.Path)
	}
	f := v.cur
	if f.unreadable {
		return
	}
	if err := r.Check(); err != nil {
		v.problem(r, err.Error())
	}
	v.checkMethod(f, r)
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
	if !bytes.Equal(f.data[r.StartByte:r.EndByte], []byte(r.Content)) {
		v.problem(r, fmt.Sprintf("content differs from the file's bytes [%d,%d)", r.StartByte, r.EndByte))
	}
	if want := f.lineOf(r.StartByte); r.StartLine != want {
		v.problem(r, fmt.Sprintf("start_line is %d, byte %d is on line %d", r.StartLine, r.StartByte, want))
	}
	if v.Budget > 0 && r.Size > v.Budget {
		v.problem(r, fmt.Sprintf("size %d is over the budget of %d", r.Size, v.Budget))
	}
	v.checkID(f, r)
	v.checkTiling(f, r)
}

// checkTiling checks that the chunks cover the file in order: no gap ever,
// and no overlap except between sliding windows that are meant to share
// lines.
func (v *Verifier) checkTiling(f *file, r *record.Record) {
	first := f.records == 0
	f.records++
	switch {
	case first && r.StartByte != 0:
		v.problem(r, fmt.Sprintf("the file's first chunk starts at byte %d, not 0", r.StartByte))
	case !first && r.StartByte > f.covered:
		v.problem(r, fmt.Sprintf("bytes [%d,%d) are in no chunk", f.covered, r.StartByte))
	case !first && r.StartByte < f.covered && (f.method == nil || !f.method.MayOverlap || r.StartByte <= f.prevStart):
		v.problem(r, fmt.Sprintf("overlaps the previous chunk by %d bytes", f.covered-r.StartByte))
	}
	f.prevStart = r.StartByte
	f.covered = max(f.covered, r.EndByte)
}

// checkMethod checks that the record names a method castchunk has, and
// the method of the file's other records: the tiling rule is the method's,
// so a relabelled record must not slip an overlap through.
func (v *Verifier) checkMethod(f *file, r *record.Record) {
	m := method.ByName(r.Method)
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

// checkID recomputes the id from the README's recipe; ids that follow it
// are unique, since (path, content, repeat count) is.
func (v *Verifier) checkID(f *file, r *record.Record) {
	h := sha256.Sum256([]byte(r.Content))
	k := f.repeats[h]
	f.repeats[h] = k + 1
	if want := record.ID(r.Path, []byte(r.Content), k); r.ID != want {
		v.problem(r, fmt.Sprintf("id is %s, the recipe gives %s (duplicated or altered record?)", r.ID, want))
	}
}

// Finish completes the checks of the file under way: no chunk may be
// missing at its end. Call it after the last record.
func (v *Verifier) Finish() {
	f := v.cur
	if f == nil {
		return
	}
	v.cur = nil
	if !f.unreadable && f.covered != len(f.data) {
		v.fileProblem(f.path, fmt.Sprintf("chunks end at byte %d, the file has %d bytes: chunks are missing at the end", f.covered, len(f.data)))
	}
}

func (v *Verifier) open(path string) {
	if v.seen == nil {
		v.seen = map[string]bool{}
	}
	if v.seen[path] {
		v.fileProblem(path, "its records are not together: the file appeared earlier in the stream")
	}
	v.seen[path] = true
	v.Files++
	f := &file{path: path, line: 1, repeats: map[[sha256.Size]byte]int{}}
	v.cur = f
	name := filepath.FromSlash(path)
	if !filepath.IsAbs(name) { // records of `castchunk chunk /abs/dir` name absolute paths
		name = filepath.Join(v.Root, name)
	}
	data, err := os.ReadFile(name)
	if err != nil {
		f.unreadable = true
		v.fileProblem(path, fmt.Sprintf("cannot read the file: %v", err))
		return
	}
	f.data = data
}

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
		v.Report(Problem{Path: r.Path, Index: r.Index, Message: msg})
	}
}

func (v *Verifier) fileProblem(path, msg string) {
	v.Problems++
	if v.Report != nil {
		v.Report(Problem{Path: path, Index: -1, Message: msg})
	}
}
