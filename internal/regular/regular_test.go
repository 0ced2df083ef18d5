package regular

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

func TestOpen(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "a.py")
	if err := os.WriteFile(file, []byte("x = 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, info, err := Open(file, 0)
	if err != nil || info.Size() != 6 {
		t.Fatalf("regular file: %v %v", info, err)
	}
	f.Close()

	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip(err)
	}
	for name, want := range map[string]string{fifo: "not a regular file (a FIFO)", dir: "not a regular file (a directory)", os.DevNull: "not a regular file (a character device)"} {
		_, _, err := Open(name, 0) // never blocks: O_NONBLOCK
		var nr *NotRegularError
		if !errors.As(err, &nr) || err.Error() != want {
			t.Errorf("%s: %v, want %q", name, err, want)
		}
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(file, link); err != nil {
		t.Fatal(err)
	}
	if _, _, err := Open(link, syscall.O_NOFOLLOW); err == nil {
		t.Error("O_NOFOLLOW opened a symlink")
	}
}
