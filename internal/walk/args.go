package walk

import (
	"cmp"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Same says that a path argument names, through a symbolic link, a file
// or folder that another argument names too (`chunk sr lnk`, lnk a link
// to sr), or one inside a folder argument (`chunk sr lnk/sub`): walking
// both would list each file twice, under two paths. Distinct gives it the
// other argument's name instead.
type Same struct {
	Index int    // the argument's index
	As    string // the name it is walked by: the other argument, or a path below it
	// Dropped: the other argument names the same file or folder (not one
	// inside it), and is walked already; this one is not walked.
	Dropped bool
	Dir     bool // it is a folder
}

// Distinct finds the arguments that name what others name (Same), by the
// real paths of the arguments, symbolic links resolved, as the walk
// follows a link named as an argument. Of several arguments naming one
// file or folder, the one kept is the one whose name goes through no
// symbolic link (below the current folder, for a relative name), else a
// relative name, else the first in byte order; the others are Dropped (silently when they differ
// only as written: "sr", "./sr/" and "$PWD/sr" are one name). An argument
// inside a folder argument by its real path, and not as written, is
// walked as the path below that folder (the deepest one): `sr/sub` for
// `lnk/sub`. The walk then lists each file once, under one path, however
// the arguments reached it. Arguments that cannot be resolved (missing,
// dangling) are left as they are: the walk names them.
//
// Distinct returns the arguments with those changes, in order, "" for a
// dropped one, and what it changed, but not the silent drops.
func Distinct(args []string) ([]string, []Same) {
	out := slices.Clone(args)
	if len(args) < 2 {
		return out, nil
	}
	cwd, err := os.Getwd()
	if err != nil {
		return out, nil
	}
	kept, same := dropSame(resolveArgs(args, cwd), out)
	same = append(same, renameInside(kept, out)...)
	slices.SortFunc(same, func(x, y Same) int { return cmp.Compare(x.Index, y.Index) })
	return out, same
}

// distinctArg is an argument that resolves, as Distinct sees it.
type distinctArg struct {
	i               int
	name, lex, real string // as written (clean); absolute from the real cwd; real
	dir, canon      bool
}

// resolveArgs resolves the arguments that can be resolved, from cwd.
func resolveArgs(args []string, cwd string) []*distinctArg {
	realCwd := realPath(cwd)
	realDirs := map[string]string{}
	var as []*distinctArg
	for i, a := range args {
		if a == "" || a == "-" {
			continue
		}
		name := filepath.Clean(a)
		abs, lex := name, name
		if !filepath.IsAbs(name) {
			abs, lex = filepath.Join(cwd, name), filepath.Join(realCwd, name)
		} else if rel, ok := within(cwd, name); ok { // "$PWD/sr" is "sr"
			lex = filepath.Join(realCwd, filepath.FromSlash(rel))
		} else if name == cwd {
			lex = realCwd
		}
		real, dir, ok := resolve(abs, realDirs)
		if !ok {
			continue
		}
		as = append(as, &distinctArg{i: i, name: name, lex: lex, real: real, dir: dir, canon: lex == real})
	}
	return as
}

// dropSame keeps one name of a file or folder named several times: the
// one through no link, else a relative one, else the first in byte order;
// the others are "" in out. It returns the arguments kept.
func dropSame(as []*distinctArg, out []string) ([]*distinctArg, []Same) {
	slices.SortStableFunc(as, func(x, y *distinctArg) int {
		if c := strings.Compare(x.real, y.real); c != 0 {
			return c
		}
		if x.canon != y.canon {
			if x.canon {
				return -1
			}
			return 1
		}
		if xa, ya := filepath.IsAbs(x.name), filepath.IsAbs(y.name); xa != ya {
			if ya {
				return -1
			}
			return 1
		}
		return strings.Compare(x.name, y.name)
	})
	var same []Same
	kept := as[:0:0]
	for n, a := range as {
		if n > 0 && as[n-1].real == a.real {
			k := kept[len(kept)-1]
			out[a.i] = ""
			if a.lex != k.lex {
				same = append(same, Same{Index: a.i, As: k.name, Dropped: true, Dir: a.dir})
			}
			continue
		}
		kept = append(kept, a)
	}
	return kept, same
}

// renameInside names an argument inside a folder argument, by a link, by
// its path below the folder, in out. Shorter real paths first, so a folder
// is renamed before what it holds.
func renameInside(kept []*distinctArg, out []string) []Same {
	var same []Same
	slices.SortStableFunc(kept, func(x, y *distinctArg) int { return cmp.Compare(len(x.real), len(y.real)) })
	for n, a := range kept {
		var in *distinctArg
		for _, f := range kept[:n] {
			if f.dir && below(f.real, a.real) && (in == nil || len(f.real) > len(in.real)) {
				in = f
			}
		}
		if in == nil {
			continue
		}
		rel, err := filepath.Rel(in.real, a.real)
		if err != nil || filepath.Join(in.lex, rel) == a.lex {
			continue // so as written: the walk lists its files by the same paths
		}
		a.name = filepath.Join(in.name, rel)
		a.lex = filepath.Join(in.lex, rel)
		out[a.i] = a.name
		same = append(same, Same{Index: a.i, As: a.name, Dir: a.dir})
	}
	return same
}

// below reports whether p (absolute, clean) lies below the folder dir.
func below(dir, p string) bool {
	if dir == string(filepath.Separator) {
		return len(p) > 1 && p[0] == filepath.Separator
	}
	return len(p) > len(dir) && p[len(dir)] == filepath.Separator && strings.HasPrefix(p, dir)
}

// resolve returns the real path of abs (absolute, clean) and whether it is
// a folder; ok is false when it cannot be resolved. The real paths of the
// folders holding the arguments are kept in dirs: a --files-from list of
// many files costs one lstat per file.
func resolve(abs string, dirs map[string]string) (real string, dir, ok bool) {
	li, err := os.Lstat(abs)
	if err != nil {
		return "", false, false
	}
	if li.Mode()&fs.ModeSymlink != 0 {
		if real, err = filepath.EvalSymlinks(abs); err != nil {
			return "", false, false
		}
		info, err := os.Stat(real)
		if err != nil {
			return "", false, false
		}
		return real, info.IsDir(), true
	}
	parent := filepath.Dir(abs)
	if parent == abs { // the root folder
		return abs, true, true
	}
	rp, seen := dirs[parent]
	if !seen {
		if rp, err = filepath.EvalSymlinks(parent); err != nil {
			return "", false, false
		}
		dirs[parent] = rp
	}
	return filepath.Join(rp, filepath.Base(abs)), li.IsDir(), true
}
