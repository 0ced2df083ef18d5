package walk

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"math/big"
	"strings"
)

// sizeUnits maps a lower-cased unit to its multiplier. Bare K/M/G are
// binary because that is what people mean by "10M" for a file size;
// KB/MB/GB are the SI (decimal) units.
var sizeUnits = map[string]int64{
	"":    1,
	"b":   1,
	"k":   1 << 10,
	"kib": 1 << 10,
	"kb":  1000,
	"m":   1 << 20,
	"mib": 1 << 20,
	"mb":  1000 * 1000,
	"g":   1 << 30,
	"gib": 1 << 30,
	"gb":  1000 * 1000 * 1000,
	"t":   1 << 40,
	"tib": 1 << 40,
	"tb":  1000 * 1000 * 1000 * 1000,
}

const sizeHelp = "want a number of bytes, optionally followed by a unit: KiB, MiB, GiB (or K, M, G), KB, MB, GB"

// ParseSize parses a --max-file-size value: "1048576", "512KiB", "64MiB",
// "1.5GiB", "10MB", "10M" (unit case-insensitive, space allowed before it).
func ParseSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	if strings.HasPrefix(t, "-") {
		return 0, fmt.Errorf("invalid size %q: must not be negative", s)
	}
	i := 0
	for i < len(t) && (t[i] >= '0' && t[i] <= '9' || t[i] == '.') {
		i++
	}
	num, unit := t[:i], strings.ToLower(strings.TrimSpace(t[i:]))
	mult, ok := sizeUnits[unit]
	if num == "" || !ok {
		return 0, fmt.Errorf("invalid size %q: %s", s, sizeHelp)
	}
	v, ok := new(big.Rat).SetString(num)
	if !ok {
		return 0, fmt.Errorf("invalid size %q: %s", s, sizeHelp)
	}
	v.Mul(v, new(big.Rat).SetInt64(mult))
	n := new(big.Int).Quo(v.Num(), v.Denom()) // whole bytes, rounded down
	if !n.IsInt64() {
		return 0, fmt.Errorf("invalid size %q: too large", s)
	}
	return n.Int64(), nil
}

// ReadList reads a --files-from list: one path per line (a trailing "\r"
// is dropped, so CRLF files work) or, with nul, NUL-separated paths (the
// safe form for names holding newlines; nothing is stripped). Empty entries
// are skipped.
func ReadList(r io.Reader, nul bool) ([]string, error) {
	sep := byte('\n')
	if nul {
		sep = 0
	}
	br := bufio.NewReader(r)
	var out []string
	for {
		item, err := br.ReadBytes(sep)
		item = bytes.TrimSuffix(item, []byte{sep})
		if !nul {
			item = bytes.TrimSuffix(item, []byte("\r"))
		}
		if len(item) > 0 {
			out = append(out, string(item))
		}
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
	}
}
