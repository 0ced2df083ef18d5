// Package conformance holds the tests that hold the chunkers to the contract
// of docs/design.md, checked from the outside: every guarantee is re-derived from
// the source bytes and the syntax tree, never by calling the checker or the
// helpers the chunkers themselves use.
//
// The tests take the chunkers from the method registry (package method),
// never from a list of their own, so a new method is checked without
// editing a test. Each method is checked with its defaults and with a few
// variants of its declared options that its Check accepts: each option
// alone at 3, each ordered pair at 20 and 10 and at 50 and 10 (for
// sliding: an overlap of 3 lines, fixed windows of 3 lines, of 20 and of
// 50 lines every 10). TestANewMethodIsChecked runs the checks on the
// registry plus a fake method.
//
// Over every file of testdata/corpus (the language picked by extension, as
// the tool does), at budgets 50 to 2000, for every such configuration, the
// tests check:
//
//   - verbatim content and tiling (or, with overlap, ordered chunks that
//     cover the file without a gap): nothing is dropped or altered;
//   - every recorded size equals the non-whitespace code points of the
//     chunk's bytes and is within the budget;
//   - for a method that reads the tree, syntactic integrity over every node
//     of the tree (named and anonymous): a node whose own size fits the
//     budget lies in one chunk;
//   - the method's own rules, for the methods that have some (rules in
//     properties_test.go): for cast, where boundaries fall ("Where
//     boundaries fall" in docs/design.md): at the start of the line of the
//     next chunk's first node when a line break separates them, else right
//     at that node; comments directly above a node travel with it; crumbs
//     merge into a neighbour when the budget allows; for sliding, cuts
//     between whole lines and windows as its options define them;
//   - determinism: chunking again, with a fresh or a reused chunker and a
//     fresh parse, gives identical spans;
//   - language invariance: the packages of the methods, and those they
//     import, never ask a node its type.
//
// Golden files under testdata/golden render the chunks of every corpus
// file for review; go test -update rewrites them. The byte-exact edge files
// of testdata/corpus/edge come from gen_edge.go.
package conformance

//go:generate go run gen_edge.go
