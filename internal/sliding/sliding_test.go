package sliding_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/castchunk/castchunk/internal/chunk"
	"github.com/castchunk/castchunk/internal/sliding"
)

// input is src as the chunker sees it under opt's budget.
func input(src []byte, opt sliding.Options) chunk.Input {
	return chunk.Input{Src: src, Budget: chunk.Budget{Size: opt.Budget}}
}

// windows runs the chunker and returns the window contents. It checks what
// holds for every option: each span is non-empty, inside src, of the size it
// records and within the budget; without overlap the spans tile src.
func windows(t *testing.T, opt sliding.Options, src string) []string {
	t.Helper()
	b := []byte(src)
	spans := sliding.New(opt).Chunk(input(b, opt))
	var sz chunk.Sizer
	sz.Reset(b)
	if !opt.Overlapping() {
		if err := chunk.Check(&sz, spans, opt.Budget); err != nil {
			t.Fatalf("guarantees broken: %v\nspans: %v", err, spans)
		}
	}
	var out []string
	for i, s := range spans {
		if s.Start < 0 || s.End <= s.Start || s.End > len(b) {
			t.Fatalf("span %d [%d,%d) is empty or outside the %d bytes", i, s.Start, s.End, len(b))
		}
		if got := chunk.Size(b[s.Start:s.End]); got != s.Size {
			t.Errorf("span %d %q records size %d, has %d", i, src[s.Start:s.End], s.Size, got)
		}
		if s.Size > opt.Budget {
			t.Errorf("span %d %q has size %d, over the budget of %d", i, src[s.Start:s.End], s.Size, opt.Budget)
		}
		out = append(out, src[s.Start:s.End])
	}
	if len(spans) > 0 && (spans[0].Start != 0 || spans[len(spans)-1].End != len(b)) {
		t.Errorf("windows cover [%d,%d), want [0,%d)", spans[0].Start, spans[len(spans)-1].End, len(b))
	}
	return out
}

type windowCase struct {
	name string
	opt  sliding.Options
	src  string
	want []string
}

func runCases(t *testing.T, tests []windowCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := windows(t, tt.opt, tt.src)
			if !slices.Equal(got, tt.want) {
				t.Errorf("windows:\n%q\nwant:\n%q", got, tt.want)
			}
		})
	}
}

func TestBudgetWindows(t *testing.T) {
	b := func(n int) sliding.Options { return sliding.Options{Budget: n} }
	runCases(t, []windowCase{
		{"empty file gives no chunk", b(10), "", nil},
		{"one line without final newline", b(10), "x = 12", []string{"x = 12"}},
		{"only whitespace is one chunk of size 0", b(1), "\n \n\t\n", []string{"\n \n\t\n"}},
		{"whole file fits", b(100), "a = 1\nb = 2\n", []string{"a = 1\nb = 2\n"}},
		{"whole lines up to the budget", b(8), "a = 1\nb = 2\nc = 3\n",
			[]string{"a = 1\nb = 2\n", "c = 3\n"}},
		{"a window may reach the budget exactly", b(6), "a = 1\nb = 2\nc = 3\n",
			[]string{"a = 1\nb = 2\n", "c = 3\n"}},
		{"one over the budget starts a new window", b(5), "a = 1\nb = 2\n",
			[]string{"a = 1\n", "b = 2\n"}},
		{"a line over the budget is cut into budget-sized pieces", b(5), "abcdefghijkl\n",
			[]string{"abcde", "fghij", "kl\n"}},
		{"a long line without final newline", b(3), "abcdefg", []string{"abc", "def", "g"}},
		{"a long line starts its own window; its tail joins the next lines", b(5), "x\nabcdefghijkl\ny\n",
			[]string{"x\n", "abcde", "fghij", "kl\ny\n"}},
		{"a long line is cut after the budget-th character; the space goes on", b(4), "ab cd ef gh\n",
			[]string{"ab cd", " ef gh\n"}},
		{"a long line is cut at code points", b(2), "ééé\n", []string{"éé", "é\n"}},
		{"a long line of 4-byte characters", b(2), "😀😀😀😀😀", []string{"😀😀", "😀😀", "😀"}},
		{"blank lines travel with the window before them", b(3), "a = 1\n\n\nb = 2\n\n",
			[]string{"a = 1\n\n\n", "b = 2\n\n"}},
		{"leading blank lines belong to the first window", b(3), "\n\na = 1\nb = 2\n",
			[]string{"\n\na = 1\n", "b = 2\n"}},
		{"CRLF line ends stay with their line", b(6), "a = 1\r\nb = 2\r\nc = 3\r\n",
			[]string{"a = 1\r\nb = 2\r\n", "c = 3\r\n"}},
		{"CRLF without final line end", b(3), "a = 1\r\nb = 2", []string{"a = 1\r\n", "b = 2"}},
		{"BOM counts as one character", b(6), "\ufeffa = 1\nb = 2\nc = 3\n",
			[]string{"\ufeffa = 1\n", "b = 2\nc = 3\n"}},
		{"BOM fits when the budget allows", b(7), "\ufeffa = 1\nb = 2\nc = 3\n",
			[]string{"\ufeffa = 1\nb = 2\n", "c = 3\n"}},
		{"tabs are whitespace", b(4), "\tab\n\t\tcd\n\tef\n", []string{"\tab\n\t\tcd\n", "\tef\n"}},
		{"budget counts code points, not bytes", b(6), "é = 'ü'\nß = 'ö'\n",
			[]string{"é = 'ü'\n", "ß = 'ö'\n"}},
		{"three 2-byte characters fit a budget of 3", b(3), "ééé\nx\n", []string{"ééé\n", "x\n"}},
		{"other Unicode spaces are whitespace", b(2), "a\u00a0b\u3000\nc\n", []string{"a\u00a0b\u3000\n", "c\n"}},
		{"budget 1 gives one character per window", b(1), "ab\nc\n", []string{"a", "b\n", "c\n"}},
	})
}

func TestOverlapWindows(t *testing.T) {
	o := func(budget, overlap int) sliding.Options {
		return sliding.Options{Budget: budget, OverlapLines: overlap}
	}
	const four = "a = 1\nb = 2\nc = 3\nd = 4\n"
	const five = four + "e = 5\n"
	runCases(t, []windowCase{
		{"overlap 1", o(6, 1), four,
			[]string{"a = 1\nb = 2\n", "b = 2\nc = 3\n", "c = 3\nd = 4\n"}},
		{"overlap 2", o(9, 2), five,
			[]string{"a = 1\nb = 2\nc = 3\n", "b = 2\nc = 3\nd = 4\n", "c = 3\nd = 4\ne = 5\n"}},
		{"overlap 1 with three-line windows", o(9, 1), five,
			[]string{"a = 1\nb = 2\nc = 3\n", "c = 3\nd = 4\ne = 5\n"}},
		{"overlap as large as the window still moves forward", o(6, 2), four,
			[]string{"a = 1\nb = 2\n", "b = 2\nc = 3\n", "c = 3\nd = 4\n"}},
		{"overlap larger than the file", o(6, 10), four,
			[]string{"a = 1\nb = 2\n", "b = 2\nc = 3\n", "c = 3\nd = 4\n"}},
		{"the whole file in one window: nothing to overlap", o(100, 2), four, []string{four}},
		{"overlap 1 that does not fit with the next line is dropped", o(10, 1), "aaaa\nbbbbbb\ncccccccc\ndd\n",
			[]string{"aaaa\nbbbbbb\n", "cccccccc\ndd\n"}},
		{"overlap 2 shrinks to 1 to fit the next line", o(10, 2), "aaa\nbbb\nccc\nddddd\n",
			[]string{"aaa\nbbb\nccc\n", "ccc\nddddd\n"}},
		{"a one-line window cannot overlap", o(5, 1), "aaaa\nbbbb\ncccc\n",
			[]string{"aaaa\n", "bbbb\n", "cccc\n"}},
		{"a blank line counts as an overlap line", o(6, 1), "a = 1\nb = 2\n\nc = 3\n",
			[]string{"a = 1\nb = 2\n\n", "\nc = 3\n"}},
		{"pieces of a long line count as lines", o(5, 1), "abcdefghij\nxy\n",
			[]string{"abcde", "fghij\n", "xy\n"}},
		{"overlap with CRLF", o(6, 1), "a = 1\r\nb = 2\r\nc = 3\r\n",
			[]string{"a = 1\r\nb = 2\r\n", "b = 2\r\nc = 3\r\n"}},
	})
}

func TestFixedWindows(t *testing.T) {
	f := func(budget, window, stride int) sliding.Options {
		return sliding.Options{Budget: budget, WindowLines: window, Stride: stride}
	}
	const five = "1\n2\n3\n4\n5\n"
	const six = five + "6\n"
	runCases(t, []windowCase{
		{"stride 1", f(100, 3, 1), five, []string{"1\n2\n3\n", "2\n3\n4\n", "3\n4\n5\n"}},
		{"stride 2", f(100, 3, 2), five, []string{"1\n2\n3\n", "3\n4\n5\n"}},
		{"stride 3", f(100, 3, 3), five, []string{"1\n2\n3\n", "4\n5\n"}},
		{"stride 2, last window shorter", f(100, 3, 2), six, []string{"1\n2\n3\n", "3\n4\n5\n", "5\n6\n"}},
		{"stride 1, last window ends at the end of the file", f(100, 3, 1), "1\n2\n3\n4\n",
			[]string{"1\n2\n3\n", "2\n3\n4\n"}},
		{"exactly one window", f(100, 3, 1), "1\n2\n3\n", []string{"1\n2\n3\n"}},
		{"file shorter than a window", f(100, 3, 2), "1\n2\n", []string{"1\n2\n"}},
		{"no final newline", f(100, 3, 3), "1\n2\n3\n4", []string{"1\n2\n3\n", "4"}},
		{"blank lines are lines", f(100, 2, 2), "1\n\n\n2\n", []string{"1\n\n", "\n2\n"}},
		{"CRLF", f(100, 2, 2), "1\r\n2\r\n3\r\n", []string{"1\r\n2\r\n", "3\r\n"}},
		{"empty file", f(100, 3, 1), "", nil},
		{"a window over the budget is cut short; the next starts where it ended", f(4, 3, 3), "aa\nbb\ncc\ndd\n",
			[]string{"aa\nbb\n", "cc\ndd\n"}},
		{"a line over the budget becomes pieces of its own", f(3, 2, 2), "abcdefg\nh\n",
			[]string{"abc", "def", "g\n", "h\n"}},
	})
}

// TestWindowsMoveForward: consecutive windows never start earlier nor end
// earlier than the one before, and the last one ends at the end of the file.
// The record encoder requires spans sorted by start ("spans must be sorted by
// start"), so a violation makes the pipeline drop the whole file with an
// internal error.
func TestWindowsMoveForward(t *testing.T) {
	lines := "aa\nbb\ncc\ndd\nee\nff\ngg\n"
	long := "x\n" + strings.Repeat("y", 23) + "\nz\n" + strings.Repeat("w", 9) + "\n"
	for _, tt := range []struct {
		name string
		opt  sliding.Options
		src  string
	}{
		{"overlap 2", sliding.Options{Budget: 5, OverlapLines: 2}, lines},
		{"overlap 3 with a long line", sliding.Options{Budget: 5, OverlapLines: 3}, long},
		{"window 3 stride 1 within the budget", sliding.Options{Budget: 100, WindowLines: 3, Stride: 1}, lines},
		{"window 3 stride 1 over the budget", sliding.Options{Budget: 4, WindowLines: 3, Stride: 1}, lines},
		{"window 3 stride 2 over the budget", sliding.Options{Budget: 4, WindowLines: 3, Stride: 2}, lines},
		{"window 2 stride 1 with a long line", sliding.Options{Budget: 5, WindowLines: 2, Stride: 1}, long},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b := []byte(tt.src)
			spans := slices.Clone(sliding.New(tt.opt).Chunk(input(b, tt.opt)))
			for i := 1; i < len(spans); i++ {
				if spans[i].Start < spans[i-1].Start || spans[i].End < spans[i-1].End {
					t.Errorf("window %d [%d,%d) %q does not move forward from window %d [%d,%d) %q",
						i, spans[i].Start, spans[i].End, tt.src[spans[i].Start:spans[i].End],
						i-1, spans[i-1].Start, spans[i-1].End, tt.src[spans[i-1].Start:spans[i-1].End])
				}
			}
			if len(spans) == 0 || spans[len(spans)-1].End != len(b) {
				t.Errorf("windows %v do not end at the end of the file (%d bytes)", spans, len(b))
			}
			// Every byte lies in some window.
			covered := 0
			for _, s := range spans {
				if s.Start > covered {
					t.Errorf("bytes [%d,%d) lie in no window", covered, s.Start)
				}
				covered = max(covered, s.End)
			}
		})
	}
}

func TestChunkerReuse(t *testing.T) {
	for _, opt := range []sliding.Options{
		{Budget: 5},
		{Budget: 5, OverlapLines: 1},
		{Budget: 5, WindowLines: 2, Stride: 2},
	} {
		c := sliding.New(opt)
		files := []string{"abcdefghijkl\nmn\n", "", "a = 1\nb = 2\n", "x"}
		var first [][]chunk.Span
		for _, f := range files {
			first = append(first, slices.Clone(c.Chunk(input([]byte(f), opt))))
		}
		for i := len(files) - 1; i >= 0; i-- {
			got := sliding.New(opt).Chunk(input([]byte(files[i]), opt))
			again := c.Chunk(input([]byte(files[i]), opt))
			if !slices.EqualFunc(got, first[i], chunk.Span.Equal) || !slices.EqualFunc(again, first[i], chunk.Span.Equal) {
				t.Errorf("%+v, file %q: fresh %v, reused %v then %v", opt, files[i], got, first[i], again)
			}
		}
	}
}

func TestValidate(t *testing.T) {
	for _, tt := range []struct {
		name    string
		opt     sliding.Options
		wantErr string // "" when valid
	}{
		{"budget only", sliding.Options{Budget: 1}, ""},
		{"overlap", sliding.Options{Budget: 10, OverlapLines: 3}, ""},
		{"fixed window, stride 1", sliding.Options{Budget: 10, WindowLines: 3, Stride: 1}, ""},
		{"fixed window, stride = window", sliding.Options{Budget: 10, WindowLines: 3, Stride: 3}, ""},
		{"budget 0", sliding.Options{Budget: 0}, "budget must be at least 1, got 0"},
		{"negative budget", sliding.Options{Budget: -5}, "budget must be at least 1, got -5"},
		{"negative overlap", sliding.Options{Budget: 10, OverlapLines: -1}, "overlap must not be negative, got -1"},
		{"negative window", sliding.Options{Budget: 10, WindowLines: -1}, "window must not be negative, got -1"},
		{"stride 0", sliding.Options{Budget: 10, WindowLines: 3, Stride: 0}, "stride must be between 1 and the window (3 lines), got 0"},
		{"negative stride", sliding.Options{Budget: 10, WindowLines: 3, Stride: -1}, "stride must be between 1 and the window (3 lines), got -1"},
		{"stride over the window", sliding.Options{Budget: 10, WindowLines: 3, Stride: 4}, "stride must be between 1 and the window (3 lines), got 4"},
		{"overlap with fixed windows", sliding.Options{Budget: 10, WindowLines: 3, Stride: 3, OverlapLines: 1}, "overlap applies to budget windows"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.opt.Validate()
			switch {
			case tt.wantErr == "" && err != nil:
				t.Errorf("Validate() = %v, want nil", err)
			case tt.wantErr != "" && err == nil:
				t.Errorf("Validate() = nil, want an error %q", tt.wantErr)
			case tt.wantErr != "" && !strings.Contains(err.Error(), tt.wantErr):
				t.Errorf("Validate() = %q, want it to contain %q", err, tt.wantErr)
			}
			// New accepts exactly what Validate accepts.
			panicked := func() (p bool) {
				defer func() { p = recover() != nil }()
				sliding.New(tt.opt)
				return false
			}()
			if panicked != (tt.wantErr != "") {
				t.Errorf("New panicked: %v, want %v", panicked, tt.wantErr != "")
			}
		})
	}
}

func TestOverlapping(t *testing.T) {
	for _, tt := range []struct {
		opt  sliding.Options
		want bool
	}{
		{sliding.Options{Budget: 10}, false},
		{sliding.Options{Budget: 10, OverlapLines: 1}, true},
		{sliding.Options{Budget: 10, OverlapLines: 5}, true},
		{sliding.Options{Budget: 10, WindowLines: 3, Stride: 3}, false},
		{sliding.Options{Budget: 10, WindowLines: 3, Stride: 2}, true},
		{sliding.Options{Budget: 10, WindowLines: 3, Stride: 1}, true},
		{sliding.Options{Budget: 10, WindowLines: 1, Stride: 1}, false},
	} {
		if got := tt.opt.Overlapping(); got != tt.want {
			t.Errorf("%+v.Overlapping() = %v, want %v", tt.opt, got, tt.want)
		}
	}
}
