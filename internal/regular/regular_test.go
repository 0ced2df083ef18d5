package regular

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"testing/iotest"
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

// TestReadAllTooLarge: a stream read up to its limit is refused without a
// size, as only how much was read before stopping is known; a file whose
// size is known says it.
func TestReadAllTooLarge(t *testing.T) {
	_, err := ReadAll(nil, iotest.OneByteReader(bytes.NewReader(make([]byte, 100006))), 1000)
	if want := "file too large (over the 1000 B limit); skipped"; err == nil || err.Error() != want {
		t.Errorf("stream: error %v, want %q", err, want)
	}
	if b, err := ReadAll(nil, bytes.NewReader(make([]byte, 1000)), 1000); len(b) != 1000 || err != nil {
		t.Errorf("at the limit: %d bytes, %v", len(b), err)
	}
	name := filepath.Join(t.TempDir(), "big.py")
	if err := os.WriteFile(name, make([]byte, 100006), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = ReadFile(nil, name, 1000)
	if want := "file too large (97.7 KiB > 1000 B limit); skipped"; err == nil || err.Error() != want {
		t.Errorf("file: error %v, want %q", err, want)
	}
}

func TestOpenListed(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.py"), filepath.Join(dir, "b.py")
	for _, p := range []string{a, b} {
		if err := os.WriteFile(p, []byte(p), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	link := filepath.Join(dir, "link.py")
	if err := os.Symlink(a, link); err != nil {
		t.Fatal(err)
	}
	id := func(p string) ID {
		info, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		return IDOf(info)
	}
	idA, idB := id(a), id(b)
	if !idA.Known() || idA == idB {
		t.Fatalf("IDs %v, %v", idA, idB)
	}
	for _, c := range []struct {
		name   string
		id     ID
		follow bool
		want   string // "" when it opens
	}{
		{a, idA, false, ""},
		{a, ID{}, false, ""}, // identity unknown: not checked
		{link, idA, true, ""},
		{link, idA, false, "changed since it was listed: now a symbolic link"},
		{link, ID{}, false, "changed since it was listed: now a symbolic link"},
		{a, idB, false, "changed since it was listed: now another file"},
		{link, idB, true, "changed since it was listed: now another file"},
		{dir, idA, false, "changed since it was listed: now a directory"},
		{dir, ID{}, false, "not a regular file (a directory)"},
	} {
		f, info, err := OpenListed(c.name, c.id, c.follow)
		var ce *ChangedError
		switch {
		case c.want == "" && (err != nil || info == nil):
			t.Errorf("OpenListed(%s, %v, %v): %v", c.name, c.id, c.follow, err)
		case c.want == "":
			f.Close()
		case err == nil:
			f.Close()
			t.Errorf("OpenListed(%s, %v, %v) opened it; want %q", c.name, c.id, c.follow, c.want)
		case err.Error() != c.want || (strings.HasPrefix(c.want, "changed") != errors.As(err, &ce)):
			t.Errorf("OpenListed(%s, %v, %v): %v; want %q", c.name, c.id, c.follow, err, c.want)
		}
	}
}
