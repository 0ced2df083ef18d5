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

// stamped is the version the build stamped at link time (make build, make
// dist: -ldflags -X, scripts/version.sh): the tag, else the commit and its
// date. It is set by the linker, never by the program.
var stamped string

// Version is castchunk's own version: what the build stamped, else the
// module version of a `go install`, else "devel".
func Version() string {
	if stamped != "" {
		return stamped
	}
	if info, ok := debug.ReadBuildInfo(); ok && info.Main.Version != "" && info.Main.Version != "(devel)" {
		return info.Main.Version
	}
	return "devel"
}

// buildID identifies this build for the cache: the version of a release or
// of a clean commit, or for a build of a changed tree a hash of the
// executable, so that a rebuilt binary never reuses chunks made by
// another.
func buildID() string {
	v := Version()
	if v != "devel" && !strings.HasSuffix(v, "+dirty") {
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
