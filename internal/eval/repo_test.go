package eval

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	fate "github.com/castchunk/castchunk/internal/plan"
)

// gitEnv makes git in the tests independent of the machine's
// configuration, with fixed authors and dates.
func gitEnv(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	for k, v := range map[string]string{
		"GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.DevNull, "HOME": t.TempDir(),
		"GIT_AUTHOR_NAME": "Test", "GIT_AUTHOR_EMAIL": "test@example.com",
		"GIT_COMMITTER_NAME": "Test", "GIT_COMMITTER_EMAIL": "test@example.com",
		"GIT_AUTHOR_DATE": "2024-01-01T00:00:00Z", "GIT_COMMITTER_DATE": "2024-01-01T00:00:00Z",
	} {
		t.Setenv(k, v)
	}
}

func run(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

func write(t *testing.T, dir, name, text string) {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

const invoiceGo = `package shop

// computeInvoiceTotal adds up the lines of an invoice.
func computeInvoiceTotal(lines []Line) int {
	sum := 0
	for _, l := range lines {
		sum += l.Quantity * l.UnitCents
	}
	return sum
}

// formatCurrency writes cents as dollars.
func formatCurrency(cents int) string {
	dollars := cents / 100
	rest := cents % 100
	return fmt.Sprintf("$%d.%02d", dollars, rest)
}

// applyCoupon takes a coupon's percentage off.
func applyCoupon(cents, percent int) int {
	if percent <= 0 || percent > 100 {
		return cents
	}
	return cents - cents*percent/100
}
`

const ordersGo = `package shop

// lookupWarehouseStock says how many items a warehouse holds.
func lookupWarehouseStock(sku string, stock map[string]int) int {
	n, ok := stock[sku]
	if !ok {
		return 0
	}
	return n
}

// reserveItems takes items out of the stock for an order.
func reserveItems(sku string, count int, stock map[string]int) bool {
	if stock[sku] < count {
		return false
	}
	stock[sku] -= count
	return true
}
`

// shopRepo builds a small repository whose history is known:
//
//  1. the root commit (skipped: no parent)
//  2. a fix in computeInvoiceTotal, whose message names it
//  3. a change to lookupWarehouseStock, whose message names it
//  4. "wip" (skipped: under 3 words)
//  5. a new file only (skipped: no line of the parent)
func shopRepo(t *testing.T) string {
	gitEnv(t)
	dir := t.TempDir()
	run(t, dir, "git", "init", "-q", "-b", "main")
	write(t, dir, "shop/invoice.go", invoiceGo)
	write(t, dir, "shop/orders.go", ordersGo)
	write(t, dir, "vendor/lib/lib.go", "package lib\n\nfunc computeInvoiceTotal() {}\n")
	run(t, dir, "git", "add", "-A")
	run(t, dir, "git", "commit", "-q", "-m", "initial import of the shop package")
	write(t, dir, "shop/invoice.go", strings.Replace(invoiceGo, "sum += l.Quantity * l.UnitCents", "sum += l.Quantity*l.UnitCents + l.TaxCents", 1))
	run(t, dir, "git", "commit", "-q", "-am", "Fix rounding in computeInvoiceTotal: add the tax of each line")
	write(t, dir, "shop/orders.go", strings.Replace(ordersGo, "return 0\n", "return -1\n", 1))
	run(t, dir, "git", "commit", "-q", "-am", "lookupWarehouseStock returns -1 for an unknown sku")
	write(t, dir, "shop/orders.go", strings.Replace(ordersGo, "return 0\n", "return -2\n", 1))
	run(t, dir, "git", "commit", "-q", "-am", "wip")
	write(t, dir, "shop/shipping.go", "package shop\n\nfunc printLabel() {}\n")
	run(t, dir, "git", "add", "-A")
	run(t, dir, "git", "commit", "-q", "-m", "add a shipping module that prints labels")
	return dir
}

func testOptions(dir string) Options {
	return Options{
		Path: dir, Rev: "HEAD", FromGit: 10, Budget: 400, Seed: 1, Resamples: 200,
		MinWords: 3, MaxFiles: 10, Select: fate.Policy{MaxFileSize: 10 << 20}, Jobs: 2,
		Configs: []Config{
			{Method: "cast", MaxSize: 200}, {Method: "cast", MaxSize: 200, Context: true},
			{Method: "sliding", MaxSize: 200}, {Method: "sliding", MaxSize: 200, Context: true},
		},
		Baseline: Baseline{Method: "sliding"},
	}
}

// plan builds the plan of opt, as Run does.
func testPlan(t *testing.T, opt *Options) *planner {
	t.Helper()
	ctx := context.Background()
	repo, err := openRepo(ctx, opt.Path)
	if err != nil || repo == nil {
		t.Fatalf("openRepo: %v, %v", repo, err)
	}
	commit, err := repo.resolve(ctx, opt.Rev)
	if err != nil {
		t.Fatal(err)
	}
	cat, err := repo.catFile(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cat.close)
	pl := newPlanner(opt, repo, cat, commit)
	if opt.FromGit > 0 {
		if err := pl.history(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if opt.Completion > 0 {
		if err := pl.completion(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if err := pl.finish(ctx); err != nil {
		t.Fatal(err)
	}
	return pl
}

// TestNamedFunctionRanksFirst: a commit whose message names a function that
// one chunk alone contains ranks that chunk first, with every method and
// with or without the header; the gold (the changed line) is then in the
// context.
func TestNamedFunctionRanksFirst(t *testing.T) {
	dir := shopRepo(t)
	opt := testOptions(dir)
	pl := testPlan(t, &opt)
	c := pl.p.counts[SourceGit]
	if c.Candidates != 5 || c.Kept != 2 {
		t.Errorf("git queries: %+v; want 5 candidates, 2 kept", c)
	}
	for _, reason := range []string{skipRoot, "message under 3 words", skipNoGold} {
		found := false
		for _, s := range c.Skipped {
			found = found || s.Reason == reason && s.Count == 1
		}
		if !found {
			t.Errorf("skipped %+v: want one %q", c.Skipped, reason)
		}
	}
	if len(pl.p.queries) != 2 {
		t.Fatalf("%d queries, want 2", len(pl.p.queries))
	}
	// Oldest first: the invoice fix, whose gold is line 7 of the parent.
	q := pl.p.queries[0]
	if !strings.HasPrefix(q.Text, "Fix rounding in computeInvoiceTotal") || len(q.Gold) != 1 ||
		q.Gold[0].Path != "shop/invoice.go" || len(q.Gold[0].Lines) != 1 || q.Gold[0].Lines[0] != 7 {
		t.Fatalf("first query %q, gold %+v", q.Text, q.Gold)
	}
	for _, cfg := range opt.Configs {
		res := make([]*scores, 1)
		if err := evaluate(context.Background(), pl, []Config{cfg}, []int{0}, res); err != nil {
			t.Fatal(err)
		}
		s := res[0]
		// The named function is lines 4-10 of its file. Its name is in one
		// chunk's content; with context on, the chunks that start inside
		// it also name it in their header's scope, so the best may be one
		// of them.
		for i, fn := range []lineSpan{{"shop/invoice.go", 4, 10}, {"shop/orders.go", 4, 10}} {
			top := s.top[i]
			ok := top.Path == fn.Path && top.First <= fn.First && fn.First <= top.Last // holds the name
			if cfg.Method == "cast" {
				ok = ok && top.Last >= fn.Last // the whole function: it fits
			}
			if cfg.Context && !ok {
				ok = top.Path == fn.Path && fn.First <= top.First && top.First <= fn.Last // starts inside
			}
			if !ok {
				t.Errorf("%s, query %d: the best chunk is %+v; want the one that names %+v", cfg, i, top, fn)
			}
			if s.values[i] != [2]float64{1, 1} {
				t.Errorf("%s, query %d: LineRecall, FileHit = %v, want 1, 1", cfg, i, s.values[i])
			}
		}
		if s.live[0] == 0 || s.skipped["failed"] != 0 {
			t.Errorf("%s: live %v, skipped %v", cfg, s.live, s.skipped)
		}
	}
}

// TestCompletionTargets: the query is the lines above the body, the gold
// is the body, and the function's file is indexed only up to the function.
func TestCompletionTargets(t *testing.T) {
	dir := shopRepo(t)
	opt := testOptions(dir)
	opt.FromGit, opt.Completion = 0, 100
	pl := testPlan(t, &opt)
	c := pl.p.counts[SourceCompletion]
	// Five functions: formatCurrency, applyCoupon, computeInvoiceTotal,
	// lookupWarehouseStock, reserveItems (vendored and new files aside:
	// printLabel is a one-liner).
	if c.Candidates != 6 || c.Kept != 5 {
		t.Fatalf("completion queries: %+v; want 6 candidates, 5 kept", c)
	}
	var q *query
	for _, x := range pl.p.queries {
		if x.ID == "shop/invoice.go:13" {
			q = x
		}
	}
	if q == nil {
		t.Fatalf("no query for formatCurrency (shop/invoice.go:13)")
	}
	head := strings.Replace(invoiceGo, "sum += l.Quantity * l.UnitCents", "sum += l.Quantity*l.UnitCents + l.TaxCents", 1)
	lines := strings.Split(head, "\n")
	if want := strings.Join(lines[:13], "\n") + "\n"; q.Text != want {
		t.Errorf("query text %q, want %q", q.Text, want)
	}
	wantGold := []string{"dollars := cents / 100", "rest := cents % 100", `return fmt.Sprintf("$%d.%02d", dollars, rest)`}
	if strings.Join(q.GoldLines, "|") != strings.Join(wantGold, "|") {
		t.Errorf("gold lines %q, want %q", q.GoldLines, wantGold)
	}
	cut := int64(strings.Index(head, "func formatCurrency"))
	var cutEntry *entry
	for _, id := range q.On {
		if e := pl.p.entries[id]; e.Path == "shop/invoice.go" {
			cutEntry = e
		}
	}
	if cutEntry == nil || int64(cutEntry.Cut) != cut || cutEntry.Size != cut {
		t.Fatalf("the function's file is %+v, want it cut at byte %d", cutEntry, cut)
	}
	src, err := pl.read(cutEntry)
	if err != nil || string(src) != head[:cut] {
		t.Errorf("the cut file reads %q, %v", src, err)
	}
}

// TestDeterministic: the same repository, commit and seed give the same
// bytes, whatever --jobs is.
func TestDeterministic(t *testing.T) {
	dir := shopRepo(t)
	var outs [][]byte
	for _, jobs := range []int{1, 2, 2} {
		opt := testOptions(dir)
		opt.Completion, opt.Jobs = 3, jobs
		rep, err := Run(context.Background(), opt)
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := rep.WriteJSON(&b); err != nil {
			t.Fatal(err)
		}
		outs = append(outs, b.Bytes())
	}
	for i := 1; i < len(outs); i++ {
		if !bytes.Equal(outs[0], outs[i]) {
			t.Fatalf("run %d differs from run 0:\n%s\n---\n%s", i, outs[0], outs[i])
		}
	}
	if !bytes.Contains(outs[0], []byte(`"name": "completion"`)) || !bytes.Contains(outs[0], []byte(`"kept": 2`)) {
		t.Errorf("report:\n%s", outs[0])
	}
}

// TestFolder: a plain folder has no history, but completion queries.
func TestFolder(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "shop/invoice.go", invoiceGo)
	write(t, dir, "shop/orders.go", ordersGo)
	opt := testOptions(dir)
	if _, err := Run(context.Background(), opt); err == nil || !strings.Contains(err.Error(), "not in a git repository") {
		t.Errorf("--from-git in a folder: %v", err)
	}
	opt.FromGit, opt.Completion = 0, 2
	rep, err := Run(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Sources) != 1 || rep.Sources[0].Queries.Kept != 2 || rep.Commit != "" {
		t.Errorf("report: %+v", rep)
	}
}
