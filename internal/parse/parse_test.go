package parse

import (
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
