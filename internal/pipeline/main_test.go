package pipeline_test

import (
	"os"
	"testing"

	"github.com/castchunk/castchunk/internal/pipeline"
	"github.com/castchunk/castchunk/internal/supervise"
)

// TestMain serves as a worker process when the pipelines of the tests
// start this binary as one.
func TestMain(m *testing.M) {
	supervise.ServeIfWorker(pipeline.TestServices())
	os.Exit(m.Run())
}
