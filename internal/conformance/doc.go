// Package conformance holds the tests that hold the chunkers to the contract
// of docs/design.md, checked from the outside: every guarantee is re-derived from
// the source bytes and the syntax tree, never by calling the checker or the
// helpers the chunkers themselves use.
//
// Over every file of testdata/corpus (the language picked by extension, as
// the tool does), at budgets 50 to 2000, for the cast chunker and for the
// sliding chunker (tiling, line overlap, fixed 20/10 and 50/10 windows), the
// tests check:
//
//   - verbatim content and tiling (or, with overlap, ordered windows that
//     cover the file without a gap): nothing is dropped or altered;
//   - every recorded size equals the non-whitespace code points of the
//     chunk's bytes and is within the budget;
//   - for cast, syntactic integrity over every node of the tree (named and
//     anonymous): a node whose own size fits the budget lies in one chunk;
//   - for cast, where boundaries fall ("Where boundaries fall" in docs/design.md):
//     at the start of the line of the next chunk's first node when a line
//     break separates them, else right at that node; comments directly
//     above a node travel with it; crumbs merge into a neighbour when the
//     budget allows;
//   - determinism: chunking again, with a fresh or a reused chunker and a
//     fresh parse, gives identical spans;
//   - language invariance: the chunker packages never ask a node its type.
//
// Golden files under testdata/golden render the chunks of every corpus
// file for review; go test -update rewrites them. The byte-exact edge files
// of testdata/corpus/edge come from gen_edge.go.
package conformance

//go:generate go run gen_edge.go
