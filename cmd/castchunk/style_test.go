package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// maxFunctionLines is the longest a product function may be, from its
// func line to its closing brace: past it, a function does several
// things, and four had grown back to 83-86 lines unnoticed.
const maxFunctionLines = 80

// TestNoLongFunctions keeps every function of the product (cmd/, scripts/ and
// internal/, tests aside) within maxFunctionLines.
func TestNoLongFunctions(t *testing.T) {
	fset := token.NewFileSet()
	for _, dir := range []string{"../../cmd", "../../internal", "../../scripts"} {
		err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
				return err
			}
			f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
			if err != nil {
				return err
			}
			for _, decl := range f.Decls {
				fn, ok := decl.(*ast.FuncDecl)
				if !ok || fn.Body == nil {
					continue
				}
				if n := fset.Position(fn.End()).Line - fset.Position(fn.Pos()).Line + 1; n > maxFunctionLines {
					t.Errorf("%s: %s is %d lines, over %d: split it", fset.Position(fn.Pos()), fn.Name.Name, n, maxFunctionLines)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}
