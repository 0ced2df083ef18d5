package walk

import (
	"fmt"
	"maps"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// gitCheckAttr returns every attribute git gives each path (relative to
// dir, the top of a work tree), as `git check-attr -a` prints them: "set",
// "unset" or the value; unspecified attributes are absent.
func gitCheckAttr(t *testing.T, dir string, paths []string) map[string]map[string]string {
	t.Helper()
	cmd := exec.Command("git", "check-attr", "-z", "--stdin", "-a")
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(strings.Join(paths, "\x00") + "\x00")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git check-attr: %v\n%s", err, stderr.String())
	}
	res := map[string]map[string]string{}
	for _, p := range paths {
		res[p] = map[string]string{}
	}
	f := strings.Split(string(out), "\x00")
	for i := 0; i+2 < len(f); i += 3 {
		m, ok := res[f[i]]
		if !ok {
			t.Fatalf("git check-attr printed an unknown path %q", f[i])
		}
		m[f[i+1]] = f[i+2]
	}
	return res
}

// linguistFrom reads git's answer as Linguist does.
func linguistFrom(m map[string]string) Attrs {
	tri := func(name string) Tri {
		v, ok := m[name]
		switch {
		case !ok:
			return Unspecified
		case v == "set":
			return Yes
		case v == "unset" || v == "false":
			return No
		}
		return Yes
	}
	a := Attrs{Generated: tri("linguist-generated"), Vendored: tri("linguist-vendored"), Documentation: tri("linguist-documentation")}
	if v, ok := m["linguist-language"]; ok && v != "set" && v != "unset" {
		a.Language = v
	}
	return a
}

// compareAttrsWithGit lists dir (the top of a repository) from dir and
// compares, for every file listed, every attribute with
// `git check-attr -a`, and the linguist attributes as List gives them
// (keeping only what matters to them) with git's read as Linguist does.
// It returns the number of files compared.
func compareAttrsWithGit(t *testing.T, what, dir string) int {
	t.Helper()
	t.Chdir(dir)
	files, _, raw, err := list(nil, Options{}, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := gitCheckAttr(t, dir, paths(files))
	for _, f := range files {
		if !maps.Equal(raw[f.Path], want[f.Path]) {
			t.Errorf("%s: %q: attributes %v, git says %v", what, f.Path, raw[f.Path], want[f.Path])
		}
	}
	files, _, err = List(nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if w := linguistFrom(want[f.Path]); f.Attrs != w {
			t.Errorf("%s: %q: Attrs %+v, from git %+v", what, f.Path, f.Attrs, w)
		}
	}
	return len(files)
}

// gitAttrCases are compared with git on top of attrCases (whose
// expectations are then git's too).
var gitAttrCases = []attrCase{
	{
		name:  "info attributes win",
		files: []string{"a.js", "sub/b.js", "c.md"},
		attrs: map[string]string{
			".git/info/attributes": "*.js -linguist-generated\n[attr]docs linguist-documentation=info\n",
			".gitattributes":       "*.js linguist-generated linguist-vendored\n[attr]docs linguist-documentation\n*.md docs\n",
			"sub/.gitattributes":   "*.js linguist-generated=deep\n",
		},
	},
	{
		name:  "values and states",
		files: []string{"a.x", "b.x", "c.x", "d.x", "e.x"},
		attrs: map[string]string{".gitattributes": "*.x linguist-language=Go linguist-generated=false linguist-vendored=true\n" +
			"b.x -linguist-language=Rust !linguist-generated=x\nc.x linguist-language linguist-documentation=0\n" +
			"d.x linguist-language= -linguist-vendored\ne.x !linguist-language text=auto eol=lf\n"},
	},
	{
		name:  "macro order and chains",
		files: []string{"a.x", "b.x", "c.x", "d.y", "e.z", "f.w"},
		attrs: map[string]string{
			".gitattributes": "[attr]a1 a2 linguist-vendored\n[attr]a2 a3\n[attr]a3 linguist-generated -linguist-vendored\n" +
				"[attr]loop1 loop2 linguist-documentation\n[attr]loop2 loop1\n" +
				"a.x a1\nb.x -a3 a1\nc.x a1 -linguist-generated\n*.y loop1\n*.z -diff binary\n*.w a1=yes a2=no\n",
		},
	},
	{
		name:  "character classes and escapes",
		files: []string{"a.c", "b.c", "d.c", "file1.go", "fileA.go", "star*", "starx", "q?", "qx", "#hash"},
		attrs: map[string]string{".gitattributes": "[ab].c linguist-generated\nfile[0-9].go linguist-vendored\n" +
			"star\\* linguist-documentation\nq\\? linguist-language=Q\n\\#hash linguist-generated\n"},
	},
	{
		name:  "tracked files in an ignored directory",
		files: []string{"build/x.js", "build/sub/y.js", "z.js"},
		attrs: map[string]string{
			".gitignore":               "build/\n",
			".gitattributes":           "*.js linguist-generated\n",
			"build/.gitattributes":     "x.js -linguist-generated\n",
			"build/sub/.gitattributes": "*.js linguist-vendored\n",
		},
	},
	{
		name:  "literal prefix then double star",
		files: []string{"a.x", "ab/b.x", "ab/c/d.x", "b.x", "sub/a.x", "sub/ab.x"},
		attrs: map[string]string{".gitattributes": "a**/*.x linguist-generated\n", "sub/.gitattributes": "/a**.x linguist-vendored\n"},
	},
	{
		// As "many stars" in git_test.go (issue 19), for attributes.
		name: "many stars",
		files: []string{strings.Repeat("a", 40), strings.Repeat("a", 39) + "b", strings.Repeat("a", 39) + "c",
			"d/" + strings.Repeat("a", 30) + "c.x", "d/" + strings.Repeat("ab", 15) + "c", "e/" + strings.Repeat("a/", 8) + "c", "e/" + strings.Repeat("a/", 12) + "d"},
		attrs: map[string]string{".gitattributes": "*a*a*a*ab linguist-generated\nd/*a*a*a*ac.x linguist-vendored\n" +
			"e/**/a/**/a/**/a/**/c linguist-documentation\n*b*b*b*ba linguist-language=B\n"},
	},
}

// TestAttrsMatchGit builds each case as a repository and compares the
// attributes of every file with git's.
func TestAttrsMatchGit(t *testing.T) {
	isolateGit(t)
	for _, c := range append(append([]attrCase{}, attrCases...), gitAttrCases...) {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			git(t, dir, "init", "-q")
			writeTree(t, dir, c.files...)
			for p, content := range c.attrs {
				writeFile(t, filepath.Join(dir, filepath.FromSlash(p)), content)
			}
			if c.name == "tracked files in an ignored directory" {
				git(t, dir, "add", "-f", "build/x.js", "build/sub/y.js")
			}
			compareAttrsWithGit(t, c.name, dir)
			if c.want != nil {
				files, _ := mustList(t, nil, Options{})
				checkAttrs(t, files, c.want, c.files)
			}
		})
	}
}

// TestGlobalAttributes: core.attributesFile (set through GIT_CONFIG_GLOBAL,
// "~/" expanded) has the lowest precedence; unset, it defaults to
// $XDG_CONFIG_HOME/git/attributes; set empty in the repository, there is
// none.
func TestGlobalAttributes(t *testing.T) {
	home := isolateGit(t)
	dir := t.TempDir()
	git(t, dir, "init", "-q")
	writeTree(t, dir, "a.js", "b.js", "c.md", "d.h")
	writeFile(t, filepath.Join(dir, ".gitattributes"), "b.js -linguist-vendored\n")
	writeFile(t, filepath.Join(home, "my attrs"), "*.js linguist-vendored\n[attr]docs linguist-documentation\n*.md docs\n")
	cfg := filepath.Join(home, "cfg")
	writeFile(t, cfg, "[core]\n\tattributesFile = \"~/my attrs\"\n")
	t.Setenv("GIT_CONFIG_GLOBAL", cfg)
	compareAttrsWithGit(t, "core.attributesFile", dir)
	files, _ := mustList(t, nil, Options{})
	checkAttrs(t, files, map[string]Attrs{"a.js": vend, "b.js": {Vendored: No}, "c.md": doc}, nil)

	t.Setenv("GIT_CONFIG_GLOBAL", filepath.Join(home, "empty.gitconfig"))
	writeFile(t, filepath.Join(home, ".config/git/attributes"), "*.h linguist-language=C++\n")
	compareAttrsWithGit(t, "XDG default", dir)
	files, _ = mustList(t, nil, Options{})
	checkAttrs(t, files, map[string]Attrs{"d.h": {Language: "C++"}, "b.js": {Vendored: No}}, nil)

	git(t, dir, "config", "core.attributesFile", "")
	compareAttrsWithGit(t, "set empty", dir)
	files, _ = mustList(t, nil, Options{})
	checkAttrs(t, files, map[string]Attrs{"b.js": {Vendored: No}}, nil)
}

// TestSystemAttributes: the system file has the lowest precedence and is
// skipped with GIT_ATTR_NOSYSTEM. (git reads its own build's path, so this
// is not compared with git.)
func TestSystemAttributes(t *testing.T) {
	home := isolateGit(t)
	sys := filepath.Join(home, "gitattributes")
	writeFile(t, sys, "*.js linguist-generated linguist-vendored\n[attr]gen linguist-generated\n")
	old := systemAttributesFile
	systemAttributesFile = sys
	t.Cleanup(func() { systemAttributesFile = old })
	dir := t.TempDir()
	git(t, dir, "init", "-q")
	writeTree(t, dir, "a.js", "b.go")
	writeFile(t, filepath.Join(home, ".config/git/attributes"), "*.js -linguist-vendored\n*.go gen\n")
	t.Setenv("GIT_ATTR_NOSYSTEM", "0")
	t.Chdir(dir)
	files, _ := mustList(t, nil, Options{})
	checkAttrs(t, files, map[string]Attrs{"a.js": {Generated: Yes, Vendored: No}, "b.go": gen}, nil)
	t.Setenv("GIT_ATTR_NOSYSTEM", "1")
	files, _ = mustList(t, nil, Options{})
	checkAttrs(t, files, map[string]Attrs{"a.js": {Vendored: No}}, nil)
}

// TestAttrsRepoRootsAndNoIgnore: a root below the top of the repository,
// a file named as an argument, a run from a subdirectory and NoIgnore all
// see the attributes git gives.
func TestAttrsRepoRootsAndNoIgnore(t *testing.T) {
	isolateGit(t)
	dir := t.TempDir()
	git(t, dir, "init", "-q")
	writeTree(t, dir, "src/a.js", "src/sub/b.js", "ign/c.js")
	writeFile(t, filepath.Join(dir, ".gitattributes"), "*.js linguist-generated\n")
	writeFile(t, filepath.Join(dir, "src/sub/.gitattributes"), "b.js linguist-vendored\n")
	writeFile(t, filepath.Join(dir, ".git/info/attributes"), "c.js linguist-documentation\n")
	writeFile(t, filepath.Join(dir, ".gitignore"), "ign/\n")
	want := map[string]Attrs{"src/a.js": gen, "src/sub/b.js": {Generated: Yes, Vendored: Yes}, "ign/c.js": {Generated: Yes, Documentation: Yes}}
	t.Chdir(dir)
	for _, roots := range [][]string{nil, {"src"}, {"src/sub"}, {"src/a.js", "src/sub/b.js", "ign/c.js"}, {"ign"}} {
		for _, noIgnore := range []bool{false, true} {
			files, warns := mustList(t, roots, Options{NoIgnore: noIgnore})
			if len(warns) != 0 {
				t.Errorf("warnings %+v", warns)
			}
			checkAttrs(t, files, want, nil)
		}
	}
	t.Chdir(filepath.Join(dir, "src"))
	files, _ := mustList(t, []string{".", "../ign/c.js"}, Options{})
	checkAttrs(t, files, map[string]Attrs{"a.js": gen, "sub/b.js": want["src/sub/b.js"], "../ign/c.js": want["ign/c.js"]}, nil)
}

// TestAttrsNestedRepository: a repository met while walking outside any
// has its own attributes; one inside a repository named as a root too.
func TestAttrsNestedRepository(t *testing.T) {
	isolateGit(t)
	dir := plainTree(t, "a.js", "repo/b.js", "repo/sub/c.js")
	writeFile(t, filepath.Join(dir, ".gitattributes"), "*.js linguist-generated\n")
	repo := filepath.Join(dir, "repo")
	git(t, repo, "init", "-q")
	writeFile(t, filepath.Join(repo, ".gitattributes"), "[attr]v linguist-vendored\n*.js v\n")
	writeFile(t, filepath.Join(repo, ".git/info/attributes"), "c.js linguist-documentation\n")
	t.Chdir(dir)
	files, _ := mustList(t, nil, Options{})
	checkAttrs(t, files, map[string]Attrs{"a.js": gen, "repo/b.js": vend, "repo/sub/c.js": {Vendored: Yes, Documentation: Yes}}, nil)
	compareAttrsWithGit(t, "nested", repo)
}

// Random attribute files: states for a few attributes, some of them macros
// defined in the top-level files.
var (
	randAttrNames  = []string{"linguist-generated", "linguist-vendored", "linguist-documentation", "linguist-language", "text", "m1", "m2", "binary"}
	randAttrValues = []string{"", "", "", "=true", "=false", "=Go", "=C++"}
	randMacros     = []string{
		"[attr]m1 linguist-generated -linguist-vendored",
		"[attr]m2 m1 linguist-language=C",
		"[attr]m1 linguist-documentation m2",
		"[attr]binary linguist-vendored",
		"[attr]text linguist-generated=false",
	}
)

// randomAttrs makes an attribute file; macro definitions come in the
// top-level files mostly, and now and then elsewhere (where git refuses
// them), with quoted patterns, comments, bad names and CRLF here and there.
func randomAttrs(rng *rand.Rand, top bool) string {
	var lines []string
	for i := rng.Intn(5) + 1; i > 0; i-- {
		if (top && rng.Intn(5) == 0) || rng.Intn(25) == 0 {
			lines = append(lines, randMacros[rng.Intn(len(randMacros))])
			continue
		}
		var comps []string
		for j := rng.Intn(3) + 1; j > 0; j-- {
			comps = append(comps, randTokens[rng.Intn(len(randTokens))])
		}
		p := strings.Join(comps, "/")
		if rng.Intn(4) == 0 {
			p = "/" + p
		}
		if rng.Intn(8) == 0 {
			p += "/"
		}
		if rng.Intn(10) == 0 {
			p = "!" + p
		}
		switch rng.Intn(12) {
		case 0:
			p = strconv.Quote(p)
		case 1:
			p = "# " + p
		case 2:
			p = "\t " + p
		}
		line := p
		for j := rng.Intn(4) + 1; j > 0; j-- {
			n := randAttrNames[rng.Intn(len(randAttrNames))]
			switch rng.Intn(5) {
			case 0:
				n = "-" + n
			case 1:
				n = "!" + n
			default:
				n += randAttrValues[rng.Intn(len(randAttrValues))]
			}
			if rng.Intn(30) == 0 {
				n = "bad$" + n
			}
			line += " " + n
		}
		if rng.Intn(6) == 0 {
			line += "\r"
		}
		lines = append(lines, line)
	}
	return strings.Join(lines, "\n") + "\n"
}

// TestRandomAttrsAgainstGit generates trees with random attribute files at
// random levels (and info/attributes) and compares every attribute of
// every file with git's. The seed is fixed so a failure reproduces.
func TestRandomAttrsAgainstGit(t *testing.T) {
	isolateGit(t)
	n := 40
	if v := os.Getenv("WALK_RANDOM_N"); v != "" {
		n, _ = strconv.Atoi(v)
	}
	if testing.Short() {
		n = 8
	}
	total := 0
	for seed := int64(1); seed <= int64(n); seed++ {
		rng, dir, _, dirs := randomRepo(t, seed)
		attrs := map[string]string{}
		for _, d := range sortedKeys(dirs) {
			if rng.Intn(2) == 0 {
				attrs[joinRel(d, ".gitattributes")] = randomAttrs(rng, d == "")
			}
		}
		if rng.Intn(3) == 0 {
			attrs[".git/info/attributes"] = randomAttrs(rng, true)
		}
		for _, p := range sortedKeys(attrs) {
			writeFile(t, filepath.Join(dir, filepath.FromSlash(p)), attrs[p])
		}
		before := t.Failed()
		total += compareAttrsWithGit(t, fmt.Sprintf("seed %d", seed), dir)
		if t.Failed() && !before {
			for _, p := range sortedKeys(attrs) {
				t.Logf("seed %d %s:\n%s", seed, p, attrs[p])
			}
		}
	}
	t.Logf("%d files compared", total)
}
