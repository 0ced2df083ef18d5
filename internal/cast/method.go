package cast

import "github.com/castchunk/castchunk/internal/chunk"

// Method is cAST as the method registry knows it: it reads the syntax tree
// and its chunks always tile the file. It has no options besides the budget.
var Method = chunk.Method{
	Name:      "cast",
	Summary:   "syntax-tree chunks (cAST split-then-merge)",
	NeedsTree: true,
	New:       func(int, chunk.Values) chunk.Chunker { return New() },
}
