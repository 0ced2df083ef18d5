package outline

import (
	"strings"
	"testing"
)

func TestPlainHeading(t *testing.T) {
	for in, want := range map[string]string{
		"Install": "Install",
		"[1.2.3](https://example.com/v1.2.3) - 2024": "1.2.3 - 2024",
		"[1.2.3] - 2024-05-01":                       "1.2.3 - 2024-05-01",
		"See [the guide][guide]":                     "See the guide",
		"![logo](logo.png) castchunk":                "logo castchunk",
		"The `--max-size` flag":                      "The --max-size flag",
		"``a ` b`` c":                                "a ` b c",
		"*Emphasis* and **strong** and ~~gone~~":     "Emphasis and strong and gone",
		"_under_ snake_case_name":                    "under snake_case_name",
		"2 * 3":                                      "2 * 3",
		`Escaped \*stars\* and \[brackets\]`:         "Escaped *stars* and [brackets]",
		"<a name=\"x\"></a>Anchored":                 "Anchored",
		"Mail <https://x.org/a>":                     "Mail https://x.org/a",
		"Install {#install}":                         "Install",
		"[link with [nested] text](u)":               "link with nested text",
		"[unclosed (paren":                           "[unclosed (paren",
		"`unclosed code":                             "`unclosed code",
		"a < b > c":                                  "a < b > c",
		"Crème [brûlée](x)":                          "Crème brûlée",
	} {
		if got := string(plainHeading([]byte(in))); got != want {
			t.Errorf("plainHeading(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestPlainHeadingHostile: headings built to make a naive reader scan
// the rest of the line at every byte are read in linear time, and only
// their first maxHeading bytes.
func TestPlainHeadingHostile(t *testing.T) {
	for _, in := range []string{
		strings.Repeat("[", 100000),
		strings.Repeat("<", 100000),
		strings.Repeat("` ", 100000),
		strings.Repeat("[a](", 50000),
		strings.Repeat("\\", 100001),
	} {
		got := plainHeading([]byte(in))
		if len(got) > maxHeading {
			t.Errorf("%q…: %d bytes of name", in[:8], len(got))
		}
	}
}
