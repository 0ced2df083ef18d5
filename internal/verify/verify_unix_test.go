//go:build unix

package verify

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/castchunk/castchunk/internal/record"
)

// TestVerifyDevices: a record naming a device is one problem, and the
// device is not read: reading /dev/zero never ends (it filled memory until
// the process died), and /dev/null would pass for an empty file.
func TestVerifyDevices(t *testing.T) {
	for _, dev := range []string{"/dev/zero", "/dev/null"} {
		t.Run(filepath.Base(dev), func(t *testing.T) {
			if _, err := os.Stat(dev); err != nil {
				t.Skipf("%s: %v", dev, err)
			}
			recs := recordsOf(t, dev, "python", "cast", "x = 1\n")
			// The size limit is there so that a regression that reads
			// devices again fails instead of filling memory.
			v := &Verifier{Root: "/", MaxFileSize: 1 << 20}
			_, lines := checkWith(v, recs)
			want := dev + ": not a regular file (a character device): only regular files are read"
			if len(lines) != 1 || lines[0] != want {
				t.Errorf("got %q, want %q", lines, want)
			}
		})
	}
}

// TestVerifyFIFO: a record naming a FIFO is one problem, at once: opening
// a FIFO to read it used to wait for a writer forever (and SIGTERM could
// not stop it). A writer is started, so that a regression that opens the
// FIFO the old way reads an empty file and fails instead of hanging.
func TestVerifyFIFO(t *testing.T) {
	root := t.TempDir()
	fifo := filepath.Join(root, "pipe.py")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if w, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil { // waits for a reader
			w.Close()
		}
	}()
	recs := recordsOf(t, "pipe.py", "python", "cast", "x = 1\n")
	_, lines := checkWith(&Verifier{Root: root}, recs)
	// Release the writer whatever verify did: a FIFO opened for reading
	// and writing does not wait, and counts as a reader.
	if rw, err := os.OpenFile(fifo, os.O_RDWR, 0); err == nil {
		<-done
		rw.Close()
	}
	want := "pipe.py: not a regular file (a FIFO): only regular files are read"
	if len(lines) != 1 || lines[0] != want {
		t.Errorf("got %q, want %q", lines, want)
	}
}

// TestVerifyDirectory: a record naming a folder is one problem.
func TestVerifyDirectory(t *testing.T) {
	root := t.TempDir()
	if err := os.Mkdir(filepath.Join(root, "d.py"), 0o755); err != nil {
		t.Fatal(err)
	}
	_, lines := checkWith(&Verifier{Root: root}, []record.Record{recordsOf(t, "d.py", "python", "cast", "x = 1\n")[0]})
	if len(lines) != 1 || !strings.HasPrefix(lines[0], "d.py: not a regular file (a directory)") {
		t.Errorf("got %q", lines)
	}
}
