package stream

import (
	"bufio"
	"bytes"
	"container/heap"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"unicode/utf8"
)

// Kind is what an output of castchunk chunk holds, as its first line tells.
type Kind int

// Kinds.
const (
	Empty    Kind = iota // nothing but white space: either kind
	Records              // records (a first line with an "id", or anything else: the record reader says what is wrong)
	Manifest             // a --manifest: a first line with "path" and "status" and no "id"
)

// sniffSize is how much of an input Sniff reads: a record's first keys, a
// manifest entry's path and status, come well before it.
const sniffSize = 64 << 10

// Sniff tells what r holds from its first line's keys and returns a
// reader of all of r (what Sniff read included).
func Sniff(r io.Reader) (Kind, io.Reader, error) {
	br := bufio.NewReaderSize(r, sniffSize)
	head, err := br.Peek(sniffSize)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return Empty, nil, err
	}
	if len(bytes.TrimSpace(head)) == 0 {
		return Empty, br, nil
	}
	keys := appendKeys(nil, head) // the first object's keys, as far as head holds it
	if !slices.Contains(keys, "id") && slices.Contains(keys, "path") && slices.Contains(keys, "status") {
		return Manifest, br, nil
	}
	return Records, br, nil
}

// maxManifestLine is the longest manifest line read: an entry is a path,
// a status, a language, a method and a note.
const maxManifestLine = 1 << 20

// manifestInput reads one manifest an entry at a time, checking that the
// paths come in order, each once.
type manifestInput struct {
	name string
	br   *bufio.Reader
	line []byte // the current entry's line, '\n' included; nil at the end
	key  string // its path as chunk sorted it
	n    int    // its line number
	buf  []byte
}

// next reads the next entry.
func (m *manifestInput) next() error {
	for {
		m.n++
		var err error
		m.buf, err = readLine(m.br, m.buf[:0])
		if err == io.EOF && len(m.buf) == 0 {
			m.line = nil
			return nil
		}
		if err != nil && err != io.EOF {
			return fmt.Errorf("read %s: line %d: %w", m.name, m.n, err)
		}
		if len(bytes.TrimSpace(m.buf)) == 0 {
			continue
		}
		key, err := manifestKey(m.buf)
		if err != nil {
			return fmt.Errorf("%s: line %d: %v", m.name, m.n, err)
		}
		if m.line != nil && key <= m.key {
			what := "entries are not in path order"
			if key == m.key {
				what = "a path is listed twice"
			}
			return fmt.Errorf("%s: line %d: %s (%q after %q): give manifests of castchunk chunk, or of merge", m.name, m.n, what, key, m.key)
		}
		m.line = append(append(m.line[:0], bytes.TrimSuffix(m.buf, []byte("\n"))...), '\n')
		m.key = key
		return nil
	}
}

// readLine appends one line of br to buf, '\n' included; a line over
// maxManifestLine is an error.
func readLine(br *bufio.Reader, buf []byte) ([]byte, error) {
	for {
		part, err := br.ReadSlice('\n')
		buf = append(buf, part...)
		if len(buf) > maxManifestLine {
			return buf, fmt.Errorf("line longer than %d bytes: not a manifest entry", maxManifestLine)
		}
		if err != bufio.ErrBufferFull {
			return buf, err
		}
	}
}

// manifestKey checks that line is a manifest entry and returns its path as
// chunk sorts it: a name that is not UTF-8 is written in Go's quoted form,
// but sorted by its bytes.
func manifestKey(line []byte) (string, error) {
	var e struct {
		Path   *string         `json:"path"`
		Status *string         `json:"status"`
		ID     json.RawMessage `json:"id"`
	}
	if err := json.Unmarshal(line, &e); err != nil {
		return "", fmt.Errorf("not a manifest entry: %v", err)
	}
	switch {
	case e.ID != nil:
		return "", errors.New(`a record ("id"), not a manifest entry: merge records and manifests apart`)
	case e.Path == nil || e.Status == nil:
		return "", errors.New(`not a manifest entry: "path" and "status" are needed`)
	}
	if raw, err := strconv.Unquote(*e.Path); err == nil && !utf8.ValidString(raw) {
		return raw, nil
	}
	return *e.Path, nil
}

// MergeManifests writes the entries of the manifests (chunk --manifest of
// the shards of one run), each in path order, to w in path order: byte for
// byte the manifest of the unsharded run. A path in two inputs is an
// error, as it is for records. Memory: one line per input.
func MergeManifests(inputs []io.Reader, names []string, w io.Writer) error {
	h := &manifestHeap{}
	for i, r := range inputs {
		m := &manifestInput{name: names[i], br: bufio.NewReader(r)}
		if err := m.next(); err != nil {
			return err
		}
		if m.line != nil {
			heap.Push(h, m)
		}
	}
	var out []byte
	for h.Len() > 0 {
		m := (*h)[0]
		out = append(out[:0], m.line...)
		key := m.key
		if err := m.next(); err != nil {
			return err
		}
		if m.line == nil {
			heap.Pop(h)
		} else {
			heap.Fix(h, 0)
		}
		if h.Len() > 0 && (*h)[0].key == key && (*h)[0] != m {
			return fmt.Errorf("%q is in both %s and %s: merge takes manifests that share no file (the shards of one run)", key, m.name, (*h)[0].name)
		}
		if _, err := w.Write(out); err != nil {
			return err
		}
	}
	return nil
}

// manifestHeap orders inputs by their current entry's path.
type manifestHeap []*manifestInput

func (h manifestHeap) Len() int           { return len(h) }
func (h manifestHeap) Less(i, j int) bool { return h[i].key < h[j].key }
func (h manifestHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *manifestHeap) Push(x any)        { *h = append(*h, x.(*manifestInput)) }
func (h *manifestHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
