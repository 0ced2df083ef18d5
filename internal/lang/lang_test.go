package lang_test

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	sitter "github.com/tree-sitter/go-tree-sitter"

	"github.com/castchunk/castchunk/internal/lang"
	"github.com/castchunk/castchunk/internal/parse"
)

// The tests below derive what they check from the registry itself: adding
// a language is its row, its module, its query file queries/NAME.scm and a
// sample under testdata/corpus/NAME/, and no test lists the languages.

const corpusDir = "../../testdata/corpus"

var (
	namePattern = regexp.MustCompile(`^[a-z][a-z0-9]*$`)
	extPattern  = regexp.MustCompile(`^\.[A-Za-z0-9_+-]+$`) // one dot, first: path.Ext can return it
)

// TestRegistryRows checks every row on its own and the rows together:
// names, extensions, file names and interpreters each belong to one row;
// every extension can be what path.Ext returns; every module is required
// by go.mod.
func TestRegistryRows(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	required := requiredModules(string(data))
	all := lang.All()
	if len(all) == 0 {
		t.Fatal("no language")
	}
	owner := map[string]string{} // "kind value" → language
	claim := func(l *lang.Language, kind, v string) {
		t.Helper()
		if prev, ok := owner[kind+" "+v]; ok {
			t.Errorf("%s %q belongs to %s and %s", kind, v, prev, l.Name)
		}
		owner[kind+" "+v] = l.Name
	}
	for _, l := range all {
		if !namePattern.MatchString(l.Name) {
			t.Errorf("name %q: want lowercase letters and digits (records and --lang use it)", l.Name)
		}
		claim(l, "name", l.Name)
		if len(l.Extensions) == 0 && len(l.FileNames) == 0 {
			t.Errorf("%s: neither extensions nor file names: no file can pick it", l.Name)
		}
		for _, e := range l.Extensions {
			if !extPattern.MatchString(e) {
				t.Errorf("%s: extension %q: want a dot and then no other dot or slash", l.Name, e)
			}
			claim(l, "extension", e)
		}
		for _, n := range l.FileNames {
			if n == "" || strings.ContainsAny(n, `/\`) {
				t.Errorf("%s: file name %q: want a name without a folder", l.Name, n)
			}
			claim(l, "file name", n)
		}
		for _, i := range l.Interpreters {
			if i == "" || strings.ContainsAny(i, "/ \t") {
				t.Errorf("%s: interpreter %q: want a program name, no path or arguments", l.Name, i)
			}
			claim(l, "interpreter", i)
		}
		v, ok := required[l.Module]
		if !ok {
			t.Errorf("%s: go.mod does not require %s", l.Name, l.Module)
		}
		// A test binary carries no dependency versions; a real build does
		// (testdata/script/version.txtar checks it).
		if got := l.Version(); got != v && got != "unknown" {
			t.Errorf("%s: version %q, go.mod requires %q", l.Name, got, v)
		}
	}
	// All returns a copy: changing it leaves the registry alone.
	all[0] = nil
	if lang.All()[0] == nil {
		t.Error("All() exposes the registry")
	}
}

// requiredModules reads the require lines of a go.mod: module → version.
func requiredModules(goMod string) map[string]string {
	req := map[string]string{}
	for _, line := range strings.Split(goMod, "\n") {
		f := strings.Fields(strings.TrimPrefix(strings.TrimSpace(line), "require "))
		if len(f) >= 2 && strings.Contains(f[0], "/") && strings.HasPrefix(f[1], "v") {
			req[f[0]] = f[1]
		}
	}
	return req
}

// TestForPathEveryRow: every extension and file name of every row picks
// that row, wherever the file is; only the last extension counts.
func TestForPathEveryRow(t *testing.T) {
	for _, l := range lang.All() {
		var paths []string
		for _, e := range l.Extensions {
			paths = append(paths, "x"+e, "src/deep/x"+e, "a.b"+e, "x.bak"+e, ".hidden"+e, "dir.d/x"+e, "with space"+e)
		}
		for _, n := range l.FileNames {
			paths = append(paths, n, "sub/dir/"+n)
		}
		for _, p := range paths {
			if got := lang.ForPath(p); got != l {
				t.Errorf("ForPath(%q) = %v, want %s", p, name(got), l.Name)
			}
		}
		// The same, with something after: another extension, a folder.
		for _, e := range l.Extensions {
			for _, p := range []string{"x" + e + ".bak", "x" + e + ".orig", "x" + e + "/", "x" + e + "/README", "x" + e + "~"} {
				if got := lang.ForPath(p); got == l {
					t.Errorf("ForPath(%q) = %s, want another or none", p, l.Name)
				}
			}
		}
		for _, n := range l.FileNames {
			for _, p := range []string{n + "/", n + ".bak~", "x" + n, n + "/x"} {
				if got := lang.ForPath(p); got == l && !slices.Contains(l.Extensions, path.Ext(p)) {
					t.Errorf("ForPath(%q) = %s, want none: not one of its file names", p, l.Name)
				}
			}
		}
	}
}

// TestForPathCase: extensions and file names match case-sensitively (the
// package's documented rule), so a changed case picks the row only when
// it is itself one of the row's spellings.
func TestForPathCase(t *testing.T) {
	for _, l := range lang.All() {
		for _, s := range append(append([]string(nil), l.Extensions...), l.FileNames...) {
			for _, v := range []string{strings.ToUpper(s), strings.ToLower(s), strings.ToUpper(s[:2]) + s[2:]} {
				if v == s || slices.Contains(l.Extensions, v) || slices.Contains(l.FileNames, v) {
					continue
				}
				p := v
				if strings.HasPrefix(v, ".") && slices.Contains(l.Extensions, s) {
					p = "x" + v
				}
				if got := lang.ForPath(p); got == l {
					t.Errorf("ForPath(%q) = %s: %q is not one of its spellings", p, l.Name, v)
				}
			}
		}
	}
}

// TestForPathEdgeCases keeps the cases no row can say: files without a
// language, folders, dotfiles, and the choices the registry documents.
func TestForPathEdgeCases(t *testing.T) {
	for _, tt := range []struct {
		path string
		want string // "" when unsupported
	}{
		// Only the last extension counts.
		{"types/a.d.ts", "typescript"},
		{"a.test.tsx", "tsx"},
		{"a.py.bak", ""},
		{"a.ts.orig", ""},
		{"a.tsx.map", ""},
		// Near misses and files no grammar parses.
		{"a.pyc", ""},
		{"a.pyw", ""},
		{"a.csx", ""},
		{"a.class", ""},
		{"a.t", ""},
		{"a.txt", ""},
		{"a.o", ""},
		// Extensions match case-sensitively.
		{"a.PY", ""},
		{"a.Py", ""},
		{"A.JAVA", ""},
		{"a.TS", ""},
		{"A.CS", ""},
		{"rakefile", ""},
		{"GEMFILE", ""},
		// Documented choices: .h is C; .jsx is JavaScript; .ts and .tsx
		// have their own grammars.
		{"include/a.h", "c"},
		{"include/a.hpp", "cpp"},
		{"a.jsx", "javascript"},
		{"a.ts", "typescript"},
		{"a.tsx", "tsx"},
		// No extension, no known name.
		{"Dockerfile", ""},
		{"CMakeLists.txt", ""},
		// Build files known by name, or by the extension of a name.
		{"Makefile", "makefile"},
		{"src/GNUmakefile", "makefile"},
		{"MAKEFILE", ""},
		{"BUILD", "starlark"},
		{"pkg/BUILD.bazel", "starlark"},
		{"MODULE.bazel", "starlark"},
		{"build", ""},
		// R's two spellings; Terraform is HCL.
		{"a.R", "r"},
		{"a.r", "r"},
		{"infra/main.tf", "hcl"},
		{"bin/python", ""},
		{"a.", ""},
		{"", ""},
		// Dotfiles: the name is the extension, so only a file name row
		// gives them a language.
		{".bashrc", "bash"},
		{"home/.bash_profile", "bash"},
		{"dir/.gitignore", ""},
		{".zshrc", ""},
		{".hidden.py", "python"},
		// File names match the last path element exactly.
		{"Rakefile", "ruby"},
		{"lib/tasks/Rakefile", "ruby"},
		{"Rakefile.bak", ""},
		{"MyRakefile", ""},
		{"Rakefile/x", ""},
		// Directory-like paths.
		{"pkg.py/", ""},
		{"src/lib.ts/", ""},
		{"Gemfile/", ""},
		{"pkg.py/README", ""},
		{"a.java/b", ""},
		{"./", ""},
		{".", ""},
		{"/", ""},
	} {
		if got := name(lang.ForPath(tt.path)); got != tt.want {
			t.Errorf("ForPath(%q) = %q, want %q", tt.path, got, tt.want)
		}
	}
}

func name(l *lang.Language) string {
	if l == nil {
		return ""
	}
	return l.Name
}

// TestForInterpreter: every interpreter of every row picks that row; the
// lookup is exact.
func TestForInterpreter(t *testing.T) {
	for _, l := range lang.All() {
		for _, i := range l.Interpreters {
			if got := lang.ForInterpreter(i); got != l {
				t.Errorf("ForInterpreter(%q) = %q, want %s", i, name(got), l.Name)
			}
			for _, v := range []string{strings.ToUpper(i), "/usr/bin/" + i, i + " ", i + "x"} {
				if got := lang.ForInterpreter(v); got == l {
					t.Errorf("ForInterpreter(%q) = %s, want none", v, l.Name)
				}
			}
		}
	}
	for _, tt := range []struct{ prog, want string }{
		{"python3", "python"},
		{"bash", "bash"},
		{"sh", "bash"},
		{"node", "javascript"},
		{"Rscript", "r"},
		{"pwsh", ""},
		{"env", ""},
		{"perl", ""},
		{"", ""},
	} {
		if got := name(lang.ForInterpreter(tt.prog)); got != tt.want {
			t.Errorf("ForInterpreter(%q) = %q, want %q", tt.prog, got, tt.want)
		}
	}
}

func TestByName(t *testing.T) {
	for _, l := range lang.All() {
		if got := lang.ByName(l.Name); got != l {
			t.Errorf("ByName(%q) = %v, want the registry's row", l.Name, got)
		}
		for _, v := range []string{strings.ToUpper(l.Name), " " + l.Name, l.Name + " "} {
			if got := lang.ByName(v); got != nil {
				t.Errorf("ByName(%q) = %q, want nil", v, got.Name)
			}
		}
		for _, e := range l.Extensions {
			if got := lang.ByName(e); got != nil {
				t.Errorf("ByName(%q) = %q: an extension is not a name", e, got.Name)
			}
		}
	}
	for _, s := range []string{"c#", "c-sharp", "ts", "js", "c++", "shell", ""} {
		if got := lang.ByName(s); got != nil {
			t.Errorf("ByName(%q) = %q, want nil", s, got.Name)
		}
	}
}

func TestNames(t *testing.T) {
	got := lang.Names()
	if !sort.StringsAreSorted(got) {
		t.Errorf("Names() = %q is not sorted", got)
	}
	var fromAll []string
	for _, l := range lang.All() {
		fromAll = append(fromAll, l.Name)
	}
	if !slices.Equal(fromAll, got) {
		t.Errorf("All() names = %q, Names() = %q", fromAll, got)
	}
}

// TestGrammars loads every grammar into a parser, which checks its ABI
// version against the tree-sitter core, and parses every sample of the
// language under testdata/corpus/NAME/ (there must be one): no syntax
// error, and the tree covers the file.
func TestGrammars(t *testing.T) {
	p := parse.New(0)
	defer p.Close()
	for _, l := range lang.All() {
		g := l.Grammar()
		if g == nil {
			t.Errorf("%s: Grammar() = nil", l.Name)
			continue
		}
		if v := g.AbiVersion(); v < sitter.MIN_COMPATIBLE_LANGUAGE_VERSION || v > sitter.LANGUAGE_VERSION {
			t.Errorf("%s: ABI version %d, the binding accepts %d to %d", l.Name, v, sitter.MIN_COMPATIBLE_LANGUAGE_VERSION, sitter.LANGUAGE_VERSION)
		}
		sp := sitter.NewParser()
		if err := sp.SetLanguage(g); err != nil {
			t.Errorf("%s: %v", l.Name, err)
		}
		sp.Close()
		samples := 0
		err := filepath.WalkDir(filepath.Join(corpusDir, l.Name), func(path string, d os.DirEntry, err error) error {
			if errors.Is(err, fs.ErrNotExist) && path == filepath.Join(corpusDir, l.Name) {
				return nil // reported below
			}
			if err != nil || d.IsDir() {
				return err
			}
			if got := lang.ForPath(filepath.ToSlash(path)); got != l {
				t.Errorf("%s: ForPath gives %q, want %s (samples of a language pick it)", path, name(got), l.Name)
				return nil
			}
			src, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			samples++
			tree, err := p.Parse(src, l)
			if err != nil {
				t.Errorf("%s: %v", path, err)
				return nil
			}
			defer tree.Close()
			root := tree.RootNode()
			if root.HasError() {
				t.Errorf("%s: syntax errors in a sample (%s grammar)", path, l.Name)
			}
			if root.EndByte() > uint(len(src)) || root.ChildCount() == 0 {
				t.Errorf("%s: root ends at %d of %d bytes with %d children", path, root.EndByte(), len(src), root.ChildCount())
			}
			return nil
		})
		if err != nil {
			t.Errorf("%s: %v", l.Name, err)
		}
		if samples == 0 {
			t.Errorf("%s: no sample under testdata/corpus/%s/", l.Name, l.Name)
		}
	}
}

// parses reports whether src parses without a syntax error as the
// language of path.
func parses(t *testing.T, p *parse.Parser, path, src string) bool {
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
	return !tree.RootNode().HasError()
}

// TestTypeScriptIsNotTSX: .ts files get the TypeScript grammar, where JSX is
// an error (and <T>x a type assertion), and .tsx files the TSX grammar, where
// it is not (docs/design.md: the reference wrongly parses all TypeScript as TSX).
func TestTypeScriptIsNotTSX(t *testing.T) {
	p := parse.New(0)
	defer p.Close()
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
		if got := !parses(t, p, tt.path, tt.src); got != tt.wantError {
			t.Errorf("%s %q: syntax error %v, want %v", tt.path, tt.src, got, tt.wantError)
		}
	}
	if ts, tsx := lang.ForPath("a.ts"), lang.ForPath("a.tsx"); ts == tsx || ts.Name != "typescript" || tsx.Name != "tsx" {
		t.Errorf("ForPath: .ts → %v, .tsx → %v", ts.Name, tsx.Name)
	}
}

// TestGrammarChoices: the choices the registry documents hold. JavaScript's
// grammar parses JSX in .js and .jsx files; PHP's grammar takes a file
// that starts in HTML and opens code with <?php (what LanguagePHPOnly
// would reject); Markdown's block grammar parses a document; C++ code
// that is not C is an error in a .h file; HTML's grammar parses a Vue
// component, its directives attribute names, {{ }} text.
func TestGrammarChoices(t *testing.T) {
	p := parse.New(0)
	defer p.Close()
	for _, tt := range []struct {
		path, src string
		ok        bool
	}{
		{"a.js", "const a = <div className=\"x\">{b}</div>;\n", true},
		{"a.jsx", "export default function A() { return <>hi</>; }\n", true},
		{"a.mjs", "import x from \"./x.js\";\nexport const y = x?.z ?? 1;\n", true},
		{"a.php", "<!doctype html>\n<p><?php echo $name; ?></p>\n<?php\nfunction f($x) { return $x + 1; }\n", true},
		{"a.php", "<?php\nnamespace App;\nclass A { public function f(): int { return 1; } }\n", true},
		{"a.md", "# Title\n\nSome *text*.\n\n- a\n- b\n\n```go\nx := 1\n```\n", true},
		{"a.h", "int f(int x);\n", true},
		{"a.h", "namespace n { template <typename T> class A {}; }\n", false},
		{"a.hpp", "namespace n { template <typename T> class A {}; }\n", true},
		{"a.vue", "<template>\n  <Item v-for=\"i in items\" :key=\"i.id\" @click.stop=\"pick(i)\" #default=\"{ x }\">{{ i.name }}</Item>\n</template>\n" +
			"<script setup lang=\"ts\">\nconst items = ref<Item[]>([]);\n</script>\n<style scoped>\n.a { color: red; }\n</style>\n", true},
	} {
		if got := parses(t, p, tt.path, tt.src); got != tt.ok {
			t.Errorf("%s %q: parses cleanly %v, want %v", tt.path, tt.src, got, tt.ok)
		}
	}
}
