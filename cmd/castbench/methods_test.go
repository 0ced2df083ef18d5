package main

import (
	"slices"
	"testing"
	"time"
)

func TestParseMethods(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
	}{
		{"cast,function,declaration", []string{"cast", "function", "declaration"}},
		{" function , cast ", []string{"function", "cast"}},
		{"function,function,cast", []string{"function", "cast"}},
		{"", nil},
		{"  ", nil},
		{"sliding-2", []string{"sliding-2"}},
	} {
		got, err := parseMethods(c.in)
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("parseMethods(%q) = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
	for _, in := range []string{"cast,,function", "cast,", "-j", "Function", "cast function", "2cast", "cast;function"} {
		if got, err := parseMethods(in); err == nil {
			t.Errorf("parseMethods(%q) = %q, want an error", in, got)
		}
	}
}

func TestMethodKnown(t *testing.T) {
	for status, want := range map[int]bool{0: true, 4: true, 2: false} {
		if got, err := methodKnown(status); got != want || err != nil {
			t.Errorf("methodKnown(%d) = %v, %v; want %v, nil", status, got, err, want)
		}
	}
	for _, status := range []int{1, 3, 130, -1} {
		if _, err := methodKnown(status); err == nil {
			t.Errorf("methodKnown(%d): want an error (a failure, not a skip)", status)
		}
	}
}

// TestMethodRatio: cast is (b) itself, another method its own runs, each
// over (a)'s best time.
func TestMethodRatio(t *testing.T) {
	r := &corpusResult{
		parse:   samples{{wall: 2 * time.Second}, {wall: 3 * time.Second}},
		seq:     samples{{wall: 5 * time.Second}, {wall: 4 * time.Second}},
		methods: []methodResult{{name: "cast"}, {name: "function", runs: samples{{wall: 3 * time.Second}}}},
	}
	for k, want := range []float64{2, 1.5} {
		if got := r.methodRatio(k); got != want {
			t.Errorf("methodRatio(%d) (%s) = %v, want %v", k, r.methods[k].name, got, want)
		}
	}
}
