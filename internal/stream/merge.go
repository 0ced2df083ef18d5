package stream

import (
	"container/heap"
	"fmt"
	"io"
)

// Merge writes the files of the inputs, each in path order, to w in path
// order: the k-way merge that puts shards back together, byte for byte as
// the unsharded run writes them. A path found in two inputs is an error
// (shards partition the files). Memory: one file's records per input.
func Merge(inputs []*Reader, w io.Writer) error {
	h := &fileHeap{}
	for _, r := range inputs {
		if err := h.pushNext(r); err != nil {
			return err
		}
	}
	var buf []byte
	for h.Len() > 0 {
		top := (*h)[0]
		f := top.file
		buf = buf[:0]
		for _, line := range f.Lines {
			buf = append(append(buf, line...), '\n')
		}
		if _, err := w.Write(buf); err != nil {
			return err
		}
		heap.Pop(h)
		if err := h.pushNext(top.r); err != nil {
			return err
		}
		if h.Len() > 0 && (*h)[0].file.Path == f.Path {
			return fmt.Errorf("%q is in both %s and %s: merge takes outputs that share no file (the shards of one run)", f.Path, top.r.Name(), (*h)[0].r.Name())
		}
	}
	return nil
}

// head is an input's next file.
type head struct {
	file *File
	r    *Reader
}

// fileHeap orders inputs by their next file's path.
type fileHeap []head

func (h fileHeap) Len() int           { return len(h) }
func (h fileHeap) Less(i, j int) bool { return h[i].file.Path < h[j].file.Path }
func (h fileHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *fileHeap) Push(x any)        { *h = append(*h, x.(head)) }
func (h *fileHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// pushNext reads r's next file onto the heap, if it has one.
func (h *fileHeap) pushNext(r *Reader) error {
	f, err := next(r)
	if err != nil || f == nil {
		return err
	}
	heap.Push(h, head{f, r})
	return nil
}
