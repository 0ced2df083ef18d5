package cli

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// openPTY opens a pseudo-terminal: the master to read what was written,
// the slave to write to as a terminal.
func openPTY(t *testing.T) (master, slave *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	t.Cleanup(func() { m.Close() })
	if err := unix.IoctlSetPointerInt(int(m.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Skipf("unlockpt: %v", err)
	}
	n, err := unix.IoctlGetInt(int(m.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Skipf("ptsname: %v", err)
	}
	s, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("open the slave: %v", err)
	}
	return m, s
}

// ttyName stands for the terminal's own name among onTerminal's args.
const ttyName = "{tty}"

// onTerminal runs castchunk with stderr on a terminal, and stdout too
// unless out is given; it returns what reached the terminal.
func onTerminal(t *testing.T, out io.Writer, args ...string) string {
	t.Helper()
	master, slave := openPTY(t)
	read := make(chan string)
	go func() {
		var b bytes.Buffer
		io.Copy(&b, master) // ends with EIO once the slave is closed
		read <- b.String()
	}()
	if out == nil {
		out = slave
	}
	args = slices.Clone(args)
	for i, a := range args {
		if a == ttyName {
			args[i] = slave.Name()
		}
	}
	if code := Main(context.Background(), args, Streams{In: strings.NewReader(""), Out: out, Err: slave}); code != 0 {
		t.Errorf("%v: status %d", args, code)
	}
	slave.Close()
	return <-read
}

// TestProgressNeverMixesIntoRecords: with stdout and stderr both the
// terminal, the progress bar was drawn among the records. It shows only
// when stderr is a terminal and the records go elsewhere.
func TestProgressNeverMixesIntoRecords(t *testing.T) {
	dir := t.TempDir()
	for i := range 30 {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("m%02d.py", i)), []byte(fmt.Sprintf("x = %d\n", i)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if got := onTerminal(t, nil, "chunk", dir); strings.Contains(got, "chunking") || !strings.Contains(got, `"path":"`) {
		t.Errorf("stdout on the terminal: the bar was drawn, or no records:\n%q", got)
	}
	var records bytes.Buffer
	if got := onTerminal(t, &records, "chunk", dir); !strings.Contains(got, "chunking") || strings.Count(records.String(), "\n") != 30 {
		t.Errorf("stdout elsewhere: no bar on the terminal (%q), or not 30 records", got)
	}
	if got := onTerminal(t, &records, "chunk", "-o", ttyName, dir); strings.Contains(got, "chunking") || !strings.Contains(got, `"path":"`) {
		t.Errorf("-o naming the terminal (as -o /dev/stdout does): the bar was drawn, or no records:\n%q", got)
	}
	o := filepath.Join(t.TempDir(), "out.jsonl")
	if got := onTerminal(t, nil, "chunk", "-o", o, dir); !strings.Contains(got, "chunking") {
		t.Errorf("-o FILE: no bar on the terminal: %q", got)
	}
}
