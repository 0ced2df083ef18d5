package walk

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// st builds the expected states of a parsed line: "a", "-a", "!a", "a=v".
func st(specs ...string) []rawState {
	var out []rawState
	for _, s := range specs {
		var r rawState
		switch {
		case strings.HasPrefix(s, "-"):
			r = rawState{s[1:], attrVal{kind: attrUnset}}
		case strings.HasPrefix(s, "!"):
			r = rawState{s[1:], attrVal{kind: attrUnspecified}}
		case strings.Contains(s, "="):
			n, v, _ := strings.Cut(s, "=")
			r = rawState{n, attrVal{kind: attrString, value: v}}
		default:
			r = rawState{s, attrVal{kind: attrSet}}
		}
		out = append(out, r)
	}
	return out
}

func TestParseAttrLine(t *testing.T) {
	long := "*.x linguist-generated " + strings.Repeat("a", attrMaxLine)
	cases := []struct {
		line    string
		macroOK bool
		want    *attrLine // nil: the line is left out
	}{
		{line: "*.js linguist-generated", want: &attrLine{name: "*.js", states: st("linguist-generated")}},
		{line: "  \t*.js\t-a  !b c=d\r", want: &attrLine{name: "*.js", states: st("-a", "!b", "c=d")}},
		{line: "*.js", want: &attrLine{name: "*.js"}},
		{line: "a=b=c x=", want: &attrLine{name: "a=b=c", states: st("x=")}},
		{line: "p x=a=b y", want: &attrLine{name: "p", states: st("x=a=b", "y")}},
		{line: "p -x=v !y=w", want: &attrLine{name: "p", states: st("-x", "!y")}},
		{line: "p linguist-language=Objective-C++", want: &attrLine{name: "p", states: st("linguist-language=Objective-C++")}},
		{line: "p a.b_c-9", want: &attrLine{name: "p", states: st("a.b_c-9")}},
		{line: ""},
		{line: "   "},
		{line: "# comment linguist-generated"},
		{line: "  # indented comment"},
		{line: "a#b x", want: &attrLine{name: "a#b", states: st("x")}},
		{line: "!*.js linguist-generated"},                                   // negative pattern
		{line: `\!x.js a`, want: &attrLine{name: `\!x.js`, states: st("a")}}, // escaped '!'
		{line: "p good bad$name"},                                            // one bad name spoils the line
		{line: "p -"},                                                        // empty name
		{line: "p !"},                                                        // empty name
		{line: "p =v"},                                                       // empty name
		{line: "p --x"},                                                      // name starting '-'
		{line: "p builtin_objectmode"},                                       // reserved (git 2.42+)
		{line: `"a b.js" x`, want: &attrLine{name: "a b.js", states: st("x")}},         // quoted
		{line: `"a\tb\\c\"d" x`, want: &attrLine{name: "a\tb\\c\"d", states: st("x")}}, // escapes
		{line: `"\141\142" x`, want: &attrLine{name: "ab", states: st("x")}},           // octal
		{line: `"ab"x y`, want: &attrLine{name: "ab", states: st("x", "y")}},           // no blank needed after the quote
		{line: `"a\qb" x`, want: &attrLine{name: `"a\qb"`, states: st("x")}},           // bad escape: the quote is literal
		{line: `"a b x`, want: &attrLine{name: `"a`, states: st("b", "x")}},            // unterminated
		{line: `"\8" x`, want: &attrLine{name: `"\8"`, states: st("x")}},               // bad octal
		{line: `"a\000b" x`, want: &attrLine{name: "a", states: st("x")}},              // NUL ends the pattern
		{line: `"!a" x`}, // negative, quoted
		{line: "a\x00 b", want: &attrLine{name: "a"}}, // NUL ends the line
		{line: "[attr]m a -b", macroOK: true, want: &attrLine{macro: true, name: "m", states: st("a", "-b")}},
		{line: "[attr]m a -b"},              // not allowed here
		{line: "[attr]m$ a", macroOK: true}, // bad macro name
		{line: "[attr] m a", macroOK: true, want: &attrLine{name: "[attr]", states: st("m", "a")}}, // a pattern!
		{line: "[attr] m a", want: &attrLine{name: "[attr]", states: st("m", "a")}},
		{line: `"[attr]m x" y`, macroOK: true, want: &attrLine{macro: true, name: "m", states: st("y")}},
		{line: long[:attrMaxLine-1], want: &attrLine{name: "*.x", states: st("linguist-generated", strings.Repeat("a", attrMaxLine-1-len("*.x linguist-generated ")))}},
		{line: long[:attrMaxLine]}, // too long
	}
	for _, c := range cases {
		got, ok := parseAttrLine(c.line, c.macroOK)
		if c.want == nil {
			if ok {
				t.Errorf("parseAttrLine(%q, %v) = %+v, want nothing", c.line, c.macroOK, got)
			}
			continue
		}
		if !ok || !reflect.DeepEqual(got, *c.want) {
			t.Errorf("parseAttrLine(%q, %v) = %+v, %v; want %+v", c.line, c.macroOK, got, ok, *c.want)
		}
	}
}

func TestParseAttrs(t *testing.T) {
	got := parseAttrs([]byte("\xef\xbb\xbf*.a x\r\n\n# c\n*.b -y\r\n\xef\xbb\xbf*.c z\n*.d w"), false)
	want := []attrLine{
		{name: "*.a", states: st("x")},
		{name: "*.b", states: st("-y")},
		{name: "\xef\xbb\xbf*.c", states: st("z")}, // a BOM only counts at the start
		{name: "*.d", states: st("w")},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("parseAttrs = %+v\nwant %+v", got, want)
	}
}

func TestTri(t *testing.T) {
	cases := []struct {
		v    attrVal
		want Tri
	}{
		{attrVal{}, Unspecified},
		{attrVal{kind: attrUnspecified}, Unspecified},
		{attrVal{kind: attrSet}, Yes},
		{attrVal{kind: attrUnset}, No},
		{attrVal{kind: attrString, value: "true"}, Yes},
		{attrVal{kind: attrString, value: "false"}, No},
		{attrVal{kind: attrString, value: "False"}, Yes}, // Linguist compares with "false" exactly
		{attrVal{kind: attrString, value: "0"}, Yes},
		{attrVal{kind: attrString, value: ""}, Yes},
	}
	for _, c := range cases {
		if got := c.v.tri(); got != c.want {
			t.Errorf("%+v.tri() = %v, want %v", c.v, got, c.want)
		}
	}
	if Yes.String() != "yes" || No.String() != "no" || Unspecified.String() != "unspecified" || Tri(7).String() != "Tri(7)" {
		t.Error("Tri.String")
	}
}

// attrCase is a tree of files and .gitattributes (and other attribute
// files) with the Attrs expected for some of its files (others: zero).
type attrCase struct {
	name  string
	files []string
	attrs map[string]string // path -> content: ".gitattributes", "sub/.gitattributes", ".git/info/attributes"
	want  map[string]Attrs
}

var (
	gen    = Attrs{Generated: Yes}
	notGen = Attrs{Generated: No}
	vend   = Attrs{Vendored: Yes}
	doc    = Attrs{Documentation: Yes}
)

var attrCases = []attrCase{
	{
		name:  "basics",
		files: []string{"a.js", "b.pb.go", "c.md", "d.h", "e.txt", "f.js.map"},
		attrs: map[string]string{".gitattributes": "*.js linguist-generated\n*.pb.go linguist-generated=true\n" +
			"*.md linguist-documentation\n*.h linguist-language=C++\n*.txt -linguist-vendored linguist-generated=false\n"},
		want: map[string]Attrs{"a.js": gen, "b.pb.go": gen, "c.md": doc, "d.h": {Language: "C++"}, "e.txt": {Generated: No, Vendored: No}},
	},
	{
		name:  "later lines and deeper files win",
		files: []string{"a.js", "sub/a.js", "sub/deep/a.js", "sub/deep/b.js", "other/a.js"},
		attrs: map[string]string{
			".gitattributes":          "*.js linguist-vendored\n*.js linguist-generated\n",
			"sub/.gitattributes":      "*.js -linguist-generated\n",
			"sub/deep/.gitattributes": "a.js !linguist-generated\nb.js !linguist-vendored linguist-generated\n*.js linguist-documentation=false\n",
		},
		want: map[string]Attrs{
			"a.js":          {Generated: Yes, Vendored: Yes},
			"other/a.js":    {Generated: Yes, Vendored: Yes},
			"sub/a.js":      {Generated: No, Vendored: Yes},
			"sub/deep/a.js": {Vendored: Yes, Documentation: No}, // "!" stops the search: unspecified
			"sub/deep/b.js": {Generated: Yes, Documentation: No},
		},
	},
	{
		name:  "a pattern naming a directory does not reach inside",
		files: []string{"vendor/a.js", "lib/vendor/b.js", "vendor2/c.js", "third/x.js", "third/sub/y.js", "x/vendor"},
		attrs: map[string]string{".gitattributes": "vendor linguist-vendored\nvendor2/ linguist-vendored\nthird/* linguist-vendored\n"},
		want:  map[string]Attrs{"x/vendor": vend, "third/x.js": vend},
	},
	{
		name:  "double star and anchoring",
		files: []string{"vendor/a.js", "vendor/x/b.js", "lib/vendor/c.js", "gen/a.go", "x/gen/b.go", "x/gen/y/c.go", "top.js", "sub/top.js"},
		attrs: map[string]string{".gitattributes": "vendor/** linguist-vendored\n**/gen/*.go linguist-generated\n/top.js linguist-documentation\n"},
		want:  map[string]Attrs{"vendor/a.js": vend, "vendor/x/b.js": vend, "gen/a.go": gen, "x/gen/b.go": gen, "top.js": doc},
	},
	{
		name:  "patterns in a subdirectory are relative to it",
		files: []string{"sub/a.js", "sub/x/a.js", "x/a.js", "sub/y/z.js"},
		attrs: map[string]string{"sub/.gitattributes": "/a.js linguist-generated\nx/a.js linguist-vendored\ny/** linguist-documentation\n"},
		want:  map[string]Attrs{"sub/a.js": gen, "sub/x/a.js": vend, "sub/y/z.js": doc},
	},
	{
		name:  "macros",
		files: []string{"a.pb.go", "b.bin", "c.x", "d.x", "sub/e.y", "f.m"},
		attrs: map[string]string{
			".gitattributes": "[attr]gen linguist-generated -diff\n[attr]chain gen linguist-vendored\n[attr]binary linguist-documentation\n" +
				"*.pb.go gen\n*.bin binary\nc.x -linguist-generated chain\nd.x chain -linguist-generated\n*.m -gen\n",
			"sub/.gitattributes": "[attr]vend linguist-vendored\n*.y vend chain\n",
		},
		want: map[string]Attrs{
			"a.pb.go": gen,
			"b.bin":   doc,                             // the top .gitattributes redefines binary
			"c.x":     {Generated: Yes, Vendored: Yes}, // chain comes last on the line: its expansion wins
			"d.x":     {Generated: No, Vendored: Yes},  // -linguist-generated comes last
			"sub/e.y": {Generated: Yes, Vendored: Yes}, // the sub-level macro line is refused
			"f.m":     {},                              // an unset macro does not expand
		},
	},
	{
		name:  "quoted patterns and odd lines",
		files: []string{"a b.js", "tab\tx.js", "q.js", "!neg.js", "long.js", "a", "t", "z"},
		attrs: map[string]string{".gitattributes": "\xef\xbb\xbf\"a b.js\" linguist-generated\r\n\"tab\\tx.js\" linguist-vendored\n" +
			"q.js linguist-generated bad$attr\n!neg.js linguist-generated\n\\!neg.js linguist-vendored\n" +
			"long.js linguist-generated " + strings.Repeat("x", attrMaxLine) + "\n" +
			"[attr] linguist-documentation\n"},
		want: map[string]Attrs{"a b.js": gen, "tab\tx.js": vend, "!neg.js": vend, "a": doc, "t": doc},
	},
}

// TestAttrsPlainTree checks the cases outside any repository: in-tree
// files only.
func TestAttrsPlainTree(t *testing.T) {
	for _, c := range attrCases {
		t.Run(c.name, func(t *testing.T) {
			dir := plainTree(t, c.files...)
			for p, content := range c.attrs {
				writeFile(t, filepath.Join(dir, filepath.FromSlash(p)), content)
			}
			t.Chdir(dir)
			files, warns := mustList(t, nil, Options{})
			if len(warns) != 0 {
				t.Errorf("warnings %+v", warns)
			}
			checkAttrs(t, files, c.want, c.files)
		})
	}
}

// checkAttrs compares the attributes of the listed files with want (files
// not in want: zero), and checks that every file in names was listed.
func checkAttrs(t *testing.T, files []File, want map[string]Attrs, names []string) {
	t.Helper()
	seen := map[string]bool{}
	for _, f := range files {
		seen[f.Path] = true
		if f.Attrs != want[f.Path] {
			t.Errorf("%q: attrs %+v, want %+v", f.Path, f.Attrs, want[f.Path])
		}
	}
	for _, n := range names {
		if !seen[n] && !strings.HasSuffix(n, "/") {
			t.Errorf("%q not listed", n)
		}
	}
}

// TestAttrsRoots: outside a repository, the .gitattributes files from the
// current directory down apply, whether a file is reached by walking the
// current directory, a directory below it or named as an argument; from
// a root elsewhere, those from that root down.
func TestAttrsRoots(t *testing.T) {
	dir := plainTree(t, "src/a.js", "src/sub/b.js", "c.js")
	writeFile(t, filepath.Join(dir, ".gitattributes"), "*.js linguist-generated\n")
	writeFile(t, filepath.Join(dir, "src/sub/.gitattributes"), "b.js linguist-vendored\n")
	t.Chdir(dir)
	for _, roots := range [][]string{nil, {"src"}, {"src/sub"}, {"src/a.js", "src/sub/b.js"}, {"./src/sub/../a.js"}, {dir}} {
		files, _ := mustList(t, roots, Options{})
		for _, f := range files {
			want := gen
			if strings.HasSuffix(f.Path, "b.js") {
				want.Vendored = Yes
			}
			if f.Attrs != want {
				t.Errorf("roots %q: %s: %+v, want %+v", roots, f.Path, f.Attrs, want)
			}
		}
	}
	t.Chdir(filepath.Join(dir, "src"))
	files, _ := mustList(t, []string{"../c.js", "sub/b.js", "..", "../src"}, Options{})
	want := map[string]Attrs{"../c.js": gen, "sub/b.js": vend, "../src/a.js": gen, "../src/sub/b.js": {Generated: Yes, Vendored: Yes}}
	checkAttrs(t, files, want, nil)
}

// TestAttrsSymlinkAndSpecial: a symlinked .gitattributes is not read
// (silently, as in git); one that is a directory gets a Notice on its path.
func TestAttrsSymlinkAndSpecial(t *testing.T) {
	dir := plainTree(t, "a.js", "sub/b.js", "other/c.js", "rules")
	writeFile(t, filepath.Join(dir, "rules"), "*.js linguist-generated\n")
	if err := os.Symlink("rules", filepath.Join(dir, ".gitattributes")); err != nil {
		t.Skip(err)
	}
	if err := os.Symlink("../rules", filepath.Join(dir, "sub/.gitattributes")); err != nil {
		t.Skip(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "other/.gitattributes"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	files, warns := mustList(t, nil, Options{})
	checkAttrs(t, files, nil, []string{"a.js", "sub/b.js", "other/c.js"})
	noticeAbout(t, warns, "other/.gitattributes", "not a regular file (a directory)")
}

// TestOversizedAttributesFile: an attributes file over the cap is not read
// (it would be held in memory whole); a Notice says so. The file is sparse.
func TestOversizedAttributesFile(t *testing.T) {
	dir := plainTree(t, "a.js", "sub/b.js")
	writeFile(t, filepath.Join(dir, ".gitattributes"), "*.js linguist-vendored\n")
	p := filepath.Join(dir, "sub/.gitattributes")
	writeFile(t, p, "*.js linguist-generated\n")
	if err := os.Truncate(p, maxRulesSize+1); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	files, warns := mustList(t, nil, Options{})
	checkAttrs(t, files, map[string]Attrs{"a.js": vend, "sub/b.js": vend}, nil)
	noticeAbout(t, warns, "sub/.gitattributes", "larger than 16 MiB")
}
