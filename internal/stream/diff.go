package stream

import (
	"io"
)

// DiffStats counts what Diff found.
type DiffStats struct {
	Added, Deleted, Relabelled, Unchanged             int // chunks
	FilesAdded, FilesDeleted, FilesChanged, FilesSame int
}

// Old is the number of old's chunks: each was deleted, kept or relabelled.
func (st DiffStats) Old() int { return st.Deleted + st.Unchanged + st.Relabelled }

// New is the number of new's chunks: each was added, kept or relabelled.
func (st DiffStats) New() int { return st.Added + st.Unchanged + st.Relabelled }

// Change is one line of a diff: a chunk added (its record as read) or
// deleted (its id and path).
type Change struct {
	Add    bool
	Repo   string // "" when the records have no repo
	Path   string
	ID     string
	Record []byte // for an addition: the record's line
	// Reason, for an addition of an id that old has too, is why it is
	// added: Relabelled ("" for a new id).
	Reason string
}

// Relabelled is the Reason of a chunk whose id both outputs have, and
// whose language, host_language or languages changed (a newer castchunk
// found an embedded region, or wrote languages where an older one did
// not): its embedded text is the same, but an index keyed by id would
// keep the old labels, so Diff adds it again.
const Relabelled = "language"

// Diff compares two outputs, old and new, chunk by chunk: a chunk is the
// same when its id is (the id sums up the path and the content) and so
// are its language, host_language and languages. It calls emit for each
// chunk of new that old lacks, or whose id old has with another language,
// host_language or languages (Change.Reason Relabelled), and each chunk
// of old that new lacks, file by file in path order (by repository first); in a file, deletions first (in old's
// order), then additions (in new's). It stops at the first error, of
// either input or of emit.
func Diff(old, new *Reader, emit func(Change) error) (DiffStats, error) {
	return DiffFiles(old, new, emit, nil)
}

// FileChange is one file as Diff met it: in OLD, in NEW or both, with the
// methods of its records (OLD's first record's; "" when it has none).
type FileChange struct {
	Repo      string // "" when the records have no repo
	Path      string
	Old, New  int    // its records in each
	OldMethod string // the method of its first record in OLD
}

// DiffFiles is Diff that also tells file, when not nil, of every file met,
// in path order, before its changes are emitted: what the mass-delete
// guard weighs (package output).
func DiffFiles(old, new *Reader, emit func(Change) error, file func(FileChange)) (DiffStats, error) {
	tell := func(o, n *File) {
		if file == nil {
			return
		}
		var fc FileChange
		if o != nil {
			fc.Repo, fc.Path, fc.Old = o.Repo, o.Path, len(o.IDs)
			if len(o.meta) > 0 {
				fc.OldMethod = o.meta[0].method
			}
		}
		if n != nil {
			fc.Repo, fc.Path, fc.New = n.Repo, n.Path, len(n.IDs)
		}
		file(fc)
	}
	var st DiffStats
	o, err := next(old)
	if err != nil {
		return st, err
	}
	n, err := next(new)
	if err != nil {
		return st, err
	}
	for o != nil || n != nil {
		switch {
		case n == nil || o != nil && o.key < n.key:
			st.FilesDeleted++
			tell(o, nil)
			if err := deleteAll(o, nil, emit, &st); err != nil {
				return st, err
			}
			if o, err = next(old); err != nil {
				return st, err
			}
		case o == nil || n.key < o.key:
			st.FilesAdded++
			tell(nil, n)
			if err := addAll(n, nil, emit, &st); err != nil {
				return st, err
			}
			if n, err = next(new); err != nil {
				return st, err
			}
		default:
			tell(o, n)
			if err := diffFile(o, n, emit, &st); err != nil {
				return st, err
			}
			if o, err = next(old); err != nil {
				return st, err
			}
			if n, err = next(new); err != nil {
				return st, err
			}
		}
	}
	return st, nil
}

// next is r.Next with io.EOF as a nil file.
func next(r *Reader) (*File, error) {
	f, err := r.Next()
	if err == io.EOF {
		return nil, nil
	}
	return f, err
}

// diffFile compares the two versions of one file.
func diffFile(o, n *File, emit func(Change) error, st *DiffStats) error {
	inOld := make(map[string]string, len(o.IDs)) // id -> label
	for i, id := range o.IDs {
		inOld[id] = o.meta[i].label
	}
	inNew := make(map[string]bool, len(n.IDs))
	for _, id := range n.IDs {
		inNew[id] = true
	}
	before := st.Added + st.Deleted + st.Relabelled
	if err := deleteAll(o, inNew, emit, st); err != nil {
		return err
	}
	if err := addAll(n, inOld, emit, st); err != nil {
		return err
	}
	if st.Added+st.Deleted+st.Relabelled == before {
		st.FilesSame++
	} else {
		st.FilesChanged++
	}
	return nil
}

// deleteAll emits a deletion for each chunk of f whose id is not in keep.
func deleteAll(f *File, keep map[string]bool, emit func(Change) error, st *DiffStats) error {
	for _, id := range f.IDs {
		if keep[id] {
			continue
		}
		st.Deleted++
		if err := emit(Change{Repo: f.Repo, Path: f.Path, ID: id}); err != nil {
			return err
		}
	}
	return nil
}

// addAll emits an addition for each chunk of f whose id is not in old
// (which maps ids to labels), or is with another label (Relabelled), and
// counts the others as unchanged.
func addAll(f *File, old map[string]string, emit func(Change) error, st *DiffStats) error {
	for i, id := range f.IDs {
		c := Change{Add: true, Repo: f.Repo, Path: f.Path, ID: id, Record: f.Lines[i]}
		switch label, ok := old[id]; {
		case !ok:
			st.Added++
		case label == f.meta[i].label:
			st.Unchanged++
			continue
		default:
			st.Relabelled++
			c.Reason = Relabelled
		}
		if err := emit(c); err != nil {
			return err
		}
	}
	return nil
}
