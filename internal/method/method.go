// Package method is the registry of chunking methods: the one list that the
// command line, the pipeline, the cache and verify consult. A method is a
// package of its own that exports a chunk.Method; adding one is that
// package and one line in registry below (docs/design.md, "Chunking
// methods").
package method

import (
	"github.com/castchunk/castchunk/internal/cast"
	"github.com/castchunk/castchunk/internal/chunk"
	"github.com/castchunk/castchunk/internal/declaration"
	"github.com/castchunk/castchunk/internal/function"
	"github.com/castchunk/castchunk/internal/sliding"
)

// registry lists the methods; the first is the default.
var registry = []*chunk.Method{
	&cast.Method,
	&sliding.Method,
	&function.Method,
	&declaration.Method,
}

// All returns the methods, the default first.
func All() []*chunk.Method { return append([]*chunk.Method(nil), registry...) }

// Default is the method used when none is asked for.
func Default() *chunk.Method { return registry[0] }

// Names returns the methods' names, the default first.
func Names() []string {
	names := make([]string, len(registry))
	for i, m := range registry {
		names[i] = m.Name
	}
	return names
}

// ByName finds a method by name; nil when there is none.
func ByName(name string) *chunk.Method {
	for _, m := range registry {
		if m.Name == name {
			return m
		}
	}
	return nil
}

// Fallback is how a file is chunked when its method needs a syntax tree and
// the file cannot be parsed (a timeout, a cancelled parse): sliding windows
// up to the same budget, which need no tree and always tile the file.
func Fallback(budget int) chunk.Setup {
	return chunk.Setup{Method: &sliding.Method, Budget: budget}
}
