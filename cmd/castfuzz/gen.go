// Input generation: the files of one batch, from a language's pool.
//
// Half the inputs are random token sequences (the pool's punctuation and
// delimiters, the seeds' words, whitespace, random characters, long runs
// of one token, deep nesting, unbalanced brackets), half are mutations of
// the seed files (characters replaced, ranges deleted, duplicated or
// spliced with another seed, tokens, runs and nesting inserted,
// truncation). Lengths go from 1 byte to about 8 KB, most of them tiny;
// runs and nesting may make an input longer. The text stays valid UTF-8
// without NUL bytes (castchunk skips anything else before any grammar
// sees it) except in a few inputs marked raw, which test that skip.
//
// Every batch has its own generator, seeded from -seed and the batch's
// number, so one batch can be made again without the ones before it.
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"unicode/utf8"
)

// maxInput bounds one input's length in bytes.
const maxInput = 256 << 10

// input is one file of a batch.
type input struct {
	name  string // input_NNN.ext
	data  []byte // the file's bytes
	how   string // how it was made, for people
	empty bool   // its text is empty: no records are expected
}

// gen makes the inputs of one batch of one language.
type gen struct {
	r    *rand.Rand
	p    *pool
	raw  bool // this input may hold any byte
	name string
}

// newGen returns the generator of batch number batch of a run seeded with seed.
func newGen(seed int64, batch int, p *pool, name string) *gen {
	return &gen{r: rand.New(rand.NewPCG(uint64(seed), uint64(batch)*0x9e3779b97f4a7c15+1)), p: p, name: name}
}

// batch makes n inputs with extension ext. Python and TypeScript inputs
// are sometimes wrapped in a notebook (.ipynb) whose kernel is theirs.
func (g *gen) batch(n int, ext string) []input {
	out := make([]input, 0, n)
	for i := 0; i < n; i++ {
		g.raw = g.r.IntN(100) < 4
		var data []byte
		var how string
		if len(g.p.seeds) > 0 && g.r.IntN(100) < 45 {
			data, how = g.mutation()
		} else {
			data, how = g.tokens(g.length())
		}
		if len(data) > maxInput {
			data = trimRunes(data, maxInput)
			how += ", cut to 256 KiB"
		}
		if g.raw {
			how += " (raw bytes allowed)"
		}
		in := input{name: fmt.Sprintf("input_%03d%s", i, ext), data: data, how: how, empty: len(data) == 0}
		if kernel := notebookKernel[g.name]; kernel != "" && g.r.IntN(100) < 12 {
			in.name = fmt.Sprintf("input_%03d.ipynb", i)
			in.data, in.empty = g.notebook(data, kernel)
			in.how += ", wrapped as a notebook with a " + kernel + " kernel"
		}
		out = append(out, in)
	}
	return out
}

// notebookKernel is the kernel language of the notebooks that wrap a
// language's inputs; languages without one are never wrapped.
var notebookKernel = map[string]string{"python": "python", "typescript": "typescript"}

// length picks an input's length: often tiny, sometimes up to ~8 KB.
func (g *gen) length() int {
	switch x := g.r.IntN(100); {
	case x < 55:
		return 1 + g.r.IntN(300)
	case x < 85:
		return 300 + g.r.IntN(1700)
	default:
		return 2000 + g.r.IntN(6200)
	}
}

// tokens makes a random input of about n bytes from segments of token
// soup, runs, nesting, unbalanced brackets and random characters.
func (g *gen) tokens(n int) ([]byte, string) {
	var b bytes.Buffer
	var kinds []string
	for b.Len() < n {
		left := n - b.Len()
		size := 1 + g.r.IntN(left)
		if g.r.IntN(3) == 0 {
			size = left
		}
		switch x := g.r.IntN(100); {
		case x < 58:
			g.soup(&b, size)
			kinds = append(kinds, "soup")
		case x < 68:
			kinds = append(kinds, g.run(&b))
		case x < 80:
			kinds = append(kinds, g.nest(&b))
		case x < 88:
			g.unbalanced(&b, size)
			kinds = append(kinds, "unbalanced")
		default:
			g.chars(&b, size)
			kinds = append(kinds, "chars")
		}
		if len(kinds) > 12 {
			break
		}
	}
	return b.Bytes(), "random tokens: " + strings.Join(compact(kinds), ", ")
}

// token is one token of the pool: punctuation, a word, whitespace, a
// number, a few random characters, an opener or a closer.
func (g *gen) token() string {
	p := g.p
	switch x := g.r.IntN(100); {
	case x < 40:
		return pick(g.r, p.punct)
	case x < 70 && len(p.words) > 0:
		// Frequent words (keywords) first: the list is sorted by count.
		i := g.r.IntN(len(p.words))
		if g.r.IntN(2) == 0 {
			i = g.r.IntN(min(len(p.words), 60))
		}
		return p.words[i]
	case x < 85:
		return g.space()
	case x < 92:
		var b bytes.Buffer
		g.chars(&b, 1+g.r.IntN(4))
		return b.String()
	default:
		pair := p.pairs[g.r.IntN(len(p.pairs))]
		return pair[g.r.IntN(2)]
	}
}

// space is whitespace: a space, a tab, a line break, a line break and an
// indentation (more often in a language that reads indentation).
func (g *gen) space() string {
	switch x := g.r.IntN(10); {
	case x < 3:
		return " "
	case x < 4:
		return "\t"
	case x < 6:
		return "\n"
	case x < 7:
		return "\r\n"
	default:
		depth := g.r.IntN(6)
		if !g.p.indent {
			depth = g.r.IntN(3)
		}
		unit := "    "
		if g.r.IntN(3) == 0 {
			unit = []string{"  ", "\t", " ", "   "}[g.r.IntN(4)]
		}
		return "\n" + strings.Repeat(unit, depth)
	}
}

// soup writes tokens, with or without spaces between them, up to n bytes.
func (g *gen) soup(b *bytes.Buffer, n int) {
	end := b.Len() + n
	for b.Len() < end {
		b.WriteString(g.token())
		switch x := g.r.IntN(10); {
		case x < 4:
			b.WriteByte(' ')
		case x < 5:
			b.WriteByte('\n')
		}
	}
}

// run writes one token (or a short sequence of them) 50 to 5,000 times.
func (g *gen) run(b *bytes.Buffer) string {
	unit := g.token()
	if g.r.IntN(3) == 0 {
		unit += g.token()
	}
	if unit == "" {
		unit = "("
	}
	times := logUniform(g.r, 50, 5000)
	if times*len(unit) > 64<<10 {
		times = max(50, (64<<10)/len(unit))
	}
	b.WriteString(strings.Repeat(unit, times))
	return fmt.Sprintf("run of %d × %q", times, clip(unit, 20))
}

// nest writes openers 50 to 5,000 deep, maybe something inside, then all
// of their closers, some of them or none.
func (g *gen) nest(b *bytes.Buffer) string {
	depth := logUniform(g.r, 50, 5000)
	mixed := g.r.IntN(10) < 3
	pairs := make([][2]string, depth)
	one := g.p.pairs[g.r.IntN(len(g.p.pairs))]
	var bytesOut int
	for i := range pairs {
		pairs[i] = one
		if mixed {
			pairs[i] = g.p.pairs[g.r.IntN(len(g.p.pairs))]
		}
		bytesOut += len(pairs[i][0]) + len(pairs[i][1])
		if bytesOut > 128<<10 {
			pairs = pairs[:i+1]
			break
		}
	}
	indent := g.r.IntN(4) == 0
	for i, p := range pairs {
		if indent {
			b.WriteString("\n" + strings.Repeat(" ", i%200))
		}
		b.WriteString(p[0])
	}
	if g.r.IntN(2) == 0 {
		g.soup(b, 1+g.r.IntN(40))
	}
	closed := len(pairs)
	switch x := g.r.IntN(4); {
	case x == 0:
		closed = 0
	case x == 1:
		closed = g.r.IntN(len(pairs) + 1)
	}
	for i := len(pairs) - 1; i >= len(pairs)-closed; i-- {
		b.WriteString(pairs[i][1])
	}
	what := fmt.Sprintf("%q", clip(one[0], 20))
	if mixed {
		what = "mixed openers"
	}
	return fmt.Sprintf("nesting %d deep (%s, %d closed)", len(pairs), what, closed)
}

// unbalanced writes brackets and closers that do not match, up to n bytes.
func (g *gen) unbalanced(b *bytes.Buffer, n int) {
	end := b.Len() + n
	for b.Len() < end {
		p := g.p.pairs[g.r.IntN(len(g.p.pairs))]
		if g.r.IntN(3) == 0 {
			b.WriteString(p[0])
		} else {
			b.WriteString(p[1])
		}
		if g.r.IntN(5) == 0 {
			b.WriteString(g.token())
		}
	}
}

// special are characters that unsettle lexers: a byte order mark, line
// and paragraph separators, a zero-width space, a combining accent, the
// replacement character, a no-break space, a right-to-left override.
var special = []rune{0xFEFF, 0x2028, 0x2029, 0x200B, 0x0301, 0xFFFD, 0x00A0, 0x202E, 0x000B, 0x000C, 0x0085}

// chars writes n random characters (valid UTF-8, no NUL) or, in a raw
// input, sometimes any byte.
func (g *gen) chars(b *bytes.Buffer, n int) {
	end := b.Len() + n
	for b.Len() < end {
		if g.raw && g.r.IntN(8) == 0 {
			b.WriteByte(byte(g.r.IntN(256)))
			continue
		}
		var r rune
		switch x := g.r.IntN(100); {
		case x < 60:
			r = rune(0x20 + g.r.IntN(0x5f))
		case x < 70:
			r = rune(1 + g.r.IntN(0x1f))
		case x < 85:
			r = rune(0x80 + g.r.IntN(0x480))
		case x < 90:
			r = rune(0x4e00 + g.r.IntN(0x5000))
		case x < 95:
			r = rune(0x1F300 + g.r.IntN(0x800))
		default:
			r = special[g.r.IntN(len(special))]
		}
		if r >= 0x80 && r < 0xa0 && r != 0x85 {
			r += 0x100 // C1 controls are fine but rare; keep most text printable
		}
		b.WriteRune(r)
	}
}

// mutation returns a seed file changed by one to eight mutations.
func (g *gen) mutation() ([]byte, string) {
	i := g.r.IntN(len(g.p.seeds))
	s := append([]byte(nil), g.p.seeds[i]...)
	ops := 1 + g.r.IntN(8)
	if g.r.IntN(4) == 0 {
		ops += g.r.IntN(24) // sometimes many
	}
	var done []string
	for k := 0; k < ops; k++ {
		var what string
		s, what = g.mutate(s)
		done = append(done, what)
		if len(s) > maxInput {
			break
		}
	}
	return s, fmt.Sprintf("mutation of seed %s: %s", g.p.names[i], strings.Join(compact(done), ", "))
}

// mutate applies one mutation to s.
func (g *gen) mutate(s []byte) ([]byte, string) {
	if len(s) == 0 {
		var b bytes.Buffer
		g.soup(&b, 1+g.r.IntN(40))
		return b.Bytes(), "insert tokens"
	}
	at := func() int { return g.boundary(s, g.r.IntN(len(s)+1)) }
	switch x := g.r.IntN(100); {
	case x < 16: // replace a few bytes
		n := 1 + g.r.IntN(8)
		for k := 0; k < n; k++ {
			j := g.r.IntN(len(s))
			if g.raw && g.r.IntN(4) == 0 {
				s[j] ^= 1 << g.r.IntN(8)
			} else if s[j] < 0x80 {
				s[j] = flipTo[g.r.IntN(len(flipTo))]
			}
		}
		return s, "replace bytes"
	case x < 30: // delete a range
		a := at()
		n := 1 + g.r.IntN(64)
		if g.r.IntN(4) == 0 {
			n = 1 + g.r.IntN(len(s)/4+1)
		}
		e := g.boundary(s, min(len(s), a+n))
		return append(s[:a], s[e:]...), "delete"
	case x < 50: // insert tokens
		var b bytes.Buffer
		g.soup(&b, 1+g.r.IntN(40))
		return insert(s, at(), b.Bytes()), "insert tokens"
	case x < 56: // insert a run
		var b bytes.Buffer
		g.run(&b)
		return insert(s, at(), b.Bytes()), "insert run"
	case x < 62: // insert nesting
		var b bytes.Buffer
		g.nest(&b)
		return insert(s, at(), b.Bytes()), "insert nesting"
	case x < 74: // duplicate a slice, maybe many times
		a := at()
		e := g.boundary(s, min(len(s), a+1+g.r.IntN(512)))
		times := 1
		if g.r.IntN(3) == 0 {
			times = 2 + g.r.IntN(50)
		}
		dup := bytes.Repeat(s[a:e], times)
		return insert(s, at(), dup), "duplicate"
	case x < 84: // splice with another seed
		t := g.p.seeds[g.r.IntN(len(g.p.seeds))]
		a := at()
		j := g.boundary(t, g.r.IntN(len(t)+1))
		out := append(append([]byte(nil), s[:a]...), t[j:]...)
		return out, "splice"
	case x < 92: // truncate
		return s[:at()], "truncate"
	default: // re-indent or break lines
		lines := bytes.Split(s, []byte("\n"))
		n := 1 + g.r.IntN(8)
		for k := 0; k < n; k++ {
			j := g.r.IntN(len(lines))
			switch g.r.IntN(3) {
			case 0:
				lines[j] = append([]byte(strings.Repeat(" ", 1+g.r.IntN(8))), lines[j]...)
			case 1:
				lines[j] = bytes.TrimLeft(lines[j], " \t")
			default:
				lines[j] = append([]byte("\t"), lines[j]...)
			}
		}
		return bytes.Join(lines, []byte("\n")), "re-indent"
	}
}

// flipTo are the bytes a replaced byte becomes.
var flipTo = []byte("(){}[]<>\"'`;:,.=+-*/\\|&^%$#@!?~ \n\t\r_aZ09")

// boundary moves i to the start of a character of s (in a raw input any
// offset will do).
func (g *gen) boundary(s []byte, i int) int {
	if g.raw {
		return i
	}
	for i < len(s) && !utf8.RuneStart(s[i]) {
		i++
	}
	return i
}

// notebook wraps text in an nbformat 4 notebook of one to four cells (a
// Markdown one sometimes) whose kernel language is kernel. It reports
// whether the notebook's text is empty.
func (g *gen) notebook(text []byte, kernel string) ([]byte, bool) {
	type cell struct {
		Type     string         `json:"cell_type"`
		Metadata map[string]any `json:"metadata"`
		Source   []string       `json:"source"`
		Outputs  []any          `json:"outputs,omitempty"`
		Count    *int           `json:"execution_count,omitempty"`
	}
	lines := strings.SplitAfter(string(text), "\n")
	cells := 1 + g.r.IntN(4)
	var out []cell
	empty := true
	for c := 0; c < cells; c++ {
		from, to := len(lines)*c/cells, len(lines)*(c+1)/cells
		src := lines[from:to]
		kind := "code"
		if g.r.IntN(6) == 0 {
			kind = "markdown"
		}
		if src == nil {
			src = []string{}
		}
		for _, l := range src {
			if l != "" {
				empty = false
			}
		}
		ce := cell{Type: kind, Metadata: map[string]any{}, Source: src}
		if kind == "code" {
			ce.Outputs = []any{}
		}
		out = append(out, ce)
	}
	nb := map[string]any{
		"nbformat": 4, "nbformat_minor": 5,
		"metadata": map[string]any{
			"kernelspec":    map[string]any{"name": kernel, "display_name": kernel, "language": kernel},
			"language_info": map[string]any{"name": kernel},
		},
		"cells": out,
	}
	b, err := json.MarshalIndent(nb, "", " ")
	if err != nil {
		panic(err) // only maps, slices and strings: cannot fail
	}
	return b, empty
}

// insert returns s with t inserted at offset i.
func insert(s []byte, i int, t []byte) []byte {
	out := make([]byte, 0, len(s)+len(t))
	return append(append(append(out, s[:i]...), t...), s[i:]...)
}

// trimRunes cuts b to at most n bytes, at a character boundary.
func trimRunes(b []byte, n int) []byte {
	for n > 0 && n < len(b) && !utf8.RuneStart(b[n]) {
		n--
	}
	return b[:n]
}

// pick returns a random element of list.
func pick(r *rand.Rand, list []string) string { return list[r.IntN(len(list))] }

// logUniform returns an integer from lo to hi, uniform in its logarithm:
// as often 50-500 as 500-5,000.
func logUniform(r *rand.Rand, lo, hi int) int {
	x := float64(lo) * math.Pow(float64(hi)/float64(lo), r.Float64())
	return max(lo, min(hi, int(x)))
}

// clip shortens s to n bytes for a description.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// compact joins runs of equal words: "soup, soup, run" → "soup ×2, run".
func compact(words []string) []string {
	var out []string
	for i := 0; i < len(words); {
		j := i
		for j < len(words) && words[j] == words[i] {
			j++
		}
		if j-i > 1 {
			out = append(out, fmt.Sprintf("%s ×%d", words[i], j-i))
		} else {
			out = append(out, words[i])
		}
		i = j
	}
	return out
}
