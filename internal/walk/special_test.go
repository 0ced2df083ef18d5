//go:build unix

package walk

import (
	"fmt"
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

// TestListAllOthers: with ListAll, the FIFOs, sockets and devices met
// while walking and the symlinks not followed are listed too, each with
// its Kind (a link to nothing Dangling, one to a FIFO followed Irregular),
// tracked or not, and the warnings are those of a walk without it.
func TestListAllOthers(t *testing.T) {
	check := func(t *testing.T, dir string, extra map[string]string) {
		t.Helper()
		if err := os.Symlink("nowhere.py", filepath.Join(dir, "dangling.py")); err != nil {
			t.Fatal(err)
		}
		for _, follow := range []bool{false, true} {
			_, want := listPaths(t, dir, nil, Options{Follow: follow})
			files, warns := mustList(t, nil, Options{Follow: follow, ListAll: true})
			if !reflect.DeepEqual(warns, want) {
				t.Errorf("follow %v: warnings %+v, want %+v", follow, warns, want)
			}
			got := map[string]string{}
			for _, f := range files {
				got[f.Path] = fmt.Sprint(f.Kind, " ", f.Reason)
			}
			w := map[string]string{
				"a.py":    "0 ",
				"fifo.py": "3 not a regular file (a FIFO)",
				"sock.py": "3 not a regular file (a socket)",
			}
			if follow {
				w["null.py"], w["tofifo.py"] = "3 not a regular file (a character device)", "3 not a regular file (a FIFO)"
			} else {
				w["null.py"], w["tofifo.py"], w["dangling.py"] = "1 ", "1 ", "2 "
			}
			for p, k := range extra {
				w[p] = k
			}
			if !reflect.DeepEqual(got, w) {
				t.Errorf("follow %v: listed\n%v\nwant\n%v", follow, got, w)
			}
		}
	}
	t.Run("plain", func(t *testing.T) {
		dir := plainTree(t)
		specialTree(t, dir)
		check(t, dir, nil)
	})
	t.Run("repository", func(t *testing.T) {
		isolateGit(t)
		dir := t.TempDir()
		git(t, dir, "init", "-q")
		specialTree(t, dir)
		git(t, dir, "add", "null.py", "tofifo.py") // tracked links: trackedPass's
		writeTree(t, dir, "was.py")
		git(t, dir, "add", "was.py")
		os.Remove(filepath.Join(dir, "was.py")) // a tracked file replaced by a FIFO
		if err := syscall.Mkfifo(filepath.Join(dir, "was.py"), 0o644); err != nil {
			t.Fatal(err)
		}
		check(t, dir, map[string]string{"was.py": "3 not a regular file (a FIFO)"})
	})
}

// TestListAllNamedLink: a symlink named as an argument is followed, and
// stays a file to read when the walk of its folder lists it for ListAll
// as a symlink not followed.
func TestListAllNamedLink(t *testing.T) {
	dir := plainTree(t, "a.py")
	if err := os.Symlink("a.py", filepath.Join(dir, "link.py")); err != nil {
		t.Skip("symlinks unavailable:", err)
	}
	t.Chdir(dir)
	files, _ := mustList(t, []string{".", "link.py"}, Options{ListAll: true})
	var got []string
	for _, f := range files {
		got = append(got, fmt.Sprintf("%s %v %v", f.Path, f.Kind, f.Explicit))
	}
	if want := []string{"a.py 0 false", "link.py 0 true"}; !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}
