// Command castchunk turns a source repository into exact, retrieval-ready
// chunks as JSON Lines. All the work is in internal/cli.
package main

import (
	"os"

	"github.com/castchunk/castchunk/internal/cli"
)

func main() {
	os.Exit(cli.Execute())
}
