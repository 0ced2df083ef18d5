package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// maxTrackedSize is the largest file the repository may track unless
// largeTracked lists it: every clone carries every byte.
const maxTrackedSize = 2 << 20

// largeTracked are the files allowed over maxTrackedSize, with why.
var largeTracked = map[string]string{}

// TestNoBuildOutputsTracked: no tracked file is a build output (an
// executable in ELF, Mach-O or PE form, or an archive of objects), and
// none is over maxTrackedSize unless listed. A 32 MB binary of
// scripts/defspan was once committed at the top of the repository.
func TestNoBuildOutputsTracked(t *testing.T) {
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("no git")
	}
	cmd := exec.Command(git, "ls-files", "-z")
	cmd.Dir = "../.."
	out, err := cmd.Output()
	if err != nil {
		t.Skipf("not a git checkout: %v", err)
	}
	for _, name := range strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00") {
		if name == "" {
			continue
		}
		p := filepath.Join("../..", filepath.FromSlash(name))
		info, err := os.Lstat(p)
		if err != nil || !info.Mode().IsRegular() {
			continue // deleted in the work tree, or a symlink
		}
		if info.Size() > maxTrackedSize && largeTracked[name] == "" {
			t.Errorf("%s is %d bytes, over %d: a build output or data to download, not to track (or list it in largeTracked with why)", name, info.Size(), maxTrackedSize)
		}
		if kind := buildOutput(p); kind != "" {
			t.Errorf("%s is %s: build outputs are never tracked (.gitignore)", name, kind)
		}
	}
}

// buildOutput names the kind of build output the file at p is, from its
// first bytes; "" when it is none.
func buildOutput(p string) string {
	f, err := os.Open(p)
	if err != nil {
		return ""
	}
	defer f.Close()
	head := make([]byte, 8)
	n, _ := f.Read(head)
	head = head[:n]
	for magic, kind := range map[string]string{
		"\x7fELF":              "an ELF executable or object",
		"\xcf\xfa\xed\xfe":     "a Mach-O executable",
		"MZ":                   "a PE executable",
		"!<arch>\n":            "an archive of objects",
		"\xca\xfe\xba\xbe\x00": "a Mach-O universal binary",
	} {
		if bytes.HasPrefix(head, []byte(magic)) {
			return kind
		}
	}
	return ""
}
