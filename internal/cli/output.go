package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"syscall"

	"github.com/castchunk/castchunk/internal/output"
	"github.com/castchunk/castchunk/internal/stream"
)

// openOutputCtx is openOutput that one signal can stop while it waits for
// the reader of a FIFO. Only a FIFO is opened in the background: a regular
// file's temporary must never be created after the run gave up.
func openOutputCtx(ctx context.Context, name string, stdout io.Writer) (*output.File, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if info, err := os.Stat(name); name == "" || err != nil || info.Mode()&fs.ModeNamedPipe == 0 {
		return output.Open(name, stdout)
	}
	var out *output.File
	err := interruptible(ctx, func() (err error) {
		out, err = output.Open(name, stdout)
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
func openStreams(ctx context.Context, names []string, output string, s Streams) ([]*stream.Reader, *output.File, func(), error) {
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
func openStreamOutput(ctx context.Context, output string, s Streams) (*output.File, error) {
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
func finishOutput(ctx context.Context, out *output.File, err error, done func() error) error {
	if err == nil && ctx.Err() == nil {
		if err = out.Commit(); err != nil {
			err = fmt.Errorf("write output: %w", err)
		}
	} else {
		out.Abort()
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
