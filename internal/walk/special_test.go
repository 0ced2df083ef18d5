//go:build unix

package walk

import (
	"net"
	"os"
	"path/filepath"
	"reflect"
	"syscall"
	"testing"
)

// specialTree puts a FIFO, a socket and links to a FIFO and to the null
// device, all with a supported extension, beside a regular a.py.
func specialTree(t *testing.T, dir string) {
	t.Helper()
	writeTree(t, dir, "a.py")
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo.py"), 0o644); err != nil {
		t.Skip("cannot make a FIFO:", err)
	}
	l, err := net.Listen("unix", filepath.Join(dir, "sock.py"))
	if err != nil {
		t.Skip("cannot make a socket:", err)
	}
	t.Cleanup(func() { l.Close() })
	for link, target := range map[string]string{"null.py": os.DevNull, "tofifo.py": "fifo.py"} {
		if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
			t.Skip(err)
		}
	}
}

// TestSpecialFilesNotListed: FIFOs, sockets and devices met while walking
// are never listed (reading them would block or never end), with or
// without Follow, inside a repository or not, tracked or not; git lists
// none of them either. Nothing is opened, so nothing blocks.
func TestSpecialFilesNotListed(t *testing.T) {
	check := func(t *testing.T, dir string) {
		t.Helper()
		for _, follow := range []bool{false, true} {
			got, warns := listPaths(t, dir, nil, Options{Follow: follow})
			if !reflect.DeepEqual(got, []string{"a.py"}) || len(warns) != 0 {
				t.Errorf("follow %v: got %q %+v; want only a.py", follow, got, warns)
			}
		}
	}
	t.Run("plain", func(t *testing.T) {
		dir := plainTree(t)
		specialTree(t, dir)
		check(t, dir)
	})
	t.Run("repository", func(t *testing.T) {
		isolateGit(t)
		dir := t.TempDir()
		git(t, dir, "init", "-q")
		writeTree(t, dir, "was.py")
		git(t, dir, "add", "was.py")
		// A tracked file replaced by a FIFO.
		os.Remove(filepath.Join(dir, "was.py"))
		specialTree(t, dir)
		if err := syscall.Mkfifo(filepath.Join(dir, "was.py"), 0o644); err != nil {
			t.Fatal(err)
		}
		check(t, dir)
	})
}

// TestSpecialFileArguments: a FIFO, a socket or a device named as an
// argument is not listed but reported as unreadable, naming its kind.
func TestSpecialFileArguments(t *testing.T) {
	dir := plainTree(t)
	specialTree(t, dir)
	t.Chdir(dir)
	files, warns := mustList(t, []string{"a.py", "fifo.py", "null.py", "sock.py", "tofifo.py"}, Options{})
	if got := paths(files); !reflect.DeepEqual(got, []string{"a.py"}) {
		t.Errorf("listed %q, want only a.py", got)
	}
	want := []Warning{
		{"fifo.py", "not a regular file (a FIFO)", Unreadable},
		{"null.py", "not a regular file (a character device)", Unreadable},
		{"sock.py", "not a regular file (a socket)", Unreadable},
		{"tofifo.py", "not a regular file (a FIFO)", Unreadable},
	}
	if !reflect.DeepEqual(warns, want) {
		t.Errorf("warnings:\n got %+v\nwant %+v", warns, want)
	}
}
