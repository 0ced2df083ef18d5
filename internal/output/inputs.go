package output

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/castchunk/castchunk/internal/pipeline"
	"github.com/castchunk/castchunk/internal/plan"
	"github.com/castchunk/castchunk/internal/regular"
)

// The rules that keep castchunk's outputs out of its inputs
// (docs/design.md, "Outputs are never inputs"): -o's and --manifest's
// files, the file stdout writes to, the --cache folder, and earlier
// outputs under any name.

// InputError is a file castchunk would write that is among the inputs
// and is no earlier output: a usage error, nothing done.
type InputError struct{ Msg string }

func (e *InputError) Error() string { return e.Msg }

// DropOutput handles a file castchunk writes (-o FILE, --manifest FILE,
// named by flag) when it is one of the files listed, by any of its names
// (a symbolic or hard link too). An earlier run's output (exactly:
// package output's rules, by content; or still empty) is left out of the
// inputs whatever its extension, as tar leaves out its own archive, so
// that a rerun does not trip over it. Any other file would be replaced by what castchunk writes
// (a script known by its shebang, a notebook, a text file: it need not
// have a grammar by name to be worth keeping): a usage error naming the
// flag, as is an output named as an argument.
func DropOutput(flag, name string, jobs []pipeline.Job) ([]pipeline.Job, error) {
	if name == "" || name == "-" {
		return jobs, nil
	}
	out, err := os.Stat(name)
	if err != nil || !out.Mode().IsRegular() {
		return jobs, nil // a new file, or a device or FIFO written in place: no input
	}
	// Only inputs of the output's size (as listed) or name can be the
	// same file: stat those alone.
	base := filepath.Base(name)
	kept := jobs[:0:0]
	for _, j := range jobs {
		if j.Reader == nil && (j.Size == out.Size() || filepath.Base(j.OSPath) == base) {
			if in, err := os.Stat(j.OSPath); err == nil && os.SameFile(in, out) {
				if j.Named || Of(j.OSPath) == None {
					return nil, &InputError{fmt.Sprintf("%s %s is one of the files to chunk (%s): it would be replaced by what castchunk writes there; give %s another file",
						flag, Quote(name), Quote(j.Path), flag)}
				}
				continue
			}
		}
		kept = append(kept, j)
	}
	return kept, nil
}

// DropStdout leaves out of the listing the file stdout writes to
// (`castchunk chunk s > s/zz.json`), by its identity (fstat of stdout,
// compared with the device and inode each file was listed with): the shell made it
// before the run began, and reading it would chunk the run's own records
// as they are flushed into it. Named as an argument, it is refused, as -o's
// file is.
func DropStdout(stdout io.Writer, jobs []pipeline.Job) ([]pipeline.Job, error) {
	f, ok := stdout.(*os.File)
	if !ok {
		return jobs, nil
	}
	out, err := f.Stat()
	if err != nil || !out.Mode().IsRegular() {
		return jobs, nil // a terminal, a pipe, /dev/null: no input
	}
	id := regular.IDOf(out)
	kept := jobs[:0:0]
	for _, j := range jobs {
		if j.Reader == nil && (j.ID == id || j.ID == regular.ID{}) {
			if in, err := os.Stat(j.OSPath); err == nil && os.SameFile(in, out) {
				if j.Named {
					return nil, &InputError{fmt.Sprintf("stdout is one of the files to chunk (%s): it would hold the records; send stdout elsewhere, or give -o another file", Quote(j.Path))}
				}
				continue
			}
		}
		kept = append(kept, j)
	}
	return kept, nil
}

// DropFolder leaves out of the listing the files under a folder castchunk
// writes (--cache DIR inside the tree): its entries are never inputs. A
// file named as an argument is kept: the user asked for it.
func DropFolder(dir string, jobs []pipeline.Job) []pipeline.Job {
	if dir == "" {
		return jobs
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return jobs
	}
	prefixes := []string{abs + string(filepath.Separator)}
	if real, err := filepath.EvalSymlinks(abs); err == nil && real != abs {
		prefixes = append(prefixes, real+string(filepath.Separator))
	}
	kept := jobs[:0]
	for _, j := range jobs {
		p, err := filepath.Abs(j.OSPath)
		under := err == nil && j.Reader == nil && !j.Named && slices.ContainsFunc(prefixes, func(pre string) bool { return strings.HasPrefix(p, pre) })
		if !under {
			kept = append(kept, j)
		}
	}
	return kept
}

// MayBeEarlier reports whether a listed job is one Earlier should look
// at: a file that would be chunked (a grammar or a notebook by its name,
// or any with --all-text: a file without a grammar is unsupported
// whatever it holds, and no output starts with a shebang), not named as
// an argument (the user asked for it), and big enough to be one.
func MayBeEarlier(j pipeline.Job, allText bool) bool {
	return j.Reader == nil && !j.Named && j.Decision.Fate == plan.Chunked && j.Size >= MinSize &&
		(j.Decision.Lang != nil || j.Decision.Notebook || allText)
}
