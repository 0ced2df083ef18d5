package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/castchunk/castchunk/internal/pipeline"
	"github.com/castchunk/castchunk/internal/plan"
	"github.com/castchunk/castchunk/internal/stats"
	"github.com/castchunk/castchunk/internal/walk"
)

// manifestEntry is one line of --manifest: a file the run met and what
// became of it. The README's table of fields and statuses is the contract.
type manifestEntry struct {
	Path         string `json:"path"`
	Status       string `json:"status"`   // "chunked", or why the file was left out (plan.Fate)
	Language     string `json:"language"` // "" when not known
	Method       string `json:"method"`   // the method that made its chunks; "" when left out
	Chunks       int    `json:"chunks"`
	SyntaxErrors bool   `json:"syntax_errors"`
	Note         string `json:"note"` // what stderr said of it, or what no grammar parses; "" when nothing
}

// manifest writes --manifest: one JSON object per file met, in path order,
// to a file replaced atomically like -o. The files the listing could not
// read (a missing argument, a dangling link) are merged in by path.
type manifest struct {
	name    string // FILE, for messages
	out     *output
	done    bool            // committed: abort does nothing
	pending []manifestEntry // unreadable at listing, sorted by path, not yet written
	line    bytes.Buffer
}

// openManifest opens --manifest FILE; nil when it is not asked for.
func openManifest(name string) (*manifest, error) {
	if name == "" {
		return nil, nil
	}
	out, err := openOutput(name, nil)
	if err != nil {
		return nil, err
	}
	return &manifest{name: name, out: out}, nil
}

// unlisted records the files the listing could not read, to be written in
// path order among the results.
func (m *manifest) unlisted(ws []walk.Warning) {
	if m == nil {
		return
	}
	for _, w := range ws {
		m.pending = append(m.pending, manifestEntry{Path: w.Path, Status: plan.Unreadable.String(), Note: w.Reason})
	}
	slices.SortStableFunc(m.pending, func(a, b manifestEntry) int { return strings.Compare(a.Path, b.Path) })
}

// hidden records the hidden files (walk.Options.ListAll), to be
// written in path order among the results: each is one --hidden would
// chunk.
func (m *manifest) hidden(paths []string) {
	if m == nil || len(paths) == 0 {
		return
	}
	for _, p := range paths {
		m.pending = append(m.pending, manifestEntry{Path: p, Status: plan.Hidden.String(), Note: "--hidden chunks it"})
	}
	slices.SortStableFunc(m.pending, func(a, b manifestEntry) int { return strings.Compare(a.Path, b.Path) })
	m.pending = slices.CompactFunc(m.pending, func(a, b manifestEntry) bool { return a == b })
}

// takeHidden takes the hidden files (listed for --manifest alone) out of
// the walk's files and keeps the paths of this shard's, relative to the
// root, for the manifest. The run's outputs are left out, as they are of
// the files chunked.
func (r *chunkRun) takeHidden(files []walk.File) []walk.File {
	kept := files[:0]
	var outs []os.FileInfo
	for _, name := range []string{r.cfg.output, r.cfg.manifest} {
		if fi, err := os.Stat(name); name != "" && name != "-" && err == nil && fi.Mode().IsRegular() {
			outs = append(outs, fi)
		}
	}
	for _, f := range files {
		if !f.Hidden {
			kept = append(kept, f)
			continue
		}
		p, _ := r.rebased(f.Path)
		if r.cfg.shard.has(p) && !sameAsAny(f.OSPath, outs) {
			r.hidden = append(r.hidden, p)
		}
	}
	return kept
}

// sameAsAny reports whether the file at osPath is one of files.
func sameAsAny(osPath string, files []os.FileInfo) bool {
	if len(files) == 0 {
		return false
	}
	fi, err := os.Stat(osPath)
	return err == nil && slices.ContainsFunc(files, func(o os.FileInfo) bool { return os.SameFile(fi, o) })
}

// add writes the entry of one pipeline result.
func (m *manifest) add(res *pipeline.Result) error {
	if m == nil {
		return nil
	}
	e := manifestEntry{Path: res.Job.Path, Status: res.Outcome.String(), Language: res.Language,
		SyntaxErrors: res.HasSyntaxErrors, Note: res.Message}
	if e.Language == "" && res.Job.Decision.Lang != nil {
		e.Language = res.Job.Decision.Lang.Name
	}
	if res.Outcome == plan.Chunked {
		e.Method, e.Chunks = res.Method.Name, len(res.Spans)
	}
	if e.Note == "" {
		switch res.Outcome {
		case plan.Unsupported:
			e.Note = "no grammar for " + stats.UnsupportedKey(res.Job.Path)
		case plan.Generated:
			e.Note = "--include-generated chunks it"
			if e.Language == "" { // no grammar: a lock file
				e.Note = "--include-generated --all-text chunks it"
			}
		case plan.Binary:
			e.Note = plan.BinaryMessage
		case plan.Vendored:
			e.Note = "--include-vendored chunks it"
		}
	}
	if err := m.write(e); err != nil {
		return &manifestError{name: m.name, err: err}
	}
	return nil
}

// manifestError is a failed write of the manifest: said as such, not as a
// failed write of the records.
type manifestError struct {
	name string
	err  error
}

func (e *manifestError) Error() string { return "write manifest " + e.name + ": " + e.err.Error() }
func (e *manifestError) Unwrap() error { return e.err }

// write writes e after the pending entries whose paths sort before it.
func (m *manifest) write(e manifestEntry) error {
	for len(m.pending) > 0 && m.pending[0].Path < e.Path {
		if err := m.writeLine(m.pending[0]); err != nil {
			return err
		}
		m.pending = m.pending[1:]
	}
	return m.writeLine(e)
}

// writeLine writes e as one JSON line. A path that is not valid UTF-8 (no
// record carries one: such a file is skipped) is written in Go's quoted
// form, as stderr names it: encoding/json would write U+FFFD for each bad
// byte, and two such names would read as one.
func (m *manifest) writeLine(e manifestEntry) error {
	if !utf8.ValidString(e.Path) {
		e.Path = quoteName(e.Path)
	}
	m.line.Reset()
	enc := json.NewEncoder(&m.line)
	enc.SetEscapeHTML(false) // "<" and ">" as they are, as in records
	if err := enc.Encode(e); err != nil {
		return err
	}
	_, err := m.out.Write(m.line.Bytes())
	return err
}

// commit writes what is pending and puts the manifest in place.
func (m *manifest) commit() error {
	if m == nil {
		return nil
	}
	m.done = true
	for _, e := range m.pending {
		if err := m.writeLine(e); err != nil {
			m.out.abort()
			return &manifestError{name: m.name, err: err}
		}
	}
	m.pending = nil
	if err := m.out.commit(); err != nil {
		return &manifestError{name: m.name, err: err}
	}
	return nil
}

// abort leaves FILE as it was.
func (m *manifest) abort() {
	if m != nil && !m.done {
		m.done = true
		m.out.abort()
	}
}
