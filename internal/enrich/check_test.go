package enrich

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/castchunk/castchunk/internal/chunk"
	"github.com/castchunk/castchunk/internal/record"
)

// optionSets are the combinations of flags the command line accepts.
func optionSets(t *testing.T) []Options {
	enc := loadEncoding(t, "cl100k_base")
	var out []Options
	for _, ctx := range []bool{false, true} {
		for _, text := range []bool{false, true} {
			out = append(out,
				Options{Context: ctx, Text: text},
				Options{Context: ctx, Text: text, Encoding: enc},
				Options{Context: ctx, Text: text, Encoding: enc, MaxTokens: 20})
		}
	}
	return out
}

// TestCheckAcceptsWhatTheWorkerMakes: a cache entry holding exactly what
// the worker computed passes Check, for every option set, language and
// path (one with a line break in it), split by the token refit or not. A
// check that refused right entries would make every hit a miss.
func TestCheckAcceptsWhatTheWorkerMakes(t *testing.T) {
	crlf := strings.ReplaceAll(pySrc, "\n", "\r\n")
	for _, f := range []struct{ name, lang, src string }{
		{"a.py", "python", pySrc},
		{"p/t.go", "go", goSrc},
		{"odd\nname.py", "python", crlf},
		{"ws.py", "python", "\n\n   \n" + pySrc},
	} {
		l, tree := parsed(t, f.lang, f.src)
		for _, o := range optionSets(t) {
			if !o.Any() {
				continue // the pipeline has no worker then, and no extras
			}
			name := fmt.Sprintf("%s %q", f.name, o.Key())
			w := NewWorker(o)
			b := chunk.Budget{Size: 90, Tokens: o.MaxTokens}
			if _, err := w.Begin(f.name, l, []byte(f.src), tree, nil, b); err != nil {
				w.Close()
				t.Fatalf("%s: %v", name, err)
			}
			var spans []chunk.Span
			for start := 0; start < len(f.src); start += 23 { // cuts anywhere, even mid-line
				end := min(start+23, len(f.src))
				spans = append(spans, chunk.Span{Start: start, End: end, Size: chunk.Size([]byte(f.src[start:end]))})
			}
			spans, extras, err := w.Finish(spans, b, false)
			w.Close()
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if err := o.Check(f.name, []byte(f.src), spans, extras, b.Size); err != nil {
				t.Errorf("%s: Check refuses the worker's own extras: %v", name, err)
			}
		}
	}
}

// TestCheckRefusesWhatIsWrong: extras that do not fit the options, the
// path, the spans' lines or the budgets are refused.
func TestCheckRefusesWhatIsWrong(t *testing.T) {
	l, tree := parsed(t, "python", pySrc)
	all := optionSets(t)[11] // everything, --max-tokens 20
	w := NewWorker(all)
	defer w.Close()
	b := chunk.Budget{Size: 200, Tokens: 20}
	if _, err := w.Begin("a.py", l, []byte(pySrc), tree, nil, b); err != nil {
		t.Fatal(err)
	}
	spans, right, err := w.Finish(spansAt(pySrc, 0, 49, 80, 140), b, false)
	if err != nil {
		t.Fatal(err)
	}
	if err := all.Check("a.py", []byte(pySrc), spans, right, b.Size); err != nil {
		t.Fatalf("right extras refused: %v", err)
	}
	i := slices.IndexFunc(right, func(x record.Extra) bool { return len(x.Scope) > 0 && len(x.Defines) > 0 })
	if i < 0 {
		t.Fatalf("no chunk with both a scope and defines: %+v", right)
	}
	for _, c := range []struct {
		name string
		o    Options
		path string
		lie  func(x []record.Extra) []record.Extra
	}{
		{"another path", all, "b.py", nil},
		{"no options", Options{}, "a.py", nil},
		{"without --context", Options{Text: true, Encoding: all.Encoding, MaxTokens: 20}, "a.py", nil},
		{"without --embed-text", Options{Context: true, Encoding: all.Encoding, MaxTokens: 20}, "a.py", nil},
		{"without --tokenizer", Options{Context: true, Text: true}, "a.py", nil},
		{"a lower --max-tokens", Options{Context: true, Text: true, Encoding: all.Encoding, MaxTokens: 2}, "a.py", nil},
		{"one extra too few", all, "a.py", func(x []record.Extra) []record.Extra { return x[1:] }},
		{"none", all, "a.py", func([]record.Extra) []record.Extra { return nil }},
		{"no tokens", all, "a.py", func(x []record.Extra) []record.Extra { x[i].Tokens = 0; return x }},
		{"tokens over", all, "a.py", func(x []record.Extra) []record.Extra { x[i].Tokens = 21; return x }},
		{"header without scope", all, "a.py", func(x []record.Extra) []record.Extra { x[i].Header = "a.py\n"; return x }},
		{"scope out of order", all, "a.py", func(x []record.Extra) []record.Extra {
			x[i].Scope = append(x[i].Scope, record.Def{Kind: "class", Name: "Early", Line: 1})
			x[i].Header = "a.py\nclass App > class Early\n" // the scope's own header
			return x
		}},
		{"defines out of order", all, "a.py", func(x []record.Extra) []record.Extra {
			x[i].Defines = append(x[i].Defines, record.Def{Kind: "function", Name: "z", Line: 1})
			return x
		}},
		{"defines after the chunk", all, "a.py", func(x []record.Extra) []record.Extra {
			x[i].Defines = append(x[i].Defines, record.Def{Kind: "function", Name: "z", Line: 12})
			return x
		}},
		{"unknown kind", all, "a.py", func(x []record.Extra) []record.Extra { x[i].Defines[0].Kind = "klass"; return x }},
	} {
		extras := slices.Clone(right)
		for j := range extras {
			extras[j].Scope, extras[j].Defines = slices.Clone(extras[j].Scope), slices.Clone(extras[j].Defines)
		}
		if c.lie != nil {
			extras = c.lie(extras)
		}
		if err := c.o.Check(c.path, []byte(pySrc), spans, extras, b.Size); err == nil {
			t.Errorf("%s: accepted", c.name)
		}
	}
	// Without --context, the header's scope line is not checked against a
	// scope, but there is at most one line after the path's.
	text := Options{Text: true}
	for _, h := range []string{"a.py", "b.py\nclass App\n", "a.py\nclass App\nmethod x\n", "a.py\nnoscope\n"} {
		x := make([]record.Extra, len(spans))
		for j := range x {
			x[j].Header = "a.py\n"
		}
		x[1].Header = h
		if err := text.Check("a.py", []byte(pySrc), spans, x, b.Size); err == nil {
			t.Errorf("--embed-text, header %q: accepted", h)
		}
	}
	if err := text.Check("a.py", []byte(pySrc), spans, nil, b.Size); err == nil {
		t.Error("--embed-text, no extras: accepted")
	}
	if err := (Options{}).Check("a.py", []byte(pySrc), spans, nil, b.Size); err != nil {
		t.Errorf("no options, no extras: %v", err)
	}
}
