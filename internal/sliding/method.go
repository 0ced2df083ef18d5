package sliding

import (
	"errors"

	"github.com/castchunk/castchunk/internal/chunk"
)

// Method is the sliding method as the registry knows it.
var Method = chunk.Method{
	Name:    "sliding",
	Summary: "line windows: whole lines up to the budget, or fixed windows of N lines",
	Options: []chunk.Option{
		{Name: "overlap-lines", Help: "lines shared by consecutive windows (0: windows tile the file)"},
		{Name: "window-lines", Help: "fixed windows of this many lines (0: fill windows up to the budget)"},
		{Name: "stride", Help: "with --window-lines, start a window every this many lines (0: the window)"},
	},
	Check: func(budget int, v chunk.Values) error {
		if v["stride"] != 0 && v["window-lines"] == 0 {
			return errStrideNeedsWindow
		}
		return optionsOf(budget, v).Validate()
	},
	Overlapping: func(v chunk.Values) bool { return optionsOf(1, v).Overlapping() },
	New: func(budget int, v chunk.Values) chunk.Chunker {
		return New(optionsOf(budget, v))
	},
}

var errStrideNeedsWindow = errors.New("--stride needs --window-lines")

// optionsOf turns the flag values into Options; a stride of 0 is the window.
func optionsOf(budget int, v chunk.Values) Options {
	o := Options{Budget: budget, OverlapLines: v["overlap-lines"], WindowLines: v["window-lines"], Stride: v["stride"]}
	if o.WindowLines > 0 && o.Stride == 0 {
		o.Stride = o.WindowLines
	}
	return o
}

// Close frees nothing: the chunker holds Go memory only.
func (*Chunker) Close() {}
