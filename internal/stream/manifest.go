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
	Records              // records: a first line with an "id" (or one too long to tell: the record reader says what is wrong)
	Manifest             // a --manifest: a first line with "path" and "status" and no "id"
)

// NeitherError is Sniff's error for an input whose first line is neither
// a record nor a manifest entry: the caller cannot tell which it is meant
// to be, so it says so rather than guess.
type NeitherError struct{ Line int }

func (e *NeitherError) Error() string {
	return fmt.Sprintf(`line %d is neither a record (no "id") nor a manifest entry ("path" and "status")`, e.Line)
}

// sniffSize is how much of an input Sniff reads: a record's first keys, a
// manifest entry's path and status, come well before it.
const sniffSize = 64 << 10

// Sniff tells what r holds from its first line's keys and returns a
// reader of all of r (what Sniff read included). A first line Sniff reads
// whole that is neither a record nor a manifest entry is a *NeitherError.
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
	switch {
	case slices.Contains(keys, "id"):
		return Records, br, nil
	case slices.Contains(keys, "path") && slices.Contains(keys, "status"):
		return Manifest, br, nil
	}
	start := len(head) - len(bytes.TrimLeft(head, " \t\r\n"))
	if err == nil && bytes.IndexByte(head[start:], '\n') < 0 {
		return Records, br, nil // a first line longer than head: the record reader tells
	}
	return Empty, nil, &NeitherError{Line: 1 + bytes.Count(head[:start], []byte("\n"))}
}

// maxManifestLine is the longest manifest line read: an entry is a path,
// a status, a language, a method and a note.
const maxManifestLine = 1 << 20

// manifestInput reads one manifest an entry at a time, checking that the
// paths come in order, each once.
type manifestInput struct {
	name     string
	statuses []string // the statuses an entry may have
	br       *bufio.Reader
	line     []byte // the current entry's line, '\n' included; nil at the end
	key      string // its path as chunk sorted it
	n        int    // its line number
	buf      []byte
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
		key, err := manifestKey(m.buf, m.statuses)
		if err != nil {
			return fmt.Errorf("%s: line %d: %v", m.name, m.n, err)
		}
		if m.line != nil && key <= m.key {
			what := "entries are not in path order"
			if key == m.key {
				what = "a path is listed twice"
			}
			return fmt.Errorf("%s: line %d: %s (%q after %q): give manifests of castchunk chunk, or of merge", m.name, m.n, what, keyName(key), keyName(m.key))
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

// manifestKey checks that line is a manifest entry with one of the
// statuses and returns its key as chunk sorts it (fileKey: the path, after
// the repository's name in a repository's entry): a name that is not
// UTF-8 is written in Go's quoted form, but sorted by its bytes.
func manifestKey(line []byte, statuses []string) (string, error) {
	var e struct {
		Repo   *string         `json:"repo"`
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
	case !slices.Contains(statuses, *e.Status):
		return "", fmt.Errorf("unknown status %q: castchunk chunk writes %s", *e.Status, quotedList(statuses))
	}
	repo := ""
	if e.Repo != nil {
		repo = *e.Repo
	}
	if raw, err := strconv.Unquote(*e.Path); err == nil && !utf8.ValidString(raw) {
		return fileKey(repo, raw), nil
	}
	return fileKey(repo, *e.Path), nil
}

// quotedList is "a", "b" or "c", for messages.
func quotedList(words []string) string {
	var b bytes.Buffer
	for i, w := range words {
		switch {
		case i == len(words)-1 && i > 0:
			b.WriteString(" or ")
		case i > 0:
			b.WriteString(", ")
		}
		b.WriteString(strconv.Quote(w))
	}
	return b.String()
}

// MergeManifests writes the entries of the manifests (chunk --manifest of
// the shards of one run), each in path order, to w in path order: byte for
// byte the manifest of the unsharded run. A path in two inputs is an
// error, as it is for records, and so is a status not among statuses (the
// ones chunk writes). Memory: one line per input.
func MergeManifests(inputs []io.Reader, names, statuses []string, w io.Writer) error {
	h := &manifestHeap{}
	for i, r := range inputs {
		m := &manifestInput{name: names[i], statuses: statuses, br: bufio.NewReader(r)}
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
			return fmt.Errorf("%q is in both %s and %s: merge takes manifests that share no file (the shards of one run)", keyName(key), m.name, (*h)[0].name)
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
