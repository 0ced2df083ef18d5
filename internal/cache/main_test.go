package cache_test

import (
	"os"
	"testing"

	"github.com/castchunk/castchunk/internal/cache"
	"github.com/castchunk/castchunk/internal/pipeline"
	"github.com/castchunk/castchunk/internal/supervise"
)

// TestMain runs the child processes of the tests that need them (see
// proc_test.go and run_test.go).
func TestMain(m *testing.M) {
	supervise.ServeIfWorker(pipeline.Services())
	switch mode := os.Getenv(cache.ChildEnv); mode {
	case "":
		os.Exit(m.Run())
	case "run-forever":
		os.Exit(runForever())
	default:
		os.Exit(cache.Child(mode))
	}
}
