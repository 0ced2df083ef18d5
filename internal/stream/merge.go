package stream

import (
	"container/heap"
	"fmt"
	"io"
	"strings"

	"github.com/castchunk/castchunk/internal/method"
)

// Merge writes the files of the inputs, each in path order, to w in path
// order: the k-way merge that puts shards back together, byte for byte as
// the unsharded run writes them. A path found in two inputs is an error
// (shards partition the files), and so are records that cannot come from
// one run (see oneRun). Memory: one file's records per input.
func Merge(inputs []*Reader, w io.Writer) error {
	h := &fileHeap{}
	for _, r := range inputs {
		if err := h.pushNext(r); err != nil {
			return err
		}
	}
	var run oneRun
	var buf []byte
	for h.Len() > 0 {
		top := (*h)[0]
		f := top.file
		if err := run.check(f, top.r.Name()); err != nil {
			return err
		}
		buf = buf[:0]
		for _, line := range f.Lines {
			buf = append(append(buf, line...), '\n')
		}
		if _, err := w.Write(buf); err != nil {
			return err
		}
		heap.Pop(h)
		if err := h.pushNext(top.r); err != nil {
			return err
		}
		if h.Len() > 0 && (*h)[0].file.key == f.key {
			return fmt.Errorf("%q is in both %s and %s: merge takes outputs that share no file (the shards of one run)", fileName(f.Repo, f.Path), top.r.Name(), (*h)[0].r.Name())
		}
	}
	return nil
}

// oneRun checks that the records merged can come from one run of chunk,
// as shards must, with what records say of their run:
//
//   - every record has the same fields (the JSON keys present): --context,
//     --tokenizer and --embed-text add fields to every record of a run;
//   - one method made them, besides the fallback: a file whose method
//     needs a tree and cannot be parsed is chunked with the fallback, so a
//     run may mix the two, but a record of any other method than the
//     fallback shows the run's method, and so do chunks that overlap
//     (sliding windows made with overlap: the fallback's tile the file).
//
// What records do not say (two runs of different budgets, or sliding
// windows without overlap beside a run whose files all fell back) it
// cannot tell.
type oneRun struct {
	fields *sighting // the first record merged
	method *sighting // the first record that shows the run's method
}

// sighting is a record that shows something of its run.
type sighting struct {
	input string
	line  int
	value string // its field set, or the run's method
	why   string // for a method: how the record shows it, a phrase
}

func (s *sighting) String() string { return fmt.Sprintf("%s line %d", s.input, s.line) }

// fallback is the name of the fallback's method.
var fallback = method.Fallback(1).Method.Name

// check checks the records of f, read from input, against the records
// merged before them.
func (o *oneRun) check(f *File, input string) error {
	for i, m := range f.meta {
		line := f.line + i
		if o.fields == nil {
			o.fields = &sighting{input: input, line: line, value: m.fields}
		} else if m.fields != o.fields.value {
			return fmt.Errorf("%s: line %d: the record's fields differ from those of %s: %s; merge takes the shards of one run, made with the same flags (--context, --tokenizer, --embed-text; a repository named by --repo, --repos-from or several repositories as arguments in all or none)",
				input, line, o.fields, fieldsDiff(m.fields, o.fields.value))
		}
		at := sighting{input: input, line: line}
		switch {
		case m.method != "" && m.method != fallback:
			at.value, at.why = m.method, fmt.Sprintf("a chunk made by %s, which only a run of method %s makes (the fallback is %s)", m.method, m.method, fallback)
		case i == f.overlap && i > 0:
			at.value, at.why = m.method, fmt.Sprintf("%s windows that overlap, which only a run of method %s makes (the fallback's windows tile the file)", m.method, m.method)
		default:
			continue
		}
		if o.method == nil {
			o.method = &at
		} else if at.value != o.method.value {
			return fmt.Errorf("%s: line %d: %s, but %s holds %s; merge takes the shards of one run",
				input, at.line, at.why, o.method, o.method.why)
		}
	}
	return nil
}

// fieldsDiff says how field set a differs from b (both sorted,
// NUL-separated).
func fieldsDiff(a, b string) string {
	as, bs := strings.Split(a, "\x00"), strings.Split(b, "\x00")
	has, lacks := missing(as, bs), missing(bs, as)
	var parts []string
	if len(has) > 0 {
		parts = append(parts, "it has "+strings.Join(has, ", "))
	}
	if len(lacks) > 0 {
		parts = append(parts, "it lacks "+strings.Join(lacks, ", "))
	}
	return strings.Join(parts, " and ")
}

// missing returns the elements of a that b lacks, quoted.
func missing(a, b []string) []string {
	var out []string
	for _, s := range a {
		found := false
		for _, t := range b {
			if s == t {
				found = true
				break
			}
		}
		if !found {
			out = append(out, fmt.Sprintf("%q", s))
		}
	}
	return out
}

// head is an input's next file.
type head struct {
	file *File
	r    *Reader
}

// fileHeap orders inputs by their next file's key (repository, path).
type fileHeap []head

func (h fileHeap) Len() int           { return len(h) }
func (h fileHeap) Less(i, j int) bool { return h[i].file.key < h[j].file.key }
func (h fileHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *fileHeap) Push(x any)        { *h = append(*h, x.(head)) }
func (h *fileHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// pushNext reads r's next file onto the heap, if it has one.
func (h *fileHeap) pushNext(r *Reader) error {
	f, err := next(r)
	if err != nil || f == nil {
		return err
	}
	heap.Push(h, head{f, r})
	return nil
}
