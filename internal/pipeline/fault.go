package pipeline

import (
	"os"
	"strings"
	"syscall"
	"testing"
)

// envFault names a test hook: "KIND:SUFFIX" makes a worker process fail
// on every file whose path ends with SUFFIX, as a grammar might: KIND
// "kill" is a SIGKILL in the middle of the file, "memory" allocates until
// the worker's memory ceiling stops it, "spin" loops until its deadline.
// The end-to-end tests use it; nobody else sets it.
const envFault = "CASTCHUNK_TEST_FAULT"

// testFault fails this worker on path as envFault says.
func testFault(path string) {
	kind, suffix, ok := strings.Cut(os.Getenv(envFault), ":")
	if !ok || suffix == "" || !strings.HasSuffix(path, suffix) {
		return
	}
	switch kind {
	case "kill":
		syscall.Kill(os.Getpid(), syscall.SIGKILL)
	case "memory":
		var held [][]byte
		for {
			b := make([]byte, 16<<20)
			for i := range b {
				b[i] = 1
			}
			held = append(held, b)
		}
	case "spin":
		for {
		}
	}
}

// envSwap names a test hook: "SUFFIX=TARGET" replaces the file whose path
// to read ends with SUFFIX by a symlink to TARGET just before it is
// opened, as a hostile tree may between listing and reading. The
// end-to-end tests use it; it is live in test binaries only
// (testing.Testing), so that no user's environment makes castchunk
// remove a file.
const envSwap = "CASTCHUNK_TEST_SWAP"

// testSwap swaps osPath for a symlink as envSwap says.
func testSwap(osPath string) {
	if !testing.Testing() {
		return
	}
	spec := os.Getenv(envSwap)
	if spec == "" {
		return
	}
	suffix, target, ok := strings.Cut(spec, "=")
	if !ok || suffix == "" || !strings.HasSuffix(osPath, suffix) {
		return
	}
	if os.Remove(osPath) == nil {
		os.Symlink(target, osPath)
	}
}
