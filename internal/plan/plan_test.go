package plan

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"testing"

	"github.com/castchunk/castchunk/internal/lang"
	"github.com/castchunk/castchunk/internal/regular"
	"github.com/castchunk/castchunk/internal/walk"
)

func langName(l *lang.Language) string {
	if l == nil {
		return "-"
	}
	return l.Name
}

func TestByName(t *testing.T) {
	python := lang.ByName("python")
	tests := []struct {
		p    Policy
		f    File
		want string // fate language
	}{
		{Policy{}, File{Path: "a.py"}, "chunked python"},
		{Policy{}, File{Path: "bin/tool"}, "chunked -"},
		{Policy{Lang: python}, File{Path: "notes.txt"}, "chunked python"},
		{Policy{}, File{Path: "x.h", Attrs: walk.Attrs{Language: "C++"}}, "chunked cpp"},
		{Policy{}, File{Path: "vendor/a.py"}, "vendored python"},
		{Policy{}, File{Path: "vendor/README"}, "unsupported -"},        // would not have been chunked
		{Policy{Text: true}, File{Path: "vendor/README"}, "vendored -"}, // would have been, as text
		{Policy{KeepVendored: true}, File{Path: "vendor/a.py"}, "chunked python"},
		{Policy{}, File{Path: "vendor/a.py", Named: true}, "chunked python"},
		{Policy{}, File{Path: "vendor/a.py", Rel: "a.py"}, "chunked python"}, // the folder named was vendor
		{Policy{}, File{Path: "vendor/a.py", Attrs: walk.Attrs{Vendored: walk.No}}, "chunked python"},
		{Policy{}, File{Path: "src/a.py", Attrs: walk.Attrs{Vendored: walk.Yes}}, "vendored python"},
		{Policy{}, File{Path: "bad\xff.py"}, "encoding python"},
	}
	for _, tt := range tests {
		d := tt.p.ByName(tt.f)
		if got := d.Fate.String() + " " + langName(d.Lang); got != tt.want {
			t.Errorf("%+v.ByName(%+v) = %s, want %s", tt.p, tt.f, got, tt.want)
		}
		if (d.Fate == Encoding) != (d.Message != "") {
			t.Errorf("%+v: message %q", tt.f, d.Message)
		}
	}
}

func TestHeadDecides(t *testing.T) {
	p := Policy{}
	if !p.HeadDecides(Decision{}) || p.HeadDecides(Decision{Lang: lang.ByName("go")}) ||
		p.HeadDecides(Decision{Fate: Vendored}) || (Policy{Text: true}).HeadDecides(Decision{}) {
		t.Error("HeadDecides: only a file to read, with no grammar by name, and no --all-text")
	}
	if _, ok := p.ByHead(File{Path: "tool"}, []byte("#!/usr/bin/env python3\n")); !ok {
		t.Error("a python shebang gives a grammar")
	}
	c, ok := p.ByHead(File{Path: "notes"}, []byte("just text\n"))
	if ok || c.Fate != Unsupported || c.Message != "" {
		t.Errorf("no shebang: %+v, %v", c, ok)
	}
	if c, _ := p.ByHead(File{Path: "notes", Named: true}, []byte("just text\n")); c.Message == "" {
		t.Error("a named file without a grammar gets a message")
	}
}

// TestByHeadLeftOut: a file without a grammar is left out by its head as
// ByContent would leave it out reading it all (--all-text): a PNG is
// binary, a lock file generated, not both "unsupported".
func TestByHeadLeftOut(t *testing.T) {
	png := "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01"
	tests := []struct {
		p    Policy
		f    File
		head string
		want string // fate: message
	}{
		{Policy{}, File{Path: "logo.png"}, png, "binary: "},
		{Policy{}, File{Path: "logo.png", Named: true}, png, "binary: " + BinaryMessage},
		{Policy{}, File{Path: "notes.txt"}, "\xff\xfen\x00", "encoding: "},
		{Policy{}, File{Path: "Cargo.lock"}, "version = 3\n", "generated: "},
		{Policy{}, File{Path: "rust/Gemfile.lock"}, "GEM\n", "generated: "},
		{Policy{KeepGenerated: true}, File{Path: "Cargo.lock"}, "version = 3\n", "unsupported: "},
		{Policy{}, File{Path: "Cargo.lock", Attrs: walk.Attrs{Generated: walk.No}}, "version = 3\n", "unsupported: "},
		{Policy{}, File{Path: "notes", Attrs: walk.Attrs{Generated: walk.Yes}}, "text\n", "generated: "},
		{Policy{}, File{Path: "notes"}, "text\n", "unsupported: "},
	}
	for _, tt := range tests {
		c, ok := tt.p.ByHead(tt.f, []byte(tt.head))
		if got := c.Fate.String() + ": " + c.Message; ok || got != tt.want {
			t.Errorf("%+v.ByHead(%+v) = %q, %v; want %q", tt.p, tt.f, got, ok, tt.want)
		}
		if tt.want != "unsupported: " && !tt.f.Named && !tt.p.KeepGenerated {
			all := (Policy{Text: true}).ByContent(tt.f, Decision{}, []byte(tt.head))
			if all.Fate != c.Fate {
				t.Errorf("%s: the head says %s, all its bytes (--all-text) %s", tt.f.Path, c.Fate, all.Fate)
			}
		}
	}
	if c := (Policy{}).ByContent(File{Path: "Cargo.lock"}, Decision{}, []byte("version = 3\n")); c.Fate != Generated {
		t.Errorf("ByContent: a lock file without a grammar is %s", c.Fate)
	}
}

func TestByContent(t *testing.T) {
	py := Decision{Lang: lang.ByName("python")}
	none := Decision{}
	tests := []struct {
		p    Policy
		f    File
		d    Decision
		src  string
		want string // fate language message
	}{
		{Policy{}, File{Path: "a.py"}, py, "x = 1\n", "chunked python "},
		{Policy{MaxFileSize: 5}, File{Path: "a.py"}, py, "x = 1\n", "too large  file too large (6 B > 5 B limit); skipped"},
		{Policy{}, File{Path: "a.py"}, py, "\xff\xfex\x00", "encoding  UTF-16 text is not supported, only UTF-8; skipped"},
		{Policy{}, File{Path: "a.py"}, py, "x\x00", "binary  binary file (NUL byte); skipped"},
		{Policy{}, File{Path: "a.py"}, py, "\ufeffx = '\xe9'\n", "encoding  not valid UTF-8 (bad byte at offset 8); skipped"},
		{Policy{}, File{Path: "tool"}, none, "#!/bin/bash\necho\n", "chunked bash "},
		{Policy{}, File{Path: "notes"}, none, "text\n", "unsupported  "},
		{Policy{Text: true}, File{Path: "notes.txt"}, none, "text\n", "chunked text "},
		{Policy{Text: true}, File{Path: "Dockerfile"}, none, "FROM x\n", "chunked dockerfile "},
		{Policy{}, File{Path: "g.go"}, Decision{Lang: lang.ByName("go")}, "// Code generated by x. DO NOT EDIT.\npackage g\n", "generated go "},
		{Policy{KeepGenerated: true}, File{Path: "g.go"}, Decision{Lang: lang.ByName("go")}, "// Code generated by x. DO NOT EDIT.\npackage g\n", "chunked go "},
		{Policy{}, File{Path: "g.go", Named: true}, Decision{Lang: lang.ByName("go")}, "// Code generated by x. DO NOT EDIT.\npackage g\n", "chunked go "},
		{Policy{}, File{Path: "g.go", Attrs: walk.Attrs{Generated: walk.No}}, Decision{Lang: lang.ByName("go")}, "// Code generated by x. DO NOT EDIT.\npackage g\n", "chunked go "},
		{Policy{}, File{Path: "a.py", Attrs: walk.Attrs{Generated: walk.Yes}}, py, "x = 1\n", "generated python "},
		{Policy{}, File{Path: "node_modules/x/package-lock.json", Rel: "package-lock.json"}, Decision{Lang: lang.ByName("json")}, "{}\n", "generated json "},
	}
	for _, tt := range tests {
		c := tt.p.ByContent(tt.f, tt.d, []byte(tt.src))
		got := fmt.Sprintf("%s %s %s", c.Fate, c.Language, c.Message)
		if got != tt.want {
			t.Errorf("%+v.ByContent(%s, %q) = %q, want %q", tt.p, tt.f.Path, tt.src, got, tt.want)
		}
		if (c.Lang == nil) != (c.Language == "" || c.Language == "text" || c.Language == "dockerfile") {
			t.Errorf("%s: Lang %v, Language %q", tt.f.Path, c.Lang, c.Language)
		}
	}
}

func TestReadFailure(t *testing.T) {
	tests := []struct {
		err  error
		want string
	}{
		{regular.TooLargeError{Size: 2048, Limit: 1024}, "too large: file too large (2 KiB > 1 KiB limit); skipped"},
		{&fs.PathError{Op: "open", Path: "x", Err: fs.ErrNotExist}, "unreadable: no such file or directory (did it vanish while castchunk ran?)"},
		{&fs.PathError{Op: "open", Path: "x", Err: os.ErrPermission}, "unreadable: permission denied"},
		{&regular.NotRegularError{Mode: fs.ModeNamedPipe}, "unreadable: not a regular file (a FIFO)"},
		{errors.New("input/output error"), "unreadable: input/output error"},
	}
	for _, tt := range tests {
		c := ReadFailure(tt.err)
		if got := c.Fate.String() + ": " + c.Message; got != tt.want {
			t.Errorf("ReadFailure(%v) = %q, want %q", tt.err, got, tt.want)
		}
	}
}

func TestRelativeTo(t *testing.T) {
	tests := []struct {
		p     string
		roots []string
		want  string
	}{
		{"vendor/lib/x.js", []string{"vendor"}, "lib/x.js"},
		{"vendor/lib/x.js", []string{"vendor", "vendor/lib"}, "x.js"},
		{"vendor/lib/x.js", []string{"."}, "vendor/lib/x.js"},
		{"vendor/lib/x.js", []string{"vendor/"}, "lib/x.js"},
		{"vendorx/a.js", []string{"vendor"}, "vendorx/a.js"},
		{"a.js", nil, "a.js"},
	}
	for _, tt := range tests {
		if got := RelativeTo(tt.p, tt.roots); got != tt.want {
			t.Errorf("RelativeTo(%q, %q) = %q, want %q", tt.p, tt.roots, got, tt.want)
		}
	}
}

// TestFateNames: every fate has its own name, and Fates lists them all
// (merge refuses a manifest status it does not hold).
func TestFateNames(t *testing.T) {
	seen := map[string]bool{}
	for f := Chunked; f <= Output; f++ {
		if s := f.String(); s == "" || seen[s] {
			t.Errorf("fate %d: name %q empty or repeated", f, s)
		} else {
			seen[s] = true
		}
	}
	if names := Fates(); len(names) != len(seen) || names[len(names)-1] != "output" {
		t.Errorf("Fates() = %q, want the %d names", names, len(seen))
	}
}
