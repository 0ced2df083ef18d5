package pipeline

import (
	"os"
	"strings"
	"syscall"
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
