// Findings: what castfuzz keeps of a campaign, in -out and in memory.
//
// The layout of the findings folder:
//
//	stops/bNNNNN_LANG/        a whole batch whose run stopped, hung or blew up:
//	                          in/ (the inputs), out.jsonl, M.json, stderr.txt,
//	                          command.txt, why.txt, inputs.txt
//	anomalies/bNNNNN_LANG/    the same, for a run whose exit status, manifest
//	                          and records disagree
//	fallbacks/LANG/bNNNNN_input_NNN.EXT      one input a grammar failed on
//	fallbacks/LANG/bNNNNN_input_NNN.EXT.txt  castchunk's message, the reason
//	                                         class, how the input was made
//	slow/LANG/bNNNNN_input_NNN.EXT(.txt)     an input that took slowInput or more
//	                                         of CPU time alone, and that time
//	report.txt                the report castfuzz printed last
package main

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// maxSaved bounds the fallback inputs saved per language and reason
// class; the rest are counted only.
const maxSaved = 200

// langStats is what one language's batches did.
type langStats struct {
	batches   int
	inputs    int
	reached   int            // inputs the manifest says were chunked (the rest were skipped before any grammar)
	skipped   map[string]int // inputs left out, by manifest status (binary, encoding, …)
	fallbacks map[string]int // fallbacks by reason class
}

// savedFallback is one fallback input kept in the findings folder.
type savedFallback struct {
	lang, class, message, path, how string
	size, batch                     int
}

// batchFinding is a batch kept whole: a stop or an anomaly.
type batchFinding struct {
	batch   int
	lang    string
	dir     string
	reasons []string
}

// findings is everything a campaign found.
type findings struct {
	out       string
	seed      int64
	langs     map[string]*langStats
	order     []string // language names, in round-robin order
	fallbacks []savedFallback
	unsaved   int            // fallbacks counted but not saved (over maxSaved)
	saved     map[string]int // saved fallbacks by language and class
	stops     []batchFinding
	anomalies []batchFinding
	slow      []slowFound
	batches   int
}

func newFindings(out string, seed int64, names []string) *findings {
	f := &findings{out: out, seed: seed, langs: map[string]*langStats{}, order: names, saved: map[string]int{}}
	for _, n := range names {
		f.langs[n] = &langStats{skipped: map[string]int{}, fallbacks: map[string]int{}}
	}
	return f
}

// add records batch number batch of language name: its inputs, run and
// verdict; it saves what is worth keeping from dir.
func (f *findings) add(batch int, name, dir string, inputs []input, o *outcome, v *verdict) error {
	f.batches++
	ls := f.langs[name]
	ls.batches++
	ls.inputs += len(inputs)
	for _, in := range inputs {
		if v.reached[in.name] {
			ls.reached++
		} else if m, ok := o.manifest[in.name]; ok {
			ls.skipped[m.Status]++
		} else {
			ls.skipped["not in the manifest"]++
		}
	}
	for _, fb := range v.fallbacks {
		ls.fallbacks[fb.class]++
		if err := f.saveFallback(batch, name, fb); err != nil {
			return err
		}
	}
	if len(v.stops) > 0 {
		saved, err := f.saveBatch("stops", batch, name, dir, o, v.stops)
		if err != nil {
			return err
		}
		f.stops = append(f.stops, batchFinding{batch, name, saved, v.stops})
	}
	if len(v.anomalies) > 0 {
		saved, err := f.saveBatch("anomalies", batch, name, dir, o, v.anomalies)
		if err != nil {
			return err
		}
		f.anomalies = append(f.anomalies, batchFinding{batch, name, saved, v.anomalies})
	}
	return nil
}

// saveFallback keeps one fallback input and a note beside it.
func (f *findings) saveFallback(batch int, name string, fb fallback) error {
	key := name + "\x00" + fb.class
	if f.saved[key] >= maxSaved {
		f.unsaved++
		return nil
	}
	f.saved[key]++
	dir := filepath.Join(f.out, "fallbacks", name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	path := filepath.Join(dir, fmt.Sprintf("b%05d_%s", batch, fb.in.name))
	if err := os.WriteFile(path, fb.in.data, 0o644); err != nil {
		return err
	}
	note := fmt.Sprintf("language: %s\nreason: %s\nsize: %d bytes\ncastchunk: %s: %s\nmade by: %s\nbatch %d of the run with -seed %d\nagain: castchunk chunk -j 1 %s > /dev/null\n",
		name, fb.class, len(fb.in.data), fb.in.name, fb.message, fb.in.how, batch, f.seed, path)
	if err := os.WriteFile(path+".txt", []byte(note), 0o644); err != nil {
		return err
	}
	f.fallbacks = append(f.fallbacks, savedFallback{lang: name, class: fb.class, message: fb.message,
		path: path, how: fb.in.how, size: len(fb.in.data), batch: batch})
	return nil
}

// saveBatch copies a batch's folder under kind/ (stops or anomalies)
// with the command that ran and why it was kept; it returns the copy.
func (f *findings) saveBatch(kind string, batch int, name, dir string, o *outcome, reasons []string) (string, error) {
	to := filepath.Join(f.out, kind, fmt.Sprintf("b%05d_%s", batch, name))
	if err := copyDir(dir, to); err != nil {
		return "", err
	}
	cmd := fmt.Sprintf("cd %s/in && %s\n", to, strings.Join(o.args, " "))
	if err := os.WriteFile(filepath.Join(to, "command.txt"), []byte(cmd), 0o644); err != nil {
		return "", err
	}
	why := fmt.Sprintf("%s\n\nexit status %d%s, %v wall, %v CPU, peak RSS %d MiB\nbatch %d of the run with -seed %d\n",
		strings.Join(reasons, "\n"), o.exit, signalNote(o.signal), o.elapsed.Round(1e6), o.cpu.Round(1e6), o.maxRSS>>20, batch, f.seed)
	return to, os.WriteFile(filepath.Join(to, "why.txt"), []byte(why), 0o644)
}

func signalNote(sig string) string {
	if sig == "" {
		return ""
	}
	return " (" + sig + ")"
}

// copyDir copies the regular files and folders under from to to.
func copyDir(from, to string) error {
	return filepath.WalkDir(from, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(from, path)
		if err != nil {
			return err
		}
		target := filepath.Join(to, rel)
		switch {
		case d.IsDir():
			return os.MkdirAll(target, 0o755)
		case d.Type().IsRegular():
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			return os.WriteFile(target, b, 0o644)
		}
		return nil
	})
}

// writeInputs writes a batch's inputs into dir/in and what each is into
// dir/inputs.txt.
func writeInputs(dir string, inputs []input) error {
	if err := os.MkdirAll(filepath.Join(dir, "in"), 0o755); err != nil {
		return err
	}
	var list strings.Builder
	for _, in := range inputs {
		if err := os.WriteFile(filepath.Join(dir, "in", in.name), in.data, 0o644); err != nil {
			return err
		}
		fmt.Fprintf(&list, "%s\t%d bytes\t%s\n", in.name, len(in.data), in.how)
	}
	return os.WriteFile(filepath.Join(dir, "inputs.txt"), []byte(list.String()), 0o644)
}
