package parse

import (
	"errors"
	"strings"
	"testing"
	"time"

	sitter "github.com/tree-sitter/go-tree-sitter"

	"github.com/castchunk/castchunk/internal/lang"
)

// TestBridgeMatchesBinding checks that the direct C parse yields the same
// tree as the binding's own Parse, in every language: the guard for the
// struct-layout bridge in rawParser and wrapTree.
func TestBridgeMatchesBinding(t *testing.T) {
	samples := map[string]string{
		"python":     "\ufeffimport os\n\n@dec\ndef f(x):\n    return x  # c\n",
		"java":       "class A { @Override public int f() { return 1; } }\n",
		"typescript": "export const f = (x: number): number => x + 1;\n",
		"tsx":        "export function C() { return <div>{1}</div>; }\n",
		"csharp":     "[Obsolete] class A { #region r\n int F() => 1;\n#endregion\n }\n",
	}
	p := New(0)
	defer p.Close()
	for name, src := range samples {
		l := lang.ByName(name)
		tree, err := p.Parse([]byte(src), l)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got := tree.RootNode().ToSexp()
		tree.Close()

		ref := sitter.NewParser()
		if err := ref.SetLanguage(l.Grammar()); err != nil {
			t.Fatal(err)
		}
		refTree := ref.Parse([]byte(src), nil)
		want := refTree.RootNode().ToSexp()
		refTree.Close()
		ref.Close()
		if got != want {
			t.Errorf("%s: bridge tree\n%s\nbinding tree\n%s", name, got, want)
		}
		if strings.Contains(got, "ERROR") {
			t.Errorf("%s: sample does not parse cleanly: %s", name, got)
		}
	}
}

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
