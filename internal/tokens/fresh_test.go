package tokens

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// freshEnv makes the test binary, run again, split a text in a process
// where nothing was loaded before: what a castchunk run is.
const freshEnv = "CASTCHUNK_TOKENS_FRESH"

// freshText starts with letters the class table decides: split before
// the table is ready, its pieces come out otherwise.
const freshText = "ünïcödé wörds, 日本語 and Ωmega's 123 ok\n"

func freshPieces(e *Encoding, text string) string {
	var b strings.Builder
	for i := 0; i < len(text); {
		j := e.next([]byte(text), i)
		fmt.Fprintf(&b, "%q ", text[i:j])
		i = j
	}
	return b.String()
}

// TestLoadReadiesTheSplit: Load stopped building the vocabulary (it is
// built at the first count), and with it the class table the
// pre-tokenizers read, so in a fresh process the first pieces were split
// with an empty table, and two workers raced on it: --tokenizer output
// differed from run to run at -j 2. Load readies the table itself.
func TestLoadReadiesTheSplit(t *testing.T) {
	if os.Getenv(freshEnv) != "" {
		for _, name := range Names() {
			e, err := Load(name)
			if err != nil {
				fmt.Println(err)
				os.Exit(1)
			}
			fmt.Println(freshPieces(e, freshText)) // before any count
		}
		os.Exit(0)
	}
	var want strings.Builder
	for _, name := range Names() {
		e, err := Load(name)
		if err != nil {
			t.Fatal(err)
		}
		e.NewCounter().Count([]byte(freshText)) // the table surely built
		want.WriteString(freshPieces(e, freshText) + "\n")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestLoadReadiesTheSplit$")
	cmd.Env = append(os.Environ(), freshEnv+"=1")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("fresh process: %v\n%s", err, out)
	}
	if string(out) != want.String() {
		t.Errorf("in a fresh process, Load then split gives\n%s\nwant\n%s", out, want.String())
	}
}
