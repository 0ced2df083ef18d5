package walk

import (
	"bytes"
	"crypto/sha1"
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// initRepo makes a repository in dir with the object format ("sha1" or
// "sha256"); it skips the test when git cannot make a SHA-256 one.
func initRepo(t *testing.T, dir, format string) {
	t.Helper()
	if format == "sha1" {
		git(t, dir, "init", "-q")
		return
	}
	cmd := exec.Command("git", "init", "-q", "--object-format="+format)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Skipf("git cannot make a %s repository: %v\n%s", format, err, out)
	}
}

// TestIndexFormats: whatever the object format (SHA-1 or SHA-256), the
// index version (2, 3, 4) and whether the index is split, the files git
// tracks are listed even when ignored, as git lists them.
func TestIndexFormats(t *testing.T) {
	isolateGit(t)
	for _, format := range []string{"sha1", "sha256"} {
		for _, v := range []string{"2", "3", "4"} {
			for _, split := range []bool{false, true} {
				t.Run(fmt.Sprintf("%s v%s split %v", format, v, split), func(t *testing.T) {
					dir := t.TempDir()
					initRepo(t, dir, format)
					writeTree(t, dir, "gen/a.py", "gen/ab.py", "gen/b/c.py", "x.py", "ita.py", "keep.py", "mod.gen", "drop.gen", "gen/new.py")
					writeFile(t, filepath.Join(dir, ".gitignore"), "gen/\nita.py\n*.gen\n")
					git(t, dir, "add", "-f", "gen/a.py", "gen/ab.py", "gen/b/c.py", "x.py", "keep.py", "mod.gen", "drop.gen", ".gitignore")
					git(t, dir, "add", "-f", "-N", "ita.py") // extended flags
					git(t, dir, "update-index", "--index-version", v)
					if split {
						git(t, dir, "config", "splitIndex.maxPercentChange", "100")
						git(t, dir, "update-index", "--split-index")
					}
					// With a split index, these go to the split part: a
					// replaced entry, a deleted one, a new one.
					writeFile(t, filepath.Join(dir, "mod.gen"), "changed\n")
					git(t, dir, "add", "-f", "mod.gen")
					git(t, dir, "rm", "-q", "--cached", "drop.gen")
					git(t, dir, "add", "-f", "gen/new.py")
					if split {
						// The test is only worth its name if the split
						// part replaces and deletes shared entries.
						replaced, deleted := splitCounts(t, dir)
						if replaced == 0 || deleted == 0 {
							t.Fatalf("split index with %d replaced and %d deleted entries", replaced, deleted)
						}
					}
					compareWithGit(t, dir, nil, Options{})
					got, warns := listPaths(t, dir, nil, Options{})
					sameList(t, "listing", got, []string{"gen/a.py", "gen/ab.py", "gen/b/c.py", "gen/new.py", "ita.py", "keep.py", "mod.gen", "x.py"})
					if len(warns) != 0 {
						t.Errorf("want no warning, got %+v", warns)
					}
				})
			}
		}
	}
}

// testRepo is the repo of the work tree dir.
func testRepo(t *testing.T, dir string) *repo {
	t.Helper()
	gd, ok := gitDirOf(dir)
	if !ok {
		t.Fatalf("%s is not a work tree", dir)
	}
	return &repo{top: dir, gitDir: gd, commonDir: commonDirOf(gd)}
}

// splitCounts parses a split index and counts the shared entries its
// bitmaps replace and delete.
func splitCounts(t *testing.T, dir string) (replaced, deleted int) {
	t.Helper()
	r := testRepo(t, dir)
	hashLen, err := objectHashLen(r)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(r.gitDir, "index"))
	if err != nil {
		t.Fatal(err)
	}
	idx, err := parseIndex(data, hashLen)
	if err != nil || idx.link == nil {
		t.Fatalf("not a split index: %v", err)
	}
	data, err = os.ReadFile(filepath.Join(r.gitDir, fmt.Sprintf("sharedindex.%x", idx.link)))
	if err != nil {
		t.Fatal(err)
	}
	base, err := parseIndex(data, hashLen)
	if err != nil {
		t.Fatal(err)
	}
	count := func(b []byte) int {
		bits, err := ewahBits(b, len(base.entries))
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, x := range bits {
			if x {
				n++
			}
		}
		return n
	}
	return count(idx.replBits), count(idx.delBits)
}

// TestIndexLongNames: a name of 0xFFF bytes or more has its length found
// by its NUL (the flags hold 0xFFF), in versions 2 and 4. The entries need
// no file on disk, so readIndex is asked directly.
func TestIndexLongNames(t *testing.T) {
	isolateGit(t)
	long := strings.Repeat("d/", 2100) + "f.py" // 4204 bytes
	for _, v := range []string{"2", "4"} {
		dir := t.TempDir()
		git(t, dir, "init", "-q")
		oid := strings.TrimSpace(git(t, dir, "hash-object", "-w", "--stdin"))
		for _, name := range []string{"a.py", long, long + "x", "z.py"} {
			git(t, dir, "update-index", "--add", "--cacheinfo", "100644,"+oid+","+name)
		}
		git(t, dir, "update-index", "--index-version", v)
		tr, err := readIndex(testRepo(t, dir))
		if err != nil {
			t.Fatalf("v%s: %v", v, err)
		}
		want := []string{"a.py", long, long + "x", "z.py"}
		if !reflect.DeepEqual(tr.names, want) {
			t.Errorf("v%s: got %d names, want %d", v, len(tr.names), len(want))
		}
	}
}

// TestIndexRefused: what the reader does not understand is an error (a
// Notice upstream), never a wrong listing.
func TestIndexRefused(t *testing.T) {
	isolateGit(t)
	dir := t.TempDir()
	git(t, dir, "init", "-q")
	writeTree(t, dir, "a.py", "b.log")
	writeFile(t, filepath.Join(dir, ".gitignore"), "*.log\n")
	git(t, dir, "add", "-f", "a.py", "b.log")
	data, err := os.ReadFile(filepath.Join(dir, ".git/index"))
	if err != nil {
		t.Fatal(err)
	}
	write := func(b []byte) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, ".git/index"), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	check := func(what, reason string) {
		t.Helper()
		got, warns := listPaths(t, dir, nil, Options{})
		sameList(t, what, got, []string{"a.py"})
		noticeAbout(t, warns, ".", "cannot read git index", reason)
	}

	// An extension whose name starts with a lower-case letter is required.
	body := append(bytes.Clone(data[:len(data)-sha1.Size]), "zzzz\x00\x00\x00\x00"...)
	write(withSum(body))
	check("required extension", `"zzzz" extension`)
	// An optional one is skipped.
	body = append(bytes.Clone(data[:len(data)-sha1.Size]), "ZZZZ\x00\x00\x00\x01!"...)
	write(withSum(body))
	got, warns := listPaths(t, dir, nil, Options{})
	sameList(t, "optional extension", got, []string{"a.py", "b.log"})
	if len(warns) != 0 {
		t.Errorf("optional extension: %+v", warns)
	}
	// A flipped byte.
	bad := bytes.Clone(data)
	bad[20] ^= 1
	write(bad)
	check("checksum", "checksum")
	// A version from the future.
	bad = bytes.Clone(data[:len(data)-sha1.Size])
	binary.BigEndian.PutUint32(bad[4:], 5)
	write(withSum(bad))
	check("version", "version 5")
	// An object format from the future.
	write(data)
	git(t, dir, "config", "extensions.objectFormat", "sha512")
	check("object format", `"sha512"`)
}

// TestIndexExtendedFlagsAtEnd: a version 3 index whose last entry sets the
// extended flag and ends where the body ends made parseIndex slice past
// the end (a panic: a crafted repository crashed castchunk); it is a
// truncated index.
func TestIndexExtendedFlagsAtEnd(t *testing.T) {
	for _, version := range []byte{3, 4} {
		body := []byte("DIRC\x00\x00\x00\x00\x00\x00\x00\x01")
		body[7] = version
		entry := make([]byte, 40+sha1.Size+2)
		// Extended, and a name too long for the flags (looked for up to NUL).
		binary.BigEndian.PutUint16(entry[len(entry)-2:], 0x4000|0xFFF)
		body = append(body, entry...)
		if _, err := parseIndex(withSum(body), sha1.Size); err == nil {
			t.Errorf("version %d: an entry cut off after its flags was accepted", version)
		}
	}
}

// withSum appends the SHA-1 of body to it.
func withSum(body []byte) []byte {
	s := sha1.Sum(body)
	return append(body, s[:]...)
}

// TestIndexDamage: a damaged index (truncated anywhere, any byte changed,
// the checksum made to fit) is an error or a listing, never a panic or a
// huge allocation; the same for the split part's bitmaps.
func TestIndexDamage(t *testing.T) {
	isolateGit(t)
	for _, v := range []string{"2", "4"} {
		dir := t.TempDir()
		git(t, dir, "init", "-q")
		writeTree(t, dir, "a.py", "b/c.py", "b/d.py", "e.py")
		git(t, dir, "add", ".")
		git(t, dir, "update-index", "--index-version", v)
		git(t, dir, "config", "splitIndex.maxPercentChange", "100")
		git(t, dir, "update-index", "--split-index")
		writeFile(t, filepath.Join(dir, "e.py"), "changed\n")
		git(t, dir, "add", "e.py")
		git(t, dir, "rm", "-q", "--cached", "a.py")
		data, err := os.ReadFile(filepath.Join(dir, ".git/index"))
		if err != nil {
			t.Fatal(err)
		}
		body := data[:len(data)-sha1.Size]
		for i := range len(body) {
			parseIndex(withSum(bytes.Clone(body[:i])), sha1.Size)
			for _, x := range []byte{0x01, 0x80, 0xff} {
				b := bytes.Clone(body)
				b[i] ^= x
				idx, err := parseIndex(withSum(b), sha1.Size)
				if err == nil && idx.link != nil {
					ewahBits(idx.replBits, 8)
					ewahBits(idx.delBits, 8)
				}
			}
		}
		tr, err := readIndex(testRepo(t, dir))
		if err != nil {
			t.Fatal(err)
		}
		if want := []string{"b/c.py", "b/d.py", "e.py"}; !slices.Equal(tr.names, want) {
			t.Errorf("v%s: %q, want %q", v, tr.names, want)
		}
	}
}

// TestEWAH decodes bitmaps built by hand: a run of ones, literal words, and
// a bit past the end.
func TestEWAH(t *testing.T) {
	build := func(words ...uint64) []byte {
		b := binary.BigEndian.AppendUint32(nil, 0)
		b = binary.BigEndian.AppendUint32(b, uint32(len(words)))
		for _, w := range words {
			b = binary.BigEndian.AppendUint64(b, w)
		}
		return binary.BigEndian.AppendUint32(b, 0)
	}
	rlw := func(run bool, runLen, lits uint64) uint64 {
		w := runLen<<1 | lits<<33
		if run {
			w |= 1
		}
		return w
	}
	// One word of zeros, one of ones, then a literal with bits 0 and 3.
	b := build(rlw(false, 1, 0), rlw(true, 1, 1), 0b1001)
	if n, err := ewahLen(append(bytes.Clone(b), 9, 9)); err != nil || n != len(b) {
		t.Fatalf("ewahLen = %d, %v; want %d", n, err, len(b))
	}
	set, err := ewahBits(b, 200)
	if err != nil {
		t.Fatal(err)
	}
	var got []int
	for i, x := range set {
		if x {
			got = append(got, i)
		}
	}
	want := []int{}
	for i := 64; i < 128; i++ {
		want = append(want, i)
	}
	want = append(want, 128, 131)
	if !slices.Equal(got, want) {
		t.Errorf("bits %v, want %v", got, want)
	}
	if _, err := ewahBits(b, 131); err == nil {
		t.Error("a bit past the end was accepted")
	}
	if _, err := ewahBits(build(rlw(true, 1<<32-1, 0)), 10); err == nil {
		t.Error("a huge run was accepted")
	}
	if _, err := ewahLen(build(rlw(false, 0, 5))[:12]); err == nil {
		t.Error("a truncated bitmap was accepted")
	}
	if _, err := ewahBits(build(rlw(false, 0, 5)), 10); err == nil {
		t.Error("missing literal words were accepted")
	}
}
