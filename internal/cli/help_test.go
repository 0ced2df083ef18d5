package cli

import (
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/castchunk/castchunk/internal/method"
)

// TestMethodFlagsHelp: every method's own flags show the placeholder N
// and a help that reads as a sentence; --overlap-lines, --stride and
// --window-lines ended theirs with a stray "(N)".
func TestMethodFlagsHelp(t *testing.T) {
	flags := newChunkCmd(Streams{}).Flags()
	n := 0
	for _, m := range method.All() {
		for _, opt := range m.Options {
			n++
			f := flags.Lookup(opt.Name)
			name, usage := pflag.UnquoteUsage(f)
			if name != "N" || strings.Contains(usage, "(N)") || !strings.Contains(" "+usage+" ", " N ") || strings.Contains(usage, "`") {
				t.Errorf("--%s: placeholder %q, help %q; want N, named in a sentence", opt.Name, name, usage)
			}
			if !strings.HasPrefix(usage, m.Name+": ") {
				t.Errorf("--%s: help %q does not start with its method", opt.Name, usage)
			}
		}
	}
	if n == 0 {
		t.Fatal("no method declares an option")
	}
	var help strings.Builder
	cmd := newChunkCmd(Streams{Out: &help, Err: &help})
	cmd.SetArgs([]string{"--help"})
	cmd.SetOut(&help)
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(help.String(), "\n") {
		if strings.HasSuffix(line, "(N)") {
			t.Errorf("help line ends with (N): %q", line)
		}
	}
}
