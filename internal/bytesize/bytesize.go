// Package bytesize owns how castchunk reads and writes byte counts: Parse
// reads the values of size flags (--max-file-size, --cache-max-size:
// "1048576", "512KiB", "10MB", "0") and Format writes sizes for people
// ("1.5 MiB") in messages. It knows nothing of what the sizes limit.
package bytesize

import (
	"fmt"
	"math/big"
	"strconv"
	"strings"
)

// units maps a lower-cased unit to its multiplier. Bare K/M/G/T are
// binary because that is what people mean by "10M" for a file size;
// KB/MB/GB/... are the SI (decimal) units. PiB and EiB are read so that
// whatever Format writes can be read back.
var units = map[string]int64{
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
	"pib": 1 << 50,
	"pb":  1000 * 1000 * 1000 * 1000 * 1000,
	"eib": 1 << 60,
	"eb":  1000 * 1000 * 1000 * 1000 * 1000 * 1000,
}

const help = "want a number of bytes, optionally followed by a unit: KiB, MiB, GiB (or K, M, G), KB, MB, GB"

// Parse reads a size: "1048576", "512KiB", "64MiB", "1.5GiB", "10MB",
// "10M" (unit case-insensitive, space allowed before it). A fraction of a
// byte is rounded down. The result is never negative. Zero ("0", "0KiB",
// "0.0") is returned as 0, which callers read as "no limit"; so a value
// that is not zero but rounds down to 0 bytes ("0.5", "0.0001KiB") is an
// error rather than a silent "no limit".
func Parse(s string) (int64, error) {
	t := strings.TrimSpace(s)
	if strings.HasPrefix(t, "-") {
		return 0, fmt.Errorf("invalid size %q: must not be negative", s)
	}
	i := 0
	for i < len(t) && (t[i] >= '0' && t[i] <= '9' || t[i] == '.') {
		i++
	}
	num, unit := t[:i], strings.ToLower(strings.TrimSpace(t[i:]))
	mult, ok := units[unit]
	if num == "" || !ok {
		return 0, fmt.Errorf("invalid size %q: %s", s, help)
	}
	v, ok := new(big.Rat).SetString(num)
	if !ok {
		return 0, fmt.Errorf("invalid size %q: %s", s, help)
	}
	v.Mul(v, new(big.Rat).SetInt64(mult))
	n := new(big.Int).Quo(v.Num(), v.Denom()) // whole bytes, rounded down
	if !n.IsInt64() {
		return 0, fmt.Errorf("invalid size %q: too large", s)
	}
	if n.Sign() == 0 && v.Sign() != 0 {
		return 0, fmt.Errorf("invalid size %q: rounds to 0 bytes; use 0 for no limit", s)
	}
	return n.Int64(), nil
}

// formatUnits are the units Format writes, each 1024 times the previous.
var formatUnits = []string{"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"}

// Format writes a byte count for people: "512 B", "1.5 MiB", "10 MiB".
// Above 1023 bytes it shows one decimal (dropped when it is 0) of the
// largest unit the count reaches; a value that rounds up to 1024 of a unit
// is written in the next one ("1 MiB", not "1024 KiB").
func Format(n int64) string {
	if n < 1024 {
		return strconv.FormatInt(n, 10) + " B"
	}
	v, u := float64(n), 0
	for v >= 1024 && u < len(formatUnits)-1 {
		v /= 1024
		u++
	}
	s := strconv.FormatFloat(v, 'f', 1, 64)
	if s == "1024.0" && u < len(formatUnits)-1 {
		s, u = "1.0", u+1
	}
	return strings.TrimSuffix(s, ".0") + " " + formatUnits[u]
}
