package walk

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"testing"
)

// cancelTree is a repository with tracked and untracked files, ignore and
// attribute rules, in dir.
func cancelTree(t *testing.T, dirs, perDir int) string {
	t.Helper()
	isolateGit(t)
	dir := t.TempDir()
	git(t, dir, "init", "-q")
	var names []string
	for d := 0; d < dirs; d++ {
		for f := 0; f < perDir; f++ {
			names = append(names, fmt.Sprintf("d%03d/f%03d.py", d, f))
		}
	}
	writeTree(t, dir, names...)
	writeFile(t, filepath.Join(dir, ".gitignore"), "*7.py\n")
	writeFile(t, filepath.Join(dir, ".gitattributes"), "*1.py linguist-generated\n*a*a*a*ab linguist-vendored\n")
	git(t, dir, "add", "d000")
	return dir
}

// TestListContextDone: with its context done before it starts, ListContext
// walks nothing and returns the context's error; list told to stop
// returns errStopped and nothing else.
func TestListContextDone(t *testing.T) {
	dir := cancelTree(t, 3, 5)
	t.Chdir(dir)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	files, warns, err := ListContext(ctx, []string{".", "missing"}, Options{})
	if !errors.Is(err, context.Canceled) || files != nil || warns != nil {
		t.Errorf("ListContext(cancelled) = %d files, %v, %v; want nothing and context.Canceled", len(files), warns, err)
	}
	done := make(chan struct{})
	close(done)
	files, warns, _, err = list([]string{".", "missing"}, Options{}, false, done)
	if !errors.Is(err, errStopped) || files != nil || warns != nil {
		t.Errorf("list(done closed) = %d files, %v, %v; want nothing and errStopped", len(files), warns, err)
	}
}

// TestListContextIsList: not cancelled, ListContext gives List's result.
func TestListContextIsList(t *testing.T) {
	dir := cancelTree(t, 4, 10)
	t.Chdir(dir)
	roots := []string{".", "missing", "d001/f001.py"}
	want, wantWarns, err := List(roots, Options{})
	if err != nil {
		t.Fatal(err)
	}
	got, gotWarns, err := ListContext(context.Background(), roots, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) || !reflect.DeepEqual(gotWarns, wantWarns) {
		t.Errorf("ListContext = %v, %v\nList = %v, %v", got, gotWarns, want, wantWarns)
	}
	if _, _, err := ListContext(context.Background(), nil, Options{Exclude: []string{"["}}); err == nil {
		t.Error("ListContext with a bad --exclude: no error")
	}
}

// TestListContextCancelledWhileWalking cancels ListContext while it walks
// a larger tree: it returns either the whole listing (the walk won the
// race) or the context's error with nothing, never part of a listing.
func TestListContextCancelledWhileWalking(t *testing.T) {
	dir := cancelTree(t, 20, 50)
	t.Chdir(dir)
	want, _, err := List(nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	stopped := 0
	for i := 0; i < 5; i++ {
		ctx, cancel := context.WithCancel(context.Background())
		type result struct {
			files []File
			err   error
		}
		res := make(chan result)
		go func() {
			files, _, err := ListContext(ctx, nil, Options{})
			res <- result{files, err}
		}()
		cancel()
		r := <-res
		switch {
		case r.err == nil:
			if !reflect.DeepEqual(r.files, want) {
				t.Errorf("run %d: not cancelled, but %d files listed of %d", i, len(r.files), len(want))
			}
		case errors.Is(r.err, context.Canceled):
			stopped++
			if r.files != nil {
				t.Errorf("run %d: cancelled, yet %d files", i, len(r.files))
			}
		default:
			t.Errorf("run %d: %v", i, r.err)
		}
	}
	t.Logf("%d of 5 runs stopped", stopped)
}
