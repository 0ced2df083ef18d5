package cli

import (
	"crypto/sha256"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"

	"github.com/castchunk/castchunk/internal/lang"
)

// treeSitterModule is the binding whose vendored tree-sitter core parses.
const treeSitterModule = "github.com/tree-sitter/go-tree-sitter"

// Version is castchunk's own version: the module version of a released
// build, or "devel" for a build from a checkout.
func Version() string {
	if info, ok := debug.ReadBuildInfo(); ok && info.Main.Version != "" && info.Main.Version != "(devel)" {
		return info.Main.Version
	}
	return "devel"
}

// buildID identifies this build for the cache: the version of a release,
// or for a development build a hash of the executable, so that a rebuilt
// binary never reuses chunks made by another.
func buildID() string {
	v := Version()
	if v != "devel" {
		return v
	}
	exe, err := os.Executable()
	if err != nil {
		return v
	}
	f, err := os.Open(exe)
	if err != nil {
		return v
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return v
	}
	return fmt.Sprintf("devel-%x", h.Sum(nil))
}

// versionLine is the one-line answer to --version.
func versionLine() string {
	var grammars []string
	for _, l := range lang.All() {
		grammars = append(grammars, l.Name+" "+l.Version())
	}
	return fmt.Sprintf("castchunk %s (go-tree-sitter %s; grammars: %s)",
		Version(), lang.ModuleVersion(treeSitterModule), strings.Join(grammars, ", "))
}

func newVersionCmd(s Streams) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version of castchunk and of its grammars",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			if _, err := fmt.Fprintln(s.Out, versionLine()); err != nil {
				return failure(err)
			}
			return nil
		},
	}
}
