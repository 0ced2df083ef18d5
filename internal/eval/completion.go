package eval

import (
	"context"
	"fmt"
	fate "github.com/castchunk/castchunk/internal/plan"
	"github.com/castchunk/castchunk/internal/regular"
	"slices"
	"strings"
	"sync"

	sitter "github.com/tree-sitter/go-tree-sitter"

	"github.com/castchunk/castchunk/internal/outline"
)

// functionKinds are the definitions a completion query may target.
var functionKinds = map[string]bool{"function": true, "method": true, "constructor": true}

// minBody is the fewest non-blank lines of a completion target's body.
const minBody = 3

// target is a function a completion query may ask for.
type target struct {
	entry                 int32 // in the base tree
	defLine               int   // the line the definition starts on
	cut                   int   // where that line starts: the index holds the file up to here
	qFirst, gFirst, gLast int   // the query's first line; the body's first and last lines
}

// read returns an entry's bytes.
func (pl *planner) read(e *entry) ([]byte, error) {
	var src []byte
	var err error
	if e.Blob != "" {
		src, err = pl.cat.read(e.Blob)
	} else {
		src, err = readListed(e)
	}
	if err != nil {
		return nil, err
	}
	if e.Cut >= 0 && e.Cut <= len(src) {
		src = src[:e.Cut]
	}
	return src, nil
}

// readListed reads an entry's file on disk if it is still the file listed
// (regular.OpenListed): never another file's bytes.
func readListed(e *entry) ([]byte, error) {
	f, info, err := regular.OpenListed(e.OSPath, e.ID, e.Link)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return regular.ReadAll(regular.Grow(nil, info.Size()), f, 0)
}

// completion adds the completion queries against the tree of the commit
// evaluated (or the folder): opt.Completion functions drawn at random from
// those with a body of minBody non-blank lines or more.
func (pl *planner) completion(ctx context.Context) error {
	c := &Counts{Asked: pl.opt.Completion}
	pl.p.counts[SourceCompletion] = c
	if pl.repo != nil {
		if err := pl.moveTo(ctx, pl.at, pl.p.commit); err != nil {
			return err
		}
		pl.at = pl.p.commit
	}
	paths := make([]string, 0, len(pl.state))
	for p := range pl.state {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	targets, err := pl.functions(ctx, paths, c)
	if err != nil {
		return err
	}
	r := newRNG(pl.opt.Seed, SourceCompletion)
	n := min(pl.opt.Completion, len(targets))
	for i := range n { // the first n of a Fisher-Yates shuffle
		j := i + r.intn(len(targets)-i)
		targets[i], targets[j] = targets[j], targets[i]
	}
	if left := len(targets) - n; left > 0 {
		c.Skipped = append(c.Skipped, Reason{Reason: fmt.Sprintf("not drawn (%d asked)", pl.opt.Completion), Count: left})
	}
	picked := targets[:n]
	slices.SortFunc(picked, func(a, b target) int {
		if a.entry != b.entry {
			return strings.Compare(pl.p.entries[a.entry].Path, pl.p.entries[b.entry].Path)
		}
		return a.defLine - b.defLine
	})
	c.Kept = n
	for _, t := range picked {
		base := pl.p.entries[t.entry]
		src, err := pl.read(base)
		if err != nil {
			return err
		}
		starts := lineStarts(nil, src)
		gold := src[starts[t.gFirst-1]:lineEnd(src, starts, t.gLast)]
		q := &query{
			Source:    SourceCompletion,
			ID:        fmt.Sprintf("%s:%d", base.Path, t.defLine),
			Text:      string(src[starts[t.qFirst-1]:starts[t.gFirst-1]]),
			GoldLines: nonTrivial(gold),
			GoldIDs:   identifiers(gold),
		}
		cut := *base
		cut.Cut, cut.Size = t.cut, int64(t.cut)
		pl.set(base.Path, pl.intern(&cut))
		pl.add(q)
		pl.set(base.Path, t.entry)
	}
	return nil
}

// lineEnd is the offset just past line l (1-based) of src.
func lineEnd(src []byte, starts []int, l int) int {
	if l < len(starts) {
		return starts[l]
	}
	return len(src)
}

// functions parses the files at paths of the current tree and returns the
// functions a completion query may target, in path and line order. It
// counts the definitions found in c, and why some cannot be targets.
func (pl *planner) functions(ctx context.Context, paths []string, c *Counts) ([]target, error) {
	per := make([][]target, len(paths))
	type tally struct{ defs, noBody, short int }
	tallies := make([]tally, len(paths))
	var next int
	var mu sync.Mutex
	var firstErr error
	done := 0
	var wg sync.WaitGroup
	lane := new(sync.RWMutex)
	for range max(1, min(pl.opt.Jobs, len(paths))) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			fw := functionWorker{lane: lane}
			defer fw.close()
			for {
				mu.Lock()
				i := next
				next++
				if firstErr == nil && ctx.Err() != nil {
					firstErr = ctx.Err()
				}
				stop := firstErr != nil
				mu.Unlock()
				if stop || i >= len(paths) {
					return
				}
				id := pl.state[paths[i]]
				ts, t, err := pl.fileTargets(ctx, id, &fw)
				mu.Lock()
				if err != nil && firstErr == nil {
					firstErr = err
				}
				per[i], tallies[i] = ts, tally{t[0], t[1], t[2]}
				done++
				if pl.opt.Progress != nil {
					pl.opt.Progress("finding functions", done, len(paths))
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
	}
	var all []target
	var noBody, short int
	for i := range per {
		all = append(all, per[i]...)
		c.Candidates += tallies[i].defs
		noBody += tallies[i].noBody
		short += tallies[i].short
	}
	if noBody > 0 {
		c.Skipped = append(c.Skipped, Reason{Reason: skipNoBody, Count: noBody})
	}
	if short > 0 {
		c.Skipped = append(c.Skipped, Reason{Reason: fmt.Sprintf(skipShort, minBody), Count: short})
	}
	return all, nil
}

// fileTargets finds the targets of one file; tally counts the functions,
// those without a body found and those with too short a body. A file
// whose grammar fails on it (its worker crashed or ran past a limit, the
// parse gave up) has no targets, as a file without functions.
func (pl *planner) fileTargets(ctx context.Context, id int32, fw *functionWorker) ([]target, [3]int, error) {
	var tally [3]int
	e := pl.p.entries[id]
	src, err := pl.read(e)
	if err != nil {
		return nil, tally, err
	}
	c := pl.content(e, src)
	if c.Fate != fate.Chunked || c.Lang == nil {
		return nil, tally, nil
	}
	defs, err := fw.functions(ctx, c.Lang, src)
	if err != nil {
		if ctx.Err() != nil {
			return nil, tally, ctx.Err()
		}
		return nil, tally, nil
	}
	starts := lineStarts(nil, src)
	var out []target
	for _, d := range defs {
		tally[0]++
		if !d.HasBody {
			tally[1]++
			continue
		}
		t, ok := makeTarget(src, starts, d.Def, d.BodyStart, d.BodyEnd)
		if !ok {
			tally[2]++
			continue
		}
		t.entry = id
		out = append(out, t)
	}
	return out, tally, nil
}

// makeTarget lays out a completion query for a definition whose body spans
// bytes [bs, be): the gold is the body's lines, from the first line that
// holds nothing before the body (the line after the signature's "{" in
// braced languages, the body's own first line in Python) to the body's
// last line; the query is the maxQueryLine non-blank lines above the
// gold, and the whole signature when it is longer.
func makeTarget(src []byte, starts []int, d outline.Def, bs, be int) (target, bool) {
	if be <= bs {
		return target{}, false
	}
	t := target{defLine: d.Line}
	l := lineAt(starts, bs)
	t.gFirst = l
	if strings.TrimSpace(string(src[starts[l-1]:bs])) != "" {
		t.gFirst = l + 1
	}
	t.gLast = lineAt(starts, be-1)
	if t.gFirst > t.gLast || t.gFirst <= d.Line {
		return target{}, false
	}
	gold := src[starts[t.gFirst-1]:lineEnd(src, starts, t.gLast)]
	if countNonBlank(gold) < minBody || len(nonTrivial(gold)) == 0 {
		return target{}, false
	}
	t.cut = starts[d.Line-1]
	t.qFirst = t.gFirst
	for n := 0; t.qFirst > 1 && n < maxQueryLine; {
		t.qFirst--
		if countNonBlank(src[starts[t.qFirst-1]:lineEnd(src, starts, t.qFirst)]) > 0 {
			n++
		}
	}
	t.qFirst = min(t.qFirst, d.Line)
	return t, true
}

// body finds the body of a definition in its syntax tree, without knowing
// the language: the node the grammar calls the definition's "body" (a
// field name every grammar castchunk has uses for function bodies), looked
// for in the definition's node and its descendants two levels down;
// failing that, the definition's last named child that spans more than one
// line.
func body(tree *sitter.Tree, d outline.Def) (start, end int, ok bool) {
	n := tree.RootNode().DescendantForByteRange(uint(d.Start), uint(d.End))
	if n == nil {
		return 0, 0, false
	}
	for p := n.Parent(); p != nil && p.StartByte() == n.StartByte() && p.EndByte() == n.EndByte(); p = p.Parent() {
		n = p
	}
	level := []*sitter.Node{n}
	for depth := 0; depth < 3 && len(level) > 0; depth++ {
		var below []*sitter.Node
		for _, m := range level {
			if b := m.ChildByFieldName("body"); b != nil && b.EndPosition().Row > b.StartPosition().Row {
				return int(b.StartByte()), int(b.EndByte()), true
			}
			for i := range m.NamedChildCount() {
				below = append(below, m.NamedChild(i))
			}
		}
		level = below
	}
	for i := n.NamedChildCount(); i > 0; i-- {
		if b := n.NamedChild(i - 1); b.EndPosition().Row > b.StartPosition().Row {
			return int(b.StartByte()), int(b.EndByte()), true
		}
	}
	return 0, 0, false
}
