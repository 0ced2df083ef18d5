package output

import (
	"cmp"
	"slices"
	"strings"
	"unicode/utf8"
)

// ManifestFile writes chunk --manifest: one entry per file met, in path order,
// to a file replaced atomically like -o (File). Entries known before the
// results (the files the listing could not read, those listed for the
// manifest alone, earlier outputs) are kept pending and merged in by path.
type ManifestFile struct {
	name    string // FILE, for messages
	out     *File
	done    bool            // committed or aborted: Abort does nothing
	pending []ManifestEntry // sorted by path, not yet written
	line    []byte
}

// OpenManifest opens the manifest FILE.
func OpenManifest(name string) (*ManifestFile, error) {
	out, err := Open(name, nil)
	if err != nil {
		return nil, err
	}
	return &ManifestFile{name: name, out: out}, nil
}

// Pending keeps entries to be written in path order among the results
// (an entry given twice is written once).
func (m *ManifestFile) Pending(es []ManifestEntry) {
	if m == nil || len(es) == 0 {
		return
	}
	m.pending = append(m.pending, es...)
	slices.SortStableFunc(m.pending, CompareEntries)
	m.pending = slices.CompactFunc(m.pending, func(a, b ManifestEntry) bool { return a == b })
}

// CompareEntries orders manifest entries as records are: by repository,
// then by path (byte order).
func CompareEntries(a, b ManifestEntry) int {
	return cmp.Or(strings.Compare(a.Repo, b.Repo), strings.Compare(a.Path, b.Path))
}

// ManifestError is a failed write of the manifest: said as such, not as a
// failed write of the records.
type ManifestError struct {
	Name string
	Err  error
}

func (e *ManifestError) Error() string { return "write manifest " + e.Name + ": " + e.Err.Error() }
func (e *ManifestError) Unwrap() error { return e.Err }

// Write writes e after the pending entries whose paths sort before it.
func (m *ManifestFile) Write(e ManifestEntry) error {
	if m == nil {
		return nil
	}
	for len(m.pending) > 0 && CompareEntries(m.pending[0], e) < 0 {
		if err := m.writeLine(m.pending[0]); err != nil {
			return &ManifestError{m.name, err}
		}
		m.pending = m.pending[1:]
	}
	if err := m.writeLine(e); err != nil {
		return &ManifestError{m.name, err}
	}
	return nil
}

// writeLine writes e as one JSON line. A path that is not valid UTF-8 (no
// record carries one: such a file is skipped) is written in Go's quoted
// form, as stderr names it: encoding/json would write U+FFFD for each bad
// byte, and two such names would read as one.
func (m *ManifestFile) writeLine(e ManifestEntry) error {
	if !utf8.ValidString(e.Path) {
		e.Path = Quote(e.Path)
	}
	line, err := AppendManifestLine(m.line[:0], e)
	if err != nil {
		return err
	}
	m.line = line
	_, err = m.out.Write(line)
	return err
}

// Commit writes what is pending and puts the manifest in place.
func (m *ManifestFile) Commit() error {
	if m == nil {
		return nil
	}
	m.done = true
	for _, e := range m.pending {
		if err := m.writeLine(e); err != nil {
			m.out.Abort()
			return &ManifestError{m.name, err}
		}
	}
	m.pending = nil
	if err := m.out.Commit(); err != nil {
		return &ManifestError{m.name, err}
	}
	return nil
}

// Abort leaves FILE as it was (unless committed).
func (m *ManifestFile) Abort() {
	if m != nil && !m.done {
		m.done = true
		m.out.Abort()
	}
}
