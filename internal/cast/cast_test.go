package cast

import (
	"slices"
	"strings"
	"testing"

	"github.com/castchunk/castchunk/internal/chunk"
	"github.com/castchunk/castchunk/internal/lang"
	"github.com/castchunk/castchunk/internal/parse"
)

// chunkText parses src as language name and returns the chunk contents.
func chunkText(t testing.TB, name, src string, budget int) []string {
	t.Helper()
	spans := chunkSpans(t, name, src, budget)
	var out []string
	for _, s := range spans {
		out = append(out, src[s.Start:s.End])
	}
	return out
}

func chunkSpans(t testing.TB, name, src string, budget int) []chunk.Span {
	t.Helper()
	p := parse.New(0)
	defer p.Close()
	tree, err := p.Parse([]byte(src), lang.ByName(name))
	if err != nil {
		t.Fatal(err)
	}
	defer tree.Close()
	spans := New().Chunk(chunk.Input{Src: []byte(src), Tree: tree, Budget: chunk.Budget{Size: budget}})
	var sz chunk.Sizer
	sz.Reset([]byte(src))
	if err := chunk.Check(&sz, spans, budget); err != nil {
		t.Fatalf("guarantees broken: %v", err)
	}
	return append([]chunk.Span(nil), spans...)
}

func TestExactChunks(t *testing.T) {
	tests := []struct {
		name   string
		lang   string
		budget int
		src    string
		want   []string
	}{
		{"empty file", "python", 10, "", nil},
		{"whole file fits", "python", 100, "x = 1\ny = 2\n", []string{"x = 1\ny = 2\n"}},
		{"one line without final newline", "python", 3, "x = 12", []string{"x = ", "12"}},
		{"siblings merge up to the budget", "python", 8, "a = 1\nb = 2\nc = 3\n",
			[]string{"a = 1\nb = 2\n", "c = 3\n"}},
		{"node larger than the budget is split; its header goes with the first part", "python", 12,
			"def f():\n    a = 1\n    b = 2\n    return a\n",
			[]string{"def f():\n    a = 1\n", "    b = 2\n    return a\n"}},
		{"token larger than the budget is split, never dropped", "python", 10,
			"s = '" + strings.Repeat("a", 25) + "'\n",
			[]string{"s = '" + strings.Repeat("a", 7), strings.Repeat("a", 10), strings.Repeat("a", 8) + "'\n"}},
		{"a block that fits stays whole", "python", 12,
			"def f(x):\n    y = x\n    return y\n",
			[]string{"def f(x):\n", "    y = x\n    return y\n"}},
		{"comment directly above a function travels with it", "python", 40,
			"import os\n\n# add two numbers\ndef add(a, b):\n    return a + b\n",
			[]string{"import os\n\n", "# add two numbers\ndef add(a, b):\n    return a + b\n"}},
		{"trailing comment stays with its line", "python", 8,
			"x = 1  # one\ny = 2\nz = 3\n",
			[]string{"x = 1  # one\n", "y = 2\nz = 3\n"}},
		{"CRLF line ends stay in the chunk before the cut", "python", 8,
			"a = 1\r\nb = 2\r\nc = 3\r\n",
			[]string{"a = 1\r\nb = 2\r\n", "c = 3\r\n"}},
		{"BOM belongs to the first chunk and counts as a character", "python", 6,
			"\ufeffa = 1\nb = 2\nc = 3\n",
			[]string{"\ufeffa = 1\n", "b = 2\nc = 3\n"}},
		{"tabs are whitespace and indentation goes with the next chunk", "java", 14,
			"class A {\n\tint x;\n\tint y;\n\tint z;\n}\n",
			[]string{"class A {\n\tint x;\n", "\tint y;\n\tint z;\n}\n"}},
		{"a comment run after a trailing comment travels with the node below (java)", "java", 20,
			"class A {\n    int a = 1; // one\n    // two\n    // three\n    int b = 2;\n}\n",
			[]string{"class A {\n    int a = 1; // one\n", "    // two\n    // three\n    int b = 2;\n}\n"}},
		{"a comment run after a trailing comment travels with the node below (typescript)", "typescript", 25,
			"const a = 1; // one\n// two\n/** three */\nconst b = 2;\n",
			[]string{"const a = 1; // one\n", "// two\n/** three */\nconst b = 2;\n"}},
		{"a comment run after a statement travels with the node below (python)", "python", 15,
			"a = 1\n# two\n# three\nb = 2\n",
			[]string{"a = 1\n", "# two\n# three\nb = 2\n"}},
		{"budget counts code points, not bytes", "python", 6,
			"é = 'ü'\nß = 'ö'\n",
			[]string{"é = 'ü'\n", "ß = 'ö'\n"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := chunkText(t, tt.lang, tt.src, tt.budget)
			if !equal(got, tt.want) {
				t.Errorf("chunks:\n%q\nwant:\n%q", got, tt.want)
			}
		})
	}
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestHeaderOnItsOwnLineGoesWithTheBody(t *testing.T) {
	// The class body (46 characters) is over the budget; the class header,
	// on the line above the brace, goes into the body's first chunk.
	src := "public class Greeter\n{\n    public int A() { return 1; }\n    public int B() { return 2; }\n}\n"
	got := chunkText(t, "csharp", src, 45)
	want := []string{
		"public class Greeter\n{\n    public int A() { return 1; }\n",
		"    public int B() { return 2; }\n}\n",
	}
	if !equal(got, want) {
		t.Errorf("chunks:\n%q\nwant:\n%q", got, want)
	}
}

func TestCrumbMergesIntoPreviousChunk(t *testing.T) {
	// The closing brace of the class would be a chunk of its own after the
	// oversized method; it merges back into the method's last chunk.
	src := "class A {\n  void f() {\n    int a = 1;\n    int b = 2;\n  }\n}\n"
	got := chunkText(t, "java", src, 20)
	for i, c := range got {
		if strings.TrimSpace(c) == "}" {
			t.Errorf("chunk %d is a lone brace: %q", i, got)
		}
	}
	if last := got[len(got)-1]; !strings.HasSuffix(last, "  }\n}\n") {
		t.Errorf("last chunk %q should end with both braces", last)
	}
}

func TestDeepNestingDoesNotOverflow(t *testing.T) {
	const depth = 50000
	src := "x = " + strings.Repeat("(", depth) + "1" + strings.Repeat(")", depth) + "\n"
	spans := chunkSpans(t, "python", src, 100)
	if len(spans) < 2*depth/100 {
		t.Errorf("only %d chunks for %d characters", len(spans), 2*depth)
	}
}

// TestLineThatEndsWithItsBreakThenComments covers nodes that end with their
// own line break, like C#'s #pragma lines (one that a blank line follows
// takes that too): what follows them is on a new line, so a run of comments
// after one is not mistaken for a comment trailing it.
func TestLineThatEndsWithItsBreakThenComments(t *testing.T) {
	class := "class A\n{\n    public int X() { return 1; }\n#pragma warning disable CS1591\n" +
		"    /// <summary>Gets one.</summary>\n    /// <returns>One.</returns>\n    public int One() { return 1; }\n}\n"
	tests := []struct {
		name   string
		budget int
		src    string
		want   []chunk.Span
	}{
		{"the pragma, the whole /// run and the method fit: they go together", 110, class,
			[]chunk.Span{{Start: 0, End: 43, Size: 29}, {Start: 43, End: 180, Size: 108}}},
		{"a run too long to go with the method stays whole", 100, class,
			[]chunk.Span{{Start: 0, End: 43, Size: 29}, {Start: 43, End: 143, Size: 83}, {Start: 143, End: 180, Size: 25}}},
		{"a pragma that swallows the blank line after it is not above the comment", 60,
			"class A { int X() => 1; }\n#pragma warning restore CS0618\n\n/// <summary>K.</summary>\nclass K { int Y() => 2; }\n",
			[]chunk.Span{{Start: 0, End: 58, Size: 45}, {Start: 58, End: 110, Size: 42}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := chunkSpans(t, "csharp", tt.src, tt.budget)
			if !slices.EqualFunc(got, tt.want, chunk.Span.Equal) {
				var text []string
				for _, s := range got {
					text = append(text, tt.src[s.Start:s.End])
				}
				t.Errorf("spans %v, want %v; chunks:\n%q", got, tt.want, text)
			}
		})
	}
}

// TestWhitespaceOverTheTokenBudget: a file of 3,000 lines of two spaces has
// no node holding a character; over a token budget, cast returned no chunk
// at all ("chunks end at byte 0, file has 9000", no record, exit 1, in
// every grammar). It is cut at line breaks, as text is, within the budget.
func TestWhitespaceOverTheTokenBudget(t *testing.T) {
	src := []byte(strings.Repeat("  \n", 3000))
	starts := make([]int32, 0, len(src)/3)
	for i := 0; i < len(src); i += 3 { // a token per line
		starts = append(starts, int32(i))
	}
	p := parse.New(0)
	defer p.Close()
	for _, name := range []string{"python", "java", "markdown", "json"} {
		tree, err := p.Parse(src, lang.ByName(name))
		if err != nil {
			t.Fatal(err)
		}
		budget := chunk.Budget{Size: 2000, Tokens: 512}
		spans := New().Chunk(chunk.Input{Src: src, Tree: tree, Budget: budget, TokenStarts: starts})
		tree.Close()
		if err := chunk.CheckTiling(spans, len(src), budget.Size); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(spans) != 6 { // 3,000 lines of one token, 512 a chunk
			t.Errorf("%s: %d chunks, want 6", name, len(spans))
		}
	}
}
