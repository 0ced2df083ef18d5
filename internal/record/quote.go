package record

// AppendQuoted appends s as a JSON string, escaped as the encoder escapes
// (s must be valid UTF-8: a decoded field always is).
func AppendQuoted(dst []byte, s string) []byte {
	dst = append(dst, '"')
	dst, _, _ = appendEscaped(dst, []byte(s))
	return append(dst, '"')
}
