// Package detect tells what a file is beyond its extension: the
// interpreter its shebang names, whether it is generated or vendored, and a
// language name for text that no grammar parses. The generated and vendored
// rules and the text names are GitHub's (linguist's, as go-enry ports
// them), and a file's git attributes (linguist-generated,
// linguist-vendored) override them as they do on GitHub. It knows no
// grammar: package lang maps names and interpreters to grammars.
//
// castchunk does not link go-enry, whose tables cost every start 16 MB and
// some 30 ms of CPU: generated.go ports its generated-file rules,
// language.go its language detection, and internal/gen writes the tables
// they need (aliases, extensions, file names, interpreters, content
// heuristics, the classifier's prior) into linguist/, embedded and each
// parsed on first use; every regular expression here is compiled on first
// use. Nothing is loaded at start-up.
//
// The one part of go-enry left out is the last strategy of GetLanguage, a
// Bayesian classifier over 16 MB of token frequencies that picks among the
// languages the name, shebang, modeline and content heuristics could not
// tell apart. Where several remain (a .s file of Go's assembly: Assembly,
// Motorola 68K Assembly or Unix Assembly; a .m file no heuristic places),
// TextName takes the language linguist has most samples of (the
// classifier's prior alone, which is its verdict on a file with no words),
// and among equals the first in go-enry's order, which is alphabetical. So
// the name is fixed for a given name and content, as go-enry's is not
// quite: its classifier breaks ties in map order. Everywhere else
// TextName and Generated give go-enry's answers, as the tests check on
// every file of testdata/ and of Go's source tree.
package detect

import (
	"bytes"
	"path"
	"strings"
)

// Interpreter returns the program a shebang line names ("python3" for
// `#!/usr/bin/env python3`, "bash" for `#!/bin/bash`), with a Python-style
// minor version dropped ("python3.11" → "python3"); "" when head does not
// start with a shebang.
func Interpreter(head []byte) string {
	line, _, _ := bytes.Cut(head, []byte{'\n'})
	if !bytes.HasPrefix(line, []byte("#!")) {
		return ""
	}
	fields := strings.Fields(string(bytes.TrimSuffix(line[2:], []byte{'\r'})))
	if len(fields) == 0 {
		return ""
	}
	prog := path.Base(fields[0])
	if prog == "env" {
		rest := fields[1:]
		for len(rest) > 0 && (strings.HasPrefix(rest[0], "-") || strings.Contains(rest[0], "=")) {
			rest = rest[1:] // env's options (-S, -i) and VAR=value assignments
		}
		if len(rest) == 0 {
			return ""
		}
		prog = path.Base(rest[0])
	}
	if m := minorVersion.get().FindStringIndex(prog); m != nil {
		prog = prog[:m[0]]
	}
	return prog
}

// minorVersion is the ".11" of "python3.11".
var minorVersion = &lazyRegexp{expr: `\.\d+$`}

// Generated reports whether a file is generated: attr (linguist-generated;
// nil when the attributes do not say) decides when set, else GitHub's rules
// on the path and content (lock files, minified bundles, protobuf and gRPC
// output, "Code generated ... DO NOT EDIT." and many more).
func Generated(p string, content []byte, attr *bool) bool {
	if attr != nil {
		return *attr
	}
	return generatedName.MatchString(p) || generatedMark.Match(head(content)) || linguistGenerated(p, content)
}

// generatedMark is the line generators write at the top of what they make,
// in any language's comment: Go's "Code generated … DO NOT EDIT." and the
// "@generated" tag of Meta's tools.
var generatedMark = &lazyRegexp{expr: `(?m)^\W{0,4}[ \t]*(Code generated .* DO NOT EDIT\.?|@generated\b)`}

// head is the first lines of content, where generators put their mark.
func head(content []byte) []byte {
	const lines, most = 20, 4096
	content = content[:min(len(content), most)]
	n := 0
	for i, c := range content {
		if c == '\n' {
			if n++; n == lines {
				return content[:i]
			}
		}
	}
	return content
}

// generatedName adds to GitHub's rules the names that say "generated" on
// their own, whatever the content: minified bundles, lock files and
// protocol buffer / gRPC output that linguist recognises by content only.
var generatedName = &lazyRegexp{expr: `(^|/)(` +
	`[^/]*[.-]min\.(js|mjs|cjs|css)|` +
	`yarn\.lock|Gemfile\.lock|mix\.lock|pubspec\.lock|Podfile\.lock|Cartfile\.resolved|Package\.resolved|packages\.lock\.json|go\.sum|` +
	`[^/]*\.pb\.(go|cc|h|swift)|[^/]*_grpc\.pb\.go|[^/]*_pb2(_grpc)?\.pyi?|[^/]*_pb\.(js|d\.ts)|[^/]*_grpc_pb\.(js|d\.ts)` +
	`)$`}

// Vendored reports whether a file is vendored (third-party code kept in the
// repository): attr (linguist-vendored) decides when set, else the
// folders package managers and vendoring tools fill (vendor/,
// node_modules/, third_party/, Pods/, …). p is relative to the folder
// the user named, so naming vendor/lib itself chunks it.
//
// The folders are GitHub's rules for third-party trees (linguist's
// vendor.yml, which go-enry carries): deps/ and Dependencies/ at the top,
// vendor/, third_party/, extern/, NuGet's packages/NAME.1.2.3/, and the
// like. GitHub's list is wider because it serves language statistics: it
// also counts testdata/, test fixtures, docs/, dist/, cache/, env/,
// debian/, every .d.ts file and single files by name (jquery.js,
// bootstrap.css, react.js). Those are the repository's own text, or names
// a project's own files carry too, so castchunk keeps to third-party
// trees; attributes override either way.
func Vendored(p string, attr *bool) bool {
	if attr != nil {
		return *attr
	}
	return vendoredPath.MatchString(p)
}

// vendoredPath matches the folders that hold other people's code.
var vendoredPath = &lazyRegexp{expr: `^(deps|[Dd]ependencies)/|(^|/)(` +
	`[Vv]+endors?|node_modules|bower_components|jspm_packages|web_modules|` +
	`(3rd|[Tt]hird)[-_]?[Pp]arty|[Ee]xtern(als?)?|Godeps/_workspace|Carthage|Pods|` +
	`[Pp]ackages/[^/]+\.\d+|extjs|MathJax|ace-builds|bootstrap-datepicker|` +
	`\.yarn/(cache|releases|plugins|sdks|unplugged)|\.pnpm-store|site-packages|\.venv|\.tox|\.bundle|` +
	`\.cargo/registry|\.m2/repository|\.gradle` +
	`)/`}

// TextName names the language of a text file no grammar parses, as GitHub
// would (lowercase, spaces as dashes: "protocol-buffer", "dockerfile"), or
// "text" when nothing is recognised: go-enry's GetLanguage, but that where
// the name, shebang, modeline and content heuristics leave several
// languages, the one of most samples is taken (see the package doc).
func TextName(p string, content []byte) string {
	name := language(path.Base(p), content)
	if name == "" {
		return "text"
	}
	return strings.ReplaceAll(strings.ToLower(name), " ", "-")
}
