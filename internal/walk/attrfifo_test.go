//go:build unix

package walk

import (
	"os"
	"path/filepath"
	"testing"
)

// TestAttrsFromFIFO: a FIFO in place of an attributes file is not read; a
// Notice names it. The FIFO is fed, so a walker that did read it would
// apply its rules instead of hanging.
func TestAttrsFromFIFO(t *testing.T) {
	cases := []struct {
		name, fifo, path string
		roots            []string
		parts            []string
	}{
		{name: "info attributes", fifo: ".git/info/attributes", path: ".", parts: []string{"info/attributes", "(a FIFO)"}},
		{name: "top", fifo: ".gitattributes", path: ".", parts: []string{".gitattributes", "(a FIFO)"}},
		{name: "subdirectory", fifo: "sub/.gitattributes", path: "sub/.gitattributes", parts: []string{"attributes file not read", "(a FIFO)"}},
		{name: "subdirectory from elsewhere", fifo: "sub/.gitattributes", roots: []string{"sub/b.js"}, path: "sub/.gitattributes", parts: []string{"(a FIFO)"}},
		{name: "global", fifo: "global", path: ".", parts: []string{"global", "(a FIFO)"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			isolateGit(t)
			dir := t.TempDir()
			git(t, dir, "init", "-q")
			writeTree(t, dir, "a.js", "sub/b.js")
			fifo := filepath.Join(dir, filepath.FromSlash(c.fifo))
			if c.fifo == "global" {
				git(t, dir, "config", "core.attributesFile", fifo)
			}
			os.Remove(fifo)
			release := feedFIFO(t, fifo, "*.js linguist-generated\n")
			t.Chdir(dir)
			files, warns := mustList(t, c.roots, Options{})
			release()
			checkAttrs(t, files, nil, nil)
			noticeAbout(t, warns, c.path, c.parts...)
		})
	}
}
