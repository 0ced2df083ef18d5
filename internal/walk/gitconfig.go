package walk

import (
	"fmt"
	"strings"
)

// This file reads git config files: castchunk needs two variables from
// them (core.excludesFile and extensions.objectFormat). The parser follows
// git's own (git_parse_source in git's config.c) step by step, so that a
// file means to castchunk what it means to git:
//
//   - "[section]" starts a section; "[section "sub"]" a subsection, whose
//     name is case-sensitive and may hold \" and \\ escapes; the deprecated
//     "[section.sub]" a subsection whose name is lower-cased. Section and
//     key names are case-insensitive.
//   - "key = value" sets a variable: whitespace (space, tab, CR) around the
//     value is dropped, whitespace inside it kept as it is (as git does
//     since 2.45; before, each tab or CR there became a space); double
//     quotes keep whitespace and comment characters; \\ \" \n \t \b are
//     escapes and a backslash at the end of a line continues the value on
//     the next one. "#" and ";" start a comment outside quotes, also after
//     a value. A NUL ends a value, as git reads it as a C string.
//   - A key alone ("key", no "=") has no value: git takes it as boolean
//     true and refuses it for a string variable ("missing value"); here it
//     does not set the variable, so an earlier value stays.
//   - The last value given to a variable wins.
//   - "include" and "includeIf" are not followed (they are just variables).
//   - A UTF-8 byte order mark at the start is skipped.
//
// A line that does not parse makes git refuse the whole file; readConfig
// keeps what was read before it (see readConfig).

// gitConfig maps the variables of a git config file, by the name git
// gives them ("core.excludesfile", "remote.origin.url": section and key
// lower-cased, subsection as written), to the last value each was given.
type gitConfig map[string]string

// configSyntaxError is a config line that git would refuse.
type configSyntaxError struct{ line int }

func (e *configSyntaxError) Error() string {
	return fmt.Sprintf("bad config line %d", e.line)
}

// configValue returns the last value of section.key (no subsection) in a
// git config. section and key are case-insensitive.
func configValue(cfg gitConfig, section, key string) (string, bool) {
	v, ok := cfg[strings.ToLower(section)+"."+strings.ToLower(key)]
	return v, ok
}

// parseConfig parses a git config file. On a syntax error it returns the
// variables read before the bad line, and the error (whose line number is
// the one git gives).
func parseConfig(data []byte) (gitConfig, error) {
	cfg := gitConfig{}
	err := (&configParser{data: data, line: 1}).parse(cfg)
	return cfg, err
}

// configParser is git's config_source for a buffer.
type configParser struct {
	data []byte
	pos  int
	line int  // current line, counted as git counts it (for errors)
	eof  bool // the end was reached; next returns '\n' from now on
}

// next returns the next byte as git's get_next_char does: "\r\n" reads as
// '\n', and the end of the data reads as '\n' (with eof set).
func (p *configParser) next() byte {
	if p.pos >= len(p.data) {
		p.eof = true
		p.line++
		return '\n'
	}
	c := p.data[p.pos]
	p.pos++
	if c == '\r' && p.pos < len(p.data) && p.data[p.pos] == '\n' {
		c = '\n'
		p.pos++
	}
	if c == '\n' {
		p.line++
	}
	return c
}

func (p *configParser) syntaxError() error {
	return &configSyntaxError{p.line}
}

// utf8BOM is skipped at the start of a file, as git does.
const utf8BOM = "\xef\xbb\xbf"

func (p *configParser) parse(cfg gitConfig) error {
	var name []byte // the current variable name
	base := 0       // length of its "section." or "section.sub." stem
	comment := false
	bom := 0 // how much of a BOM was read; -1 once past it
	for {
		c := p.next()
		if bom >= 0 && bom < len(utf8BOM) {
			if c == utf8BOM[bom] {
				bom++
				continue
			}
			if bom > 0 {
				return p.syntaxError() // git does not take part of a BOM
			}
		}
		bom = -1
		if c == '\n' {
			if p.eof {
				return nil
			}
			comment = false
			continue
		}
		if comment {
			continue
		}
		if isConfigSpace(c) {
			continue
		}
		if c == '#' || c == ';' {
			comment = true
			continue
		}
		if c == '[' {
			var ok bool
			if name, ok = p.sectionHeader(name[:0]); !ok || len(name) < 1 {
				return p.syntaxError()
			}
			name = append(name, '.')
			base = len(name)
			continue
		}
		if !isASCIIAlpha(c) {
			return p.syntaxError()
		}
		name = append(name[:base], lower(c))
		if !p.variable(cfg, name) {
			return p.syntaxError()
		}
	}
}

// sectionHeader reads the rest of "[section]", "[section.sub]" or
// "[section "sub"]", appending the name to name, as git's get_base_var.
func (p *configParser) sectionHeader(name []byte) ([]byte, bool) {
	for {
		c := p.next()
		if p.eof {
			return name, false
		}
		if c == ']' {
			return name, true
		}
		if isConfigSpace(c) {
			return p.subsectionHeader(name, c)
		}
		if !isKeyChar(c) && c != '.' {
			return name, false
		}
		name = append(name, lower(c))
	}
}

// subsectionHeader reads ` "sub"]` after a section name, as git's
// get_extended_base_var; c is the space that ended the section name.
func (p *configParser) subsectionHeader(name []byte, c byte) ([]byte, bool) {
	for {
		if c == '\n' {
			p.line-- // git reports the line the header is on
			return name, false
		}
		if c = p.next(); !isConfigSpace(c) {
			break
		}
	}
	if c != '"' {
		return name, false
	}
	name = append(name, '.')
	for {
		c := p.next()
		if c == '\n' {
			p.line--
			return name, false
		}
		if c == '"' {
			break
		}
		if c == '\\' {
			if c = p.next(); c == '\n' {
				p.line--
				return name, false
			}
		}
		name = append(name, c)
	}
	return name, p.next() == ']'
}

// variable reads the rest of a "key = value" or "key" line, whose first
// letter ends name already, and records it, as git's get_value.
func (p *configParser) variable(cfg gitConfig, name []byte) bool {
	var c byte
	for {
		c = p.next()
		if p.eof || !isKeyChar(c) {
			break
		}
		name = append(name, lower(c))
	}
	for c == ' ' || c == '\t' {
		c = p.next()
	}
	if c == '\n' {
		return true // a key alone: no value, so not set (see above)
	}
	if c != '=' {
		return false
	}
	v, ok := p.value()
	if !ok {
		return false
	}
	// git passes names and values on as C strings: a NUL ends them.
	n, _, _ := strings.Cut(string(name), "\x00")
	v, _, _ = strings.Cut(v, "\x00")
	cfg[n] = v
	return true
}

// value reads a value up to the end of its line, as git's parse_value.
func (p *configParser) value() (string, bool) {
	var v []byte
	quote, comment := false, false
	trim := 0 // if not 0, the length v has without its trailing whitespace
	for {
		c := p.next()
		if c == '\n' {
			if quote {
				p.line--
				return "", false
			}
			if trim > 0 {
				v = v[:trim]
			}
			return string(v), true
		}
		if comment {
			continue
		}
		if isConfigSpace(c) && !quote {
			if trim == 0 {
				trim = len(v)
			}
			if len(v) > 0 {
				v = append(v, c)
			}
			continue
		}
		if !quote && (c == ';' || c == '#') {
			comment = true
			continue
		}
		trim = 0
		switch c {
		case '\\':
			switch c = p.next(); c {
			case '\n':
				continue
			case 't':
				c = '\t'
			case 'b':
				c = '\b'
			case 'n':
				c = '\n'
			case '\\', '"':
			default:
				return "", false // git refuses other escapes
			}
		case '"':
			quote = !quote
			continue
		}
		v = append(v, c)
	}
}

// isConfigSpace is git's isspace: only space, tab, newline and carriage
// return.
func isConfigSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r'
}

func isASCIIAlpha(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

// isKeyChar is git's iskeychar: letters, digits and '-'.
func isKeyChar(c byte) bool {
	return isASCIIAlpha(c) || '0' <= c && c <= '9' || c == '-'
}

func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}
