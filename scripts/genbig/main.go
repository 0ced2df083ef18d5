// Command genbig writes a large, syntactically valid Python file for the
// benchmark corpus (scripts/corpus.sh): many functions and classes of mixed
// sizes, with docstrings, comments, decorators, nested blocks, literals and
// a few functions and data tables larger than the default budget, so that
// cast both keeps nodes whole and splits them. The output depends only on
// -size and -seed. It is a benchmark tool, not part of castchunk.
//
//	go run ./scripts/genbig -size 5000000 -seed 1 -o bench/corpus/generated/big.py
package main

import (
	"bufio"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
)

func main() {
	size := flag.Int("size", 5_000_000, "stop after this many bytes (the file ends at the first top-level definition past it)")
	seed := flag.Uint64("seed", 1, "random seed: same size and seed, same file")
	out := flag.String("o", "", "output file (default stdout)")
	flag.Parse()

	w := bufio.NewWriterSize(os.Stdout, 1<<20)
	if *out != "" {
		f, err := os.Create(*out)
		if err != nil {
			fmt.Fprintln(os.Stderr, "genbig:", err)
			os.Exit(1)
		}
		defer func() {
			if err := f.Close(); err != nil {
				fmt.Fprintln(os.Stderr, "genbig:", err)
				os.Exit(1)
			}
		}()
		w = bufio.NewWriterSize(f, 1<<20)
	}
	g := &gen{r: rand.New(rand.NewPCG(*seed, *seed^0x9e3779b97f4a7c15))}
	g.file(*size)
	if _, err := w.WriteString(g.b.String()); err != nil {
		fmt.Fprintln(os.Stderr, "genbig:", err)
		os.Exit(1)
	}
	if err := w.Flush(); err != nil {
		fmt.Fprintln(os.Stderr, "genbig:", err)
		os.Exit(1)
	}
}

type gen struct {
	r *rand.Rand
	b strings.Builder
	n int // names handed out
}

var words = strings.Fields(`account address amount batch buffer cache client config context count
cursor data delta entry event field file filter frame graph handler header index item key limit
line list lock message meta node offset order owner packet page parser path payload point queue
record region report request result row schema score session shard size slot source span state
stream table task token total tree user value vector weight window worker`)

func (g *gen) word() string { return words[g.r.IntN(len(words))] }

func (g *gen) name() string {
	g.n++
	return fmt.Sprintf("%s_%s_%d", g.word(), g.word(), g.n)
}

func (g *gen) className() string {
	g.n++
	a, b := g.word(), g.word()
	return fmt.Sprintf("%s%s%d", strings.ToUpper(a[:1])+a[1:], strings.ToUpper(b[:1])+b[1:], g.n)
}

func (g *gen) line(indent int, format string, args ...any) {
	if format != "" {
		g.b.WriteString(strings.Repeat("    ", indent))
	}
	fmt.Fprintf(&g.b, format, args...)
	g.b.WriteByte('\n')
}

func (g *gen) sentence() string {
	n := 4 + g.r.IntN(10)
	ws := make([]string, n)
	for i := range ws {
		ws[i] = g.word()
	}
	s := strings.Join(ws, " ")
	return strings.ToUpper(s[:1]) + s[1:] + "."
}

func (g *gen) file(size int) {
	g.line(0, `"""Generated module for castchunk's benchmark (scripts/genbig): not real code."""`)
	g.line(0, "")
	for _, m := range []string{"collections", "dataclasses", "functools", "itertools", "json", "logging", "os", "re", "typing"} {
		g.line(0, "import %s", m)
	}
	g.line(0, "")
	g.line(0, "log = logging.getLogger(__name__)")
	for g.b.Len() < size {
		g.line(0, "")
		g.line(0, "")
		switch k := g.r.IntN(100); {
		case k < 50:
			g.function(0, false)
		case k < 85:
			g.class()
		case k < 95:
			g.table()
		default:
			g.bigFunction()
		}
	}
}

// function writes a def of 3 to 30 statements.
func (g *gen) function(indent int, method bool) {
	if g.r.IntN(4) == 0 {
		g.line(indent, "@functools.lru_cache(maxsize=%d)", 32<<g.r.IntN(5))
	}
	params := []string{}
	if method {
		params = append(params, "self")
	}
	for range g.r.IntN(4) {
		params = append(params, fmt.Sprintf("%s_%s", g.word(), g.word()))
	}
	params = append(params, "*", fmt.Sprintf("%s=None", g.word()))
	g.line(indent, "def %s(%s) -> typing.Optional[dict]:", g.name(), strings.Join(params, ", "))
	g.line(indent+1, `"""%s`, g.sentence())
	g.line(indent+1, "")
	g.line(indent+1, "%s", g.sentence())
	g.line(indent+1, `"""`)
	g.body(indent+1, 3+g.r.IntN(28), 0)
	g.line(indent+1, "return result")
}

// body writes n statements; depth bounds the nesting.
func (g *gen) body(indent, n, depth int) {
	g.line(indent, "result = {}")
	for range n {
		v := g.word()
		switch k := g.r.IntN(10); {
		case k < 3:
			g.line(indent, "%s = %s.get(%q, %d) + len(result)", v, "result", g.word(), g.r.IntN(1000))
		case k < 4:
			g.line(indent, "# %s", g.sentence())
			g.line(indent, "log.debug(%q, %s)", g.word()+" %s", "result")
		case k < 6 && depth < 3:
			g.line(indent, "for %s in range(%d):", v, g.r.IntN(100))
			g.line(indent+1, "if %s %% %d == 0:", v, 2+g.r.IntN(7))
			g.line(indent+2, "result[%q] = %s", g.word(), v)
			if g.r.IntN(2) == 0 {
				g.body(indent+2, 1+g.r.IntN(3), depth+1)
			}
		case k < 7 && depth < 3:
			g.line(indent, "try:")
			g.line(indent+1, "result[%q] = json.loads(%q)", g.word(), `{"`+g.word()+`": 1}`)
			g.line(indent, "except (ValueError, KeyError) as exc:  # %s", g.word())
			g.line(indent+1, "log.warning(%q, exc)", "failed: %s")
		case k < 8:
			g.line(indent, "%s = [x * %d for x in itertools.islice(result, %d) if x]", v, g.r.IntN(9)+1, g.r.IntN(50))
		case k < 9:
			g.line(indent, "%s = re.sub(r%q, %q, str(result))", v, `\s+`+g.word(), g.word())
		default:
			g.line(indent, "while len(result) < %d:", g.r.IntN(20))
			g.line(indent+1, "result[len(result)] = %q", g.sentence())
		}
	}
}

func (g *gen) class() {
	if g.r.IntN(2) == 0 {
		g.line(0, "@dataclasses.dataclass")
	}
	g.line(0, "class %s:", g.className())
	g.line(1, `"""%s"""`, g.sentence())
	g.line(0, "")
	for range 1 + g.r.IntN(5) {
		g.line(1, "%s: int = %d", g.word()+"_"+g.word(), g.r.IntN(100))
	}
	for range 1 + g.r.IntN(6) {
		g.line(0, "")
		g.function(1, true)
	}
}

// table writes a literal larger or smaller than the budget.
func (g *gen) table() {
	g.line(0, "%s = [", strings.ToUpper(g.name()))
	for range 10 + g.r.IntN(200) {
		g.line(1, "(%q, %d, %.3f, %q),", g.word(), g.r.IntN(1<<20), g.r.Float64()*1000, g.sentence())
	}
	g.line(0, "]")
}

// bigFunction writes a function far larger than the default budget.
func (g *gen) bigFunction() {
	g.line(0, "def %s(payload):", g.name())
	g.line(1, `"""%s"""`, g.sentence())
	g.body(1, 150+g.r.IntN(300), 0)
	g.line(1, "return result")
}
