package lang_test

import (
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/castchunk/castchunk/internal/lang"
	"github.com/castchunk/castchunk/internal/parse"
)

func TestForPath(t *testing.T) {
	for _, tt := range []struct {
		path string
		want string // "" when unsupported
	}{
		// Every extension of docs/design.md.
		{"a.py", "python"},
		{"stubs/a.pyi", "python"},
		{"src/main/java/A.java", "java"},
		{"src/a.ts", "typescript"},
		{"src/a.mts", "typescript"},
		{"src/a.cts", "typescript"},
		{"src/a.tsx", "tsx"},
		{"Program.cs", "csharp"},
		// Only the last extension counts.
		{"types/a.d.ts", "typescript"},
		{"a.test.tsx", "tsx"},
		{"a.py.bak", ""},
		{"a.ts.orig", ""},
		{"a.tsx.map", ""},
		// Unsupported extensions, near misses among them.
		{"a.js", ""},
		{"a.jsx", ""},
		{"a.c", ""},
		{"a.pyc", ""},
		{"a.pyw", ""},
		{"a.csx", ""},
		{"a.class", ""},
		{"a.t", ""},
		{"a.md", ""},
		// Extensions match case-sensitively (the package's documented rule).
		{"a.PY", ""},
		{"a.Py", ""},
		{"A.JAVA", ""},
		{"a.TS", ""},
		{"a.TSX", ""},
		{"A.CS", ""},
		// No extension.
		{"Makefile", ""},
		{"bin/python", ""},
		{"a.", ""},
		{"", ""},
		// Dotfiles: the name is the extension, not a language.
		{".bashrc", ""},
		{"dir/.gitignore", ""},
		{".hidden.py", "python"},
		// Directory-like paths.
		{"pkg.py/", ""},
		{"src/lib.ts/", ""},
		{"pkg.py/README", ""},
		{"a.java/b", ""},
		{"./", ""},
		{".", ""},
	} {
		got := lang.ForPath(tt.path)
		name := ""
		if got != nil {
			name = got.Name
		}
		if name != tt.want {
			t.Errorf("ForPath(%q) = %q, want %q", tt.path, name, tt.want)
		}
	}
}

func TestForPathReturnsTheRegistryEntry(t *testing.T) {
	for _, name := range lang.Names() {
		l := lang.ByName(name)
		for _, ext := range l.Extensions {
			if got := lang.ForPath("x" + ext); got != l {
				t.Errorf("ForPath(%q) = %p, want ByName(%q) = %p", "x"+ext, got, name, l)
			}
		}
	}
}

func TestRegistry(t *testing.T) {
	want := map[string]struct {
		exts    []string
		module  string
		version string // docs/design.md, "Facts about the parts"
	}{
		"csharp":     {[]string{".cs"}, "github.com/tree-sitter/tree-sitter-c-sharp", "v0.23.5"},
		"java":       {[]string{".java"}, "github.com/tree-sitter/tree-sitter-java", "v0.23.5"},
		"python":     {[]string{".py", ".pyi"}, "github.com/tree-sitter/tree-sitter-python", "v0.25.0"},
		"tsx":        {[]string{".tsx"}, "github.com/tree-sitter/tree-sitter-typescript", "v0.23.2"},
		"typescript": {[]string{".ts", ".mts", ".cts"}, "github.com/tree-sitter/tree-sitter-typescript", "v0.23.2"},
	}
	data, err := os.ReadFile(filepath.Join("..", "..", "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	goMod := string(data)
	all := lang.All()
	if len(all) != len(want) {
		t.Fatalf("All() has %d languages, want %d", len(all), len(want))
	}
	for _, l := range all {
		w, ok := want[l.Name]
		if !ok {
			t.Errorf("unexpected language %q", l.Name)
			continue
		}
		if !slices.Equal(l.Extensions, w.exts) {
			t.Errorf("%s: extensions %q, want %q", l.Name, l.Extensions, w.exts)
		}
		if l.Module != w.module {
			t.Errorf("%s: module %q, want %q", l.Name, l.Module, w.module)
		}
		if req := "\t" + w.module + " " + w.version; !strings.Contains(goMod, req+" ") && !strings.Contains(goMod, req+"\n") {
			t.Errorf("%s: go.mod does not require %s %s", l.Name, w.module, w.version)
		}
		// A test binary carries no dependency versions; a real build does.
		if v := l.Version(); v != w.version && v != "unknown" {
			t.Errorf("%s: version %q, want %q", l.Name, v, w.version)
		}
	}
	// All returns a copy: changing it leaves the registry alone.
	all[0] = nil
	if lang.All()[0] == nil {
		t.Error("All() exposes the registry")
	}
}

func TestByName(t *testing.T) {
	for _, tt := range []struct {
		name string
		ok   bool
	}{
		{"python", true},
		{"java", true},
		{"typescript", true},
		{"tsx", true},
		{"csharp", true},
		{"Python", false},
		{"PYTHON", false},
		{"c#", false},
		{"c-sharp", false},
		{"ts", false},
		{"javascript", false},
		{".py", false},
		{"", false},
	} {
		l := lang.ByName(tt.name)
		switch {
		case tt.ok && l == nil:
			t.Errorf("ByName(%q) = nil, want a language", tt.name)
		case tt.ok && l.Name != tt.name:
			t.Errorf("ByName(%q).Name = %q", tt.name, l.Name)
		case !tt.ok && l != nil:
			t.Errorf("ByName(%q) = %q, want nil", tt.name, l.Name)
		}
	}
}

func TestNames(t *testing.T) {
	got := lang.Names()
	want := []string{"csharp", "java", "python", "tsx", "typescript"}
	if !slices.Equal(got, want) {
		t.Errorf("Names() = %q, want %q", got, want)
	}
	if !sort.StringsAreSorted(got) {
		t.Errorf("Names() = %q is not sorted", got)
	}
	var fromAll []string
	for _, l := range lang.All() {
		fromAll = append(fromAll, l.Name)
	}
	if !slices.Equal(fromAll, want) {
		t.Errorf("All() names = %q, want %q", fromAll, want)
	}
}

// TestGrammarsParse loads every grammar into a parser (which checks its ABI
// version against the tree-sitter core) and parses a one-line sample.
func TestGrammarsParse(t *testing.T) {
	samples := map[string]string{
		"csharp":     "class A { int x; }\n",
		"java":       "class A { int x; }\n",
		"python":     "def f(x): return x + 1\n",
		"tsx":        "const a: number = f(<div/>);\n",
		"typescript": "const a: number = <number>b;\n",
	}
	p := parse.New(0)
	defer p.Close()
	for _, name := range lang.Names() {
		src, ok := samples[name]
		if !ok {
			t.Errorf("no sample for %s", name)
			continue
		}
		l := lang.ByName(name)
		if l.Grammar() == nil {
			t.Errorf("%s: Grammar() = nil", name)
			continue
		}
		tree, err := p.Parse([]byte(src), l)
		if err != nil {
			t.Errorf("%s: parse %q: %v", name, src, err)
			continue
		}
		root := tree.RootNode()
		if root.HasError() {
			t.Errorf("%s: %q has a syntax error: %s", name, src, root.ToSexp())
		}
		if root.EndByte() != uint(len(src)) || root.ChildCount() == 0 {
			t.Errorf("%s: root covers %d of %d bytes with %d children", name, root.EndByte(), len(src), root.ChildCount())
		}
		tree.Close()
	}
}

// TestTypeScriptIsNotTSX: .ts files get the TypeScript grammar, where JSX is
// an error (and <T>x a type assertion), and .tsx files the TSX grammar, where
// it is not (docs/design.md: the reference wrongly parses all TypeScript as TSX).
func TestTypeScriptIsNotTSX(t *testing.T) {
	p := parse.New(0)
	defer p.Close()
	hasError := func(path, src string) bool {
		t.Helper()
		l := lang.ForPath(path)
		if l == nil {
			t.Fatalf("no language for %s", path)
		}
		tree, err := p.Parse([]byte(src), l)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		defer tree.Close()
		return tree.RootNode().HasError()
	}
	for _, tt := range []struct {
		path, src string
		wantError bool
	}{
		{"a.tsx", "const a = <div/>;\n", false},
		{"a.ts", "const a = <div/>;\n", true},
		{"a.mts", "const a = <div/>;\n", true},
		{"a.cts", "const a = <div/>;\n", true},
		{"a.tsx", "const a = <div className=\"x\">hi</div>;\n", false},
		{"a.ts", "const a = <div className=\"x\">hi</div>;\n", true},
		{"a.ts", "const a = <number>b;\n", false},
		{"a.tsx", "const a = <number>b;\n", true},
	} {
		if got := hasError(tt.path, tt.src); got != tt.wantError {
			t.Errorf("%s %q: HasError() = %v, want %v", tt.path, tt.src, got, tt.wantError)
		}
	}
	if ts, tsx := lang.ForPath("a.ts"), lang.ForPath("a.tsx"); ts == tsx || ts.Name != "typescript" || tsx.Name != "tsx" {
		t.Errorf("ForPath: .ts → %v, .tsx → %v", ts.Name, tsx.Name)
	}
}
