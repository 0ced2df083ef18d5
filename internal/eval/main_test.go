package eval

import (
	"maps"
	"os"
	"testing"

	"github.com/castchunk/castchunk/internal/pipeline"
	"github.com/castchunk/castchunk/internal/supervise"
)

// TestMain serves as a worker process when the pipelines of the tests
// start this binary as one.
func TestMain(m *testing.M) {
	services := pipeline.Services()
	maps.Copy(services, Services())
	supervise.ServeIfWorker(services)
	os.Exit(m.Run())
}
