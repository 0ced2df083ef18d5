package parse

import (
	sitter "github.com/tree-sitter/go-tree-sitter"

	"errors"
	"strings"
	"testing"
	"time"

	"github.com/castchunk/castchunk/internal/lang"
)

func TestEmptySource(t *testing.T) {
	p := New(0)
	defer p.Close()
	tree, err := p.Parse(nil, lang.ByName("python"))
	if err != nil {
		t.Fatal(err)
	}
	defer tree.Close()
	if got := tree.RootNode().EndByte(); got != 0 {
		t.Fatalf("empty source: root ends at %d", got)
	}
}

// TestTimeoutThenReuse checks that a parse past its deadline fails with
// ErrTimeout and that the parser then parses the next file normally.
func TestTimeoutThenReuse(t *testing.T) {
	p := New(time.Nanosecond)
	defer p.Close()
	big := []byte(strings.Repeat("x = [1, 2, 3]\n", 200000))
	if _, err := p.Parse(big, lang.ByName("python")); !errors.Is(err, ErrTimeout) {
		t.Fatalf("want ErrTimeout, got %v", err)
	}
	p.timeout = 0
	tree, err := p.Parse([]byte("y = 1\n"), lang.ByName("python"))
	if err != nil {
		t.Fatal(err)
	}
	defer tree.Close()
	if got, want := tree.RootNode().ToSexp(), "(module (expression_statement (assignment left: (identifier) right: (integer))))"; got != want {
		t.Fatalf("after timeout: got %s, want %s", got, want)
	}
}

func TestCancel(t *testing.T) {
	p := New(0)
	defer p.Close()
	p.Cancel()
	if _, err := p.Parse([]byte("x = 1\n"), lang.ByName("python")); !errors.Is(err, ErrCancelled) {
		t.Fatalf("want ErrCancelled, got %v", err)
	}
}

// TestScannerStateOverflow: a line of 260 nested Markdown block quotes, or
// of 280 nested YAML sequences, made the grammar's external scanner write
// more than tree-sitter's 1,024-byte state buffer, and tree-sitter's assert
// aborted the whole process (SIGABRT). The guarded scanner makes such a
// parse give ErrScannerState, and the parser goes on with the next file.
func TestScannerStateOverflow(t *testing.T) {
	p := New(0)
	defer p.Close()
	for _, tc := range []struct{ lang, src string }{
		{"markdown", strings.Repeat(">", 260) + " x\n"},
		{"yaml", strings.Repeat("- ", 280) + "x\n"},
		{"markdown", strings.Repeat(">", 100000) + " x\n"},
		{"markdown", strings.Repeat("> ", 3000) + "x\n"},
	} {
		tree, err := p.Parse([]byte(tc.src), lang.ByName(tc.lang))
		if tree != nil {
			tree.Close()
		}
		if !errors.Is(err, ErrScannerState) {
			t.Errorf("%s, %d bytes: err %v, want ErrScannerState", tc.lang, len(tc.src), err)
		}
		// The same parser, the same grammar: the next file parses.
		ok, err := p.Parse([]byte("> quote\n\n- item\n"), lang.ByName(tc.lang))
		if err != nil {
			t.Fatalf("%s after an overflow: %v", tc.lang, err)
		}
		if ok.RootNode().HasError() && tc.lang == "markdown" {
			t.Errorf("%s after an overflow: a tree with errors", tc.lang)
		}
		ok.Close()
	}
	// Nesting within the buffer still parses.
	tree, err := p.Parse([]byte(strings.Repeat(">", 100)+" x\n"), lang.ByName("markdown"))
	if err != nil {
		t.Fatalf("100 nested quotes: %v", err)
	}
	tree.Close()
}

// TestDeepHTMLGivesUp: tree-sitter-html's scanner rebuilds its whole
// stack of open tags on every token, so 50,000 nested <div> (550 KB) took
// 40 s to parse. Its work on its state is bounded too (256 times the
// file's length): 20,000 nested ones give up, the same on every run, with
// a message naming the bound; the parser goes on, and HTML nested as deep
// as real pages parses.
func TestDeepHTMLGivesUp(t *testing.T) {
	p := New(0)
	defer p.Close()
	html := lang.ByName("html")
	const depth = 20000
	hostile := []byte(strings.Repeat("<div>", depth) + "x" + strings.Repeat("</div>", depth) + "\n")
	for run := range 2 {
		tree, err := p.Parse(hostile, html)
		if tree != nil {
			tree.Close()
		}
		if !errors.Is(err, ErrTooMuchWork) || !strings.Contains(err.Error(), "scanner") {
			t.Fatalf("run %d: err %v, want ErrTooMuchWork for the scanner", run, err)
		}
	}
	deep := []byte(strings.Repeat("<section class=\"a\">", 200) + "x" + strings.Repeat("</section>", 200) + "\n")
	tree, err := p.Parse(deep, html)
	if err != nil {
		t.Fatalf("200 nested sections: %v", err)
	}
	tree.Close()
}

// TestDeepXMLGivesUp: tree-sitter-xml's scanner rebuilds its stack of
// open tags on every token too, its count at another place in its state
// (XMLScanner): 200,000 nested <a> (1.4 MB) took 27 s to give up on the
// bytes it saved alone. 20,000 nested ones give up on the count, the
// same on every run; a document nested as deep as real ones parses.
func TestDeepXMLGivesUp(t *testing.T) {
	p := New(0)
	defer p.Close()
	xml := lang.ByName("xml")
	const depth = 20000
	hostile := []byte(strings.Repeat("<a>", depth) + "x" + strings.Repeat("</a>", depth) + "\n")
	for run := range 2 {
		tree, err := p.Parse(hostile, xml)
		if tree != nil {
			tree.Close()
		}
		if !errors.Is(err, ErrTooMuchWork) || !strings.Contains(err.Error(), "scanner") {
			t.Fatalf("run %d: err %v, want ErrTooMuchWork for the scanner", run, err)
		}
	}
	deep := []byte("<?xml version=\"1.0\"?>\n" + strings.Repeat("<group name=\"a\">", 200) + "x" + strings.Repeat("</group>", 200) + "\n")
	tree, err := p.Parse(deep, xml)
	if err != nil {
		t.Fatalf("200 nested groups: %v", err)
	}
	tree.Close()
}

// TestTooMuchWork: a Markdown line of 60,000 stars around a letter took 40
// s to parse, and hours at the default size limit. A parse that lexes the
// file more than 1,024 times over gives up with ErrTooMuchWork: a bound on
// the parser's own work, so the outcome is the same on every run; the
// parser then parses the next file.
func TestTooMuchWork(t *testing.T) {
	p := New(0)
	defer p.Close()
	md := lang.ByName("markdown")
	hostile := []byte(strings.Repeat("*", 20000) + "a" + strings.Repeat("*", 20000) + "\n")
	for run := range 2 {
		tree, err := p.Parse(hostile, md)
		if tree != nil {
			tree.Close()
		}
		if !errors.Is(err, ErrTooMuchWork) {
			t.Fatalf("run %d: err %v, want ErrTooMuchWork", run, err)
		}
	}
	tree, err := p.Parse([]byte("# Title\n\nSome *text*.\n"), md)
	if err != nil {
		t.Fatalf("after giving up: %v", err)
	}
	tree.Close()
}

// TestRegionWorkBound: a region's parse is bounded by the region's own
// length, not the file's: nested Scala parentheses in a fence of a big
// file give up as they would in a file of their own (before, the bound
// of the whole file let each such fence run its quadratic course).
func TestRegionWorkBound(t *testing.T) {
	p := New(0)
	defer p.Close()
	region := "val x = " + strings.Repeat("(", 20000) + "1" + strings.Repeat(")", 20000) + "\n"
	src := []byte(strings.Repeat("filler text\n", 100000) + region)
	start := uint(len(src) - len(region))
	ranges := []sitter.Range{{StartByte: start, EndByte: uint(len(src)),
		StartPoint: sitter.Point{Row: 100000}, EndPoint: sitter.Point{Row: 100001}}}
	tree, err := p.ParseRanges(src, lang.ByName("scala"), ranges)
	if tree != nil {
		tree.Close()
	}
	if !errors.Is(err, ErrTooMuchWork) {
		t.Fatalf("err %v, want ErrTooMuchWork", err)
	}
	tree, err = p.Parse([]byte("object A\n"), lang.ByName("scala"))
	if err != nil {
		t.Fatalf("the next parse, of the whole text: %v", err)
	}
	tree.Close()
}
