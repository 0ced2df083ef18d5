package walk

import (
	"bufio"
	"bytes"
	"io"
)

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
