// Command castfuzz fuzzes every grammar through the real castchunk
// binary: its worker processes, their limits and the fallback to the
// sliding method, as a user's run meets them.
//
// Until -time is used up it takes the languages in turn (every language
// gets rounds), writes a batch of -batch generated inputs of that
// language into a fresh temporary folder, runs
//
//	BIN chunk -j 2 --no-ignore --include-generated --manifest M.json -o out.jsonl DIR
//
// on it and judges what happened: a run that was killed by castfuzz's
// wall timeout, died by a signal, exited with a status other than 0 or 4,
// lost an input (no records and no message) or peaked over 1 GiB of RSS
// is a stop, and the whole batch is kept under -out/stops/; an input that
// castchunk says it chunked with the sliding method (a grammar's worker
// process crashed, ran past its deadline or its memory, or the parse gave
// up) is a fallback, kept under -out/fallbacks/LANG/ with its reason. It
// goes on after every finding, prints a line per batch on stderr and a
// report at the end on stdout and into -out/report.txt.
//
// --include-generated is there so that an input that happens to look
// minified or generated still reaches its grammar.
//
// -replay N makes batch N of a run (the same -seed, -batch and seed
// files) again, runs it alone and keeps its folder under -out/replay/.
//
//	castfuzz [-bin bin/castchunk] [-time 30m] [-out fuzz-findings] [-seed N] [-batch 40] [-seeds testdata/corpus] [-replay N]
//
// -tokenizers fuzzes --tokenizer instead: each batch is one hostile
// tokenizer.json, source files made to hurt it and a few ordinary files,
// run with --tokenizer and --max-tokens (tokmode.go, tokgen.go); -hfref
// names the folder of the real tokenizer.json files it also mutates.
//
//	castfuzz -tokenizers [-bin bin/castchunk] [-time 30m] [-batch-timeout 10m] [-out fuzz-findings/tokenizers] [-seed N] [-hfref scripts/hfref] [-replay N]
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/castchunk/castchunk/internal/lang"
)

func main() {
	bin := flag.String("bin", "bin/castchunk", "the castchunk binary to fuzz")
	total := flag.Duration("time", 30*time.Minute, "how long to fuzz (no batch is started after it)")
	out := flag.String("out", "fuzz-findings", "folder for the findings and report.txt")
	seed := flag.Int64("seed", time.Now().UnixNano(), "seed of the inputs, printed to repeat a run (the default comes from the clock)")
	batchSize := flag.Int("batch", 40, "inputs per run of the binary")
	seeds := flag.String("seeds", "testdata/corpus", "folder of seed files, one folder per language name")
	batchTimeout := flag.Duration("batch-timeout", 5*time.Minute, "wall time a run may take before it is killed (and counted as a stop)")
	replay := flag.Int("replay", -1, "run only batch `N` of the run with -seed and -batch again, and keep its folder under -out/replay/")
	tokenizers := flag.Bool("tokenizers", false, "fuzz --tokenizer instead of the grammars: a hostile tokenizer.json a batch (tokmode.go)")
	hfref := flag.String("hfref", "scripts/hfref", "with -tokenizers: the folder where npm ci put the real tokenizer.json files to mutate (skipped if missing)")
	flag.Parse()
	if flag.NArg() > 0 || *batchSize < 1 || *total <= 0 || *batchTimeout <= 0 {
		flag.Usage()
		os.Exit(2)
	}
	if *tokenizers {
		if err := tokCampaign(*bin, *out, *seeds, *hfref, *seed, *total, *batchTimeout, *replay); err != nil {
			fmt.Fprintf(os.Stderr, "castfuzz: %v\n", err)
			os.Exit(1)
		}
		return
	}
	if err := campaign(*bin, *out, *seeds, *seed, *total, *batchTimeout, *batchSize, *replay); err != nil {
		fmt.Fprintf(os.Stderr, "castfuzz: %v\n", err)
		os.Exit(1)
	}
}

// target is one language as castfuzz fuzzes it.
type target struct {
	name string
	ext  string // its first extension: the inputs' suffix
	pool *pool
}

// campaign fuzzes for total, then reports; with replay >= 0 it runs batch
// number replay alone and keeps its folder.
func campaign(bin, out, seedDir string, seed int64, total, batchTimeout time.Duration, batchSize, replay int) error {
	abs, err := filepath.Abs(bin)
	if err != nil {
		return err
	}
	if st, err := os.Stat(abs); err != nil || !st.Mode().IsRegular() {
		return fmt.Errorf("-bin %s: not a file (make build)", bin)
	}
	var targets []target
	var names []string
	for _, l := range lang.All() {
		p, err := loadPool(l.Name, filepath.Join(seedDir, l.Name))
		if err != nil {
			return fmt.Errorf("seeds of %s: %v", l.Name, err)
		}
		targets = append(targets, target{name: l.Name, ext: l.Extensions[0], pool: p})
		names = append(names, l.Name)
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	command := strings.Join(os.Args, " ")
	fmt.Fprintf(os.Stderr, "castfuzz: seed %d (-seed %d repeats this run); %d languages, %d inputs a batch, for %v; findings in %s\n",
		seed, seed, len(targets), batchSize, total, out)

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	f := newFindings(out, seed, names)
	start := time.Now()
	interrupted := false
	first, more := 0, func(int) bool { return time.Since(start) < total }
	if replay >= 0 {
		first, more = replay, func(batch int) bool { return batch == replay }
	}
	for batch := first; more(batch); batch++ {
		t := targets[batch%len(targets)]
		g := newGen(seed, batch, t.pool, t.name)
		inputs := g.batch(batchSize, t.ext)
		dir, err := os.MkdirTemp("", "castfuzz-")
		if err != nil {
			return err
		}
		if err := writeInputs(dir, inputs); err != nil {
			os.RemoveAll(dir)
			return err
		}
		o := run(ctx, abs, dir, batchTimeout)
		if ctx.Err() != nil { // interrupted: this batch proves nothing
			os.RemoveAll(dir)
			interrupted = true
			break
		}
		v := judge(o, inputs)
		err = f.add(batch, t.name, dir, inputs, o, v)
		if replay >= 0 && err == nil {
			kept := filepath.Join(out, "replay", fmt.Sprintf("b%05d_%s", batch, t.name))
			err = copyDir(dir, kept)
			fmt.Fprintf(os.Stderr, "castfuzz: batch %d kept in %s\n", batch, kept)
		}
		os.RemoveAll(dir)
		if err != nil {
			return err
		}
		if o.cpu > slowBatch && len(v.stops) == 0 {
			slow, took := timeAlone(ctx, abs, inputs, v)
			for i, in := range slow {
				if err := f.saveSlow(batch, t.name, in, took[i]); err != nil {
					return err
				}
				fmt.Fprintf(os.Stderr, "castfuzz: batch %d %s: %s took %.1fs of CPU time alone (%d bytes)\n", batch, t.name, in.name, took[i].Seconds(), len(in.data))
			}
		}
		progress(f, batch, t.name, inputs, o, v, total-time.Since(start))
	}
	text, err := f.report(command, time.Since(start), batchSize, interrupted)
	fmt.Print(text)
	return err
}

// progress prints one line about a batch on stderr.
func progress(f *findings, batch int, name string, inputs []input, o *outcome, v *verdict, left time.Duration) {
	var what []string
	if n := len(v.fallbacks); n > 0 {
		classes := map[string]int{}
		for _, fb := range v.fallbacks {
			classes[fb.class]++
		}
		what = append(what, fmt.Sprintf("%d fallbacks (%s)", n, counts(classes)))
	}
	if len(v.stops) > 0 {
		what = append(what, "STOP: "+strings.Join(v.stops, "; "))
	}
	if len(v.anomalies) > 0 {
		what = append(what, "anomaly: "+strings.Join(v.anomalies, "; "))
	}
	if len(what) == 0 {
		what = append(what, "ok")
	}
	nfb := 0
	for _, fb := range f.langs {
		for _, n := range fb.fallbacks {
			nfb += n
		}
	}
	fmt.Fprintf(os.Stderr, "castfuzz: batch %d %s: %d inputs (%d reached), exit %d, %.1fs wall, %.1fs CPU, peak RSS %d MiB: %s; totals %d batches, %d fallbacks, %d stops, %d anomalies; %v left\n",
		batch, name, len(inputs), len(v.reached), o.exit, o.elapsed.Seconds(), o.cpu.Seconds(), o.maxRSS>>20,
		strings.Join(what, "; "), f.batches, nfb, len(f.stops), len(f.anomalies), max(0, left).Round(time.Second))
}
