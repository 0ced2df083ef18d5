// Package cli is castchunk's command line. Each command lives in its own
// file as an options struct and a run function; the streams are injected
// (Streams), so tests run commands in-process and capture everything. This
// package turns flags into configurations and outcomes into exit statuses;
// the work itself lives in the packages below it (walk, plan, pipeline,
// record, cache, stats, verify, stream, eval).
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"os/signal"
	"runtime/debug"
	"runtime/pprof"
	"strconv"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/castchunk/castchunk/internal/eval"
	"github.com/castchunk/castchunk/internal/pipeline"
	"github.com/castchunk/castchunk/internal/record"
	_ "github.com/castchunk/castchunk/internal/rlimit" // the least limits, checked before the runtime starts
	"github.com/castchunk/castchunk/internal/supervise"
)

// Exit statuses (docs/design.md, "Exit statuses").
const (
	ExitOK          = 0   // all good
	ExitFailure     = 1   // the run failed: a write error, an internal error, problems found by verify
	ExitUsage       = 2   // bad flags or arguments
	ExitUnreadable  = 3   // some inputs could not be read (chunk: the others' output written), or a file named as an argument was left out
	ExitFellBack    = 4   // chunk: every file written, but a grammar failed on some, chunked with the fallback
	ExitMassDelete  = 5   // diff: refused by its guard (output.Guard: a file still in the repository missing from NEW; outside git, an emptied index or more than --max-delete of it)
	ExitInterrupted = 130 // stopped by SIGINT or SIGTERM
)

// Streams are the standard streams of a command.
type Streams struct {
	In       io.Reader
	Out, Err io.Writer
}

// exitError carries an exit status out of a command. A nil err means the
// problem was already reported.
type exitError struct {
	code int
	err  error
	hint string // a line of advice after the message (Did you mean --max-size?); "" for none
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit status %d", e.code)
	}
	return e.err.Error()
}

func (e *exitError) Unwrap() error { return e.err }

// usageError marks a bad flag or argument.
func usageError(format string, args ...any) error {
	return &exitError{code: ExitUsage, err: fmt.Errorf(format, args...)}
}

// failure marks a failed run.
func failure(err error) error { return &exitError{code: ExitFailure, err: err} }

// Execute runs castchunk as a process: the command line, the standard
// streams, SIGINT/SIGTERM to stop, and a closed stdout reported as EPIPE
// (so `| head` ends the run quietly) rather than killing the process.
func Execute() int {
	supervise.ServeIfWorker(WorkerServices())
	if err := claimDescriptors(); err != nil {
		fmt.Fprintf(os.Stderr, "castchunk: %v\n", err)
		return ExitFailure
	}
	setMemoryLimit()
	crashBySignal()
	signal.Ignore(syscall.SIGPIPE)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// After the first signal the run winds down; a second one kills it, as
	// users expect when a phase does not watch ctx (a read from a terminal).
	context.AfterFunc(ctx, stop)
	if path := os.Getenv("CASTCHUNK_CPUPROFILE"); path != "" {
		defer profileCPU(path)()
	}
	return Main(ctx, os.Args[1:], Streams{In: os.Stdin, Out: os.Stdout, Err: os.Stderr})
}

// WorkerServices are what castchunk's worker processes serve: the grammar
// work of every command (package supervise).
func WorkerServices() map[string]supervise.Service {
	services := pipeline.Services()
	maps.Copy(services, eval.Services())
	return services
}

// crashBySignal makes a crash of the Go runtime (out of memory, a panic no
// one recovered, a fatal error) end the process with SIGABRT (status 134
// in a shell) after printing every goroutine's stack, instead of the
// runtime's usual exit status 2, which castchunk keeps for usage errors.
func crashBySignal() { debug.SetTraceback("crash") }

// setMemoryLimit gives the Go heap a soft limit of three quarters of the
// memory the process may use (the machine's, or its cgroup's when lower),
// unless GOMEMLIMIT sets one: near the limit the collector works harder
// instead of letting the heap double, so big files fit where they would
// otherwise run the machine out of memory.
func setMemoryLimit() {
	if os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	if total := availableMemory(); total > 0 {
		debug.SetMemoryLimit(total / 4 * 3)
	}
}

// availableMemory is the smaller of the machine's memory and the cgroup's
// limit, in bytes; 0 when neither can be read.
func availableMemory() int64 {
	var total int64
	if data, err := os.ReadFile("/proc/meminfo"); err == nil {
		for _, line := range strings.Split(string(data), "\n") {
			if rest, ok := strings.CutPrefix(line, "MemTotal:"); ok {
				if kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64); err == nil {
					total = kb << 10
				}
			}
		}
	}
	if data, err := os.ReadFile("/sys/fs/cgroup/memory.max"); err == nil {
		if limit, err := strconv.ParseInt(strings.TrimSpace(string(data)), 10, 64); err == nil && limit > 0 && (total == 0 || limit < total) {
			total = limit
		}
	}
	return total
}

// claimDescriptors checks the limit on open files and makes the Go runtime
// take the descriptors of its poller now: the runtime takes them on the
// first file it opens and dies (a fatal error, not an error) if the limit
// leaves none. The pipeline fits its workers to what is left.
func claimDescriptors() error {
	// The limit itself was checked before the Go runtime started
	// (package rlimit).
	r, w, err := os.Pipe() // a pipe is registered with the poller, which starts it
	if err != nil {
		return fmt.Errorf("cannot open files: %v", err)
	}
	r.Close()
	w.Close()
	return nil
}

// profileCPU writes a CPU profile of the run to path, for `go tool pprof`
// (a development aid; see the README). It returns the function that stops
// the profile.
func profileCPU(path string) func() {
	f, err := os.Create(path)
	if err == nil {
		err = pprof.StartCPUProfile(f)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "castchunk: CASTCHUNK_CPUPROFILE: %v\n", err)
		return func() {}
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}
}

// Main runs castchunk with args and returns the exit status. Cancelling ctx
// (on SIGINT or SIGTERM) stops the run with ExitInterrupted.
func Main(ctx context.Context, args []string, s Streams) (code int) {
	defer func() { // a bug: say so, and never with the status of a usage error
		if p := recover(); p != nil {
			fmt.Fprintf(s.Err, "castchunk: internal error (a bug; please report it): %v\n%s", p, debug.Stack())
			code = ExitFailure
		}
	}()
	root := newRoot(s)
	root.SetArgs(args)
	cmd, err := root.ExecuteContextC(ctx)
	if err != nil && ctx.Err() != nil {
		fmt.Fprintln(s.Err, "castchunk: interrupted")
		return ExitInterrupted
	}
	if err == nil || stdoutClosed(err) {
		return ExitOK // a reader that went away (| head) is no failure, in any command
	}
	var ee *exitError
	if !errors.As(err, &ee) { // cobra's own errors: an unknown command, a wrong number of arguments
		msg, hint := commandSuggestions(err)
		ee = &exitError{code: ExitUsage, err: errors.New(msg), hint: hint}
	}
	if ee.err != nil {
		fmt.Fprintf(s.Err, "castchunk: %s\n", safeText(ee.err.Error()))
		if ee.hint != "" {
			fmt.Fprintln(s.Err, ee.hint)
		}
		if ee.code == ExitUsage {
			name := "castchunk"
			if cmd != nil {
				name = cmd.CommandPath()
			}
			fmt.Fprintf(s.Err, "Run '%s --help' for usage.\n", name)
		}
	}
	return ee.code
}

// stdoutClosed reports an error that is a write to stdout after its
// reader went away (`castchunk languages | head -1`): the command stops
// quietly with status 0, as a filter should. Only stdout's own write
// counts: a broken pipe elsewhere (a worker's) is a failure.
func stdoutClosed(err error) bool {
	var pe *fs.PathError
	return closedPipe(err) && errors.As(err, &pe) && pe.Path == os.Stdout.Name()
}

// completeValues offers values for a flag in shell completion.
func completeValues(cmd *cobra.Command, flag string, values []string) {
	_ = cmd.RegisterFlagCompletionFunc(flag, cobra.FixedCompletions(values, cobra.ShellCompDirectiveNoFileComp))
}

// dirCompletion completes a flag's value with folders.
func dirCompletion(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	return nil, cobra.ShellCompDirectiveFilterDirs
}

func newRoot(s Streams) *cobra.Command {
	root := &cobra.Command{
		Use:   "castchunk",
		Short: "Split a source repository into exact, retrieval-ready chunks (JSON Lines)",
		Long: `castchunk walks a repository, parses every file of the languages 'castchunk
languages' lists with tree-sitter (other text with --all-text), and prints
one JSON object per chunk on stdout.

Chunks are exact: each record's content is the file's bytes at its byte range,
a file's chunks rebuild it byte for byte, and no chunk is larger than the
budget (non-whitespace characters). The default method is cAST (syntax-tree
split-then-merge); --method sliding gives the line-based baseline; --method
function chunks each function or method alone, so its chunks leave out the
code outside functions and do not rebuild the file.

Each record is one JSON object on one line (no whitespace), with these
fields in this order (the optional ones only when a flag asks for them):

` + record.All().Help(80) + `
Exit status: 0 all good; 1 failure (chunk: also when some files failed, each
named and left out, the others written, and when nothing was chunked unless
--allow-empty; eval: no query kept); 2 usage error; 3 some inputs could not
be read (a wrong path: an argument that names nothing, even when it is the
only one; a listed repository that cannot be read or holds no file), or a
file named as an argument was left out (chunk: the others' output written);
4 chunk: every file written, but a grammar failed on some, chunked with
sliding windows; 5 diff refused by its guard (a file the repository still
has is missing from NEW; outside git, most of the index deleted; a
repository lost whole or not read; --allow-mass-delete); 130 interrupted;
134 a crash (the Go runtime's fatal error).`,
		Version:       versionLine(),
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetIn(s.In)
	root.SetOut(s.Out)
	root.SetErr(s.Err)
	root.SetVersionTemplate("{{.Version}}\n")
	root.SetFlagErrorFunc(flagError)
	root.AddCommand(newChunkCmd(s), newVerifyCmd(s), newStatsCmd(s), newDiffCmd(s), newMergeCmd(s), newEvalCmd(s), newLanguagesCmd(s), newVersionCmd(s))
	return root
}
