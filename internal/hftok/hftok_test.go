package hftok

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// fakeModel makes each piece one token; its vocabulary only answers
// tokenID. The pipeline tests read the pieces, not the model.
type fakeModel struct{ vocab map[string]int32 }

func (fakeModel) tokenize(dst []token, piece []byte) []token {
	return append(dst, token{id: 0, start: 0, end: int32(len(piece))})
}

func (m fakeModel) tokenID(s string) (int32, bool) {
	id, ok := m.vocab[s]
	return id, ok
}

func newFake(raw json.RawMessage) (model, error) {
	var m struct {
		Type  string
		Vocab map[string]int32
	}
	if err := json.Unmarshal(raw, &m); err != nil || m.Type != "Fake" {
		return nil, fmt.Errorf("model: not Fake")
	}
	return fakeModel{m.Vocab}, nil
}

// build writes a tokenizer.json from its parts (JSON text; "" leaves a
// part null) and parses it with the fake model.
func build(t *testing.T, normalizer, pre, post, added string) (*Tokenizer, error) {
	t.Helper()
	return parse([]byte(doc(normalizer, pre, post, added)), newFake)
}

func doc(normalizer, pre, post, added string) string {
	null := func(s string) string {
		if s == "" {
			return "null"
		}
		return s
	}
	if added == "" {
		added = "[]"
	}
	return fmt.Sprintf(`{"version":"1.0","truncation":null,"padding":null,"added_tokens":%s,
"normalizer":%s,"pre_tokenizer":%s,"post_processor":%s,"decoder":null,
"model":{"type":"Fake","vocab":{"[CLS]":1,"[SEP]":2,"<s>":3,"</s>":4}}}`, added, null(normalizer), null(pre), null(post))
}

func mustBuild(t *testing.T, normalizer, pre, post, added string) *Tokenizer {
	t.Helper()
	tk, err := build(t, normalizer, pre, post, added)
	if err != nil {
		t.Fatal(err)
	}
	return tk
}

// pieces is what the model gets, and "#id" for each added token.
func pieces(tk *Tokenizer, text string) []string {
	var out []string
	for _, p := range tk.NewCounter().split([]byte(text)) {
		if p.added {
			out = append(out, fmt.Sprintf("#%d", p.id))
		} else {
			out = append(out, string(p.text))
		}
	}
	return out
}

func checkPieces(t *testing.T, tk *Tokenizer, text string, want ...string) {
	t.Helper()
	if diff := cmp.Diff(want, pieces(tk, text)); diff != "" {
		t.Errorf("pieces of %q (-want +got):\n%s", text, diff)
	}
}

func TestNormalizers(t *testing.T) {
	cases := []struct{ name, norm, in, want string }{
		{"bert", `{"type":"BertNormalizer","clean_text":true,"handle_chinese_chars":true,"strip_accents":null,"lowercase":true}`,
			"Héllo\x01\u200b 世界\tA\v", "hello  世  界  a"},
		{"bert no lowercase keeps accents", `{"type":"BertNormalizer","clean_text":false,"handle_chinese_chars":false,"strip_accents":null,"lowercase":false}`,
			"Héllo", "Héllo"},
		{"bert strip without lowercase", `{"type":"BertNormalizer","clean_text":false,"handle_chinese_chars":false,"strip_accents":true,"lowercase":false}`,
			"Héllo", "Hello"},
		{"NFC", `{"type":"NFC"}`, "e\u0301", "é"},
		{"NFD", `{"type":"NFD"}`, "é", "e\u0301"},
		{"NFKC", `{"type":"NFKC"}`, "ﬁ①", "fi1"},
		{"NFKD", `{"type":"NFKD"}`, "ﬁé", "fie\u0301"},
		{"lowercase", `{"type":"Lowercase"}`, "ÀΣİ", "àσi\u0307"},
		{"strip accents", `{"type":"StripAccents"}`, "e\u0301é", "eé"},
		{"replace string", `{"type":"Replace","pattern":{"String":" "},"content":"▁"}`, "a b  c", "a▁b▁▁c"},
		{"replace regex", `{"type":"Replace","pattern":{"Regex":" {2,}"},"content":" "}`, "a    b  c d", "a b c d"},
		{"prepend", `{"type":"Prepend","prepend":"▁"}`, "ab", "▁ab"},
		{"strip", `{"type":"Strip","strip_left":true,"strip_right":false}`, " \tab ", "ab "},
		{"sequence", `{"type":"Sequence","normalizers":[{"type":"Lowercase"},{"type":"Prepend","prepend":"_"}]}`, "AB", "_ab"},
	}
	for _, c := range cases {
		tk := mustBuild(t, c.norm, "", "", "")
		checkPieces(t, tk, c.in, c.want)
	}
	// An empty text reaches neither Prepend nor the model.
	checkPieces(t, mustBuild(t, `{"type":"Prepend","prepend":"▁"}`, "", "", ""), "")
}

func TestByteLevel(t *testing.T) {
	tk := mustBuild(t, "", `{"type":"ByteLevel","add_prefix_space":true,"trim_offsets":true,"use_regex":true}`, "", "")
	checkPieces(t, tk, "Hello world's  x\n", "ĠHello", "Ġworld", "'s", "Ġ", "Ġx", "Ċ")
	checkPieces(t, tk, "é 12", "ĠÃ©", "Ġ12")
	tk = mustBuild(t, "", `{"type":"ByteLevel","add_prefix_space":false,"trim_offsets":true,"use_regex":false}`, "", "")
	checkPieces(t, tk, "a b\t", "aĠbĉ")
}

func TestSplitBehaviors(t *testing.T) {
	want := map[string][]string{
		"Removed":            {"a", "b", "c"},
		"Isolated":           {"a", "-", "b", "-", "-", "c"},
		"MergedWithPrevious": {"a-", "b-", "-", "c"},
		"MergedWithNext":     {"a", "-b", "-", "-c"},
		"Contiguous":         {"a", "-", "b", "--", "c"},
	}
	inverted := map[string][]string{
		"Removed":            {"-", "-", "-"},
		"Isolated":           {"a", "-", "b", "-", "-", "c"},
		"MergedWithPrevious": {"a", "-b", "-", "-c"},
		"MergedWithNext":     {"a-", "b-", "-", "c"},
		"Contiguous":         {"a", "-", "b", "--", "c"},
	}
	for b, w := range want {
		pre := fmt.Sprintf(`{"type":"Split","pattern":{"String":"-"},"behavior":%q,"invert":false}`, b)
		checkPieces(t, mustBuild(t, "", pre, "", ""), "a-b--c", w...)
		pre = fmt.Sprintf(`{"type":"Split","pattern":{"Regex":"-"},"behavior":%q,"invert":true}`, b)
		checkPieces(t, mustBuild(t, "", pre, "", ""), "a-b--c", inverted[b]...)
	}
}

func TestSplitRegexes(t *testing.T) {
	split := func(re string) *Tokenizer {
		q, _ := json.Marshal(re)
		return mustBuild(t, "", `{"type":"Split","pattern":{"Regex":`+string(q)+`},"behavior":"Isolated","invert":false}`, "", "")
	}
	in := "I'M 123 hello\n\n  world!!\n x"
	checkPieces(t, split(qwen2Regex), in, "I", "'M", " ", "1", "2", "3", " hello", "\n\n", " ", " world", "!!\n", " x")
	checkPieces(t, split(llama3Rgx), in, "I", "'M", " ", "123", " hello", "\n\n", " ", " world", "!!\n", " x")
	checkPieces(t, split(gpt2Regex), in, "I", "'", "M", " 123", " hello", "\n\n ", " world", "!!", "\n", " x")
	checkPieces(t, split(`\d+`), "ab12c٣", "ab", "12", "c", "٣")
	checkPieces(t, split(`\s+`), "a\u00a0b\u2028c", "a", "\u00a0", "b", "\u2028", "c")
	checkPieces(t, split(`^a|b$`), "ab\nab", "a", "b", "\n", "a", "b")
}

func TestMetaspace(t *testing.T) {
	pre := func(scheme string, split bool) string {
		return fmt.Sprintf(`{"type":"Metaspace","replacement":"▁","prepend_scheme":%q,"split":%v}`, scheme, split)
	}
	added := `[{"id":3,"content":"<s>","single_word":false,"lstrip":false,"rstrip":false,"normalized":false,"special":true}]`
	checkPieces(t, mustBuild(t, "", pre("always", true), "", ""), "Hello  world", "▁Hello", "▁", "▁world")
	checkPieces(t, mustBuild(t, "", pre("always", false), "", added), "a<s>b c", "▁a", "#3", "▁b▁c")
	checkPieces(t, mustBuild(t, "", pre("first", true), "", added), "a<s>b c", "▁a", "#3", "b", "▁c")
	checkPieces(t, mustBuild(t, "", pre("first", true), "", added), "<s>b", "#3", "b")
	checkPieces(t, mustBuild(t, "", pre("never", true), "", ""), "a b", "a", "▁b")
	legacy := `{"type":"Metaspace","replacement":"▁","add_prefix_space":true,"str_rep":"▁"}`
	checkPieces(t, mustBuild(t, "", legacy, "", ""), "a b", "▁a", "▁b")
}

func TestOtherPreTokenizers(t *testing.T) {
	cases := []struct{ pre, in string }{
		{`{"type":"BertPreTokenizer"}`, "Hello, world! $5"},
		{`{"type":"Whitespace"}`, "Hello, world!! x_y2 ²"},
		{`{"type":"WhitespaceSplit"}`, "a, b\tc"},
		{`{"type":"Punctuation","behavior":"Isolated"}`, "a.b"},
		{`{"type":"Digits","individual_digits":true}`, "a123b"},
		{`{"type":"Digits","individual_digits":false}`, "a123b"},
		{`{"type":"CharDelimiterSplit","delimiter":"x"}`, "axbxxc"},
		{`{"type":"Sequence","pretokenizers":[{"type":"WhitespaceSplit"},{"type":"Digits","individual_digits":true}]}`, "a1 22"},
	}
	want := [][]string{
		{"Hello", ",", "world", "!", "$", "5"},
		{"Hello", ",", "world", "!!", "x_y2", "²"},
		{"a,", "b", "c"},
		{"a", ".", "b"},
		{"a", "1", "2", "3", "b"},
		{"a", "123", "b"},
		{"a", "b", "c"},
		{"a", "1", "2", "2"},
	}
	for i, c := range cases {
		checkPieces(t, mustBuild(t, "", c.pre, "", ""), c.in, want[i]...)
	}
}

func TestAddedTokens(t *testing.T) {
	added := `[
 {"id":3,"content":"<s>","single_word":false,"lstrip":false,"rstrip":false,"normalized":false,"special":true},
 {"id":10,"content":"[MASK]","single_word":false,"lstrip":true,"rstrip":true,"normalized":false,"special":true},
 {"id":11,"content":"cat","single_word":true,"lstrip":false,"rstrip":false,"normalized":false,"special":false},
 {"id":12,"content":"HI","single_word":false,"lstrip":false,"rstrip":false,"normalized":true,"special":false},
 {"id":13,"content":"<a>","single_word":false,"lstrip":false,"rstrip":false,"normalized":false,"special":false},
 {"id":14,"content":"<a><b>","single_word":false,"lstrip":false,"rstrip":false,"normalized":false,"special":false},
 {"id":15,"content":"Sx","single_word":false,"lstrip":false,"rstrip":false,"normalized":false,"special":false}]`
	tk := mustBuild(t, `{"type":"Lowercase"}`, "", "", added)
	checkPieces(t, tk, "x<s>y", "x", "#3", "y")
	checkPieces(t, tk, "a  [MASK]  b", "a", "#10", "b")
	checkPieces(t, tk, "cat dog concat cats _cat cat", "#11", " dog concat cats _cat ", "#11")
	checkPieces(t, tk, "say HI hi", "say ", "#12", " ", "#12") // normalized: matched after lowercasing
	checkPieces(t, tk, "Sx sx", "#15", " sx")                  // not normalized: matched as given
	checkPieces(t, tk, "<a><b><a>", "#14", "#13")              // longest first
	if got := tk.NewCounter().Count([]byte("x<s>y")); got != 3 {
		t.Errorf("Count = %d, want 3", got)
	}
}

func TestSpecials(t *testing.T) {
	template := `{"type":"TemplateProcessing",
 "single":[{"SpecialToken":{"id":"[CLS]","type_id":0}},{"Sequence":{"id":"A","type_id":0}},{"SpecialToken":{"id":"[SEP]","type_id":0}}],
 "pair":[{"Sequence":{"id":"A","type_id":0}},{"Sequence":{"id":"B","type_id":1}}],
 "special_tokens":{"[CLS]":{"id":"[CLS]","ids":[1],"tokens":["[CLS]"]},"[SEP]":{"id":"[SEP]","ids":[2,2],"tokens":["[SEP]","[SEP]"]}}}`
	cases := []struct {
		post string
		want int
	}{
		{"", 0},
		{template, 3},
		{`{"type":"BertProcessing","sep":["[SEP]",2],"cls":["[CLS]",1]}`, 2},
		{`{"type":"RobertaProcessing","sep":["</s>",4],"cls":["<s>",3],"trim_offsets":true,"add_prefix_space":false}`, 2},
		{`{"type":"ByteLevel","add_prefix_space":true,"trim_offsets":false,"use_regex":true}`, 0},
		{`{"type":"Sequence","processors":[{"type":"ByteLevel","add_prefix_space":true,"trim_offsets":false,"use_regex":true},` + template + `]}`, 3},
	}
	for _, c := range cases {
		tk := mustBuild(t, "", `{"type":"WhitespaceSplit"}`, c.post, "")
		if tk.Specials() != c.want {
			t.Errorf("%s: Specials = %d, want %d", c.post, tk.Specials(), c.want)
		}
		cn := tk.NewCounter()
		if got := cn.Count([]byte("a b")); got != 2+c.want {
			t.Errorf("%s: Count = %d, want %d", c.post, got, 2+c.want)
		}
		if got := cn.Count(nil); got != c.want {
			t.Errorf("%s: Count(\"\") = %d, want %d", c.post, got, c.want)
		}
	}
}

func TestRefusals(t *testing.T) {
	cases := []struct{ norm, pre, post, want string }{
		{`{"type":"Foo"}`, "", "", "normalizer Foo is not implemented"},
		{"", `{"type":"Split","pattern":{"Regex":"(?<=x)(y+)+"},"behavior":"Isolated","invert":false}`, "",
			`pre_tokenizer Split: pattern: regex "(?<=x)(y+)+" repeats a group holding a repetition or an alternation (+), which can backtrack exponentially; castchunk does not run it`},
		{"", `{"type":"Split","pattern":{"Regex":"a(?=b)c*+"},"behavior":"Isolated","invert":false}`, "", "uses a possessive quantifier (*+)"},
		{"", `{"type":"Split","pattern":{"Regex":"(a)\\1"},"behavior":"Isolated","invert":false}`, "", `uses \1`},
		{"", `{"type":"Split","pattern":{"Regex":"a++"},"behavior":"Isolated","invert":false}`, "", "possessive"},
		{"", `{"type":"Split","pattern":{"Regex":"(?i)a"},"behavior":"Isolated","invert":false}`, "", "inline option"},
		{"", `{"type":"Split","pattern":{"Regex":"[^\\S]"},"behavior":"Isolated","invert":false}`, "", `\S inside a class`},
		{"", `{"type":"Split","pattern":{"String":"x"},"behavior":"Sideways","invert":false}`, "", `behavior "Sideways" is not implemented`},
		{"", `{"type":"ByteLevel","add_prefix_space":true,"trim_offsets":true,"use_regex":true,"shiny":1}`, "", `pre_tokenizer ByteLevel: field "shiny" is not implemented`},
		{`{"type":"Precompiled","precompiled_charsmap":"AAAA"}`, "", "", "normalizer Precompiled: field \"precompiled_charsmap\": 3 bytes, too short"},
		{"", "", `{"type":"TemplateProcessing","single":[{"SpecialToken":{"id":"<bos>","type_id":0}},{"Sequence":{"id":"A","type_id":0}}],
 "pair":[],"special_tokens":{"<bos>":{"id":"<bos>","ids":[9],"tokens":["<bos>"]}}}`,
			`post_processor TemplateProcessing: special_tokens: token "<bos>" is not in the vocabulary`},
		{"", "", `{"type":"TemplateProcessing","single":[{"SpecialToken":{"id":"[CLS]","type_id":0}},{"Sequence":{"id":"A","type_id":0}}],
 "pair":[],"special_tokens":{}}`, `no entry for the template's "[CLS]"`},
		{"", "", `{"type":"BertProcessing","sep":["[SEP]",2],"cls":["[XLS]",1]}`, `token "[XLS]" is not in the vocabulary`},
		{"", "", `{"type":"Ghost"}`, "post_processor Ghost is not implemented"},
	}
	for _, c := range cases {
		_, err := build(t, c.norm, c.pre, c.post, "")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error = %v, want it to say %q", err, c.want)
		}
	}
	if _, err := parse([]byte(`{"model":{"type":"Fake"},"extra":1}`), newFake); err == nil || !strings.Contains(err.Error(), `field "extra"`) {
		t.Errorf("unknown top-level field: error = %v", err)
	}
}

func TestLoadFolder(t *testing.T) {
	dir := t.TempDir()
	data := doc("", `{"type":"WhitespaceSplit"}`, `{"type":"BertProcessing","sep":["[SEP]",2],"cls":["[CLS]",1]}`, "")
	if err := os.WriteFile(filepath.Join(dir, "tokenizer.json"), []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	tk, err := loadPath(dir, newFake)
	if err != nil {
		t.Fatal(err)
	}
	if tk.Name() != dir || len(tk.SHA256()) != 64 || tk.Specials() != 2 {
		t.Errorf("Name %q SHA256 %q Specials %d", tk.Name(), tk.SHA256(), tk.Specials())
	}
	if _, err := loadPath(filepath.Join(dir, "missing"), newFake); err == nil {
		t.Error("a missing file loaded")
	}
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(doc(`{"type":"Foo"}`, "", "", "")), 0o644)
	if _, err := loadPath(bad, newFake); err == nil || !strings.HasPrefix(err.Error(), bad+": ") {
		t.Errorf("error %v does not name the file", err)
	}
}

func TestAppendStarts(t *testing.T) {
	added := `[{"id":3,"content":"<s>","single_word":false,"lstrip":false,"rstrip":false,"normalized":false,"special":true}]`
	tk := mustBuild(t, `{"type":"NFKC"}`, `{"type":"ByteLevel","add_prefix_space":true,"trim_offsets":true,"use_regex":true}`,
		`{"type":"TemplateProcessing","single":[{"SpecialToken":{"id":"<s>","type_id":0}},{"Sequence":{"id":"A","type_id":0}}],"pair":[],
"special_tokens":{"<s>":{"id":"<s>","ids":[3],"tokens":["<s>"]}}}`, added)
	cn := tk.NewCounter()
	text := []byte("ﬁx <s>  two\xff words")
	got := cn.AppendStarts(nil, text)
	want := []int32{0, 4, 5, 8, 9, 13, 14} // " fix", " ", <s>, " ", " two", "\uFFFD", " words"
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("starts (-want +got):\n%s", diff)
	}
	if n := cn.Count(text); n-tk.Specials() != len(got) {
		t.Errorf("Count %d - Specials %d != %d starts", n, tk.Specials(), len(got))
	}
}

// Tens of thousands of long added tokens (castfuzz -tokenizers, shape
// added-huge; issue 36: 50,000 of 100 characters, 12 MB, cost 550 MB per
// process, three times over with two workers): a map per trie node made
// each byte of a token cost a map. The set is flat slices now, a few
// bytes a node.
func TestManyLongAddedTokensAreCompact(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	var b strings.Builder
	b.WriteString("[")
	for i := 0; i < 50000; i++ {
		if i > 0 {
			b.WriteString(",")
		}
		content := make([]byte, 100)
		for j := range content {
			content[j] = byte('a' + r.IntN(26))
		}
		if i%2 == 0 {
			copy(content, strings.Repeat("x", 90)) // a long shared prefix
		}
		fmt.Fprintf(&b, `{"id":%d,"content":"%s","single_word":false,"lstrip":false,"rstrip":false,"normalized":%v,"special":false}`, 100+i, content, i%3 == 0)
	}
	b.WriteString("]")
	added := b.String()
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	tk := mustBuild(t, `{"type":"Lowercase"}`, "", "", added)
	runtime.GC()
	runtime.ReadMemStats(&after)
	grew := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	t.Logf("50,000 added tokens of 100 characters: %d MB", grew>>20)
	if grew > 150<<20 {
		t.Errorf("50,000 added tokens of 100 characters (%d KB of JSON) hold %d MB", len(added)>>10, grew>>20)
	}
	// They are still matched, longest first.
	tok := strings.Repeat("x", 90) + "abc"
	var c struct{ content string }
	for _, l := range strings.SplitAfter(added, "},") {
		if strings.Contains(l, `"content":"`+strings.Repeat("x", 90)) {
			i := strings.Index(l, `"content":"`) + len(`"content":"`)
			c.content = l[i : i+100]
			break
		}
	}
	checkPieces(t, tk, "say "+c.content+" "+tok, "say ", "#100", " "+tok)
	runtime.KeepAlive(tk)
}

// A normalized added token is normalized when the file is loaded, in
// every process of a run and before any limit: an 8 KB tokenizer.json
// whose normalizer expands "b" a millionfold (Replace "b" -> 1,000 "c",
// "c" -> 1,000 "d") and twenty added tokens of 100 "b" took 6 minutes and
// 20 GB to load (castfuzz -tokenizers). What the normalizer may make of
// the added tokens is bounded: past it the file is refused, named, before
// the work.
func TestExpandingNormalizerOnAddedTokensIsRefused(t *testing.T) {
	grow := `{"type":"Sequence","normalizers":[{"type":"Replace","pattern":{"String":"b"},"content":"` + strings.Repeat("c", 1000) +
		`"},{"type":"Replace","pattern":{"String":"c"},"content":"` + strings.Repeat("d", 1000) + `"}]}`
	added := func(content string, normalized bool) string {
		return fmt.Sprintf(`[{"id":9,"content":%q,"single_word":false,"lstrip":false,"rstrip":false,"normalized":%v,"special":false}]`, content, normalized)
	}
	for _, n := range []int{20, 100000} {
		start := time.Now()
		_, err := build(t, grow, "", "", added(strings.Repeat("b", n), true))
		if err == nil || !strings.Contains(err.Error(), "added token") {
			t.Errorf("%d b, normalized: err %v, want a refusal naming the added token", n, err)
		}
		if took := time.Since(start); took > 5*time.Second {
			t.Errorf("%d b, normalized: refused after %v", n, took)
		}
	}
	// Not normalized, or expanded within bounds: loaded, and matched.
	checkPieces(t, mustBuild(t, grow, "", "", added(strings.Repeat("b", 20), false)), "x"+strings.Repeat("b", 20), "x", "#9")
	tk := mustBuild(t, `{"type":"Replace","pattern":{"String":"b"},"content":"cc"}`, "", "", added("bb", true))
	checkPieces(t, tk, "xbb", "x", "#9")
}

// A Sequence of Sequences nested thousands deep (castfuzz -tokenizers,
// shape deep-nesting: a normalizer 4,135 deep took 2 GB over a run's
// three processes, each level's reader copying the JSON below it). The
// crate reads tokenizer.json with serde_json, which refuses 128 nested
// arrays and objects: so does the load, before any component is read.
func TestDeepSequencesAreRefused(t *testing.T) {
	for _, depth := range []int{70, 3000} { // 142 and 6,002 levels of JSON
		norm := `{"type":"Lowercase"}`
		pre := `{"type":"WhitespaceSplit"}`
		for i := 0; i < depth; i++ {
			norm = `{"type":"Sequence","normalizers":[` + norm + `]}`
			pre = `{"type":"Sequence","pretokenizers":[` + pre + `]}`
		}
		start := time.Now()
		if _, err := build(t, norm, "", "", ""); err == nil || !strings.Contains(err.Error(), "nested more than 127 deep") {
			t.Errorf("normalizer Sequences %d deep: err %v, want nested more than 127 deep", depth, err)
		}
		if _, err := build(t, "", pre, "", ""); err == nil || !strings.Contains(err.Error(), "nested more than 127 deep") {
			t.Errorf("pre_tokenizer Sequences %d deep: err %v, want nested more than 127 deep", depth, err)
		}
		if took := time.Since(start); took > 2*time.Second {
			t.Errorf("Sequences %d deep: refused after %v", depth, took)
		}
	}
	// 40 deep (82 levels of JSON) is loaded, as the crate loads it.
	norm := `{"type":"Lowercase"}`
	for i := 0; i < 40; i++ {
		norm = `{"type":"Sequence","normalizers":[` + norm + `]}`
	}
	checkPieces(t, mustBuild(t, norm, `{"type":"WhitespaceSplit"}`, "", ""), "A b", "a", "b")
}
