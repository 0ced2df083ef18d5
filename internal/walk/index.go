package walk

import (
	"bytes"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"math/bits"
	"path/filepath"
	"sort"
	"strings"
)

// This file reads the git index (Documentation/gitformat-index.txt) for
// the one thing the walker needs: the paths it tracks. Versions 2, 3 and 4
// (prefix-compressed names), SHA-1 and SHA-256 repositories, and split
// indexes (the "link" extension and its shared index) are understood;
// optional extensions are skipped; the checksum is verified.

// tracked is what the index says about a work tree.
type tracked struct {
	files map[string]bool // paths of index entries, '/'-separated
	dirs  map[string]bool // every directory that has an entry below it
	names []string        // files, sorted (the index order)
}

// indexEntry is what the walker keeps of one index entry.
type indexEntry struct {
	name string
	mode uint32
}

// gitIndex is one parsed index file.
type gitIndex struct {
	entries []indexEntry
	sum     []byte // the trailing checksum
	// A split index: the shared index's checksum, and the EWAH bitmaps of
	// the shared entries deleted and replaced (nil when absent).
	link              []byte
	delBits, replBits []byte
}

const (
	modeGitlink = 0o160000 // a submodule: a directory, not a file
	modeTypeDir = 0o040000 // a sparse index's directory entry
	modeTypeMsk = 0o170000
)

// readIndex loads the paths of the index: unmerged paths appear once;
// gitlinks (submodules) and a sparse index's directory entries are left
// out: they are directories, not files.
func readIndex(r *repo) (*tracked, error) {
	hashLen, err := objectHashLen(r)
	if err != nil {
		return nil, err
	}
	data, err := readMeta(filepath.Join(r.gitDir, "index"), maxIndexSize, false)
	if missing(err) {
		return &tracked{files: map[string]bool{}, dirs: map[string]bool{}}, nil
	}
	if err != nil {
		return nil, err
	}
	idx, err := parseIndex(data, hashLen)
	if err != nil {
		return nil, err
	}
	entries := idx.entries
	if idx.link != nil {
		if entries, err = mergeShared(r, idx, hashLen); err != nil {
			return nil, err
		}
	}
	t := &tracked{files: make(map[string]bool, len(entries)), dirs: map[string]bool{}}
	for _, e := range entries {
		if e.mode&modeTypeMsk == modeGitlink || e.mode&modeTypeMsk == modeTypeDir || strings.HasSuffix(e.name, "/") || t.files[e.name] {
			continue
		}
		t.files[e.name] = true
		t.names = append(t.names, e.name)
		for d := e.name; ; {
			i := strings.LastIndexByte(d, '/')
			if i < 0 || t.dirs[d[:i]] {
				break
			}
			d = d[:i]
			t.dirs[d] = true
		}
	}
	if idx.link != nil { // new entries of a split index come last
		sort.Strings(t.names)
	}
	return t, nil
}

// objectHashLen is the length of an object name in the repository:
// extensions.objectFormat in its config says SHA-1 (20 bytes, the default)
// or SHA-256 (32).
func objectHashLen(r *repo) (int, error) {
	cfg, err := readConfig(filepath.Join(r.commonDir, "config"))
	if err != nil {
		return 0, fmt.Errorf("cannot read the repository's config: %s", reason(err))
	}
	f, _ := configValue(cfg, "extensions", "objectformat")
	switch strings.ToLower(f) {
	case "", "sha1":
		return sha1.Size, nil
	case "sha256":
		return sha256.Size, nil
	}
	return 0, fmt.Errorf("unknown object format %q", f)
}

// newHash is the hash of hashLen bytes.
func newHash(hashLen int) hash.Hash {
	if hashLen == sha256.Size {
		return sha256.New()
	}
	return sha1.New()
}

var errIndexTruncated = errors.New("index file truncated")

// parseIndex parses an index file whose object names are hashLen bytes:
// the header and checksum, the entries, then the extensions.
func parseIndex(data []byte, hashLen int) (*gitIndex, error) {
	version, body, sum, err := indexBody(data, hashLen)
	if err != nil {
		return nil, err
	}
	idx := &gitIndex{sum: sum}
	off, err := idx.parseEntries(body, version, binary.BigEndian.Uint32(data[8:]), hashLen)
	if err != nil {
		return nil, err
	}
	if err := idx.parseExtensions(body[off:], hashLen); err != nil {
		return nil, err
	}
	return idx, nil
}

// indexBody checks an index file's header and trailing checksum before
// anything else is read, and returns its version, the bytes the checksum
// covers and the checksum (which names a shared index to its split index).
func indexBody(data []byte, hashLen int) (version uint32, body, sum []byte, err error) {
	if len(data) < 12+hashLen || string(data[:4]) != "DIRC" {
		return 0, nil, nil, errors.New("not a git index")
	}
	version = binary.BigEndian.Uint32(data[4:])
	if version < 2 || version > 4 {
		return 0, nil, nil, fmt.Errorf("index version %d is not supported", version)
	}
	body, sum = data[:len(data)-hashLen], data[len(data)-hashLen:]
	if !allZero(sum) { // index.skipHash writes zeros
		h := newHash(hashLen)
		h.Write(body)
		if !bytes.Equal(h.Sum(nil), sum) {
			return 0, nil, nil, errors.New("index checksum mismatch")
		}
	}
	return version, body, sum, nil
}

// parseEntries reads the n entries after the 12-byte header of body and
// returns the offset where the extensions start. The count is checked
// against the body's length first, so that a corrupt count cannot make
// it reserve more entries than the file could hold.
func (idx *gitIndex) parseEntries(body []byte, version, n uint32, hashLen int) (int, error) {
	// 40 bytes of stat data, the object name, 16 bits of flags.
	fixed := 40 + hashLen + 2
	if uint64(n) > uint64(len(body)/(fixed+1)) {
		return 0, errIndexTruncated
	}
	idx.entries = make([]indexEntry, 0, n)
	off := 12
	var prev []byte // v4: the previous name
	for range n {
		start := off
		if off+fixed > len(body) {
			return 0, errIndexTruncated
		}
		mode := binary.BigEndian.Uint32(body[off+24:])
		flags := binary.BigEndian.Uint16(body[off+fixed-2:])
		off += fixed
		if flags&0x4000 != 0 { // extended: 16 more bits of flags
			if version < 3 {
				return 0, errors.New("extended flags in a version 2 index")
			}
			off += 2
			if off > len(body) {
				return 0, errIndexTruncated
			}
		}
		var name []byte
		var err error
		if version == 4 {
			name, off, err = prefixedName(body, off, prev)
			prev = name
		} else {
			name, off, err = paddedName(body, start, off, flags)
		}
		if err != nil {
			return 0, err
		}
		idx.entries = append(idx.entries, indexEntry{name: string(name), mode: mode})
	}
	return off, nil
}

// prefixedName reads a version 4 name at off, stored as an edit of the
// previous name prev: the number of bytes to drop from its end, then the
// rest of the name, NUL-terminated, no padding. It returns the name,
// built in prev's array (the next name edits it in turn), and the offset
// after it.
func prefixedName(body []byte, off int, prev []byte) ([]byte, int, error) {
	strip, k := gitVarint(body[off:])
	if k == 0 || strip > uint64(len(prev)) {
		return nil, 0, errors.New("malformed name in index")
	}
	off += k
	end := bytes.IndexByte(body[off:], 0)
	if end < 0 {
		return nil, 0, errIndexTruncated
	}
	name := append(prev[:len(prev)-int(strip)], body[off:off+end]...)
	return name, off + end + 1, nil
}

// paddedName reads a version 2 or 3 name at off, in the entry that starts
// at start: its length is in the flags unless 0xFFF or more, and it is
// NUL-terminated and padded with NULs to make the entry a multiple of 8
// bytes. It returns the name (in body) and the offset of the next entry.
func paddedName(body []byte, start, off int, flags uint16) ([]byte, int, error) {
	l := int(flags & 0xFFF)
	if l == 0xFFF {
		l = bytes.IndexByte(body[off:], 0)
	}
	if l < 0 || off+l >= len(body) || body[off+l] != 0 {
		return nil, 0, errors.New("malformed name in index")
	}
	name := body[off : off+l]
	off = start + (off-start+l+8)&^7
	if off > len(body) {
		return nil, 0, errIndexTruncated
	}
	return name, off, nil
}

// parseExtensions reads the extensions that follow the entries: a split
// index's link is kept; a sparse index's marker and the optional ones
// (caches, named in capitals) are skipped; any other is refused, since
// git's format says a reader must understand a required extension.
func (idx *gitIndex) parseExtensions(exts []byte, hashLen int) error {
	off := 0
	for off < len(exts) {
		if off+8 > len(exts) {
			return errIndexTruncated
		}
		sig := exts[off : off+4]
		size := uint64(binary.BigEndian.Uint32(exts[off+4:]))
		off += 8
		if size > uint64(len(exts)-off) {
			return errIndexTruncated
		}
		ext := exts[off : off+int(size)]
		off += int(size)
		switch {
		case string(sig) == "link":
			if err := idx.parseLink(ext, hashLen); err != nil {
				return err
			}
		case string(sig) == "sdir":
			// A sparse index: its directory entries end in '/' and are
			// skipped; what they hold is outside the sparse checkout.
		case sig[0] >= 'A' && sig[0] <= 'Z':
			// Optional: only a cache (trees, untracked, fsmonitor...).
		default:
			return fmt.Errorf("index uses the %q extension, which castchunk does not understand", sig)
		}
	}
	return nil
}

// parseLink reads a split index's link extension: the shared index's
// checksum, then (optionally) the delete and replace bitmaps.
func (idx *gitIndex) parseLink(ext []byte, hashLen int) error {
	if len(ext) < hashLen {
		return errors.New("corrupt link extension in index")
	}
	if allZero(ext[:hashLen]) {
		return nil // not split after all
	}
	idx.link = ext[:hashLen]
	rest := ext[hashLen:]
	if len(rest) == 0 {
		return nil
	}
	n, err := ewahLen(rest)
	if err != nil {
		return err
	}
	idx.delBits, rest = rest[:n], rest[n:]
	if n, err = ewahLen(rest); err != nil {
		return err
	}
	if n != len(rest) {
		return errors.New("corrupt link extension in index")
	}
	idx.replBits = rest
	return nil
}

// mergeShared applies a split index to its shared index, as git's
// merge_base_index does: the shared entries marked in the replace bitmap
// take, in order, the first entries of the split index (keeping their
// names); those marked in the delete bitmap go; the remaining entries of
// the split index are added.
func mergeShared(r *repo, idx *gitIndex, hashLen int) ([]indexEntry, error) {
	p := filepath.Join(r.gitDir, "sharedindex."+hex.EncodeToString(idx.link))
	data, err := readMeta(p, maxIndexSize, false)
	if err != nil {
		return nil, fmt.Errorf("shared index %q: %s", p, reason(err))
	}
	base, err := parseIndex(data, hashLen)
	if err != nil {
		return nil, fmt.Errorf("shared index %q: %v", p, err)
	}
	if base.link != nil || !bytes.Equal(base.sum, idx.link) {
		return nil, fmt.Errorf("shared index %q does not match the index", p)
	}
	entries := base.entries
	replaced, err := ewahBits(idx.replBits, len(entries))
	if err != nil {
		return nil, err
	}
	deleted, err := ewahBits(idx.delBits, len(entries))
	if err != nil {
		return nil, err
	}
	own := idx.entries
	merged := make([]indexEntry, 0, len(entries)+len(own))
	for i, e := range entries {
		if replaced != nil && replaced[i] {
			if len(own) == 0 || own[0].name != "" {
				return nil, errors.New("corrupt split index: replacement missing")
			}
			e.mode = own[0].mode
			own = own[1:]
		}
		if deleted == nil || !deleted[i] {
			merged = append(merged, e)
		}
	}
	for _, e := range own {
		if e.name == "" {
			return nil, errors.New("corrupt split index: entry without a name")
		}
		merged = append(merged, e)
	}
	return merged, nil
}

// ewahLen returns the length of the EWAH bitmap (git's ewah/ewah_io.c) at
// the start of b: 32-bit size in bits, 32-bit count of 64-bit words, the
// words, 32-bit position of the last run-length word; all big-endian.
func ewahLen(b []byte) (int, error) {
	if len(b) < 8 {
		return 0, errors.New("corrupt bitmap in index")
	}
	words := uint64(binary.BigEndian.Uint32(b[4:]))
	n := 8 + 8*words + 4
	if n > uint64(len(b)) {
		return 0, errors.New("corrupt bitmap in index")
	}
	return int(n), nil
}

// ewahBits decodes an EWAH bitmap (nil: none) of n bits; a bit set at n or
// beyond is an error. Each run-length word holds a run bit (bit 0), a run
// length in words (bits 1-32) and the count of literal words after it
// (bits 33-63).
func ewahBits(b []byte, n int) ([]bool, error) {
	if b == nil {
		return nil, nil
	}
	set := make([]bool, n)
	words := b[8 : len(b)-4]
	pos := uint64(0)
	bad := errors.New("corrupt bitmap in index: a bit past the entries")
	for len(words) > 0 {
		rlw := binary.BigEndian.Uint64(words)
		words = words[8:]
		run := (rlw >> 1 & 0xFFFFFFFF) * 64
		if rlw&1 != 0 {
			if pos+run > uint64(n) {
				return nil, bad
			}
			for i := pos; i < pos+run; i++ {
				set[i] = true
			}
		}
		pos += run
		lits := rlw >> 33
		if lits > uint64(len(words)/8) {
			return nil, errors.New("corrupt bitmap in index")
		}
		for range lits {
			w := binary.BigEndian.Uint64(words)
			words = words[8:]
			for w != 0 {
				i := pos + uint64(bits.TrailingZeros64(w))
				if i >= uint64(n) {
					return nil, bad
				}
				set[i] = true
				w &= w - 1
			}
			pos += 64
		}
	}
	return set, nil
}

// gitVarint decodes git's offset varint (varint.c): 7 bits a byte, most
// significant first, each continuation adding one. It returns the value
// and the bytes used, 0 when malformed.
func gitVarint(b []byte) (uint64, int) {
	if len(b) == 0 {
		return 0, 0
	}
	c := b[0]
	v := uint64(c & 127)
	i := 1
	for c&128 != 0 {
		if i >= len(b) || v+1 >= 1<<57 {
			return 0, 0
		}
		v++
		c = b[i]
		i++
		v = v<<7 | uint64(c&127)
	}
	return v, i
}

func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}
