package cli

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
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
	// The build is silent for minutes on a cold cache: a line says so first.
	if first, _, _ := strings.Cut(stderr.String(), "\n"); !strings.HasPrefix(first, "building ") || !strings.Contains(first, "minutes") {
		t.Errorf("make run's first line on stderr does not say the build may take minutes: %q", first)
	}
}

// TestMakeTestSaysItMayBeSilent: make test's first step that compiles the
// grammars (vet) is silent for minutes on a cold cache; a line on stderr
// says so before it.
func TestMakeTestSaysItMayBeSilent(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("make is not installed")
	}
	cmd := exec.Command("make", "-n", "test")
	cmd.Dir = "../.."
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("make -n test: %v", err)
	}
	first, _, _ := strings.Cut(string(out), "\n")
	if !strings.HasPrefix(first, "echo ") || !strings.Contains(first, "minutes") || !strings.HasSuffix(first, ">&2") {
		t.Errorf("make test does not first say on stderr that it may be silent for minutes: %q", first)
	}
}

// TestReadmeInstallAndStartUp: the README told users to go install a
// module that is not published, and gave start-up as 4.2 ms in one place
// and 45 ms in another. The pages under docs/ it links to count too.
func TestReadmeInstallAndStartUp(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	pages, err := filepath.Glob("../../docs/*.md")
	if err != nil || len(pages) == 0 {
		t.Fatalf("no page under docs/: %v", err)
	}
	text := string(readme)
	for _, page := range pages {
		data, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		text += "\n" + string(data)
	}
	if regexp.MustCompile(`(?m)^\s*(- run: )?go install github\.com/castchunk/castchunk/cmd/castchunk@`).MatchString(text) {
		t.Error("the README runs go install ...@latest of a module that is not published")
	}
	if !strings.Contains(string(readme), "go install ./cmd/castchunk") {
		t.Error("the README does not say how to install from a clone")
	}
	// The first figure within a few words of each "start-up".
	figures := map[string]bool{}
	figure := regexp.MustCompile(`^[^0-9]{0,40}(\d+(?:\.\d+)?) ms`)
	for _, at := range regexp.MustCompile(`[Ss]tart-up`).FindAllStringIndex(text, -1) {
		if m := figure.FindStringSubmatch(text[at[1]:]); m != nil {
			figures[m[1]] = true
		}
	}
	if len(figures) != 1 {
		t.Errorf("the README and docs/*.md give start-up as %v; want one figure", figures)
	}
}
