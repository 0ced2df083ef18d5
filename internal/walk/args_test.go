package walk

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

func TestDistinct(t *testing.T) {
	dir := plainTree(t, "sr/a.py", "sr/sub/b.py", "other/o.py")
	for link, target := range map[string]string{"lnk": "sr", "lnk2": "sr", "elsewhere": "other", "dot": ".", "alias.py": "sr/a.py", "gone": "missing"} {
		if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(dir)
	abs := func(p string) string { return filepath.Join(dir, p) }
	for _, c := range []struct {
		args []string
		want []string
		same []Same
	}{
		{[]string{"sr"}, []string{"sr"}, nil},
		{[]string{"sr", "other"}, []string{"sr", "other"}, nil},
		{[]string{"sr", "sr/sub", "sr/a.py"}, []string{"sr", "sr/sub", "sr/a.py"}, nil},
		// As written, one name: dropped silently.
		{[]string{"sr", "./sr/", abs("sr")}, []string{"sr", "", ""}, nil},
		// The name without a link is kept, whatever the order.
		{[]string{"sr", "lnk"}, []string{"sr", ""}, []Same{{Index: 1, As: "sr", Dropped: true, Dir: true}}},
		{[]string{"lnk", "sr"}, []string{"", "sr"}, []Same{{Index: 0, As: "sr", Dropped: true, Dir: true}}},
		// Two links: the first in byte order.
		{[]string{"lnk2", "lnk"}, []string{"", "lnk"}, []Same{{Index: 0, As: "lnk", Dropped: true, Dir: true}}},
		{[]string{"sr/a.py", "lnk/a.py", "alias.py"}, []string{"sr/a.py", "", ""}, []Same{{Index: 1, As: "sr/a.py", Dropped: true}, {Index: 2, As: "sr/a.py", Dropped: true}}},
		// Inside a folder argument by a link: the path below it.
		{[]string{".", "lnk"}, []string{".", "sr"}, []Same{{Index: 1, As: "sr", Dir: true}}},
		{[]string{"sr", "lnk/sub", "lnk/a.py"}, []string{"sr", "sr/sub", "sr/a.py"}, []Same{{Index: 1, As: "sr/sub", Dir: true}, {Index: 2, As: "sr/a.py"}}},
		{[]string{"lnk", "lnk/sub"}, []string{"lnk", "lnk/sub"}, nil},
		{[]string{"dot", "sr"}, []string{"dot", "dot/sr"}, []Same{{Index: 1, As: "dot/sr", Dir: true}}},
		{[]string{"dot/sr", "lnk"}, []string{"dot/sr", ""}, []Same{{Index: 1, As: "dot/sr", Dropped: true, Dir: true}}},
		// Links elsewhere, and what cannot be resolved, are left alone.
		{[]string{"sr", "elsewhere", "gone", "missing"}, []string{"sr", "elsewhere", "gone", "missing"}, nil},
	} {
		got, same := Distinct(c.args)
		if !reflect.DeepEqual(got, c.want) || !reflect.DeepEqual(same, c.same) {
			t.Errorf("Distinct(%q) = %q, %+v; want %q, %+v", c.args, got, same, c.want, c.same)
		}
	}
}
