package cli

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestMakeRunPrintsOnlyRecords: `make run > chunks.jsonl` must give a file
// that jq reads: make echoes no command and prints no directory to stdout,
// the build's messages and the summary go to stderr.
func TestMakeRunPrintsOnlyRecords(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("make is not installed")
	}
	cmd := exec.Command("make", "run", "BIN="+filepath.Join(t.TempDir(), "castchunk"), "SAMPLE=testdata/corpus/python")
	cmd.Dir = "../.."
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("make run: %v\n%s", err, stderr.String())
	}
	if len(strictRecords(t, "stdout of make run is not records only", &stdout)) == 0 {
		t.Fatal("make run printed no record")
	}
	if !strings.Contains(stderr.String(), "language") {
		t.Errorf("the --stats summary is not on stderr: %q", stderr.String())
	}
}
