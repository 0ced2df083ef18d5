package stream

import (
	"bytes"
	"encoding/json"
)

// appendKeys appends the keys of the members of line, one JSON object the
// record decoder accepted (so valid JSON), in the order written: the field
// set of a record, unknown fields included. Values are skipped, a string
// by a byte search for its closing quote, so a long content costs little.
func appendKeys(dst []string, line []byte) []string {
	i := skipSpace(line, 0)
	if i >= len(line) || line[i] != '{' {
		return dst
	}
	i++
	for {
		i = skipSpace(line, i)
		if i >= len(line) || line[i] != '"' {
			return dst // '}', or nothing the decoder accepts
		}
		end := stringEnd(line, i)
		dst = append(dst, key(line[i:end]))
		i = skipSpace(line, end)
		if i >= len(line) || line[i] != ':' {
			return dst
		}
		i = skipValue(line, skipSpace(line, i+1))
		i = skipSpace(line, i)
		if i >= len(line) || line[i] != ',' {
			return dst
		}
		i++
	}
}

// key returns the text of a key, quoted as written: as it is when it holds
// no escape.
func key(quoted []byte) string {
	if bytes.IndexByte(quoted, '\\') < 0 {
		return string(quoted[1 : len(quoted)-1])
	}
	var s string
	if err := json.Unmarshal(quoted, &s); err != nil {
		return string(quoted)
	}
	return s
}

func skipSpace(s []byte, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
		i++
	}
	return i
}

// stringEnd returns the index after the string that starts (its opening
// quote) at i.
func stringEnd(s []byte, i int) int {
	for j := i + 1; j < len(s); {
		q := bytes.IndexByte(s[j:], '"')
		if q < 0 {
			return len(s)
		}
		q += j
		backslashes := 0
		for k := q - 1; k > i && s[k] == '\\'; k-- {
			backslashes++
		}
		if backslashes%2 == 0 {
			return q + 1
		}
		j = q + 1
	}
	return len(s)
}

// skipValue returns the index after the value that starts at i.
func skipValue(s []byte, i int) int {
	if i >= len(s) {
		return i
	}
	switch s[i] {
	case '"':
		return stringEnd(s, i)
	case '{', '[':
		depth := 0
		for i < len(s) {
			switch s[i] {
			case '"':
				i = stringEnd(s, i)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return i
	default: // a number, true, false or null
		for i < len(s) && s[i] != ',' && s[i] != '}' && s[i] != ']' && s[i] != ' ' && s[i] != '\t' && s[i] != '\n' && s[i] != '\r' {
			i++
		}
		return i
	}
}
