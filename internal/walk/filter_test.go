package walk

import "testing"

// TestFilterKeep: Filter takes paths as List's Include and Exclude do: a
// folder pattern takes what is below it, a pattern without '/' matches
// base names, Exclude wins.
func TestFilterKeep(t *testing.T) {
	cases := []struct {
		include, exclude []string
		path             string
		want             bool
	}{
		{nil, nil, "a/b.py", true},
		{[]string{"*.py"}, nil, "a/b.py", true},
		{[]string{"*.py"}, nil, "a/b.go", false},
		{[]string{"a"}, nil, "a/b/c.go", true},
		{[]string{"a/"}, nil, "a", false}, // a file named a: dir/ matches folders only
		{nil, []string{"tests/"}, "tests/t.py", false},
		{nil, []string{"tests/"}, "src/tests/t.py", false}, // the trailing / is no / for the base-name rule
		{nil, []string{"src/tests"}, "lib/tests/t.py", true},
		{nil, []string{"tests"}, "src/tests/t.py", false},
		{[]string{"*.py"}, []string{"src/**"}, "src/x.py", false},
		{[]string{"src/**/*.py"}, nil, "src/a/b/x.py", true},
	}
	for _, c := range cases {
		f, err := NewFilter(Options{Include: c.include, Exclude: c.exclude})
		if err != nil {
			t.Fatal(err)
		}
		if got := f.Keep(c.path); got != c.want {
			t.Errorf("include %q exclude %q: Keep(%q) = %v, want %v", c.include, c.exclude, c.path, got, c.want)
		}
	}
	if _, err := NewFilter(Options{Exclude: []string{"[a"}}); err == nil {
		t.Error(`NewFilter: exclude "[a": no error`)
	}
}
