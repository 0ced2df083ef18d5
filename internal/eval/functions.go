package eval

import (
	"context"
	"errors"
	"sync"

	"github.com/castchunk/castchunk/internal/lang"
	"github.com/castchunk/castchunk/internal/outline"
	"github.com/castchunk/castchunk/internal/parse"
	"github.com/castchunk/castchunk/internal/supervise"
)

// The functions a completion query may target are found by parsing each
// file: grammar code, which runs in a worker process (package supervise)
// as chunking does, so that a grammar's crash or endless parse costs that
// file its targets and never the run.

// functionsService names the service of the worker processes that find
// functions.
const functionsService = "functions"

// Services is this package's service of worker processes, for
// supervise.ServeIfWorker (with package pipeline's).
func Services() map[string]supervise.Service {
	return map[string]supervise.Service{functionsService: serveFunctions}
}

// functionsRequest is one file whose functions are wanted.
type functionsRequest struct {
	Lang string
	Src  []byte
}

// function is a definition of a function kind and its body's bytes.
type function struct {
	Def                outline.Def
	BodyStart, BodyEnd int
	HasBody            bool
}

// functionsReply is a file's functions; Failed when it could not be parsed.
type functionsReply struct {
	Functions []function
	Failed    bool
}

// serveFunctions is the worker's side: it parses each file and finds its
// functions and their bodies.
func serveFunctions(c *supervise.Conn) error {
	var none struct{}
	if err := c.Init(&none); err != nil {
		return err
	}
	if err := c.Settled(); err != nil {
		return err
	}
	parser := parse.New(0)
	defer parser.Close()
	finder := outline.NewFinder()
	finder.OneOff = c.Exempt
	defer finder.Close()
	for {
		var req functionsRequest
		if err := c.Next(&req); err != nil {
			return err
		}
		if err := c.Reply(findFunctions(parser, finder, lang.ByName(req.Lang), req.Src)); err != nil {
			return err
		}
	}
}

func findFunctions(parser *parse.Parser, finder *outline.Finder, l *lang.Language, src []byte) *functionsReply {
	if l == nil {
		return &functionsReply{Failed: true}
	}
	tree, err := parser.Parse(src, l)
	if err != nil {
		return &functionsReply{Failed: true}
	}
	defer tree.Close()
	defs, err := finder.Find(l, src, tree)
	if err != nil {
		return &functionsReply{Failed: true}
	}
	rep := &functionsReply{}
	for _, d := range defs {
		if !functionKinds[d.Kind] {
			continue
		}
		bs, be, ok := body(tree, d)
		rep.Functions = append(rep.Functions, function{Def: d, BodyStart: bs, BodyEnd: be, HasBody: ok})
	}
	return rep
}

// functionWorker is one goroutine's worker process, started when first
// needed and again after one is lost.
type functionWorker struct {
	w    *supervise.Worker
	lane *sync.RWMutex // files from supervise.ExclusiveSize on run alone
}

// errNoFunctions says a file's functions could not be found.
var errNoFunctions = errors.New("the file could not be parsed")

// functions returns the functions of src in l, under the deadline and the
// memory ceiling a chunking worker has for a file of its size.
func (fw *functionWorker) functions(ctx context.Context, l *lang.Language, src []byte) ([]function, error) {
	if fw.w == nil || fw.w.Retired() {
		w, err := supervise.Start(ctx, functionsService, struct{}{})
		if err != nil {
			return nil, err
		}
		fw.w = w
	}
	if len(src) >= supervise.ExclusiveSize {
		fw.lane.Lock()
		defer fw.lane.Unlock()
	} else {
		fw.lane.RLock()
		defer fw.lane.RUnlock()
	}
	var rep functionsReply
	if err := fw.w.Call(ctx, supervise.ForFile(len(src)), &functionsRequest{Lang: l.Name, Src: src}, &rep); err != nil {
		return nil, err
	}
	if rep.Failed {
		return nil, errNoFunctions
	}
	return rep.Functions, nil
}

func (fw *functionWorker) close() {
	if fw.w != nil {
		fw.w.Close()
	}
}
