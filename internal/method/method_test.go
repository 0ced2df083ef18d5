package method

import (
	"strings"
	"testing"

	"github.com/castchunk/castchunk/internal/chunk"
)

func TestAllIsACopyDefaultFirst(t *testing.T) {
	all := All()
	if len(all) == 0 {
		t.Fatal("no methods")
	}
	if all[0] != Default() {
		t.Errorf("All()[0] is %s, the default is %s", all[0].Name, Default().Name)
	}
	saved := append([]*chunk.Method(nil), registry...)
	defer copy(registry, saved) // should the test fail, the other tests still see the registry
	all[0] = nil
	_ = append(all[:1], &chunk.Method{Name: "appended"})
	again := All()
	for i := range saved {
		if again[i] != saved[i] {
			t.Fatal("changing the slice All returned changed the registry")
		}
	}
}

func TestNamesAndByNameAgree(t *testing.T) {
	all, names := All(), Names()
	if len(names) != len(all) {
		t.Fatalf("%d names for %d methods", len(names), len(all))
	}
	seen := map[string]bool{}
	for i, name := range names {
		if seen[name] {
			t.Errorf("two methods are named %q", name)
		}
		seen[name] = true
		if name != all[i].Name {
			t.Errorf("Names()[%d] is %q, All()[%d] is named %q", i, name, i, all[i].Name)
		}
		if m := ByName(name); m != all[i] {
			t.Errorf("ByName(%q) is not All()[%d]", name, i)
		}
	}
	if names[0] != Default().Name {
		t.Errorf("Names()[0] is %q, the default is %q", names[0], Default().Name)
	}
}

func TestByNameUnknown(t *testing.T) {
	for _, name := range []string{"", "no-such-method", strings.ToUpper(Default().Name), Default().Name + " "} {
		if m := ByName(name); m != nil {
			t.Errorf("ByName(%q) is %s, want nil", name, m.Name)
		}
	}
}

// TestFallbackTiles checks the fallback: a registered method (records name
// it) that needs no tree, never overlaps, keeps the budget, and tiles any
// text within it without a tree.
func TestFallbackTiles(t *testing.T) {
	texts := []string{
		"",
		"x",
		"def f():\n    return 1\n",
		"no final newline\nsecond line",
		"\ufeffBOM\r\nCRLF\r\n\ttabs\t \n",
		strings.Repeat("long_line_without_breaks", 200) + "\n" + strings.Repeat("é中😀 ", 300),
		" \n\n\t \n",
	}
	for _, budget := range []int{1, 7, 50, 300, 2000} {
		s := Fallback(budget)
		if s.Method == nil || ByName(s.Method.Name) != s.Method {
			t.Fatalf("the fallback's method is not registered")
		}
		if s.Method.NeedsTree {
			t.Fatalf("the fallback %s needs a tree", s.Method.Name)
		}
		if s.Budget != budget {
			t.Errorf("Fallback(%d) has budget %d", budget, s.Budget)
		}
		if err := s.Check(); err != nil {
			t.Fatalf("Fallback(%d): %v", budget, err)
		}
		if s.Overlapping() {
			t.Errorf("Fallback(%d) overlaps", budget)
		}
		c := s.New()
		for _, text := range texts {
			src := []byte(text)
			spans := c.Chunk(chunk.Input{Src: src, Budget: chunk.Budget{Size: budget}})
			var sz chunk.Sizer
			sz.Reset(src)
			if err := chunk.Check(&sz, spans, budget); err != nil {
				t.Errorf("Fallback(%d) on %.20q: %v", budget, text, err)
			}
		}
		c.Close()
	}
}

// TestMethodsAreComplete checks every registered method's declaration: a
// name, a summary and a constructor; every option a name, a help line and
// a default that passes the method's Check, each name once.
func TestMethodsAreComplete(t *testing.T) {
	for _, m := range All() {
		if m.Name == "" || strings.ContainsAny(m.Name, " \t\n") {
			t.Errorf("method %q: a name must be one word", m.Name)
		}
		if m.Summary == "" {
			t.Errorf("method %s: no summary", m.Name)
		}
		if m.New == nil {
			t.Errorf("method %s: no New", m.Name)
			continue
		}
		seen := map[string]bool{}
		for _, o := range m.Options {
			if o.Name == "" || o.Help == "" {
				t.Errorf("method %s: option %+v has no name or no help", m.Name, o)
			}
			if seen[o.Name] {
				t.Errorf("method %s: two options --%s", m.Name, o.Name)
			}
			seen[o.Name] = true
			if !m.Declares(o.Name) {
				t.Errorf("method %s does not declare its option --%s", m.Name, o.Name)
			}
		}
		for _, budget := range []int{1, 300} {
			// The defaults, given by value one option at a time and all
			// left out.
			for _, o := range m.Options {
				s := chunk.Setup{Method: m, Budget: budget, Values: chunk.Values{o.Name: o.Default}}
				if err := s.Check(); err != nil {
					t.Errorf("method %s: --%s=%d, its default, fails at budget %d: %v", m.Name, o.Name, o.Default, budget, err)
				}
			}
			s := chunk.Setup{Method: m, Budget: budget}
			if err := s.Check(); err != nil {
				t.Errorf("method %s: its defaults fail at budget %d: %v", m.Name, budget, err)
				continue
			}
			c := s.New()
			if c == nil {
				t.Errorf("method %s: New returned nil", m.Name)
				continue
			}
			c.Close()
		}
	}
}
