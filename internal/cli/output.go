package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"github.com/castchunk/castchunk/internal/output"
	"github.com/castchunk/castchunk/internal/pipeline"
	"github.com/castchunk/castchunk/internal/regular"
	"github.com/castchunk/castchunk/internal/stream"
)

// output is where records go: stdout, or -o FILE written atomically. For a
// regular file (or a new one) the records go to a temporary file beside it
// that is renamed over FILE only when the whole run succeeded, so a failed
// or interrupted run leaves the previous FILE untouched and no temporary
// file behind. A device or pipe (-o /dev/null, a FIFO) is written in place.
type outFile struct {
	*bufio.Writer
	file  *os.File // nil for stdout
	temp  string   // temporary file to rename; "" when writing in place
	final string
}

const outputBuffer = 256 << 10

// openOutput opens name for writing, or wraps stdout when name is "" or "-".
func openOutput(name string, stdout io.Writer) (*outFile, error) {
	if name == "" || name == "-" {
		return &outFile{Writer: bufio.NewWriterSize(stdout, outputBuffer)}, nil
	}
	if resolved, err := filepath.EvalSymlinks(name); err == nil {
		name = resolved // replace the file a symlink points to, not the link
	}
	info, err := os.Stat(name)
	if err == nil && !info.Mode().IsRegular() {
		if info.IsDir() {
			return nil, fmt.Errorf("output %s is a directory", name)
		}
		f, err := os.OpenFile(name, os.O_WRONLY, 0)
		if err != nil {
			return nil, err
		}
		return &outFile{Writer: bufio.NewWriterSize(f, outputBuffer), file: f}, nil
	}
	mode := os.FileMode(0o644)
	if err == nil {
		mode = info.Mode().Perm()
	}
	removeStaleTemps(name)
	f, err := os.CreateTemp(filepath.Dir(name), tempPrefix(name)+strconv.Itoa(os.Getpid())+"-*")
	if err != nil {
		if err := missingFolder(name); err != nil {
			return nil, err
		}
		var pe *fs.PathError
		if errors.As(err, &pe) { // name the user's file, not the temporary one
			err = &fs.PathError{Op: "create", Path: name, Err: pe.Err}
		}
		return nil, err
	}
	if err := f.Chmod(mode); err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, err
	}
	return &outFile{Writer: bufio.NewWriterSize(f, outputBuffer), file: f, temp: f.Name(), final: name}, nil
}

// missingFolder says plainly that the folder of an output is missing, or
// is not a folder: castchunk does not create folders (as a shell's > does
// not); nil when the folder is there.
func missingFolder(name string) error {
	dir := filepath.Dir(name)
	info, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%s: the folder %s does not exist: create it first (mkdir -p %s)", quoteName(name), quoteName(dir), quoteName(dir))
	case errors.Is(err, syscall.ENOTDIR), err == nil && !info.IsDir():
		return fmt.Errorf("%s: %s is not a folder", quoteName(name), quoteName(dir))
	}
	return nil
}

// tempPrefix starts the names of -o FILE's temporary files: they go on with
// the process id of the run that made them, so a later run can tell the
// leftovers of a killed run from the file of one still going.
func tempPrefix(name string) string { return "." + filepath.Base(name) + ".tmp-" }

// removeStaleTemps removes the temporary files a killed run left beside
// FILE: those whose process is gone. A run still going keeps its own.
func removeStaleTemps(name string) {
	prefix := tempPrefix(name)
	matches, _ := filepath.Glob(filepath.Join(filepath.Dir(name), globEscape(prefix)+"*-*"))
	for _, m := range matches {
		pidText, _, ok := strings.Cut(strings.TrimPrefix(filepath.Base(m), prefix), "-")
		pid, err := strconv.Atoi(pidText)
		if !ok || err != nil || pid <= 0 || pid == os.Getpid() {
			continue
		}
		if syscall.Kill(pid, 0) == syscall.ESRCH {
			os.Remove(m)
		}
	}
}

// globEscape quotes the characters filepath.Glob treats specially.
func globEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`*?[\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// commit flushes everything and, for a temporary file, moves it into place.
func (o *outFile) commit() error {
	if err := o.Flush(); err != nil {
		o.abort()
		return err
	}
	if o.file == nil {
		return nil
	}
	if o.temp != "" {
		if err := o.file.Sync(); err != nil {
			o.abort()
			return err
		}
	}
	if err := o.file.Close(); err != nil {
		o.file = nil
		o.abort()
		return err
	}
	o.file = nil
	if o.temp != "" {
		if err := os.Rename(o.temp, o.final); err != nil {
			os.Remove(o.temp)
			return err
		}
	}
	return nil
}

// abort drops the output of a run that did not go through: the temporary
// file is removed, FILE untouched. Stdout or a device keeps what was
// written so far, flushed whole: never a line cut in half.
func (o *outFile) abort() {
	if o.temp == "" {
		o.Flush() // the run is failing already; its error is the one told
	}
	if o.file != nil {
		o.file.Close()
		o.file = nil
	}
	if o.temp != "" {
		os.Remove(o.temp)
		o.temp = ""
	}
}

// openOutputCtx is openOutput that one signal can stop while it waits for
// the reader of a FIFO. Only a FIFO is opened in the background: a regular
// file's temporary must never be created after the run gave up.
func openOutputCtx(ctx context.Context, name string, stdout io.Writer) (*outFile, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if info, err := os.Stat(name); name == "" || err != nil || info.Mode()&fs.ModeNamedPipe == 0 {
		return openOutput(name, stdout)
	}
	var out *outFile
	err := interruptible(ctx, func() (err error) {
		out, err = openOutput(name, stdout)
		return err
	})
	if err != nil {
		return nil, err // out is not read: the open may still be going on
	}
	return out, nil
}

// interruptible runs fn, which may block for good (opening a FIFO that no
// one opens at the other end, reading a terminal), and returns early with
// ctx's error when ctx is done: one signal stops the run even then. fn
// goes on in the background; the process is about to exit.
func interruptible(ctx context.Context, fn func() error) error {
	done := make(chan error, 1)
	go func() { done <- fn() }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// dropOutput handles a file castchunk writes (-o FILE, --manifest FILE,
// named by flag) when it is one of the files listed, by any of its names
// (a symbolic or hard link too). An earlier run's output (exactly:
// package output's rules, by content; or still empty) is left out of the
// inputs whatever its extension, as tar leaves out its own archive, so
// that a rerun does not trip over it. Any other file would be replaced by what castchunk writes
// (a script known by its shebang, a notebook, a text file: it need not
// have a grammar by name to be worth keeping): a usage error naming the
// flag, as is an output named as an argument.
func dropOutput(flag, name string, jobs []pipeline.Job) ([]pipeline.Job, error) {
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
				if j.Named || output.Of(j.OSPath) == output.None {
					return nil, usageError("%s %s is one of the files to chunk (%s): it would be replaced by what castchunk writes there; give %s another file",
						flag, quoteName(name), quoteName(j.Path), flag)
				}
				continue
			}
		}
		kept = append(kept, j)
	}
	return kept, nil
}

// dropStdout leaves out of the listing the file stdout writes to
// (`castchunk chunk s > s/zz.json`), by its identity (fstat of stdout,
// compared with the device and inode each file was listed with): the shell made it
// before the run began, and reading it would chunk the run's own records
// as they are flushed into it. Named as an argument, it is refused, as -o's
// file is.
func dropStdout(stdout io.Writer, jobs []pipeline.Job) ([]pipeline.Job, error) {
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
					return nil, usageError("stdout is one of the files to chunk (%s): it would hold the records; send stdout elsewhere, or give -o another file", quoteName(j.Path))
				}
				continue
			}
		}
		kept = append(kept, j)
	}
	return kept, nil
}

// dropFolder leaves out of the listing the files under a folder castchunk
// writes (--cache DIR inside the tree): its entries are never inputs. A
// file named as an argument is kept: the user asked for it.
func dropFolder(dir string, jobs []pipeline.Job) []pipeline.Job {
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

// sameOutput reports whether two output names are one file: the same
// path once made absolute and its symbolic links followed (a dangling one
// too: writing through it creates its target), or (when both exist) the
// same file.
func sameOutput(a, b string) bool {
	if finalPath(a) == finalPath(b) {
		return true
	}
	fa, errA := os.Stat(a)
	fb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(fa, fb)
}

// finalPath is name made absolute with its symbolic links followed, as
// far as they lead: a dangling link's target, a missing file's path.
func finalPath(name string) string {
	p, err := filepath.Abs(name)
	if err != nil {
		return name
	}
	for range 40 { // the kernel's limit on links followed
		if real, err := filepath.EvalSymlinks(p); err == nil {
			return real
		}
		target, err := os.Readlink(p)
		if err != nil {
			break
		}
		if !filepath.IsAbs(target) {
			target = filepath.Join(filepath.Dir(p), target)
		}
		p = target
	}
	if dir, err := filepath.EvalSymlinks(filepath.Dir(p)); err == nil {
		return filepath.Join(dir, filepath.Base(p))
	}
	return p
}

// sameAsStream reports whether the file name is the one w writes to
// (stdout or stderr, when they are files, terminals included).
func sameAsStream(name string, w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	a, errA := os.Stat(name)
	b, errB := f.Stat()
	return errA == nil && errB == nil && os.SameFile(a, b)
}

// closedPipe reports a write to a reader that went away (`| head`): the
// run stops quietly, as a filter should.
func closedPipe(err error) bool {
	return errors.Is(err, syscall.EPIPE)
}

// openStreams opens what diff and merge read and write: the named outputs
// of chunk as streams of files, and the output (-o FILE, or stdout).
func openStreams(ctx context.Context, names []string, output string, s Streams) ([]*stream.Reader, *outFile, func(), error) {
	inputs, closeAll, err := openInputs(ctx, names, s)
	if err != nil {
		return nil, nil, nil, err
	}
	out, err := openStreamOutput(ctx, output, s)
	if err != nil {
		closeAll()
		return nil, nil, nil, err
	}
	return inputs, out, closeAll, nil
}

// openStreamOutput opens the output of diff and merge: -o FILE, or stdout.
func openStreamOutput(ctx context.Context, output string, s Streams) (*outFile, error) {
	out, err := openOutputCtx(ctx, output, s.Out)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, failure(fmt.Errorf("cannot write output: %w", err))
	}
	return out, nil
}

// ctxWriter stops writing once ctx is done.
type ctxWriter struct {
	ctx context.Context
	w   io.Writer
}

func (c ctxWriter) Write(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.w.Write(p)
}

// openInputs opens the named outputs of chunk (- is stdin, at most once)
// as streams of files, each through openRecordInput.
func openInputs(ctx context.Context, names []string, s Streams) ([]*stream.Reader, func(), error) {
	if i := slices.Index(names, "-"); i >= 0 && slices.Contains(names[i+1:], "-") {
		return nil, nil, usageError("- (stdin) can be given once")
	}
	var closers []func()
	closeAll := func() {
		for _, c := range closers {
			c()
		}
	}
	var readers []*stream.Reader
	for _, name := range names {
		in, display, closeIn, err := openRecordInput(ctx, name, s.In)
		if err != nil {
			closeAll()
			return nil, nil, err
		}
		closers = append(closers, closeIn)
		readers = append(readers, stream.NewReader(in, display))
	}
	return readers, closeAll, nil
}

// finishOutput ends a run that wrote to out: on success the output is
// committed (-o FILE moved into place) and then done runs; on failure or
// interruption -o FILE is left untouched. A reader that went away (| head)
// is no failure.
func finishOutput(ctx context.Context, out *outFile, err error, done func() error) error {
	if err == nil && ctx.Err() == nil {
		if err = out.commit(); err != nil {
			err = fmt.Errorf("write output: %w", err)
		}
	} else {
		out.abort()
	}
	switch {
	case ctx.Err() != nil:
		return ctx.Err()
	case err != nil && closedPipe(err):
		return nil
	case err != nil:
		return failure(err)
	}
	return done()
}

// openRecords opens the record stream named by the optional argument (none
// or -: stdin) for verify and stats, through openRecordInput.
func openRecords(ctx context.Context, args []string, stdin io.Reader) (io.Reader, string, func(), error) {
	name := "-"
	if len(args) > 0 {
		name = args[0]
	}
	return openRecordInput(ctx, name, stdin)
}

// openRecordInput opens one input of records, for every command that reads
// them (verify, stats, diff, merge): - is stdin, anything else a file, and
// the name to call it by. Opening a FIFO waits for a writer, and reading a
// pipe, a FIFO or a terminal waits for data: neither may keep one signal
// from stopping the run, so both give way to ctx (as chunk's --files-from
// and -o FIFO do). A file that cannot be opened is status 3 whatever the
// command: an input could not be read.
func openRecordInput(ctx context.Context, name string, stdin io.Reader) (io.Reader, string, func(), error) {
	if name == "-" {
		return interruptibleReader{ctx, stdin}, "stdin", func() {}, nil
	}
	var f *os.File
	err := interruptible(ctx, func() (err error) {
		f, err = os.Open(name)
		return err
	})
	switch {
	case ctx.Err() != nil:
		return nil, "", nil, ctx.Err()
	case err != nil:
		return nil, "", nil, &exitError{code: ExitUnreadable, err: err}
	}
	return interruptibleReader{ctx, f}, name, func() { f.Close() }, nil
}

// interruptibleReader reads r in the background and gives way to ctx: a
// read that blocks for good does not hold the run once ctx is done (the
// read goes on in the background; the process is about to exit).
type interruptibleReader struct {
	ctx context.Context
	r   io.Reader
}

func (ir interruptibleReader) Read(p []byte) (int, error) {
	type result struct {
		n   int
		err error
	}
	done := make(chan result, 1)
	go func() {
		n, err := ir.r.Read(p)
		done <- result{n, err}
	}()
	select {
	case r := <-done:
		return r.n, r.err
	case <-ir.ctx.Done():
		return 0, ir.ctx.Err()
	}
}
