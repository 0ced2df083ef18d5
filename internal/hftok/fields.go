package hftok

import (
	"encoding/json"
	"fmt"
	"sort"
)

// fields reads one component object of tokenizer.json field by field, so
// that a field this package does not read is an error rather than an
// option silently ignored: an unknown option may change the count.
type fields struct {
	what string // "normalizer BertNormalizer", for messages
	m    map[string]json.RawMessage
	used map[string]bool
	err  error
}

// component decodes raw as an object and returns its "type" and fields.
func component(kind string, raw json.RawMessage) (string, *fields, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return "", nil, fmt.Errorf("%s: not an object: %v", kind, err)
	}
	var typ string
	if err := json.Unmarshal(m["type"], &typ); err != nil || typ == "" {
		return "", nil, fmt.Errorf("%s: no \"type\"", kind)
	}
	f := &fields{what: kind + " " + typ, m: m, used: map[string]bool{"type": true}}
	return typ, f, nil
}

// get decodes field name into v when it is present and not null, and
// reports whether it was.
func (f *fields) get(name string, v any) bool {
	f.used[name] = true
	raw, ok := f.m[name]
	if !ok || string(raw) == "null" {
		return false
	}
	if err := json.Unmarshal(raw, v); err != nil && f.err == nil {
		f.err = fmt.Errorf("%s: field %q: %v", f.what, name, err)
	}
	return true
}

// boolean is field name, or def when absent.
func (f *fields) boolean(name string, def bool) bool {
	v := def
	f.get(name, &v)
	return v
}

// str is field name, or def when absent.
func (f *fields) str(name, def string) string {
	v := def
	f.get(name, &v)
	return v
}

// ignore marks fields that do not change which tokens are produced (offset
// trimming, decoding hints).
func (f *fields) ignore(names ...string) {
	for _, n := range names {
		f.used[n] = true
	}
}

// done returns the first decoding error, or names a field nobody read.
func (f *fields) done() error {
	if f.err != nil {
		return f.err
	}
	var unknown []string
	for k := range f.m {
		if !f.used[k] {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return fmt.Errorf("%s: field %q is not implemented", f.what, unknown[0])
	}
	return nil
}

// errorf is an error about field name of the component.
func (f *fields) errorf(name, format string, args ...any) error {
	return fmt.Errorf("%s: %s: %s", f.what, name, fmt.Sprintf(format, args...))
}
