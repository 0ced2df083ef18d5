package bytesize

import (
	"math"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	good := map[string]int64{
		"0":       0,
		"0KiB":    0,
		"0.0":     0,
		"00":      0,
		"0 MB":    0,
		"1048576": 1 << 20,
		"512KiB":  512 << 10,
		"512kib":  512 << 10,
		"64MiB":   64 << 20,
		"64 MiB":  64 << 20,
		"1GiB":    1 << 30,
		"1gib":    1 << 30,
		"10KB":    10000,
		"10kb":    10000,
		"3MB":     3000000,
		"2GB":     2000000000,
		"10K":     10 << 10,
		"10k":     10 << 10,
		"7M":      7 << 20,
		"1G":      1 << 30,
		"1.5MiB":  3 << 19,
		"100B":    100,
		" 42 ":    42,
		"1TiB":    1 << 40,
		"2 PiB":   2 << 50,
		"7EiB":    7 << 60,
		"1EB":     1e18,
		"0.5K":    512,
		"1.9":     1, // a fraction of a byte is dropped
		"1.0001":  1,
		"0.001KB": 1,
	}
	for in, want := range good {
		got, err := Parse(in)
		if err != nil || got != want {
			t.Errorf("Parse(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	bad := map[string]string{
		"":                     "invalid size",
		"abc":                  "want a number",
		"-1":                   "negative",
		"-5MiB":                "negative",
		"12XB":                 "want a number",
		"1.2.3":                "invalid size",
		".":                    "invalid size",
		"MiB":                  "want a number",
		"9999999TiB":           "too large",
		"8EiB":                 "too large",
		"1e6":                  "want a number",
		"99999999999999999999": "too large",
		// Not zero, but less than a byte: 0 would mean "no limit".
		"0.5":       "rounds to 0 bytes; use 0 for no limit",
		"0.0001KiB": "rounds to 0 bytes; use 0 for no limit",
		".5":        "rounds to 0 bytes",
		"0.0009KB":  "rounds to 0 bytes",
	}
	for in, want := range bad {
		n, err := Parse(in)
		if err == nil || n != 0 || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), in) {
			t.Errorf("Parse(%q) = %d, %v; want an error mentioning %q and the input", in, n, err, want)
		}
	}
}

func TestFormat(t *testing.T) {
	for n, want := range map[int64]string{
		0: "0 B", 1: "1 B", 1023: "1023 B", 1024: "1 KiB", 1536: "1.5 KiB",
		10 << 20: "10 MiB", 12897485: "12.3 MiB", 5 << 30: "5 GiB",
		1<<20 - 1:     "1 MiB", // not "1024 KiB"
		1<<20 - 52:    "1023.9 KiB",
		1 << 40:       "1 TiB",
		3 << 50:       "3 PiB",
		math.MaxInt64: "8 EiB",
	} {
		if got := Format(n); got != want {
			t.Errorf("Format(%d) = %q, want %q", n, got, want)
		}
	}
}

// TestFormatParses: what Format writes, Parse reads back, to within the
// rounding Format does (exactly below 1 KiB and for whole units).
func TestFormatParses(t *testing.T) {
	for _, n := range []int64{0, 1, 1023, 1024, 1536, 10 << 20, 12897485, 1<<20 - 1, 5 << 30, 1 << 62} {
		checkRoundTrip(t, n)
	}
}

func checkRoundTrip(t *testing.T, n int64) {
	t.Helper()
	s := Format(n)
	m, err := Parse(s)
	if err != nil {
		// Only a value that Format rounds up past the largest int64 may
		// not read back ("8 EiB").
		if n < math.MaxInt64/2 || !strings.Contains(err.Error(), "too large") {
			t.Fatalf("Parse(Format(%d) = %q): %v", n, s, err)
		}
		return
	}
	unit := int64(1)
	for _, f := range []int64{1 << 60, 1 << 50, 1 << 40, 1 << 30, 1 << 20, 1 << 10} {
		if n >= f {
			unit = f
			break
		}
	}
	// Format rounds to a tenth of its unit; Parse drops a fraction of a
	// byte. A value written with the unit of the next power is off by at
	// most a twentieth of the smaller one as well.
	if diff := m - n; diff < -(unit/20+1) || diff > unit/20+1 {
		t.Fatalf("Parse(Format(%d) = %q) = %d, off by %d", n, s, m, diff)
	}
	if n < 1024 && m != n {
		t.Fatalf("Parse(Format(%d) = %q) = %d, want it exact", n, s, m)
	}
	if !strings.Contains(s, ".") && n%unit == 0 && m != n {
		t.Fatalf("Parse(Format(%d) = %q) = %d, want it exact for a whole unit", n, s, m)
	}
	if again := Format(m); again != s {
		t.Fatalf("Format(Parse(Format(%d) = %q) = %d) = %q: not stable", n, s, m, again)
	}
}

// FuzzParse: no input panics; a size read is never negative, and writing
// it with Format reads back to (nearly, exactly where Format is exact) the
// same size.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"0", "0.0", "0KiB", "0.5", "0.0001KiB", ".", "..", ".5", "1.", "1..2",
		"1048576", "512KiB", "64 MiB", "1.5GiB", "10MB", "10M", "1e6", "-1",
		" 42 ", "9999999TiB", "8EiB", "7.99EiB", "99999999999999999999",
		"1.0000000000000000000000000001", "0.00000000000000000001EB",
		"KiB", "", "1\tk", "1 ki b", "\u00a05K",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := Parse(s)
		if err != nil {
			if n != 0 {
				t.Fatalf("Parse(%q) = %d with error %v", s, n, err)
			}
			return
		}
		if n < 0 {
			t.Fatalf("Parse(%q) = %d < 0", s, n)
		}
		checkRoundTrip(t, n)
	})
}
