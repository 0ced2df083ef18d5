// Command fakeembed serves castchunk's test embeddings endpoint (package
// embedtest: a hashed bag of words, no model) on 127.0.0.1, for measuring
// what `castchunk eval --embedder` costs in time and memory without a real
// model (scripts/evalbig.sh with EMBED=1). Its vectors are not a real
// embedder's: figures from it say nothing of retrieval quality.
//
//	go run ./scripts/fakeembed -dim 384     # prints the URL, serves until killed
package main

import (
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/castchunk/castchunk/internal/embed/embedtest"
)

func main() {
	dim := flag.Int("dim", 384, "numbers per vector")
	flag.Parse()
	s, err := embedtest.Start(*dim)
	if err != nil {
		fmt.Fprintln(os.Stderr, "fakeembed:", err)
		os.Exit(1)
	}
	defer s.Close()
	fmt.Println(s.URL)
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, os.Interrupt, syscall.SIGTERM)
	<-stop
	fmt.Fprintf(os.Stderr, "fakeembed: %d requests, %d texts\n", s.Requests(), s.Texts())
}
